//! The auditor's replay: read an export (NDJSON from `GET /v1/export` or
//! `fairdeal export`), and for every round check that the revealed seed hashes
//! to the published commitment, that fairdeal-v1 gives exactly the recorded
//! cards, and that each pair's nonces run 0, 1, 2, … with no gap or repeat.
//!
//! Lines are read in batches; parsing and the cryptographic checks of a batch
//! run in parallel on all cores, then the order-dependent checks (nonce
//! sequence, agreement with the pair line, completeness) run in order. Memory
//! is bounded by the batch size, whatever the length of the export.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::BufRead;

use fairdeal_core::{
    Card, ClientSeed, Commitment, CommitmentCheck, Deal, DealCheck, Game, Layout, SeedKey,
    ServerSeed, compare_deals, deal_with,
};
use fairdeal_stats::evidence::{Evidence, StatsReport};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::export::{ExportEnd, ExportPair};

/// Lines verified together.
const BATCH_LINES: usize = 4096;
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
    /// `nonce_repeat`, `missing_rounds`, `truncated`, `table`.
    pub kind: &'static str,
    /// What is wrong, in words.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "end of input: {}", self.detail)
        } else {
            write!(f, "line {}: {}", self.line, self.detail)
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
    pub problems: u64,
    /// The first problems (all of them, up to 10,000).
    pub findings: Vec<Finding>,
    /// The statistical tests over every recorded deal.
    pub statistics: Option<StatsReport>,
    /// Seconds spent reading and verifying (before the statistics).
    pub verify_seconds: f64,
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

/// A line, parsed and (for rounds) checked, in parallel.
enum Checked<'a> {
    /// A pair line, with what is wrong with its table record (if a table).
    Pair(ExportPair, Vec<String>),
    Round {
        round: RoundLine<'a>,
        /// Problems found from the line alone.
        problems: LineProblems,
        /// The recorded game and deal, when they parse.
        dealt: Option<(Game, Deal)>,
    },
    End(ExportEnd),
    Malformed(String),
    Blank,
}

/// A round line as the audit reads it: the export's round record
/// ([`ExportRound`]), its strings borrowed from the line (copied only when
/// they hold escapes) and its game and deal left as raw JSON, parsed in
/// [`check_round`] — so a bad game or deal is that round's finding, not a
/// malformed line.
#[derive(Debug, Deserialize)]
pub struct RoundLine<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub seed_pair_id: Cow<'a, str>,
    #[serde(borrow)]
    pub protocol: Cow<'a, str>,
    #[serde(borrow)]
    pub server_seed_hash: Cow<'a, str>,
    #[serde(borrow)]
    pub server_seed: Cow<'a, str>,
    #[serde(borrow)]
    pub client_seed: Cow<'a, str>,
    pub nonce: u64,
    #[serde(borrow)]
    pub game: &'a RawValue,
    #[serde(borrow)]
    pub deal: &'a RawValue,
    #[serde(borrow, rename = "created_at")]
    _created_at: Cow<'a, str>,
}

fn round_name(round: &RoundLine<'_>) -> String {
    format!(
        "round {} (pair {}, nonce {})",
        round.id, round.seed_pair_id, round.nonce
    )
}

