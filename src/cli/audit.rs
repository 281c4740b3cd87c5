//! `fairdeal audit SOURCE`: replay every round of an export and give a verdict.

use std::fs::File;
use std::io::{BufReader, IsTerminal, Read};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest as _, Sha256};

use fairdeal_stats::evidence::{StatsReport, Verdict};

use super::InputError;
use crate::audit::{Report, audit_observed, report};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A verdict and one line per problem, then the statistics.
    Text,
    /// One JSON object.
    Json,
    /// One self-contained HTML file with plots (inline SVG).
    Html,
}

/// `fairdeal audit --help`, after the options.
pub const AUDIT_HELP: &str = "\
SOURCE is an export file (from `fairdeal export` or GET /v1/export), `-` for
standard input, or the base URL of a running service (http://host:port), whose
/v1/export is read. With --hands FILE, a plain hand history is tested instead
(one round per line: `As Kd | 7h 8h 9c Tc Jd`, `As Kd`, or five cards).

Statistics: card x position (complete decks, and the positions hold'em and
omaha deal), red/black runs, hold'em starting hands (pair/suited/offsuit and
the 169 classes), 5-card and 7-card hand categories against exact counts, and
serial correlation; each fails below p = 0.001/k and warns below 0.05/k
(Bonferroni over the k tests with enough data).

Exit status: 0 every round verified (and no statistical test failed); 1 a
problem was found in the records (each listed with its line); 2 the input
could not be read or a hand-history line is malformed; 3 the records verify
but a statistical test failed.";

