//! `fairdeal monitor URL`: read a fairdeal transparency log through its tiles
//! and check it (`crate::audit::monitor`), remembering the last checkpoint
//! it accepted in a state file, as a witness does.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::InputError;
use crate::audit::monitor::{Finding, LogChecker, MonitorReport, MonitorState, Snapshot};
use crate::audit::printable;
use crate::audit::table_checks::{LoggedTable, check_table_record};
use crate::tlog::tiles::{TILE_WIDTH, TilePath, count_entry_bundle, entries_of};

#[derive(Debug, Args)]
#[command(after_help = "\
Reads URL/log/key, URL/log/checkpoint and every tile, verifies the checkpoint's
signature, recomputes the tree from the entries and compares every hash tile,
and checks what the entries promise: each reveal opens its commitment, each
successor was promised, commit -> client seed -> rounds 0, 1, 2, ... -> reveal,
and no client seed given to two pairs live at the same time (deal-shopping).
The checkpoint's signature is checked first (against --key, or the key kept in
--state), before any entry is read; entries are checked a bundle at a time.
With --state, the new checkpoint must extend the one accepted last time (a
fork or a changed key is named with both checkpoints), and is then kept
whenever it does, whatever the entries promise; the checker's memory is kept
beside it (STATE.snapshot), and the next run reads only the entries added
since (a missing or damaged snapshot means one full run). So is a ledger of
every revealed pair's digests (STATE.digests), against which
`fairdeal audit EXPORT --log URL --state STATE` holds an export without
reading the whole log again. A client seed given by one
tenant to two live pairs fails; one shared otherwise is a note.
With --check-api, every pair and round the log names is read back from the
public API and must say what was logged (a deleted or changed row is named).

Exit status: 0 the log checks out; 1 a problem was found (each named);
2 the log could not be read, or bad input.")]
pub struct MonitorOpts {
    /// The service's base URL (http://host:port).
    pub url: String,
    /// Where to keep the last accepted checkpoint between runs (and, in
    /// FILE.snapshot, what the next run needs to read only the new entries;
    /// in FILE.digests, the revealed pairs' digests `audit --log --state`
    /// holds an export against).
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Flag commitments older than this many days that are still not
    /// revealed.
    #[arg(long, value_name = "DAYS", default_value_t = 7.0)]
    pub reveal_within: f64,
    /// Judge what was due (a reveal within --reveal-within, a draw run
    /// after its client seed) as of this time instead of now: an RFC 3339
    /// UTC time with milliseconds, as the service writes them
    /// (2026-11-28T09:30:00.000Z). For an auditor asking what was overdue
    /// on a given day.
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Also read every pair and round the log names back from the public API
    /// and check it says what was logged (no row deleted or changed).
    #[arg(long)]
    pub check_api: bool,
    /// The log's verifier key (NAME+HASH+KEY), as published out of band:
    /// the checkpoint must verify with it before anything else is read. By
    /// default the key remembered in --state, else the one the log serves
    /// (trusted on first use).
    #[arg(long, value_name = "VKEY")]
    pub key: Option<String>,
    /// A witness this reader trusts (its cosignature verifier key,
    /// `<name>+<key id>+<base64 key>`), repeatable: a checkpoint is then
    /// trusted only when --witness-quorum of them cosigned it; short of
    /// that the largest checkpoint they did cosign is checked instead
    /// (`/v1/log/witnessed-checkpoint`), or nothing is accepted (a `witness`
    /// finding).
    #[arg(long = "witness-key", value_name = "VKEY")]
    pub witness_keys: Vec<String>,
    /// How many of the --witness-key witnesses must have cosigned (default:
    /// all of them).
    #[arg(long, value_name = "K")]
    pub witness_quorum: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Sign a statement of this run with the monitor's own key in FILE (64
    /// hex characters, made with mode 0600 on first use): the checkpoint
    /// checked and every finding (docs/TRANSPARENCY.md, "Monitor
    /// statements"). Players who keep the monitor's verifier key see it on
    /// the page. Made only when the checkpoint is accepted.
    #[arg(long, value_name = "FILE", requires = "statement_name")]
    pub statement_key: Option<PathBuf>,
    /// The monitor's name in its statements and verifier key (for example
    /// `monitor.example/fairdeal`): no white space and no '+'.
    #[arg(long, value_name = "NAME", requires = "statement_key")]
    pub statement_name: Option<String>,
    /// Write the signed statement to FILE (to publish it where the monitor
    /// publishes its key).
    #[arg(long, value_name = "FILE", requires = "statement_key")]
    pub statement_out: Option<PathBuf>,
    /// Post the signed statement to the service
    /// (`URL/v1/log/monitor-statements`), which serves it to players' pages
    /// when it was started with this monitor's key (`serve --monitor`).
    #[arg(long, requires = "statement_key")]
    pub publish: bool,
    /// Print the monitor's verifier key (made on first use) and exit.
    #[arg(long, requires = "statement_key")]
    pub print_vkey: bool,
}