/// Problems found in one line: (kind, detail).
type LineProblems = Vec<(&'static str, String)>;

/// The seed a worker thread checked last, and what follows from it: rounds
/// come grouped by pair, so the next line nearly always repeats the seed,
/// and its commitment check and prepared HMAC key are used again.
struct LastSeed {
    server_seed: String,
    server_seed_hash: String,
    commitment: CommitmentCheck,
    key: SeedKey,
}

thread_local! {
    static LAST_SEED: RefCell<Option<LastSeed>> = const { RefCell::new(None) };
}

/// Recomputes one round from its own line; also returns its game and deal.
fn check_round(round: &RoundLine<'_>) -> (LineProblems, Option<(Game, Deal)>) {
    let name = round_name(round);
    let parsed = LAST_SEED.with(|last| -> Result<_, String> {
        let mut last = last.borrow_mut();
        let known = last.as_ref().is_some_and(|l| {
            l.server_seed == *round.server_seed && l.server_seed_hash == *round.server_seed_hash
        });
        if !known {
            let seed = ServerSeed::from_hex(&round.server_seed)
                .map_err(|e| format!("server_seed: {e}"))?;
            let published = Commitment::from_hex(&round.server_seed_hash)
                .map_err(|e| format!("server_seed_hash: {e}"))?;
            let computed = seed.commitment();
            *last = Some(LastSeed {
                server_seed: round.server_seed.to_string(),
                server_seed_hash: round.server_seed_hash.to_string(),
                commitment: if computed == published {
                    CommitmentCheck::Match
                } else {
                    CommitmentCheck::Mismatch {
                        published,
                        computed,
                    }
                },
                key: SeedKey::new(&seed),
            });
        }
        let client =
            ClientSeed::new(round.client_seed.as_ref()).map_err(|e| format!("client_seed: {e}"))?;
        let game: Game =
            serde_json::from_str(round.game.get()).map_err(|e| format!("game: {e}"))?;
        let deal: Deal =
            serde_json::from_str(round.deal.get()).map_err(|e| format!("deal: {e}"))?;
        let last = last.as_ref().ok_or("no seed")?;
        Ok((
            last.commitment,
            deal_with(&last.key, &client, round.nonce, game),
            game,
            deal,
        ))
    });
    let (commitment, computed, game, recorded) = match parsed {
        Ok(parts) => parts,
        Err(why) => return (vec![("malformed", format!("{name}: {why}"))], None),
    };
    if round.protocol != fairdeal_core::PROTOCOL {
        let why = format!(
            "{name}: protocol {:?} is not {}",
            round.protocol,
            fairdeal_core::PROTOCOL
        );
        return (vec![("record", why)], None);
    }
    let mut problems = Vec::new();
    if let CommitmentCheck::Mismatch {
        published,
        computed,
    } = commitment
    {
        problems.push((
            "commitment",
            format!(
                "{name}: wrong commitment: SHA-256 of the revealed seed is {computed}, but {published} was published"
            ),
        ));
    }
    match compare_deals(&computed, &recorded) {
        DealCheck::Match => {}
        DealCheck::CardDiffers {
            slot,
            computed,
            recorded,
        } => problems.push((
            "card",
            format!("{name}: wrong card at {slot}: recorded {recorded}, fairdeal-v1 deals {computed}"),
        )),
        DealCheck::LayoutDiffers {
            computed_cards,
            recorded_cards,
        } => problems.push((
            "layout",
            format!(
                "{name}: the recorded deal is not laid out as {game}: {recorded_cards} cards recorded, {computed_cards} dealt"
            ),
        )),
    }
    (problems, Some((game, recorded)))
}

/// The first card dealt in a round (the top of the shuffled deck).
fn first_card(deal: &Deal) -> Option<Card> {
    match deal {
        Deal::Deck { deck } => deck.first().copied(),
        Deal::Board { hands, .. } | Deal::Hands { hands, .. } => {
            hands.first().and_then(|h| h.first()).copied()
        }
    }
}

/// Adds a recorded deal to the statistics.
pub fn add_to_evidence(evidence: &mut Evidence, game: Game, deal: &Deal) {
    match (game.layout(), deal) {
        (Layout::Deck { decks: 1 }, Deal::Deck { deck }) => evidence.add_full_deck(deck),
        (Layout::Omaha { .. }, Deal::Board { .. }) => {
            evidence.add_dealt_prefix(&deal.dealt_order());
        }
        (Layout::Holdem { .. }, Deal::Board { hands, board, .. }) => {
            evidence.add_dealt_prefix(&deal.dealt_order());
            for hand in hands {
                if let [a, b] = hand[..] {
                    evidence.add_starting_hand(a, b);
                }
            }
            if let Some(seat_one) = hands.first() {
                let seven: Vec<Card> = seat_one.iter().chain(board).copied().collect();
                evidence.add_seven_card_hand(&seven);
            }
        }
        (Layout::Hands { cards, decks, .. }, Deal::Hands { hands, .. }) => {
            if cards == 5 && decks == 1 {
                for hand in hands {
                    evidence.add_five_card_hand(hand);
                }
            }
            if decks == 1 {
                evidence.add_full_deck(&deal.dealt_order());
            }
        }
        _ => {}
    }
}

fn check_line(text: &str) -> Checked<'_> {
    if text.trim().is_empty() {
        return Checked::Blank;
    }
    // The export writes `type` first: read that without parsing the line
    // twice. Any other line (hand-written, reordered) takes the slow path.
    let kind = if text.starts_with(r#"{"type":"round","#) {
        Some("round".to_owned())
    } else {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => value
                .get("type")
                .and_then(|t| t.as_str())
                .map(str::to_owned),
            Err(err) => return Checked::Malformed(format!("not JSON ({err})")),
        }
    };
    let parsed = match kind.as_deref() {
        Some("seed_pair") => serde_json::from_str(text).map(|pair: ExportPair| {
            let problems = pair
                .table
                .as_ref()
                .map(|table| table.problems(&pair.client_seed))
                .unwrap_or_default();
            Checked::Pair(pair, problems)
        }),
        Some("round") => serde_json::from_str(text).map(|round: RoundLine<'_>| {
            let (problems, dealt) = check_round(&round);
            Checked::Round {
                round,
                problems,
                dealt,
            }
        }),
        Some("end") => serde_json::from_str(text).map(Checked::End),
        Some(other) => return Checked::Malformed(format!("unknown record type {other:?}")),
        None => return Checked::Malformed("a record without a \"type\"".to_owned()),
    };
    parsed.unwrap_or_else(|err| Checked::Malformed(format!("not a valid record ({err})")))
}

