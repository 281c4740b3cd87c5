//! The auditor's replay: read an export (NDJSON from `GET /v1/export` or
//! `fairdeal export`), and for every round check that the revealed seed hashes
//! to the published commitment, that fairdeal-v1 gives exactly the recorded
//! cards, and that each pair's nonces run 0, 1, 2, … with no gap or repeat.
//!
//! The input is read in blocks of whole lines, on a thread of its own, and
//! checked in batches of at most 1,024 lines: parsing and the cryptographic
//! checks of a batch run in parallel on all cores while the order-dependent
//! checks (nonce sequence, agreement with the pair line, completeness) of
//! the batch before it run in order. Memory is bounded by two blocks and
//! their batches, whatever the length of the export (a line may be at most
//! 4 MiB), and 16 bytes a pair, for the pair ids that name a pair listed
//! twice.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::BufRead;
use std::sync::LazyLock;

use fairdeal_core::{
    Card, ClientSeed, Commitment, CommitmentCheck, CompactDeal, Deal, DealCheck, Game, Layout,
    SeedKey, ServerSeed, compact_deal_with, compare_deals,
};
use fairdeal_stats::evidence::{Evidence, StatsReport};
use sha2::{Digest, Sha256};

use super::monitor::hash32;
use memchr::memmem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::export::{ExportEnd, ExportPair};

mod blocks;
mod lines;
mod sequence;

use blocks::*;
use lines::*;
pub use lines::{RoundLine, add_to_evidence, line_problems};
use sequence::*;

/// Lines checked together: a block (about 3,400 export lines) is checked
/// in a few batches, so that taking in one batch's outcome overlaps
/// checking the next; a block of shorter lines is checked this many at a
/// time.
const BATCH_LINES: usize = 1024;
/// Lines a worker checks, and counts into its own statistics, at a time.
const EVIDENCE_CHUNK: usize = 256;
/// Findings kept in full; beyond this only counted.
const MAX_FINDINGS_KEPT: usize = 10_000;

/// One thing wrong with an export, located by line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// 1-based line of the export (0 for the end of the input).
    pub line: u64,
    /// `malformed`, `commitment`, `card`, `layout`, `record`, `nonce_gap`,
    /// `nonce_repeat`, `missing_rounds`, `truncated`, `table`, and with
    /// `--log`, `log`.
    pub kind: &'static str,
    /// What is wrong, in words.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let detail = super::printable(&self.detail);
        if self.line == 0 {
            write!(f, "end of input: {detail}")
        } else {
            write!(f, "line {}: {detail}", self.line)
        }
    }
}

/// The audit's result.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub lines: u64,
    pub seed_pairs: u64,
    pub rounds: u64,
    /// Rounds whose commitment and cards both check out.
    pub rounds_verified: u64,
    /// Draws listed, and of those whose seed and winners check out.
    pub draws: u64,
    pub draws_verified: u64,
    /// The period the export covers: the earliest pair's creation and the
    /// latest reveal (RFC 3339), when it lists any pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<(String, String)>,
    pub problems: u64,
    /// The first problems (all of them, up to 10,000).
    pub findings: Vec<Finding>,
    /// The statistical tests over every recorded deal.
    pub statistics: Option<StatsReport>,
    /// Seconds spent reading and verifying (before the statistics).
    pub verify_seconds: f64,
    /// With `--log`: what was checked of the transparency log, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// The log's reveals the export says it covers (its end line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_coverage: Option<super::export::LogCoverage>,
    /// Revealed chain tips not held to their last round's seed: past an
    /// audit's budget of SHA-256 steps (every round's link is checked).
    #[serde(skip_serializing_if = "is_zero")]
    pub chain_tips_unchecked: u64,
    /// Draws whose entrant lists the export carried (`draw_lines`) and
    /// that hash to their commitments.
    #[serde(skip_serializing_if = "is_zero")]
    pub draw_lists_checked: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Report {
    pub fn passed(&self) -> bool {
        self.problems == 0
    }

    /// Records a finding (counted always, kept up to a limit).
    pub fn add(&mut self, line: u64, kind: &'static str, detail: String) {
        self.problems += 1;
        if self.findings.len() < MAX_FINDINGS_KEPT {
            self.findings.push(Finding { line, kind, detail });
        }
    }
}