/// The monitor's statement key: read from `path`, or made there (mode
/// 0600) when the file does not exist.
fn statement_key(path: &std::path::Path, name: &str) -> anyhow::Result<crate::tlog::key::LogKey> {
    use crate::tlog::key::LogKey;
    if !path.exists() {
        let key = LogKey::generate(name)?;
        let seed = zeroize::Zeroizing::new(hex::encode(*key.seed()));
        match crate::secret_file::write_private(path, &seed) {
            Ok(()) => {
                eprintln!(
                    "created the monitor's statement key file {}",
                    path.display()
                );
                return Ok(key);
            }
            // Another process made it first: use that one.
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => {
                return Err(err)
                    .with_context(|| format!("creating the key file {}", path.display()));
            }
        }
    }
    LogKey::read_file(path, name)
}

/// The signed statement of `report` (an accepted checkpoint), by `key`.
fn statement_of(report: &MonitorReport, key: &crate::tlog::key::LogKey) -> anyhow::Result<String> {
    use crate::tlog::statement::{StatedFinding, Statement};
    let time = u64::try_from(crate::time::now_ms() / 1000).unwrap_or_default();
    Statement::new(
        &report.origin,
        report.size,
        &report.root,
        time,
        report.problems(),
        report.findings.iter().map(|f| StatedFinding {
            kind: f.kind.to_owned(),
            index: f.index,
            detail: f.detail.clone(),
        }),
    )
    .sign(key)
}

/// Posts `note` to the service's monitor statements.
fn publish_statement(base: &str, note: &str) -> anyhow::Result<()> {
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .context("starting the HTTP client")?;
    let url = format!("{base}/v1/log/monitor-statements");
    let response = client
        .post(&url)
        .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(note.to_owned())
        .send()
        .with_context(|| format!("posting the statement to {url}"))?;
    let status = response.status();
    if !status.is_success() {
        let detail = response.text().unwrap_or_default();
        let detail: String = detail.chars().take(400).collect();
        anyhow::bail!("{url} answered {status}: {}", printable(&detail));
    }
    Ok(())
}

/// The winners a draw's revealed seeds draw (nonce 0), if the record holds
/// what it takes.
fn recompute_draw(record: &serde_json::Value) -> Option<Vec<u64>> {
    let seed = fairdeal_core::ServerSeed::from_hex(record["server_seed"].as_str()?).ok()?;
    let client = fairdeal_core::ClientSeed::new(record["client_seed"].as_str()?).ok()?;
    let params =
        fairdeal_core::Draw::new(record["entries"].as_u64()?, record["winners"].as_u64()?).ok()?;
    Some(
        fairdeal_core::draw(&seed, &client, 0, params)
            .into_iter()
            .map(u64::from)
            .collect(),
    )
}