/// The kinds of problem one export line has on its own (the half of the
/// audit that runs in parallel): none for a blank line or a valid record
/// whose round, if it is one, verifies. For the fuzz target and for tools
/// that check a line at a time.
pub fn line_problems(text: &str) -> Vec<&'static str> {
    match check_line(text) {
        Checked::Pair(_, problems) => problems.iter().map(|_| "table").collect(),
        Checked::Blank | Checked::End(_) => Vec::new(),
        Checked::Malformed(_) => vec!["malformed"],
        Checked::Round { problems, .. } => problems.iter().map(|(kind, _)| *kind).collect(),
    }
}

/// The order-dependent state: the pair being read and its next nonce.
#[derive(Default)]
struct Sequence {
    /// The pair, its line, and the nonce expected next. That is a `u128` so
    /// that a round with nonce 2^64 − 1 (untrusted input) has a successor.
    pair: Option<(ExportPair, u64, u128)>,
    ended: bool,
    /// The first card of the pair's previous round, for serial correlation.
    previous_first: Option<Card>,
}

impl Sequence {
    fn close_pair(&mut self, report: &mut Report) {
        self.previous_first = None;
        if let Some((pair, line, seen)) = self.pair.take()
            && seen < u128::from(pair.rounds)
        {
            report.add(
                line,
                "missing_rounds",
                format!(
                    "pair {}: {} rounds were dealt (nonces 0 to {}) but only {seen} are listed",
                    pair.id,
                    pair.rounds,
                    pair.rounds.saturating_sub(1)
                ),
            );
        }
    }

    fn round(&mut self, line: u64, round: &RoundLine<'_>, report: &mut Report) {
        let Some((pair, _, seen)) = self.pair.as_mut() else {
            report.add(
                line,
                "record",
                format!("{}: comes before any seed_pair line", round_name(round)),
            );
            return;
        };
        if *round.seed_pair_id != pair.id {
            report.add(
                line,
                "record",
                format!("{}: listed under pair {}", round_name(round), pair.id),
            );
            return;
        }
        for (field, mine, theirs) in [
            (
                "server_seed",
                &*round.server_seed,
                pair.server_seed.as_str(),
            ),
            (
                "server_seed_hash",
                &*round.server_seed_hash,
                pair.server_seed_hash.as_str(),
            ),
            (
                "client_seed",
                &*round.client_seed,
                pair.client_seed.as_str(),
            ),
        ] {
            if mine != theirs {
                report.add(
                    line,
                    "record",
                    format!(
                        "{}: its {field} differs from its seed pair's",
                        round_name(round)
                    ),
                );
            }
        }
        let expected = *seen;
        let nonce = u128::from(round.nonce);
        if nonce < expected {
            report.add(
                line,
                "nonce_repeat",
                format!(
                    "{}: nonce {} repeats or goes back (expected {expected})",
                    round_name(round),
                    round.nonce
                ),
            );
        } else {
            if nonce > expected {
                let missing = if nonce - expected == 1 {
                    format!("nonce {expected} is missing")
                } else {
                    format!("nonces {expected} to {} are missing", round.nonce - 1)
                };
                report.add(
                    line,
                    "nonce_gap",
                    format!("{}: nonce gap: {missing}", round_name(round)),
                );
            }
            *seen = nonce + 1;
        }
        if round.nonce >= pair.rounds {
            report.add(
                line,
                "record",
                format!(
                    "{}: the pair says it dealt only {} rounds",
                    round_name(round),
                    pair.rounds
                ),
            );
        }
    }
}