/// Takes in a checked batch, in line order: its statistics, its findings,
/// and the checks that need the lines in order (nonce sequences, the end
/// line's counts).
fn take_in(
    checked: Vec<(Vec<(u64, Checked<'_>)>, Evidence)>,
    report: &mut Report,
    sequence: &mut Sequence,
    evidence: &mut Evidence,
    observe: &mut dyn FnMut(u64, &RoundLine<'_>),
) {
    for (_, counted) in &checked {
        evidence.merge(counted);
    }
    for (line, item) in checked.into_iter().flat_map(|(items, _)| items) {
        report.lines = line;
        if sequence.ended && !matches!(item, Checked::Blank) {
            report.add(line, "record", "a record after the end line".to_owned());
        }
        if !matches!(
            item,
            Checked::Blank | Checked::DrawLines(_) | Checked::Draw(..)
        ) {
            sequence.close_draw(report);
        }
        match item {
            Checked::DrawLines(record) => sequence.draw_lines(line, &record, report),
            Checked::Blank => {}
            Checked::Malformed(why) => {
                report.add(line, "malformed", format!("malformed line: {why}"))
            }
            Checked::Pair(pair, problems) => {
                sequence.close_pair(report);
                for (kind, problem) in problems {
                    report.add(line, kind, problem);
                }
                let key = match uuid::Uuid::try_parse(&pair.id) {
                    Ok(id) => id.as_u128(),
                    Err(_) => {
                        let digest = <sha2::Sha256 as sha2::Digest>::digest(pair.id.as_bytes());
                        u128::from_be_bytes(digest[..16].try_into().unwrap_or_default())
                    }
                };
                let first = *sequence.pairs_seen.entry(key).or_insert(line);
                if first != line {
                    report.add(
                        line,
                        "record",
                        format!("pair {}: listed again (first on line {first})", pair.id),
                    );
                }
                report.seed_pairs += 1;
                let (from, to) = report
                    .period
                    .get_or_insert_with(|| (pair.created_at.clone(), pair.revealed_at.clone()));
                if pair.created_at < *from {
                    from.clone_from(&pair.created_at);
                }
                if pair.revealed_at > *to {
                    to.clone_from(&pair.revealed_at);
                }
                sequence.open_chain(&pair);
                sequence.pair = Some((pair, line, 0));
            }
            Checked::Round {
                round,
                problems,
                first,
            } => {
                report.rounds += 1;
                if let Some(first) = first {
                    if let (Some(previous), Some(first)) = (sequence.previous_first, first) {
                        evidence.add_consecutive_first_cards(previous, first);
                    }
                    sequence.previous_first = first;
                }
                if problems.is_empty() {
                    report.rounds_verified += 1;
                }
                for (kind, detail) in problems {
                    report.add(line, kind, detail);
                }
                observe(line, &round);
                sequence.round(line, &round, report);
            }
            Checked::Draw(problems, list) => {
                sequence.close_pair(report);
                sequence.open_draw(line, list, report);
                report.draws += 1;
                if problems.is_empty() {
                    report.draws_verified += 1;
                }
                for (kind, problem) in problems {
                    report.add(line, kind, problem);
                }
            }
            Checked::End(end) => {
                sequence.close_pair(report);
                sequence.ended = true;
                match end.log {
                    Some(log) if log.from > log.size => report.add(
                        line,
                        "record",
                        format!(
                            "the end line's log coverage starts at entry {} after its end, entry {}",
                            log.from, log.size
                        ),
                    ),
                    log => report.log_coverage = log,
                }
                if end.seed_pairs != report.seed_pairs
                    || end.rounds != report.rounds
                    || end.draws != report.draws
                {
                    report.add(
                        line,
                        "record",
                        format!(
                            "the end line counts {} pairs, {} rounds and {} draws, but {}, {} and {} were read",
                            end.seed_pairs,
                            end.rounds,
                            end.draws,
                            report.seed_pairs,
                            report.rounds,
                            report.draws
                        ),
                    );
                }
            }
        }
    }
}

/// Progress callback: lines and rounds read so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Audits an export from `input`.
pub fn audit(input: impl BufRead + Send, progress: Progress<'_>) -> std::io::Result<Report> {
    audit_observed(input, progress, &mut |_, _| {})
}

/// [`audit`], calling `observe` with each round line (its line number and
/// record) in order, for checks that need the whole export (such as the
/// cross-check against a transparency log).
pub fn audit_observed(
    input: impl BufRead + Send,
    progress: Progress<'_>,
    observe: &mut dyn FnMut(u64, &RoundLine<'_>),
) -> std::io::Result<Report> {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut sequence = Sequence::default();
    let mut evidence = Evidence::default();
    // Three things overlap. A thread of its own reads the input a block at
    // a time (and the caller's reader hashes it, for the provenance); the
    // pool checks a block's lines a batch at a time; this thread takes in
    // each batch's outcome (the checks that need the lines in order) while
    // the pool checks the batch after it.
    let (block_tx, block_rx) = std::sync::mpsc::sync_channel::<std::io::Result<Vec<u8>>>(0);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|threads| {
        threads.spawn(move || {
            let mut blocks = Blocks {
                input,
                carry: Vec::new(),
            };
            // Until the input ends, fails, or the audit stops listening.
            while let Some(read) = blocks.next_block(spare_rx.try_recv().ok()).transpose() {
                let failed = read.is_err();
                if block_tx.send(read).is_err() || failed {
                    break;
                }
            }
        });
        // Dropped on return, so that an early return ends the reader too.
        let block_rx = block_rx;
        let mut line_no = 0u64;
        for block in &block_rx {
            let block = block?;
            // A block is checked a batch of lines at a time, so that memory
            // stays bounded however short its lines are.
            let mut rest: &[u8] = &block;
            let batch = split_lines(&mut rest, &mut line_no, BATCH_LINES);
            let mut checked = check_batch(&batch);
            while !rest.is_empty() {
                let batch = split_lines(&mut rest, &mut line_no, BATCH_LINES);
                let mut following = Vec::new();
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| following = check_batch(&batch));
                    take_in(
                        std::mem::take(&mut checked),
                        &mut report,
                        &mut sequence,
                        &mut evidence,
                        observe,
                    );
                });
                checked = following;
            }
            take_in(checked, &mut report, &mut sequence, &mut evidence, observe);
            // The reader reuses the block's memory; gone if it has ended.
            let _ = spare_tx.send(block);
            progress(report.lines, report.rounds);
        }
        Ok::<(), std::io::Error>(())
    })?;
    if !sequence.ended {
        sequence.close_pair(&mut report);
        sequence.close_draw(&mut report);
        report.add(
            0,
            "truncated",
            "the export has no end line: it was cut off (resume with the last seed_pair line's cursor)"
                .to_owned(),
        );
    }
    report.verify_seconds = started.elapsed().as_secs_f64();
    report.statistics = Some(evidence.report());
    Ok(report)
}