/// Reads back from `base`'s public API every pair and round the entries
/// name; a finding for each that is gone or says something else.
fn check_api(base: &str, entries: &[Vec<u8>]) -> anyhow::Result<Vec<Finding>> {
    let client = reqwest::blocking::Client::builder()
        .build()
        .context("starting the HTTP client")?;
    let mut findings = Vec::new();
    let read = |path: String| -> anyhow::Result<Option<serde_json::Value>> {
        let response = client
            .get(format!("{base}{path}"))
            .send()
            .with_context(|| format!("reading {path}"))?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        anyhow::ensure!(
            response.status().is_success(),
            "{path} answered {}",
            response.status()
        );
        Ok(Some(serde_json::from_slice(&body(response, &path)?)?))
    };
    // What the log said of each table, to hold the API's record against
    // once every entry is read.
    let mut tables: std::collections::BTreeMap<String, LoggedTable> =
        std::collections::BTreeMap::new();
    for (index, bytes) in entries.iter().enumerate() {
        let Ok(entry) = serde_json::from_slice::<serde_json::Value>(bytes) else {
            continue;
        };
        let pair = entry["seed_pair"].as_str().unwrap_or_default();
        if let Some(seats) = entry["seats"].as_array()
            && entry["type"] == "commit"
        {
            let hashes = seats
                .iter()
                .map(|s| s.as_str().unwrap_or_default().to_owned())
                .collect();
            let mut table = LoggedTable::new(hashes);
            table.set = entry["seat_set"].as_str().map(str::to_owned);
            tables.insert(pair.to_owned(), table);
        }
        if let Some(table) = tables.get_mut(pair) {
            table.note(&entry);
        }
        let mut differs = |what: String| {
            findings.push(Finding {
                kind: "api",
                index: Some(index as u64),
                detail: what,
            });
        };
        match entry["type"].as_str() {
            Some("commit") => match read(format!("/v1/seed-pairs/{pair}"))? {
                None => differs(format!(
                    "pair {pair} is logged but the API does not know it"
                )),
                Some(p)
                    if p["server_seed_hash"] != entry["server_seed_hash"]
                        || p["next_server_seed_hash"] != entry["next_server_seed_hash"] =>
                {
                    differs(format!("pair {pair}'s commitments differ from the log"))
                }
                Some(_) => {}
            },
            Some("client_seed") => {
                if let Some(p) = read(format!("/v1/seed-pairs/{pair}"))? {
                    let shown = p["client_seed"]
                        .as_str()
                        .map(crate::tlog::entry::client_seed_sha256);
                    if shown.as_deref() != entry["client_seed_sha256"].as_str() {
                        differs(format!("pair {pair}'s client seed differs from the log"));
                    }
                }
            }
            Some("table_void") => {
                if let Some(p) = read(format!("/v1/seed-pairs/{pair}"))?
                    && p["server_seed"] != entry["server_seed"]
                {
                    differs(format!(
                        "void table {pair}'s revealed seed differs from the log"
                    ));
                }
            }
            Some("round") => {
                let round = entry["round"].as_str().unwrap_or_default();
                match read(format!("/v1/rounds/{round}"))? {
                    None => differs(format!(
                        "round {round} is logged but the API does not know it"
                    )),
                    Some(r)
                        if r["nonce"] != entry["nonce"]
                            || r["game"] != entry["game"]
                            || r["seed_pair_id"] != entry["seed_pair"] =>
                    {
                        differs(format!(
                            "round {round} differs from the log (pair, nonce or game)"
                        ))
                    }
                    Some(_) => {}
                }
            }
            Some("round_seed") => {
                // A published chain seed stays published, as logged.
                let round = entry["round"].as_str().unwrap_or_default();
                match read(format!("/v1/rounds/{round}"))? {
                    None => differs(format!(
                        "round {round}'s seed is logged as published but the API does not know the round"
                    )),
                    Some(r) if r["server_seed"] != entry["server_seed"] => differs(format!(
                        "round {round}'s seed as the API shows it ({}) is not the one the log published",
                        if r["server_seed"].is_null() {
                            "none"
                        } else {
                            "another"
                        }
                    )),
                    Some(r)
                        if r["nonce"] != entry["nonce"]
                            || r["seed_pair_id"] != entry["seed_pair"] =>
                    {
                        differs(format!(
                            "round {round} differs from its published seed's entry (pair or nonce)"
                        ))
                    }
                    Some(_) => {}
                }
            }
            Some("draw_commit") => {
                let draw = entry["draw"].as_str().unwrap_or_default();
                match read(format!("/v1/draws/{draw}"))? {
                    None => differs(format!(
                        "draw {draw} is logged but the API does not know it"
                    )),
                    Some(d)
                        if d["entries_sha256"] != entry["entries_sha256"]
                            || d["entries"] != entry["entries"]
                            || d["winners"] != entry["winners"]
                            || d["server_seed_hash"] != entry["server_seed_hash"] =>
                    {
                        differs(format!("draw {draw}'s commitments differ from the log"))
                    }
                    Some(_) => {}
                }
            }
            Some("draw_client_seed") => {
                let draw = entry["draw"].as_str().unwrap_or_default();
                if let Some(d) = read(format!("/v1/draws/{draw}"))? {
                    let shown = d["client_seed"]
                        .as_str()
                        .map(crate::tlog::entry::client_seed_sha256);
                    if shown.as_deref() != entry["client_seed_sha256"].as_str() {
                        differs(format!("draw {draw}'s client seed differs from the log"));
                    }
                }
            }
            Some("draw_result") => {
                // The API shows the client seed the log holds only as a
                // hash: with it the winners are recomputed, not just read.
                let draw = entry["draw"].as_str().unwrap_or_default();
                if let Some(d) = read(format!("/v1/draws/{draw}"))? {
                    let shown: Vec<u64> = d["result"]
                        .as_array()
                        .map(|w| w.iter().filter_map(|w| w["entry"].as_u64()).collect())
                        .unwrap_or_default();
                    let logged: Vec<u64> = entry["winners"]
                        .as_array()
                        .map(|w| w.iter().filter_map(serde_json::Value::as_u64).collect())
                        .unwrap_or_default();
                    if d["server_seed"] != entry["server_seed"] || shown != logged {
                        differs(format!("draw {draw}'s result differs from the log"));
                    } else if recompute_draw(&d).as_deref() != Some(logged.as_slice()) {
                        differs(format!(
                            "draw {draw}'s logged winners are not what its seeds draw"
                        ));
                    }
                }
            }
            Some("reveal") => {
                if let Some(p) = read(format!("/v1/seed-pairs/{pair}"))?
                    && p["server_seed"] != entry["server_seed"]
                {
                    differs(format!("pair {pair}'s revealed seed differs from the log"));
                }
            }
            _ => {}
        }
    }
    // Every table, as the API shows it now, against everything the log said
    // of it: seats, commitments, reveals, the derived seed, a void.
    for (pair, logged) in &tables {
        let problems = match read(format!("/v1/seed-pairs/{pair}"))? {
            None => vec!["the log committed it but the API does not know it".to_owned()],
            Some(record) => check_table_record(&record, logged),
        };
        for problem in problems {
            findings.push(Finding {
                kind: "api",
                index: None,
                detail: format!("table {pair}: {problem}"),
            });
        }
    }
    Ok(findings)
}

fn get(client: &reqwest::blocking::Client, url: &str) -> anyhow::Result<Vec<u8>> {
    fetch(client, url)?.with_context(|| format!("{url} answered 404 Not Found"))
}

/// The size a checkpoint note states (its second line), if it reads.
fn checkpoint_size(note: &str) -> Option<u64> {
    note.lines().nth(1)?.parse().ok()
}