/// Progress callback: lines and rounds read so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Audits an export from `input`.
pub fn audit(input: impl BufRead, progress: Progress<'_>) -> std::io::Result<Report> {
    audit_observed(input, progress, &mut |_, _| {})
}

/// [`audit`], calling `observe` with each round line (its line number and
/// record) in order, for checks that need the whole export (such as the
/// cross-check against a transparency log).
pub fn audit_observed(
    input: impl BufRead,
    progress: Progress<'_>,
    observe: &mut dyn FnMut(u64, &RoundLine<'_>),
) -> std::io::Result<Report> {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut sequence = Sequence::default();
    let mut evidence = Evidence::default();
    let mut lines = input.lines();
    let mut line_no = 0u64;
    loop {
        let mut batch = Vec::with_capacity(BATCH_LINES);
        for line in lines.by_ref().take(BATCH_LINES) {
            line_no += 1;
            match line {
                Ok(text) => batch.push((line_no, text)),
                // Invalid UTF-8 is a malformed line, not the end of the audit.
                Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                    batch.push((line_no, String::from("\u{0}invalid UTF-8")))
                }
                Err(err) => return Err(err),
            }
        }
        if batch.is_empty() {
            break;
        }
        // Lines are checked, and their deals counted into the statistics,
        // in parallel, a chunk at a time; the order-dependent checks follow.
        let checked: Vec<(Vec<(u64, Checked<'_>)>, Evidence)> = batch
            .par_chunks(EVIDENCE_CHUNK)
            .map(|chunk| {
                let mut counted = Evidence::default();
                let items = chunk
                    .iter()
                    .map(|(line, text)| {
                        let item = if text.starts_with('\u{0}') {
                            Checked::Malformed("not valid UTF-8".to_owned())
                        } else {
                            check_line(text)
                        };
                        if let Checked::Round {
                            dealt: Some((game, deal)),
                            ..
                        } = &item
                        {
                            add_to_evidence(&mut counted, *game, deal);
                        }
                        (*line, item)
                    })
                    .collect();
                (items, counted)
            })
            .collect();
        let mut lines_checked = Vec::with_capacity(batch.len());
        for (items, counted) in checked {
            evidence.merge(&counted);
            lines_checked.extend(items);
        }
        for (line, item) in lines_checked {
            report.lines = line;
            if sequence.ended && !matches!(item, Checked::Blank) {
                report.add(line, "record", "a record after the end line".to_owned());
            }
            match item {
                Checked::Blank => {}
                Checked::Malformed(why) => {
                    report.add(line, "malformed", format!("malformed line: {why}"))
                }
                Checked::Pair(pair, problems) => {
                    sequence.close_pair(&mut report);
                    for problem in problems {
                        report.add(line, "table", format!("pair {}: {problem}", pair.id));
                    }
                    report.seed_pairs += 1;
                    sequence.pair = Some((pair, line, 0));
                }
                Checked::Round {
                    round,
                    problems,
                    dealt,
                } => {
                    report.rounds += 1;
                    if let Some((_, deal)) = &dealt {
                        let first = first_card(deal);
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
                    sequence.round(line, &round, &mut report);
                }
                Checked::End(end) => {
                    sequence.close_pair(&mut report);
                    sequence.ended = true;
                    if end.seed_pairs != report.seed_pairs || end.rounds != report.rounds {
                        report.add(
                            line,
                            "record",
                            format!(
                                "the end line counts {} pairs and {} rounds, but {} and {} were read",
                                end.seed_pairs, end.rounds, report.seed_pairs, report.rounds
                            ),
                        );
                    }
                }
            }
        }
        progress(report.lines, report.rounds);
    }
    if !sequence.ended {
        sequence.close_pair(&mut report);
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