/// `fairdeal stats --help`, after the options.
pub const STATS_HELP: &str = "\
SOURCE is an export file (from `fairdeal export` or GET /v1/export), `-` for
standard input, or the base URL of a running service (http://host:port), whose
/v1/export is read. With --hands FILE, a plain hand history is tested instead
(one round per line: `As Kd | 7h 8h 9c Tc Jd`, `As Kd`, or five cards).

Only the statistics: the records are read but not judged (use `fairdeal audit`
to check every commitment, card and nonce). Tests: card x position (complete
decks, and the positions hold'em and omaha deal), red/black runs, hold'em
starting hands (pair/suited/offsuit and the 169 classes), 5-card and 7-card
hand categories against exact counts, and serial correlation; each fails below
p = 0.001/k and warns below 0.05/k (Bonferroni over the k tests with enough
data), and a test without enough data says how many more it needs.

Exit status: 0 no statistical test failed; 2 the input could not be read or a
hand-history line is malformed; 3 a statistical test failed.";

#[derive(Debug, Args)]
pub struct AuditOpts {
    /// Export file, `-` for stdin, or a service's base URL.
    #[arg(required_unless_present = "hands", conflicts_with = "hands")]
    pub source: Option<String>,
    /// Test a plain hand history instead of an export (no seeds needed).
    #[arg(long, value_name = "FILE")]
    pub hands: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Cross-check the export against this service's transparency log
    /// (its base URL): every round of a pair the log reveals must be in the
    /// export with the same nonce, game and id, and every exported round in
    /// the log; the commitment, client seed and revealed seed its rounds
    /// give each pair must be the ones the log holds for it. The log itself
    /// is checked first by the same rules as `fairdeal monitor` (signature,
    /// tree, tiles, the order of events, the first entry of each kind wins).
    #[arg(long, value_name = "URL", conflicts_with = "hands")]
    pub log: Option<String>,
    /// With --log: the log's verifier key (NAME+HASH+KEY), as published out
    /// of band; the checkpoint must verify with it before anything else is
    /// read (by default the key the log serves).
    #[arg(long, value_name = "VKEY", requires = "log")]
    pub log_key: Option<String>,
    /// With --log: a witness trusted to vouch for the log's checkpoint (its
    /// cosignature verifier key), repeatable; see `fairdeal monitor
    /// --witness-key`.
    #[arg(long = "witness-key", value_name = "VKEY", requires = "log")]
    pub witness_keys: Vec<String>,
    /// With --witness-key: how many must have cosigned (default: all).
    #[arg(long, value_name = "K", requires = "log")]
    pub witness_quorum: Option<usize>,
    /// With --log: a `fairdeal monitor --state` file of this log. Only the
    /// entries added since the checkpoint it accepted are read (the new
    /// checkpoint must extend it), and the pairs revealed before are held
    /// against the export from the digests its monitor kept of them
    /// (FILE.digests): the time goes to the export, not to reading the log
    /// again. The files are read, not changed. A snapshot or ledger the
    /// run cannot use means the whole log is read (the report says so).
    #[arg(long, value_name = "FILE", requires = "log")]
    pub state: Option<std::path::PathBuf>,
    /// When the source is a service: give up once it has sent nothing for
    /// this many seconds (a stalled service ends the audit with an error
    /// instead of holding it forever). 1 to 86,400.
    #[arg(long, value_name = "SECONDS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub read_timeout: u64,
}

/// Reads the export at `source` and the log at `base` again for `pairs`
/// alone, and names every difference between them: each a (line, detail).
fn differences(
    base: &str,
    pin: Option<&str>,
    policy: Option<&crate::audit::witnessed::WitnessPolicy>,
    source: &str,
    read_timeout: u64,
    pairs: std::collections::HashSet<String>,
    bars: &indicatif::MultiProgress,
) -> anyhow::Result<Vec<(u64, String)>> {
    let (input, _) = open(source, read_timeout)?;
    let mut exported: std::collections::HashMap<RoundKey, ExportedRound> =
        std::collections::HashMap::new();
    let mut exported_pairs: std::collections::HashMap<String, ExportedPair> =
        std::collections::HashMap::new();
    let mut observe = |line: u64, round: &crate::audit::replay::RoundLine<'_>| {
        if !pairs.contains(round.seed_pair_id.as_ref()) {
            return;
        }
        let game = serde_json::from_str(round.game).unwrap_or_default();
        // A chain round's seed is its own; its pair's tip is not on the line.
        let chain = round.protocol == fairdeal_core::CHAIN_PROTOCOL;
        exported.insert(
            (round.seed_pair_id.to_string(), round.nonce),
            (
                line,
                game,
                round.id.to_string(),
                chain.then(|| round.server_seed.to_string()),
            ),
        );
        exported_pairs
            .entry(round.seed_pair_id.to_string())
            .or_insert_with(|| {
                (
                    line,
                    round.server_seed_hash.to_string(),
                    (!chain).then(|| round.server_seed.to_string()),
                    round.client_seed.to_string(),
                )
            });
    };
    audit_observed(
        BufReader::with_capacity(64 << 10, input),
        &mut |_, _| {},
        &mut observe,
    )
    .context("reading the export again")?;
    let (checker, _) = super::monitor::read_log(
        base,
        super::monitor::Trust {
            key: pin,
            witnesses: policy,
        },
        None,
        None,
        super::monitor::Ledger::Ignore,
        true,
        Some(bars),
        |checker| checker.facts_of(pairs.clone()),
        |_| {},
    )
    .map_err(|e| InputError::unreadable("--log", format!("{e:#}")))?;
    let (_, facts) = checker.finish(crate::time::now_ms(), i64::MAX);
    let mut found = Vec::new();
    // A pair made (or given its client seed) before the log existed has no
    // entry for it; its reveal, which every exported round needs, still
    // pins the seed, and the seed its commitment.
    for (pair, (line, commitment, server_seed, client_seed)) in &exported_pairs {
        let Some(logged) = facts.get(pair) else {
            continue;
        };
        let client_seed_sha256 = crate::tlog::entry::client_seed_sha256(client_seed);
        for (logged, ours, what) in [
            (
                Some(&logged.server_seed_hash),
                commitment.as_str(),
                "commitment",
            ),
            (
                logged
                    .server_seed
                    .as_ref()
                    .filter(|_| server_seed.is_some()),
                server_seed.as_deref().unwrap_or_default(),
                "revealed server seed",
            ),
            (
                logged.client_seed_sha256.as_ref(),
                client_seed_sha256.as_str(),
                "client seed",
            ),
        ] {
            if let Some(logged) = logged
                && !logged.eq_ignore_ascii_case(ours)
            {
                found.push((
                    *line,
                    format!("pair {pair}: the export's {what} is not the one the log holds"),
                ));
            }
        }
    }
    for (pair, logged) in facts.iter().filter(|(_, f)| f.server_seed.is_some()) {
        for (nonce, (game, id)) in &logged.rounds {
            match exported.get(&(pair.clone(), *nonce)) {
                None => found.push((
                    0,
                    format!("pair {pair} nonce {nonce} is in the log but not in the export"),
                )),
                Some((line, exported_game, _, _)) if exported_game != game => found.push((
                    *line,
                    format!("pair {pair} nonce {nonce}: the export's game differs from the log's"),
                )),
                Some((line, _, exported_id, _)) if exported_id != id => found.push((
                    *line,
                    format!(
                        "pair {pair} nonce {nonce}: the export's round id differs from the log's"
                    ),
                )),
                Some((line, _, _, Some(seed)))
                    if logged
                        .round_seeds
                        .get(nonce)
                        .is_none_or(|logged| !logged.eq_ignore_ascii_case(seed)) =>
                {
                    found.push((
                        *line,
                        format!(
                            "pair {pair} nonce {nonce}: the export's round seed is not the one the log published"
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    for ((pair, nonce), (line, _, _, _)) in &exported {
        let logged = facts
            .get(pair)
            .filter(|f| f.server_seed.is_some())
            .is_some_and(|f| f.rounds.contains_key(nonce));
        if !logged {
            found.push((
                *line,
                format!(
                    "pair {pair} nonce {nonce} is in the export but not among the log's revealed rounds"
                ),
            ));
        }
    }
    Ok(found)
}

/// A round as the export and the log both name it.
type RoundKey = (String, u64);

/// What the export says of a round: its line, game and id, and a chain
/// round's own seed.
type ExportedRound = (u64, serde_json::Value, String, Option<String>);

/// What the export's rounds say of their pair: the first one's line, then
/// the commitment, the revealed seed (not on a chain round's line) and the
/// client seed.
type ExportedPair = (u64, String, Option<String>, String);

/// The log an export is held against (`--log` and the flags that go
/// with it).
#[derive(Clone, Copy)]
struct LogSide<'a> {
    base: &'a str,
    pin: Option<&'a str>,
    policy: Option<&'a crate::audit::witnessed::WitnessPolicy>,
    /// A monitor's state of this log (`--state`).
    state: Option<&'a std::path::Path>,
}

/// What [`cross_check_log`] found: each problem (the export's line, or 0,
/// and what), and a sentence saying what was checked.
struct LogVerdict {
    found: Vec<(u64, String)>,
    summary: String,
}

/// Checks the log at `base` with the one log checker (every rule the
/// monitor applies: signature first, tree, tiles, order, first entry wins),
/// each of its findings a `log` finding, then holds the export's pairs
/// against what the log says of them (the first entry of each kind), in
/// bounded memory: each pair's digest (`audit::cross`) against the log's
/// when the log reveals it. The export's digests arrive on `export` from
/// the thread reading the export, while the log is read. The pairs that
/// differ are then read again, from the export (`source`, when it can be
/// read twice) and the log, to name each difference: a `log` finding for
/// each.
fn cross_check_log(
    log: LogSide<'_>,
    source: Option<&str>,
    read_timeout: u64,
    export: std::sync::mpsc::Receiver<crate::audit::cross::ExportDigests>,
    bars: &indicatif::MultiProgress,
) -> anyhow::Result<LogVerdict> {
    let LogSide {
        base,
        pin,
        policy,
        state,
    } = log;
    let base = base.trim_end_matches('/');
    let mut export = Some(export);
    // A monitor's state: its checkpoint, the memory of the run that
    // accepted it, and its ledger of the pairs revealed until then.
    // The snapshot is used only with its ledger, read through and held to
    // the snapshot's mark first (one damaged, cut short or of another run
    // means a whole read, never a false difference).
    let previous = super::monitor::read_state(state)?;
    let mut ledger = None;
    let snapshot = match (&previous, state) {
        (Some(previous), Some(path)) => {
            super::monitor::read_snapshot(path, previous).filter(|snapshot| {
                ledger = snapshot.ledger().and_then(|mark| {
                    super::monitor::CheckedLedger::open(&super::monitor::ledger_path(path), mark)
                        .ok()
                });
                ledger.is_some()
            })
        }
        _ => None,
    };
    let (mut checker, resumed) = super::monitor::read_log(
        base,
        super::monitor::Trust {
            key: pin,
            witnesses: policy,
        },
        previous.as_ref(),
        snapshot,
        super::monitor::Ledger::Ignore,
        false,
        Some(bars),
        |checker| {
            if let Some(export) = export.take() {
                checker.cross_check(export);
            }
        },
        |_| {},
    )
    .map_err(|e| InputError::unreadable("--log", format!("{e:#}")))?;
    // The checker's memory goes before the pairs its ledger recorded are
    // held (which waits for the export): the two are not held at once.
    let mut cross = checker.take_cross_check().unwrap_or_default();
    let (checked, _) = checker.finish(crate::time::now_ms(), i64::MAX);
    if let (Some(ledger), true) = (ledger, resumed) {
        ledger
            .hold(&mut cross)
            .map_err(|e| InputError::unreadable("--state", format!("{e:#}")))?;
    }
    let cross = cross.result();
    // The export's reader failed, and says why; nothing here is worth
    // reporting, nor reading the log again.
    anyhow::ensure!(
        !cross.export_lost,
        "the export was not read to its end: the log was not held against it"
    );
    // The pairs to look at closely: revealed by the log with other rounds
    // or seeds than the export's, and exported but never revealed so.
    let mut differing: Vec<(u64, String)> = cross
        .differing
        .iter()
        .map(|pair| (0, pair.clone()))
        .collect();
    let mut not_named = cross.differing_not_named;
    if checked.checkpoint_accepted {
        // A pair that differs is unmatched too: named once, at its line.
        let mut named: std::collections::HashMap<String, usize> = differing
            .iter()
            .enumerate()
            .map(|(at, (_, pair))| (pair.clone(), at))
            .collect();
        for (line, pair) in cross.export.unmatched() {
            if let Some(&at) = named.get(&pair) {
                differing[at].0 = line;
            } else if differing.len() < crate::audit::monitor::MAX_FINDINGS {
                named.insert(pair.clone(), differing.len());
                differing.push((line, pair));
            } else {
                not_named += 1;
            }
        }
    }
    let close = match (differing.is_empty(), source) {
        (false, Some(source)) => Some(differences(
            base,
            pin,
            policy,
            source,
            read_timeout,
            differing.iter().map(|(_, pair)| pair.clone()).collect(),
            bars,
        )?),
        _ => None,
    };
    let mut found: Vec<(u64, String)> = Vec::new();
    for finding in &checked.findings {
        let at = finding
            .index
            .map(|i| format!(" at entry {i}"))
            .unwrap_or_default();
        found.push((
            0,
            format!("the log itself: {}{at}: {}", finding.kind, finding.detail),
        ));
    }
    if checked.findings_not_listed > 0 {
        found.push((
            0,
            format!(
                "the log itself: {} more problem(s) not listed (run fairdeal monitor)",
                checked.findings_not_listed
            ),
        ));
    }
    let close = close.unwrap_or_default();
    for (line, pair) in &differing {
        if !close
            .iter()
            .any(|(_, detail)| detail.contains(pair.as_str()))
        {
            found.push((
                *line,
                format!(
                    "pair {pair}: the export's rounds or seeds are not the ones the log holds{}",
                    if source.is_none() {
                        " (give the export as a file to have each difference named)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    found.extend(close);
    // Pairs the log revealed among the reveals the export holds, missing
    // from it: its coverage excuses only pairs outside what it holds.
    for index in &cross.missing_within {
        found.push((
            0,
            format!(
                "the pair revealed at log entry {index} is not in the export, though the export \
                 holds pairs revealed before and after it (an export is one run of the log's reveals)"
            ),
        ));
    }
    for (pair, index) in &cross.held_outside {
        found.push((
            0,
            format!(
                "pair {pair} is in the export, but its reveal (log entry {index}) is outside the \
                 reveals the export's end line says it covers"
            ),
        ));
    }
    if cross.held_outside_not_named > 0 {
        found.push((
            0,
            format!(
                "{} more pairs of the export were revealed outside what its end line says it covers (not named)",
                cross.held_outside_not_named
            ),
        ));
    }
    if cross.missing_within_not_named > 0 {
        found.push((
            0,
            format!(
                "{} more pairs revealed among the export's are not in it (not named)",
                cross.missing_within_not_named
            ),
        ));
    }
    if let Some(covered) = cross.export.coverage()
        && covered.size > checked.size
        && checked.checkpoint_accepted
        && !differing.is_empty()
    {
        found.push((
            0,
            format!(
                "the log's checkpoint of {} entries is older than the export (the log had {} when \
                 it was made): pairs revealed in between cannot be held yet; audit the same \
                 export again once the log's checkpoint covers {} entries",
                checked.size, covered.size, covered.size
            ),
        ));
    }
    if let Some(covered) = cross.export.coverage()
        && covered.from > 0
        && covered.from <= checked.size
        && cross.resumed_after.is_none()
    {
        found.push((
            0,
            format!(
                "the export's end line says it resumes after log entry {}, which reveals no pair: \
                 no export's cursor ends there",
                covered.from - 1
            ),
        ));
    }
    if not_named > 0 {
        found.push((
            0,
            format!("{not_named} more pair(s) of the export differ from the log (not named)"),
        ));
    }
    let (revealed_pairs, logged_rounds) = (cross.revealed_pairs, cross.revealed_rounds);
    let read = match (&previous, resumed) {
        (Some(previous), true) => format!(
            "; resumed from the state's checkpoint of {} entries (the pairs revealed until \
             then held from its ledger), {} entries read",
            previous.size,
            checked.size.saturating_sub(previous.size)
        ),
        (Some(_), false) => "; the state's snapshot or ledger could not be used (missing, \
                             damaged, of another checkpoint, or kept without a ledger): \
                             the whole log was read (if its ledger is damaged, delete the \
                             snapshot beside it: the monitor's next run writes both anew)"
            .to_owned(),
        (None, _) => String::new(),
    };
    let covered = match cross.export.coverage() {
        Some(covered) => format!(
            "; the export covers the reveals at entries {} to {} (the log's size when it was made){}{}",
            covered.from,
            covered.size.saturating_sub(1),
            cross
                .resumed_after
                .as_ref()
                .map(|pair| format!(
                    ", resumed after pair {pair} (revealed at entry {})",
                    covered.from - 1
                ))
                .unwrap_or_default(),
            match (cross.before_export, cross.after_export) {
                (0, 0) => String::new(),
                (before, after) => format!(
                    ": {before} pairs revealed before and {after} after are other exports' to hold"
                ),
            }
        ),
        None => "; the export does not say which of the log's reveals it covers (made before \
                 exports did): it is held to every reveal"
            .to_owned(),
    };
    // In the export's order, the same from run to run.
    found.sort();
    let problems = found.len();
    let checkpoint = if checked.origin.is_empty() {
        "the log's checkpoint did NOT verify (nothing more was read)".to_owned()
    } else {
        format!(
            "the log's checkpoint of {} entries (origin {}, root {}) {}",
            checked.size,
            crate::audit::printable(&checked.origin),
            checked.root,
            if checked.checkpoint_accepted {
                "verified: signature, tree and tiles"
            } else {
                "did NOT verify"
            }
        )
    };
    let summary = format!(
        "{checkpoint}{read}{covered}; {} pairs ({} revealed, {} of their rounds held against the export), {} rounds, {} draws; {}",
        checked.pairs,
        revealed_pairs,
        logged_rounds,
        checked.rounds,
        checked.draws,
        if problems == 0 {
            "every rule of the log and every pair and round of the export agree with it".to_owned()
        } else {
            format!("{problems} problem(s)")
        }
    );
    Ok(LogVerdict { found, summary })
}

/// An opened input: a file, standard input or a response body.
type Source = Box<dyn Read + Send>;

/// A service's response body, whose reads give up after `seconds` without
/// a byte, with an error that says so.
struct Patient {
    response: reqwest::blocking::Response,
    seconds: u64,
}

impl Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.response.read(buf).map_err(|err| {
            let timed_out = err
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
                .is_some_and(reqwest::Error::is_timeout);
            if timed_out {
                std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "the service sent nothing for {} s (--read-timeout)",
                        self.seconds
                    ),
                )
            } else {
                err
            }
        })
    }
}

/// Opens the source; the second value is its size in bytes when known. A
/// service's export is read with `read_timeout` seconds of patience for
/// each read (and for its answer to begin), however long it runs.
fn open(source: &str, read_timeout: u64) -> Result<(Source, Option<u64>), InputError> {
    if source == "-" {
        return Ok((Box::new(std::io::stdin()), None));
    }
    if source.starts_with("http://") || source.starts_with("https://") {
        // The service's address: a URL that names the export already is
        // taken as meant.
        let base = source.trim_end_matches('/');
        let base = base.strip_suffix("/v1/export").unwrap_or(base);
        let url = format!("{base}/v1/export");
        // The blocking client's timeout bounds each wait (the answer, then
        // every read of the body), not the whole export.
        let response = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(read_timeout))
            .build()
            .and_then(|client| client.get(&url).send())
            .map_err(|e| {
                InputError::unreadable("SOURCE", format!("{url}: {}", super::error_chain(&e)))
            })?;
        if !response.status().is_success() {
            return Err(InputError::new(
                "SOURCE",
                format!("{url} answered {}", response.status()),
            ));
        }
        return Ok((
            Box::new(Patient {
                response,
                seconds: read_timeout,
            }),
            None,
        ));
    }
    let file = File::open(source)
        .map_err(|e| InputError::unreadable("SOURCE", format!("{source}: {e}")))?;
    let metadata = file.metadata().ok();
    if metadata.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(InputError::new(
            "SOURCE",
            format!(
                "{source} is a directory; give an export file, - for standard input, or the service's URL"
            ),
        ));
    }
    let size = metadata.map(|m| m.len());
    Ok((Box::new(file), size))
}

/// What has been read so far: bytes and their SHA-256, for the report's
/// provenance.
#[derive(Debug, Default)]
struct Digest {
    bytes: u64,
    sha256: Sha256,
}

/// Counts and hashes the bytes read; moves the progress bar.
struct Counting<R> {
    inner: R,
    bar: ProgressBar,
    digest: Arc<Mutex<Digest>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        if let Ok(mut digest) = self.digest.lock() {
            digest.bytes += n as u64;
            digest.sha256.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// Opens `source` behind a [`Counting`] reader, with a progress bar sized
/// to it (hidden when `quiet` or not on a terminal).
fn counted(
    source: &str,
    quiet: bool,
    read_timeout: u64,
) -> Result<(Counting<Source>, Arc<Mutex<Digest>>), InputError> {
    let (input, size) = open(source, read_timeout)?;
    let digest = Arc::new(Mutex::new(Digest::default()));
    let reader = Counting {
        inner: input,
        bar: progress_bar(size, quiet),
        digest: digest.clone(),
    };
    Ok((reader, digest))
}

/// The provenance of a report on `source`, once it has been read.
fn provenance(source: &str, digest: &Mutex<Digest>) -> report::Provenance {
    let (bytes, sha256) = match digest.lock() {
        Ok(digest) => (digest.bytes, hex::encode(digest.sha256.clone().finalize())),
        Err(_) => (0, String::new()),
    };
    report::Provenance {
        source: source.to_owned(),
        sha256,
        bytes,
        generated_at: crate::time::timestamp(crate::time::now_ms()),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    }
}

fn progress_bar(size: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match size {
        Some(total) => ProgressBar::new(total).with_style(
            ProgressStyle::with_template(
                "{bar:30} {bytes}/{total_bytes} {msg} · {binary_bytes_per_sec} · ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {bytes} read · {msg} · {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn print_text(source: &str, report: &Report) {
    let seconds = report.verify_seconds;
    println!("fairdeal audit of {source}");
    println!(
        "  {} lines, {} seed pairs, {} rounds; {} rounds verified ({:.0} rounds/s)",
        report.lines,
        report.seed_pairs,
        report.rounds,
        report.rounds_verified,
        report.rounds as f64 / seconds.max(1e-9)
    );
    if let Some((from, to)) = &report.period {
        println!("  pairs made from {from}, revealed until {to}");
    }
    if report.draws > 0 {
        println!(
            "  {} draws; {} recomputed and verified (seed against commitment, winners)",
            report.draws, report.draws_verified
        );
    }
    if let Some(log) = &report.log {
        println!("  log: {log}");
    }
    for finding in &report.findings {
        println!("  {finding}");
    }
    if report.problems as usize > report.findings.len() {
        println!(
            "  … and {} more problems",
            report.problems as usize - report.findings.len()
        );
    }
    if report.passed() {
        println!("verdict: PASS: every commitment, card and nonce checks out");
    } else {
        println!("verdict: FAIL: {} problem(s)", report.problems);
    }
}

fn statistics_exit(stats: &StatsReport) -> ExitCode {
    if stats.verdict == Verdict::Fail {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--hands FILE`: statistics of a hand history.
fn run_hands(path: &str, format: Format, read_timeout: u64) -> anyhow::Result<ExitCode> {
    let (input, digest) = counted(path, true, read_timeout)?;
    let hands = crate::audit::hand_history::read(BufReader::new(input))
        .context("reading the hand history")?;
    let (evidence, n_hands) = match hands {
        Ok(read) => read,
        Err(bad) => {
            for line in bad.iter().take(50) {
                eprintln!("line {}: {}", line.line, line.why);
            }
            return Err(InputError::new(
                "--hands",
                format!(
                    "{} malformed line(s) in {path}; nothing was tested",
                    bad.len()
                ),
            )
            .into());
        }
    };
    let stats = evidence.report();
    let header = format!("{n_hands} hands from {path}");
    match format {
        Format::Text => {
            println!("fairdeal statistics of {header}");
            print!("{}", report::text(&stats));
        }
        Format::Json => {
            let value = serde_json::json!({"source": path, "hands": n_hands, "statistics": stats});
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
        Format::Html => print!(
            "{}",
            report::html(
                &format!("fairdeal statistics: {header}"),
                &[],
                &[],
                &provenance(path, &digest),
                &stats
            )
        ),
    }
    Ok(statistics_exit(&stats))
}

/// Reads and audits an export.
fn audit_source(
    source: &str,
    quiet: bool,
    log: Option<LogSide<'_>>,
    read_timeout: u64,
) -> anyhow::Result<(Report, report::Provenance)> {
    let (input, digest) = counted(source, quiet, read_timeout)?;
    let bar = input.bar.clone();
    // Smaller than the audit's reads (256 KiB at a time), so that they go
    // straight into its blocks instead of through this buffer: one copy of
    // the input, not two.
    let reader = BufReader::with_capacity(64 << 10, input);
    let started = Instant::now();
    // The export's bar and, with --log, the log's, one above the other.
    let bars = if quiet || !std::io::stderr().is_terminal() {
        indicatif::MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::hidden())
    } else {
        indicatif::MultiProgress::new()
    };
    let bar = bars.add(bar);
    let report = std::thread::scope(|scope| -> anyhow::Result<Report> {
        // With --log, the log is read and checked on a thread of its own
        // while this one reads the export: each pair's digest
        // (`audit::cross`, 64 bytes a pair) is sent over when the export
        // ends, and the pairs the log revealed before then are held against
        // it as it arrives.
        let (send_digests, digests_arrive) = std::sync::mpsc::sync_channel(1);
        let log_side = log.map(|log| {
            // Standard input cannot be read twice.
            let again = (source != "-").then_some(source);
            let bars = &bars;
            scope.spawn(move || cross_check_log(log, again, read_timeout, digests_arrive, bars))
        });
        let bar = bar.clone();
        let mut progress = move |_lines: u64, rounds: u64| {
            let rate = rounds as f64 / started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("{rounds} rounds · {rate:.0} rounds/s"));
        };
        let mut digests = crate::audit::cross::ExportDigests::default();
        let mut observe = |line: u64, round: &crate::audit::replay::RoundLine<'_>| {
            if log.is_some() {
                digests.round(
                    line,
                    &round.seed_pair_id,
                    round.nonce,
                    round.game,
                    &round.id,
                    &round.server_seed_hash,
                    &round.server_seed,
                    &round.client_seed,
                    round.protocol == fairdeal_core::CHAIN_PROTOCOL,
                );
            }
        };
        let audited = audit_observed(reader, &mut progress, &mut observe);
        if let Ok(report) = &audited {
            digests.cover(report.log_coverage);
            digests.seal();
            // The log's side has stopped listening only if it failed,
            // which its result says.
            let _ = send_digests.send(digests);
        }
        // Unsent (the export failed), the log's side holds nothing of it.
        drop(send_digests);
        let verdict = log_side
            .map(|side| {
                side.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .transpose();
        let mut report = audited.context("reading the export")?;
        if let Some(LogVerdict { found, summary }) = verdict? {
            for (line, detail) in found {
                report.add(line, "log", detail);
            }
            report.log = Some(summary);
        }
        Ok(report)
    })?;
    bar.finish_and_clear();
    Ok((report, provenance(source, &digest)))
}

fn verification_lines(report: &Report) -> Vec<String> {
    let mut lines = vec![format!(
        "{} lines, {} seed pairs, {} rounds; {} rounds verified; {} draws, {} verified",
        report.lines,
        report.seed_pairs,
        report.rounds,
        report.rounds_verified,
        report.draws,
        report.draws_verified
    )];
    if let Some((from, to)) = &report.period {
        lines.push(format!(
            "period: pairs made from {from}, revealed until {to}"
        ));
    }
    if let Some(log) = &report.log {
        lines.push(format!("transparency log: {log}"));
    }
    lines.extend(report.findings.iter().take(200).map(ToString::to_string));
    lines
}

/// What the command judges: `audit` the records and the statistics, `stats`
/// the statistics alone (records are still parsed, not judged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Audit,
    Stats,
}

pub fn run(opts: AuditOpts, mode: Mode) -> anyhow::Result<ExitCode> {
    if let Some(hands) = &opts.hands {
        return run_hands(hands, opts.format, opts.read_timeout);
    }
    let source = opts.source.clone().unwrap_or_default();
    let policy =
        crate::audit::witnessed::WitnessPolicy::new(&opts.witness_keys, opts.witness_quorum)
            .map_err(|(flag, rule)| InputError::new(flag, rule))?;
    if let Some(state) = opts.state.as_deref().filter(|state| !state.is_file()) {
        return Err(InputError::new(
            "--state",
            format!(
                "{} is not a file: give the state file of a `fairdeal monitor --state` run of this log",
                state.display()
            ),
        )
        .into());
    }
    let log = opts.log.as_deref().map(|base| LogSide {
        base,
        pin: opts.log_key.as_deref(),
        policy: policy.as_ref(),
        state: opts.state.as_deref(),
    });
    let (report, provenance) = audit_source(&source, opts.quiet, log, opts.read_timeout)?;
    let judge_records = mode == Mode::Audit;
    let stats = report.statistics.as_ref();
    if !judge_records && stats.is_none() {
        anyhow::bail!("no statistics were computed");
    }
    match opts.format {
        Format::Text => {
            if judge_records {
                print_text(&source, &report);
            } else {
                println!(
                    "fairdeal statistics of {} rounds from {source}",
                    report.rounds
                );
            }
            if let Some(stats) = stats {
                print!("{}", report::text(stats));
            }
        }
        Format::Json => {
            let value = if judge_records {
                let mut value = serde_json::to_value(&report)?;
                value["verdict"] = if report.passed() { "pass" } else { "fail" }.into();
                value["source"] = source.clone().into();
                value
            } else {
                serde_json::json!({"source": source, "rounds": report.rounds, "statistics": stats})
            };
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
        Format::Html => {
            if let Some(stats) = stats {
                let (title, headlines, lines) = if judge_records {
                    let records = if report.passed() {
                        report::Headline {
                            verdict: Verdict::Pass,
                            text: "Records: PASS: every commitment, card and nonce checks out"
                                .to_owned(),
                        }
                    } else {
                        report::Headline {
                            verdict: Verdict::Fail,
                            text: format!("Records: FAIL: {} problem(s)", report.problems),
                        }
                    };
                    (
                        format!("fairdeal audit of {source}"),
                        vec![records],
                        verification_lines(&report),
                    )
                } else {
                    (
                        format!("fairdeal statistics of {source}"),
                        Vec::new(),
                        vec![format!("{} rounds", report.rounds)],
                    )
                };
                print!(
                    "{}",
                    report::html(&title, &headlines, &lines, &provenance, stats)
                );
            }
        }
    }
    if judge_records && !report.passed() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(stats.map_or(ExitCode::SUCCESS, statistics_exit))
}