/// The body at `url`; `None` when the log answers 404 (a tile or bundle it
/// does not have).
fn fetch(client: &reqwest::blocking::Client, url: &str) -> anyhow::Result<Option<Vec<u8>>> {
    let response = client
        .get(url)
        .send()
        .with_context(|| format!("reading {url}"))?;
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    anyhow::ensure!(
        response.status().is_success(),
        "{url} answered {}",
        response.status()
    );
    body(response, url).map(Some)
}

/// The most the monitor reads of one answer: the largest the service gives
/// (a page of 1,000 rounds, a bundle of 256 entries) are a few MiB, and a
/// hostile server's endless answer must not take all memory.
const MAX_ANSWER_BYTES: u64 = 16 << 20;

/// The body of `response` (to `what`), at most [`MAX_ANSWER_BYTES`].
fn body(response: reqwest::blocking::Response, what: &str) -> anyhow::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    response
        .take(MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {what}"))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_ANSWER_BYTES,
        "{what} answered more than {} MiB: not a fairdeal log",
        MAX_ANSWER_BYTES >> 20
    );
    Ok(bytes)
}

/// A bar counting the entry bundles read, on a terminal only (stderr, so
/// `--json` on stdout stays clean).
fn bundle_bar(bundles: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(bundles).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} bundles · {per_sec} · ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Bundles (and their level-0 hash tiles) fetched ahead of the checker,
/// so that reading the network and checking overlap.
const READ_AHEAD: usize = 16;

/// An entry bundle and the level-0 hash tile of the same entries, as read
/// (`None`: the log answered 404).
type Fetched = anyhow::Result<(Option<anyhow::Result<Counted>>, Option<Vec<u8>>)>;

/// An entry bundle as the thread that fetched it leaves it: its entries,
/// each with its record hash (split and hashed there, beside the checker,
/// which has the rest of the work), when it holds as many as it must;
/// else only how many it holds.
type Counted = Result<Vec<(Vec<u8>, crate::tlog::tree::Hash)>, usize>;

/// `bundle`, which must hold `width` entries, as [`Counted`]: counted
/// first, so that a hostile bundle (16 MiB of empty entries is eight
/// million of them) is never split.
fn hashed(bundle: &[u8], width: u64) -> anyhow::Result<Counted> {
    let count = count_entry_bundle(bundle)?;
    if count as u64 != width {
        return Ok(Err(count));
    }
    let entries = entries_of(bundle)
        .map(|entry| entry.map(|entry| (entry.to_vec(), crate::tlog::tree::record_hash(entry))))
        .collect::<anyhow::Result<_>>()?;
    Ok(Ok(entries))
}

/// What a reader of the log trusts: the log's key (pinned, else the one
/// remembered or served), and the witnesses that must vouch for its
/// checkpoint.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Trust<'a> {
    pub key: Option<&'a str>,
    pub witnesses: Option<&'a crate::audit::witnessed::WitnessPolicy>,
}

/// Reads the log at `base` into the one log checker: the key and the
/// checkpoint first, whose signature is checked (against `pin`, or the key
/// `previous` remembers, or the served key on first use) before anything
/// else is read; then each entry bundle in turn, each entry handed to
/// `each` as well, and each hash tile as soon as the entries give its
/// hashes. With `snapshot` (the memory of the run that accepted
/// `previous`), only the entries after it are read. Nothing is kept of an
/// entry but what the checker keeps, and no more is read than the verified
/// checkpoint claims, a bundle (16 MiB at most) at a time, a few bundles
/// ahead. A bundle that does not hold what it must ends the reading with a
/// finding. The second value says whether the snapshot was resumed.
#[allow(
    clippy::too_many_arguments,
    reason = "one reader of the log for the monitor and the audit, each setting what it needs"
)]
pub(crate) fn read_log(
    base: &str,
    trust: Trust<'_>,
    previous: Option<&MonitorState>,
    snapshot: Option<Snapshot>,
    ledger: Ledger<'_>,
    keep_rounds: bool,
    bars: Option<&indicatif::MultiProgress>,
    setup: impl FnOnce(&mut LogChecker),
    mut each: impl FnMut(&[u8]),
) -> anyhow::Result<(LogChecker, bool)> {
    let Trust {
        key: pin,
        witnesses: policy,
    } = trust;
    let client = reqwest::blocking::Client::builder()
        .build()
        .context("starting the HTTP client")?;
    let vkey = String::from_utf8(get(&client, &format!("{base}/log/key"))?)
        .context("the log key is not UTF-8")?
        .trim()
        .to_owned();
    let latest = String::from_utf8(get(&client, &format!("{base}/log/checkpoint"))?)
        .context("the checkpoint is not UTF-8")?;
    // Under a witness policy, a checkpoint short of the quorum's
    // cosignatures is not trusted: the largest one they vouched for is
    // checked instead, if the log serves one; else nothing is accepted.
    let mut witnessing = None;
    let checkpoint = match policy {
        Some(policy) if !policy.trusts(&latest) => {
            let witnessed = fetch(&client, &format!("{base}/v1/log/witnessed-checkpoint"))?
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .filter(|note| policy.trusts(note));
            match witnessed {
                Some(note) => {
                    witnessing = Some(Ok(checkpoint_size(&latest)));
                    note
                }
                None => {
                    witnessing = Some(Err(format!(
                        "the checkpoint is cosigned by {} of the {} witnesses trusted ({}), fewer \
                         than the {} required, and the log serves no checkpoint they vouched for: \
                         it is not yet witnessed (the operator could be showing it to this reader \
                         alone), and nothing is accepted from it",
                        policy.vouching(&latest).len(),
                        policy.len(),
                        policy.vouching(&latest).join(", "),
                        policy.quorum()
                    )));
                    latest
                }
            }
        }
        _ => latest,
    };
    let mut checker = LogChecker::new(&vkey, pin, &checkpoint, previous, keep_rounds)?;
    match (policy, witnessing) {
        (_, Some(Err(problem))) => checker.distrust("witness", problem),
        (Some(policy), later) => checker.witnessed(
            policy.vouching(&checkpoint),
            later.and_then(Result::ok).flatten(),
        ),
        (None, _) => {}
    }
    setup(&mut checker);
    if !checker.trusted() {
        return Ok((checker, false));
    }
    if let Ledger::Keep(_) = ledger {
        checker.keep_ledger();
    }
    // A snapshot is resumed with its ledger only when the file holds the
    // ledger as far as the snapshot says (one cut short costs a full run;
    // what the records hold is checked by their reader, `CheckedLedger`).
    let snapshot = snapshot.filter(|snapshot| match (ledger, snapshot.ledger()) {
        (Ledger::Ignore, _) => true,
        (Ledger::Keep(_), None) => false,
        (Ledger::Keep(path), Some(mark)) => {
            std::fs::metadata(path).is_ok_and(|m| m.len() >= mark.bytes)
        }
    });
    let resumed = snapshot.is_some_and(|s| checker.resume(s));
    let mut ledger_out = match ledger {
        Ledger::Keep(path) => Some(open_ledger(
            path,
            resumed.then(|| checker.ledger()).flatten(),
        )?),
        Ledger::Ignore => None,
    };
    let size = checker.size();
    let from = checker.read();
    let first = from / TILE_WIDTH;
    let bundles = size.div_ceil(TILE_WIDTH);
    let bar = bundle_bar(bundles - first);
    let bar = match bars {
        Some(bars) => bars.add(bar),
        None => bar,
    };
    let path_of = |level: Option<u8>, index: u64| {
        TilePath {
            level,
            index,
            width: (size - index * TILE_WIDTH).min(TILE_WIDTH),
        }
        .path()
    };
    let (sender, ahead) = std::sync::mpsc::sync_channel::<Fetched>(READ_AHEAD);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let reader = client.clone();
        scope.spawn(move || {
            for index in first..bundles {
                let read = fetch(&reader, &format!("{base}/log/{}", path_of(None, index)))
                    .and_then(|bundle| {
                        let tile =
                            fetch(&reader, &format!("{base}/log/{}", path_of(Some(0), index)))?;
                        let width = (size - index * TILE_WIDTH).min(TILE_WIDTH);
                        Ok((bundle.map(|bundle| hashed(&bundle, width)), tile))
                    });
                let failed = read.is_err();
                if sender.send(read).is_err() || failed {
                    return;
                }
            }
        });
        let tiles = |checker: &mut LogChecker,
                     level0: Option<(u64, Option<Vec<u8>>)>|
         -> anyhow::Result<()> {
            let mut level0 = level0;
            for tile in checker.take_tiles() {
                let path = TilePath {
                    level: Some(tile.level),
                    index: tile.index,
                    width: tile.width(),
                }
                .path();
                let served = match level0.take() {
                    Some((index, served))
                        if tile.level == 0
                            && tile.index == index
                            && path == path_of(Some(0), index) =>
                    {
                        served
                    }
                    other => {
                        level0 = other;
                        fetch(&client, &format!("{base}/log/{path}"))?
                    }
                };
                match served {
                    Some(served) => checker.compare_tile(&tile, &served),
                    None => checker.tile_not_served(&path),
                }
                if checker.disproven() {
                    break;
                }
            }
            Ok(())
        };
        for index in first..bundles {
            // The tree shown wrong: nothing further can be authenticated.
            if checker.abandoned() || checker.disproven() {
                break;
            }
            let width = (size - index * TILE_WIDTH).min(TILE_WIDTH);
            let path = path_of(None, index);
            let (bundle, tile) = ahead.recv().context("the reader of the log stopped")??;
            let Some(bundle) = bundle else {
                checker.add_finding(
                    "tree",
                    format!(
                        "the signed checkpoint claims {size} entries, but {path} is not served: \
                         the log does not hold what it signed"
                    ),
                );
                break;
            };
            let entries = match bundle {
                Ok(Ok(entries)) => entries,
                Ok(Err(count)) => {
                    checker
                        .add_finding("tree", format!("{path} holds {count} entries, not {width}"));
                    break;
                }
                Err(err) => {
                    checker.add_finding("tree", format!("{path} is not an entry bundle: {err:#}"));
                    break;
                }
            };
            // A bundle the last run read in part: its first entries are in
            // the snapshot's tree already.
            let skip = (checker.read() - index * TILE_WIDTH) as usize;
            for (entry, leaf) in &entries[skip.min(entries.len())..] {
                checker.entry_hashed(entry, *leaf);
                each(entry);
            }
            tiles(&mut checker, Some((index, tile)))?;
            if let Some((out, path)) = ledger_out.as_mut() {
                std::io::Write::write_all(out, &checker.take_ledger())
                    .with_context(|| format!("writing the ledger {}", path.display()))?;
            }
            bar.inc(1);
        }
        drop(ahead);
        if !checker.disproven() {
            checker.end_of_entries();
            tiles(&mut checker, None)?;
        }
        Ok(())
    })?;
    if let Some((mut out, path)) = ledger_out {
        // On disk before the snapshot that vouches for it is written.
        std::io::Write::write_all(&mut out, &checker.take_ledger())
            .and_then(|()| std::io::Write::flush(&mut out))
            .and_then(|()| out.get_ref().sync_data())
            .with_context(|| format!("writing the ledger {}", path.display()))?;
    }
    bar.finish_and_clear();
    Ok((checker, resumed))
}

/// What a reader of the log does with the ledger of revealed pairs'
/// digests kept beside a state file (`crate::audit::cross::PairDigest`).
#[derive(Clone, Copy)]
pub(crate) enum Ledger<'a> {
    /// None kept.
    Ignore,
    /// Kept at this path (the monitor with --state): a resumed run cuts it
    /// back to its snapshot's mark and appends to it; a full run writes it
    /// anew beside it ([`unaccepted`]), which takes its place only when the
    /// run is accepted ([`accept_ledger`]): a run that is not (a fork, a
    /// shrunk log) never touches the ledger its state's snapshot vouches
    /// for.
    Keep(&'a std::path::Path),
}

/// Where a full run writes the ledger until it is accepted.
fn unaccepted(ledger: &std::path::Path) -> PathBuf {
    beside(ledger, ".new")
}

/// The end of a full run that kept a ledger at `path`: the ledger it
/// wrote replaces the old when the run was accepted, and is removed when
/// not. Before the snapshot is written.
fn accept_ledger(path: &std::path::Path, accepted: bool) -> anyhow::Result<()> {
    let written = unaccepted(path);
    if accepted {
        std::fs::rename(&written, path)
            .with_context(|| format!("writing the ledger {}", path.display()))
    } else {
        let _ = std::fs::remove_file(&written);
        Ok(())
    }
}

/// The ledger at `path` opened for this run's records: cut back to where
/// the resumed snapshot says it ends (records a run wrote and never
/// accepted go), or written anew for a full run ([`unaccepted`]).
fn open_ledger(
    path: &std::path::Path,
    resumed: Option<crate::audit::monitor::LedgerMark>,
) -> anyhow::Result<(std::io::BufWriter<std::fs::File>, PathBuf)> {
    let path = match resumed {
        Some(_) => path.to_owned(),
        None => unaccepted(path),
    };
    let opened = (|| {
        let file = match resumed {
            Some(mark) => {
                let mut file = std::fs::OpenOptions::new().write(true).open(&path)?;
                file.set_len(mark.bytes)?;
                std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))?;
                file
            }
            None => std::fs::File::create(&path)?,
        };
        std::io::Result::Ok(std::io::BufWriter::with_capacity(1 << 16, file))
    })();
    let out = opened.with_context(|| format!("opening the ledger {}", path.display()))?;
    Ok((out, path))
}

/// A monitor's ledger, read through once against the hash chain of the
/// snapshot's mark before the snapshot is used, and again as its records
/// are held against an export.
pub(crate) struct CheckedLedger {
    file: std::fs::File,
    mark: crate::audit::monitor::LedgerMark,
}

impl CheckedLedger {
    /// The ledger at `path` if it holds what `mark` says, record for
    /// record; why not otherwise.
    pub(crate) fn open(
        path: &std::path::Path,
        mark: crate::audit::monitor::LedgerMark,
    ) -> anyhow::Result<Self> {
        let mut ledger = Self {
            file: std::fs::File::open(path)
                .with_context(|| format!("opening the ledger {}", path.display()))?,
            mark,
        };
        ledger
            .read(|_| {})
            .with_context(|| format!("the ledger {} is damaged", path.display()))?;
        Ok(ledger)
    }

    /// Holds the export against every pair it records, in its order, and
    /// checks them against the mark again: a monitor run overlapping this
    /// audit could have rewritten the file since it was opened (the audit
    /// is then an error, to be run again, not a verdict).
    pub(crate) fn hold(
        mut self,
        cross: &mut crate::audit::monitor::CrossCheck,
    ) -> anyhow::Result<()> {
        self.read(|record| cross.revealed(record))
            .context("the ledger changed while it was read (a monitor run at the same time?): run the audit again")
    }

    /// Each record from the start, as far as the mark says; an error when
    /// they are not the ones its hash chain says.
    fn read(
        &mut self,
        mut each: impl FnMut(crate::audit::cross::PairDigest),
    ) -> anyhow::Result<()> {
        std::io::Seek::seek(&mut self.file, std::io::SeekFrom::Start(0))?;
        let mut from = std::io::BufReader::with_capacity(
            1 << 16,
            std::io::Read::take(&mut self.file, self.mark.bytes),
        );
        let mut reached = crate::audit::monitor::LedgerMark::default();
        let mut bytes = Vec::new();
        while let Some(record) = crate::audit::cross::PairDigest::read(&mut from)? {
            bytes.clear();
            record.write(&mut bytes);
            reached = reached.after(&bytes);
            each(record);
        }
        anyhow::ensure!(
            reached == self.mark,
            "{} records, not the {} its snapshot vouches for",
            reached.pairs,
            self.mark.pairs
        );
        Ok(())
    }
}

/// Where the memory of the last accepted run is kept: beside the state
/// file, with `.snapshot` added to its name.
fn snapshot_path(state: &std::path::Path) -> PathBuf {
    beside(state, ".snapshot")
}

/// Where the ledger of revealed pairs' digests is kept: beside the state
/// file, with `.digests` added to its name.
pub(crate) fn ledger_path(state: &std::path::Path) -> PathBuf {
    beside(state, ".digests")
}

fn beside(state: &std::path::Path, suffix: &str) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `path` whole or not at all: `write` fills a temporary file beside
/// it, which then replaces it; with `durable`, once on disk. (The snapshot
/// need not be: one lost or torn in a crash is not read, and the next run
/// reads the whole log.)
fn write_atomically(
    path: &std::path::Path,
    durable: bool,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    let temporary = PathBuf::from(name);
    let written = (|| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&temporary)?);
        write(&mut out)?;
        out.flush()?;
        if durable {
            out.get_ref().sync_all()?;
        }
        std::fs::rename(&temporary, path)?;
        anyhow::Ok(())
    })();
    written.with_context(|| format!("writing {}", path.display()))
}

fn print_text(base: &str, report: &MonitorReport) {
    if report.origin.is_empty() {
        println!(
            "fairdeal monitor of {}: its checkpoint did not verify",
            printable(base)
        );
    } else {
        println!(
            "fairdeal monitor of {} ({} entries, root {})",
            printable(&report.origin),
            report.size,
            report.root
        );
    }
    println!(
        "  {} seed pairs, {} rounds; {} commitments not revealed{}",
        report.pairs,
        report.rounds,
        report.unrevealed,
        report
            .oldest_unrevealed_seconds
            .map(|s| format!(" (the oldest {s} s old)"))
            .unwrap_or_default()
    );
    if let Some(by) = &report.witnessed_by {
        println!(
            "  witnessed by {} of the witnesses trusted: {}",
            by.len(),
            by.iter()
                .map(|w| printable(w))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(latest) = report.latest_unwitnessed_size {
        println!(
            "  the latest checkpoint ({latest} entries) is not yet witnessed: checked up to the largest one that is"
        );
    }
    if report.tables > 0 {
        println!(
            "  {} of them tables, {} voided by a stalled seat",
            report.tables, report.table_voids
        );
    }
    if !report.unused_commitments.is_empty() {
        println!(
            "  {} committed but never given a client seed or a round: {}",
            report.unused_commitments.len(),
            printable(&report.unused_commitments.join(", "))
        );
    }
    for note in &report.notes {
        println!("  note: {}", printable(&note.detail));
    }
    for finding in &report.findings {
        match finding.index {
            Some(index) => println!(
                "  {} at entry {index}: {}",
                finding.kind,
                printable(&finding.detail)
            ),
            None => println!("  {}: {}", finding.kind, printable(&finding.detail)),
        }
    }
    if report.findings_not_listed > 0 {
        println!(
            "  … and {} more problem(s) not listed",
            report.findings_not_listed
        );
    }
    if report.passed() {
        println!("verdict: PASS: the log checks out");
    } else {
        println!("verdict: FAIL: {} problem(s)", report.problems());
    }
}

/// The state file at `path` (the last checkpoint accepted), if there is
/// one; one that is not a state file is an input error.
pub(crate) fn read_state(path: Option<&std::path::Path>) -> anyhow::Result<Option<MonitorState>> {
    let Some(path) = path.filter(|path| path.exists()) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the state file {}", path.display()))?;
    Ok(Some(serde_json::from_str(&text).map_err(|e| {
        InputError::new(
            "--state",
            format!("{} is not a monitor state file: {e}", path.display()),
        )
    })?))
}

/// The memory of the run that accepted `previous` (beside the state file
/// at `state`): with it only the entries added since are read. One that is
/// missing, of another checkpoint or unreadable means a full run.
pub(crate) fn read_snapshot(state: &std::path::Path, previous: &MonitorState) -> Option<Snapshot> {
    std::fs::File::open(snapshot_path(state))
        .ok()
        .and_then(|file| Snapshot::read(std::io::BufReader::new(file)))
        .filter(|s| s.state() == previous)
}

pub fn run(opts: MonitorOpts) -> anyhow::Result<ExitCode> {
    let base = opts.url.trim_end_matches('/').to_owned();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(InputError::new("URL", "must start with http:// or https://").into());
    }
    if !(opts.reveal_within.is_finite() && opts.reveal_within > 0.0) {
        return Err(InputError::new("--reveal-within", "must be a positive number of days").into());
    }
    let now = match opts.as_of.as_deref() {
        None => crate::time::now_ms(),
        Some(text) => crate::time::parse_timestamp(text).ok_or_else(|| {
            InputError::new(
                "--as-of",
                format!(
                    "must be an RFC 3339 UTC time with milliseconds, such as 2026-11-28T09:30:00.000Z; got {:?}",
                    text.chars().take(40).collect::<String>()
                ),
            )
        })?,
    };
    let signer = match (&opts.statement_key, &opts.statement_name) {
        (Some(path), Some(name)) => Some(
            statement_key(path, name)
                .map_err(|e| InputError::unreadable("--statement-key", format!("{e:#}")))?,
        ),
        _ => None,
    };
    if let (true, Some(key)) = (opts.print_vkey, &signer) {
        println!("{}", key.vkey());
        return Ok(ExitCode::SUCCESS);
    }
    let previous = read_state(opts.state.as_deref())?;
    let snapshot_path = opts.state.as_ref().map(|path| snapshot_path(path));
    let ledger_path = opts.state.as_deref().map(ledger_path);
    // --check-api reads every pair and round back from the API: it reads
    // the whole log, every run.
    let snapshot = match (&previous, &opts.state) {
        (Some(previous), Some(path)) if !opts.check_api => read_snapshot(path, previous),
        _ => None,
    };
    let policy =
        crate::audit::witnessed::WitnessPolicy::new(&opts.witness_keys, opts.witness_quorum)
            .map_err(|(flag, rule)| InputError::new(flag, rule))?;
    let mut kept = Vec::new();
    let (checker, resumed) = read_log(
        &base,
        Trust {
            key: opts.key.as_deref(),
            witnesses: policy.as_ref(),
        },
        previous.as_ref(),
        snapshot,
        ledger_path.as_deref().map_or(Ledger::Ignore, Ledger::Keep),
        false,
        None,
        |_| {},
        |entry| {
            if opts.check_api {
                kept.push(entry.to_vec());
            }
        },
    )
    .map_err(|e| InputError::unreadable("URL", format!("{e:#}")))?;
    let within_ms = (opts.reveal_within * 86_400_000.0) as i64;
    let (mut report, _, snapshot) = checker.finish_keeping(now, within_ms);
    if opts.check_api && report.checkpoint_accepted {
        let found =
            check_api(&base, &kept).map_err(|e| InputError::unreadable("URL", format!("{e:#}")))?;
        report.findings.extend(found);
    }
    // The accepted checkpoint advances whenever the new one is proven
    // consistent with it, whatever the entries promise: findings are
    // reported (every run finds them again), the history is remembered.
    // The snapshot goes first: a state file never names a checkpoint
    // whose snapshot is older (that one would only cost a full run).
    if let (Some(path), false) = (&ledger_path, resumed) {
        accept_ledger(path, report.state.is_some())?;
    }
    if let (Some(path), Some(state)) = (&opts.state, &report.state) {
        if let (Some(snapshot), Some(at)) = (snapshot, &snapshot_path) {
            write_atomically(at, false, |out| snapshot.write(out))?;
        }
        let text = serde_json::to_string_pretty(state)?
            + "
";
        write_atomically(path, true, |out| {
            Ok(std::io::Write::write_all(out, text.as_bytes())?)
        })?;
    }
    // The monitor's signed word on what it checked: of any checkpoint whose
    // signature verified with the trusted key, a log found unsound
    // (a changed tile, a fork) included.
    let statement = match &signer {
        Some(key) if !report.origin.is_empty() => Some(statement_of(&report, key)?),
        _ => None,
    };
    if resumed && !opts.json {
        eprintln!(
            "resumed from the {} entries accepted last time ({}); read {} new",
            previous.as_ref().map_or(0, |p| p.size),
            snapshot_path
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            report.size - previous.as_ref().map_or(0, |p| p.size)
        );
    }
    if opts.json {
        let mut value = serde_json::to_value(&report)?;
        value["verdict"] = if report.passed() { "pass" } else { "fail" }.into();
        // The entries taken from the last run's snapshot instead of read.
        value["resumed_from"] = resumed
            .then(|| previous.as_ref().map(|p| p.size))
            .flatten()
            .into();
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_text(&base, &report);
        if let (Some(path), false) = (&opts.state, report.checkpoint_accepted) {
            println!(
                "  the checkpoint was not accepted: {} still holds the last one accepted",
                path.display()
            );
        }
    }
    // After the report is printed, so that a refused post hides nothing.
    if let Some(note) = &statement {
        if let Some(path) = &opts.statement_out {
            write_atomically(path, false, |out| {
                Ok(std::io::Write::write_all(out, note.as_bytes())?)
            })
            .map_err(|e| InputError::unreadable("--statement-out", format!("{e:#}")))?;
        }
        if opts.publish {
            publish_statement(&base, note).map_err(|e| {
                InputError::new("--publish", format!("the statement was not kept: {e:#}"))
            })?;
            eprintln!(
                "statement of {} entries ({} finding(s)) posted to {base}/v1/log/monitor-statements",
                report.size,
                report.problems()
            );
        }
    } else if signer.is_some() {
        eprintln!("no statement: the log's checkpoint did not verify with the trusted key");
    }
    if !report.passed() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
