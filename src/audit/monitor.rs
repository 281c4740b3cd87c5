//! The monitor's checks: everything a third party can prove from the
//! transparency log alone (docs/TRANSPARENCY.md). Given the log's verifier
//! key, its signed checkpoint, every entry and its hash tiles, it checks the
//! signature, recomputes the tree, proves the checkpoint consistent with the
//! last one accepted, and checks what the entries promise: every reveal
//! opens its commitment, every successor was promised, events come in their
//! order, and no client seed was given to two pairs live at the same time
//! (deal-shopping across pairs). For draws: every result opens its
//! commitment and names as many distinct entrants as promised, and a draw
//! given its client seed but never run is named (an operator who saw the
//! winners coming and did not like them).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::table_checks::{TableTrack, repeated_voids};
use crate::tlog::key::verify_note;
use crate::tlog::tiles::TILE_WIDTH;
use crate::tlog::tree::{self, Hash, MemoryHashes};

/// What a monitor remembers between runs: the last checkpoint it accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonitorState {
    pub origin: String,
    pub vkey: String,
    pub size: u64,
    /// Base64 root hash.
    pub root: String,
}

/// The log as read: the verifier key, the signed checkpoint, every entry up
/// to its size, and the hash tiles as served (level, index, bytes).
#[derive(Debug)]
pub struct LogView {
    pub vkey: String,
    pub checkpoint: String,
    pub entries: Vec<Vec<u8>>,
    pub hash_tiles: Vec<(u8, u64, Vec<u8>)>,
}

/// One problem, named with what it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `signature`, `tree`, `tile`, `fork`, `key`, `entry`, `order`,
    /// `reveal`, `succession`, `client_seed_reuse`, `stale_commitment`,
    /// `draw`, `draw_not_run`, `draw_reuse`, `table`, `repeated_voids`,
    /// `api`.
    pub kind: &'static str,
    /// The log index it concerns, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    pub detail: String,
}

/// What the monitor saw and found.
#[derive(Debug, Serialize)]
pub struct MonitorReport {
    pub origin: String,
    pub size: u64,
    pub root: String,
    pub pairs: u64,
    pub rounds: u64,
    /// Pairs committed and not revealed.
    pub unrevealed: u64,
    /// Age in seconds of the oldest unrevealed commitment.
    pub oldest_unrevealed_seconds: Option<i64>,
    /// Pairs committed but never given a client seed or a round: the trace a
    /// cherry-picking operator leaves.
    pub unused_commitments: Vec<String>,
    /// Draws committed, and of those drawn.
    pub draws: u64,
    pub draws_drawn: u64,
    /// Draws committed but never given a client seed.
    pub unseeded_draws: Vec<String>,
    /// Table pairs committed, and of those voided by a stalled seat.
    pub tables: u64,
    pub table_voids: u64,
    pub findings: Vec<Finding>,
    /// The state to keep for the next run (this checkpoint), when it passed.
    #[serde(skip)]
    pub state: MonitorState,
}

impl MonitorReport {
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }
}

/// What the log has said about one pair so far.
#[derive(Default)]
struct PairTrack {
    server_seed_hash: String,
    next_server_seed_hash: String,
    committed_at_ms: Option<i64>,
    client_seed: Option<(u64, String)>,
    next_nonce: u64,
    revealed_at: Option<u64>,
    successor: Option<String>,
    /// A table pair's seats and their commitments and reveals.
    table: Option<TableTrack>,
}

/// What the log has said about one draw so far.
#[derive(Default)]
struct DrawTrack {
    server_seed_hash: String,
    entries_sha256: String,
    client_seed_sha256: String,
    entries: u64,
    winners: u64,
    client_seed_at_ms: Option<i64>,
    client_seed: bool,
    drawn: bool,
}

/// Checks a draw entry against what the log said of its draw before;
/// findings go to `find`.
fn check_draw_entry(
    draws: &mut HashMap<String, DrawTrack>,
    index: u64,
    entry: &Value,
    find: &mut impl FnMut(&'static str, Option<u64>, String),
) {
    let id = entry["draw"].as_str().unwrap_or_default().to_owned();
    let kind = entry["type"].as_str().unwrap_or_default();
    if kind == "draw_commit" {
        if draws.contains_key(&id) {
            find(
                "order",
                Some(index),
                format!("draw {id} is committed twice"),
            );
            return;
        }
        draws.insert(
            id,
            DrawTrack {
                server_seed_hash: entry["server_seed_hash"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                entries_sha256: entry["entries_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                entries: entry["entries"].as_u64().unwrap_or_default(),
                winners: entry["winners"].as_u64().unwrap_or_default(),
                ..DrawTrack::default()
            },
        );
        return;
    }
    let Some(track) = draws.get_mut(&id) else {
        find(
            "order",
            Some(index),
            format!("a {kind} entry of draw {id}, never committed"),
        );
        return;
    };
    match kind {
        "draw_client_seed" => {
            if track.client_seed || track.drawn {
                find(
                    "order",
                    Some(index),
                    format!("draw {id} gets a second client seed"),
                );
            }
            track.client_seed = true;
            track.client_seed_at_ms = time_ms(entry);
            track.client_seed_sha256 = entry["client_seed_sha256"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
        }
        _ => {
            if !track.client_seed || track.drawn {
                find(
                    "order",
                    Some(index),
                    format!("draw {id} is drawn before its client seed, or twice"),
                );
            }
            track.drawn = true;
            if !opens(entry, &track.server_seed_hash) {
                find(
                    "reveal",
                    Some(index),
                    format!("draw {id}'s revealed seed does not hash to its commitment"),
                );
            }
            let winners: Vec<u64> = entry["winners"]
                .as_array()
                .map(|w| w.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let mut distinct = winners.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if winners.len() as u64 != track.winners
                || distinct.len() != winners.len()
                || winners.iter().any(|&w| w >= track.entries)
            {
                find(
                    "draw",
                    Some(index),
                    format!(
                        "draw {id} promised {} distinct winners of {} entries; its result names {:?}",
                        track.winners, track.entries, winners
                    ),
                );
            }
        }
    }
}

/// Whether the entry's revealed `server_seed` hashes to `commitment`.
fn opens(entry: &Value, commitment: &str) -> bool {
    let seed = entry["server_seed"].as_str().unwrap_or_default();
    hex::decode(seed)
        .map(|bytes| hex::encode(Sha256::digest(bytes)) == commitment)
        .unwrap_or(false)
}

fn time_ms(entry: &Value) -> Option<i64> {
    let text = entry["time"].as_str()?;
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
}

/// Checks `view`; `previous` is the state of the last accepted run, `now_ms`
/// the time, `reveal_within_ms` the policy age for unrevealed commitments.
/// Errors are for a log that cannot be read at all (an unusable key or
/// checkpoint text); everything else is a finding.
pub fn check(
    view: &LogView,
    previous: Option<&MonitorState>,
    now_ms: i64,
    reveal_within_ms: i64,
) -> anyhow::Result<MonitorReport> {
    let mut findings = Vec::new();
    let mut find = |kind, index, detail: String| {
        findings.push(Finding {
            kind,
            index,
            detail,
        })
    };

    // The checkpoint, signed by the key.
    let body = match verify_note(&view.checkpoint, &view.vkey) {
        Ok(body) => body,
        Err(err) => {
            find(
                "signature",
                None,
                format!("the checkpoint does not verify with {}: {err:#}", view.vkey),
            );
            String::new()
        }
    };
    let lines: Vec<&str> = body.lines().collect();
    let (origin, size, root_text) = match lines.as_slice() {
        [origin, size, root, ..] => (
            (*origin).to_owned(),
            size.parse::<u64>().unwrap_or(0),
            (*root).to_owned(),
        ),
        _ => {
            anyhow::ensure!(
                body.is_empty(),
                "the checkpoint's body is not origin, size and root"
            );
            (String::new(), 0, String::new())
        }
    };
    if !body.is_empty() && !view.vkey.starts_with(&format!("{origin}+")) {
        find(
            "key",
            None,
            format!("the checkpoint's origin {origin:?} is not the key's name"),
        );
    }
    if view.entries.len() as u64 != size {
        find(
            "tree",
            None,
            format!(
                "the checkpoint says {size} entries; {} were served",
                view.entries.len()
            ),
        );
    }

    // The tree: recompute every stored hash, the root, and compare the tiles.
    let mut stored = MemoryHashes::default();
    let mut roots_at = HashMap::new();
    let wanted: Vec<u64> = previous.map(|p| p.size).into_iter().collect();
    for (n, entry) in view.entries.iter().enumerate() {
        let n = n as u64;
        let added = tree::append(n, entry, &stored)?;
        let first = tree::first_stored_index(n);
        for (i, hash) in added.into_iter().enumerate() {
            stored.0.insert(first + i as u64, hash);
        }
        if wanted.contains(&(n + 1)) {
            roots_at.insert(n + 1, tree::tree_hash(n + 1, &stored)?);
        }
    }
    let computed = tree::tree_hash(view.entries.len() as u64, &stored)?;
    if computed.to_string() != root_text {
        find(
            "tree",
            None,
            format!(
                "the entries served give the root {computed}, not the checkpoint's {root_text}: entries were changed or withheld"
            ),
        );
    }
    for (level, index, bytes) in &view.hash_tiles {
        let expected: Vec<u8> = (0..bytes.len() as u64 / 32)
            .filter_map(|k| {
                let at = tlog_tiles::stored_hash_index(level * 8, index * TILE_WIDTH + k);
                stored.0.get(&at).map(|h| h.0)
            })
            .flatten()
            .collect();
        if &expected != bytes {
            find(
                "tile",
                None,
                format!("hash tile {level}/{index} does not match the entries"),
            );
        }
    }

    // Consistency with the last accepted checkpoint.
    if let Some(previous) = previous {
        if previous.vkey != view.vkey {
            find(
                "key",
                None,
                format!(
                    "the log key changed from {} to {}",
                    previous.vkey, view.vkey
                ),
            );
        }
        if previous.size > size {
            find(
                "fork",
                None,
                format!(
                    "the log shrank: the last accepted checkpoint had {} entries (root {}), this one {size} (root {root_text})",
                    previous.size, previous.root
                ),
            );
        } else if let Some(old_root) = roots_at
            .get(&previous.size)
            .copied()
            .or_else(|| (previous.size == 0).then(|| Hash(Sha256::digest(b"").into())))
            && old_root.to_string() != previous.root
        {
            find(
                "fork",
                None,
                format!(
                    "the log forked: the last accepted checkpoint of {} entries had root {}, but this log's first {} entries give {old_root} (now {size} entries, root {root_text})",
                    previous.size, previous.root, previous.size
                ),
            );
        }
    }

    // What the entries promise.
    let mut pairs: HashMap<String, PairTrack> = HashMap::new();
    let mut seed_holders: HashMap<String, Vec<String>> = HashMap::new();
    let mut draws: HashMap<String, DrawTrack> = HashMap::new();
    let mut voids: Vec<(String, String)> = Vec::new();
    let mut rounds = 0u64;
    for (index, bytes) in view.entries.iter().enumerate() {
        let index = index as u64;
        let Ok(entry) = serde_json::from_slice::<Value>(bytes) else {
            find("entry", Some(index), "not JSON".to_owned());
            continue;
        };
        let pair_id = entry["seed_pair"].as_str().unwrap_or_default().to_owned();
        match entry["type"].as_str() {
            Some("commit") => {
                if pairs.contains_key(&pair_id) {
                    find(
                        "order",
                        Some(index),
                        format!("pair {pair_id} is committed twice"),
                    );
                    continue;
                }
                let track = PairTrack {
                    server_seed_hash: entry["server_seed_hash"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    next_server_seed_hash: entry["next_server_seed_hash"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    committed_at_ms: time_ms(&entry),
                    table: entry["seats"].as_array().map(|seats| {
                        TableTrack::new(
                            seats
                                .iter()
                                .map(|s| s.as_str().unwrap_or_default().to_owned())
                                .collect(),
                            entry["seat_set"].as_str(),
                        )
                    }),
                    ..PairTrack::default()
                };
                if let Some(predecessor) = entry["predecessor"].as_str() {
                    match pairs.get(predecessor) {
                        Some(p)
                            if p.successor.as_deref() == Some(pair_id.as_str())
                                && p.next_server_seed_hash == track.server_seed_hash => {}
                        Some(_) => find(
                            "succession",
                            Some(index),
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which did not promise it (its reveal names another successor, or another next commitment)"
                            ),
                        ),
                        None => find(
                            "succession",
                            Some(index),
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which the log never committed"
                            ),
                        ),
                    }
                }
                pairs.insert(pair_id, track);
            }
            Some("client_seed") => {
                let hash = entry["client_seed_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let Some(track) = pairs.get_mut(&pair_id) else {
                    find(
                        "order",
                        Some(index),
                        format!("a client seed for {pair_id} before its commitment"),
                    );
                    continue;
                };
                if track.client_seed.is_some() {
                    find(
                        "order",
                        Some(index),
                        format!("pair {pair_id} gets a second client seed"),
                    );
                    continue;
                }
                if let Some(problem) = track
                    .table
                    .as_ref()
                    .and_then(|t| t.client_seed_entry(&pair_id))
                {
                    find("table", Some(index), problem);
                }
                track.client_seed = Some((index, hash.clone()));
                let holders = seed_holders.entry(hash).or_default();
                for other in holders.iter() {
                    if pairs.get(other).is_some_and(|o| o.revealed_at.is_none()) {
                        find(
                            "client_seed_reuse",
                            Some(index),
                            format!(
                                "the same client seed was given to pair {pair_id} while pair {other} was live: deals could have been shopped across them"
                            ),
                        );
                    }
                }
                holders.push(pair_id);
            }
            Some("round") => {
                rounds += 1;
                let nonce = entry["nonce"].as_u64();
                let Some(track) = pairs.get_mut(&pair_id) else {
                    find(
                        "order",
                        Some(index),
                        format!("a round of {pair_id} before its commitment"),
                    );
                    continue;
                };
                if track.client_seed.is_none() || track.revealed_at.is_some() {
                    find(
                        "order",
                        Some(index),
                        format!("a round of {pair_id} before its client seed or after its reveal"),
                    );
                }
                if nonce != Some(track.next_nonce) {
                    find(
                        "order",
                        Some(index),
                        format!(
                            "pair {pair_id} deals nonce {nonce:?} where {} was next (a gap or a repeat)",
                            track.next_nonce
                        ),
                    );
                }
                track.next_nonce = nonce.map_or(track.next_nonce, |n| n + 1);
            }
            Some("reveal") => {
                let Some(track) = pairs.get_mut(&pair_id) else {
                    find(
                        "order",
                        Some(index),
                        format!("a reveal of {pair_id}, never committed"),
                    );
                    continue;
                };
                if !opens(&entry, &track.server_seed_hash) {
                    find(
                        "reveal",
                        Some(index),
                        format!("pair {pair_id}'s revealed seed does not hash to its commitment"),
                    );
                }
                if track.revealed_at.is_some() {
                    find(
                        "order",
                        Some(index),
                        format!("pair {pair_id} is revealed twice"),
                    );
                }
                track.revealed_at = Some(index);
                track.successor = entry["successor"].as_str().map(str::to_owned);
            }
            Some("seat_commitment" | "seat_contribution" | "table_void") => {
                let kind = entry["type"].as_str().unwrap_or_default();
                let Some(track) = pairs.get_mut(&pair_id) else {
                    find(
                        "order",
                        Some(index),
                        format!("a {kind} of {pair_id}, never committed"),
                    );
                    continue;
                };
                let Some(table) = track.table.as_mut() else {
                    find(
                        "table",
                        Some(index),
                        format!("a {kind} of {pair_id}, which was not committed as a table"),
                    );
                    continue;
                };
                if kind == "table_void" {
                    if let Some(problem) = table.void_entry(&pair_id, &entry) {
                        find("table", Some(index), problem);
                    }
                    voids.push((pair_id.clone(), table.set.clone()));
                    if !opens(&entry, &track.server_seed_hash) {
                        find(
                            "reveal",
                            Some(index),
                            format!(
                                "void table {pair_id}'s revealed seed does not hash to its commitment"
                            ),
                        );
                    }
                    if track.client_seed.is_some() || track.revealed_at.is_some() {
                        find(
                            "order",
                            Some(index),
                            format!("table {pair_id} is voided after its client seed or reveal"),
                        );
                    }
                    track.revealed_at = Some(index);
                } else if let Some(problem) = table.seat_entry(&pair_id, &entry) {
                    find("table", Some(index), problem);
                }
            }
            Some("draw_commit" | "draw_client_seed" | "draw_result") => {
                check_draw_entry(&mut draws, index, &entry, &mut find);
            }
            other => find(
                "entry",
                Some(index),
                format!("an entry of unknown type {other:?}"),
            ),
        }
    }

    // Commitments never revealed, and never used.
    let mut unrevealed = 0u64;
    let mut oldest: Option<i64> = None;
    let mut unused = Vec::new();
    let mut stale = Vec::new();
    for (id, track) in &pairs {
        if track.revealed_at.is_some() {
            continue;
        }
        unrevealed += 1;
        if let Some(at) = track.committed_at_ms {
            let age = now_ms.saturating_sub(at);
            oldest = Some(oldest.map_or(age, |o| o.max(age)));
            if age > reveal_within_ms {
                stale.push((id.clone(), age / 1000));
            }
        }
        if track.client_seed.is_none() && track.next_nonce == 0 {
            unused.push(id.clone());
        }
    }
    stale.sort();
    for (id, age) in stale {
        find(
            "stale_commitment",
            None,
            format!("pair {id} was committed {age} s ago and is still not revealed"),
        );
    }
    unused.sort();
    let mut unrun: Vec<(&String, i64)> = draws
        .iter()
        .filter(|(_, d)| d.client_seed && !d.drawn)
        .filter_map(|(id, d)| Some((id, now_ms.saturating_sub(d.client_seed_at_ms?))))
        .filter(|(_, age)| *age > reveal_within_ms)
        .collect();
    unrun.sort();
    // The same list with the same client seed in two draws: the operator
    // could publish whichever result it liked (draw-shopping).
    let mut same: HashMap<(&str, &str), Vec<&String>> = HashMap::new();
    for (id, d) in &draws {
        if d.client_seed {
            same.entry((d.entries_sha256.as_str(), d.client_seed_sha256.as_str()))
                .or_default()
                .push(id);
        }
    }
    let mut shopped: Vec<Vec<&String>> = same.into_values().filter(|ids| ids.len() > 1).collect();
    for ids in &mut shopped {
        ids.sort();
    }
    shopped.sort();
    for ids in shopped {
        find(
            "draw_reuse",
            None,
            format!(
                "draws {} draw from the same list with the same client seed: the operator could publish the result it liked",
                ids.iter()
                    .map(|id| id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    let mut unseeded: Vec<String> = draws
        .iter()
        .filter(|(_, d)| !d.client_seed)
        .map(|(id, _)| id.clone())
        .collect();
    unseeded.sort();
    for (id, age) in unrun {
        find(
            "draw_not_run",
            None,
            format!(
                "draw {id} got its client seed {} s ago and was never run: its winners were knowable to the operator",
                age / 1000
            ),
        );
    }
    // A table voided again and again: the operator may be re-rolling it
    // until the seats' contributions suit it (each void reveals what the
    // deal would have been).
    for voided in repeated_voids(&voids) {
        find(
            "repeated_voids",
            None,
            format!(
                "the same seats were voided {} times (pairs {}): a table re-rolled by voiding it looks like this",
                voided.len(),
                voided.join(", ")
            ),
        );
    }
    let state = MonitorState {
        origin: origin.clone(),
        vkey: view.vkey.clone(),
        size,
        root: root_text.clone(),
    };
    Ok(MonitorReport {
        origin,
        size,
        root: root_text,
        pairs: pairs.len() as u64,
        rounds,
        unrevealed,
        oldest_unrevealed_seconds: oldest.map(|ms| ms / 1000),
        unused_commitments: unused,
        draws: draws.len() as u64,
        draws_drawn: draws.values().filter(|d| d.drawn).count() as u64,
        unseeded_draws: unseeded,
        tables: pairs.values().filter(|p| p.table.is_some()).count() as u64,
        table_voids: voids.len() as u64,
        findings,
        state,
    })
}

#[cfg(test)]
mod draw_tests {
    use super::*;
    use serde_json::json;

    fn findings(entries: &[Value]) -> Vec<(&'static str, String)> {
        let mut draws = HashMap::new();
        let mut found = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            check_draw_entry(&mut draws, index as u64, entry, &mut |kind, _, detail| {
                found.push((kind, detail))
            });
        }
        found
    }

    #[test]
    fn a_draw_result_must_open_its_commitment_and_name_distinct_winners() {
        let seed = "00".repeat(32);
        let hash = hex::encode(Sha256::digest([0u8; 32]));
        let commit = json!({"type": "draw_commit", "draw": "d", "server_seed_hash": hash,
                            "entries": 5, "winners": 2, "time": "2026-11-23T00:00:00Z"});
        let seeded =
            json!({"type": "draw_client_seed", "draw": "d", "time": "2026-11-23T00:00:01Z"});
        let result = |winners: Value, seed: &str| json!({"type": "draw_result", "draw": "d", "server_seed": seed, "winners": winners});
        assert!(
            findings(&[commit.clone(), seeded.clone(), result(json!([3, 0]), &seed)]).is_empty()
        );
        let kinds = |entries: &[Value]| -> Vec<&'static str> {
            findings(entries)
                .into_iter()
                .map(|(kind, _)| kind)
                .collect()
        };
        assert_eq!(
            kinds(&[commit.clone(), seeded.clone(), result(json!([3, 3]), &seed)]),
            ["draw"]
        );
        assert_eq!(
            kinds(&[commit.clone(), seeded.clone(), result(json!([3]), &seed)]),
            ["draw"]
        );
        assert_eq!(
            kinds(&[commit.clone(), seeded.clone(), result(json!([3, 5]), &seed)]),
            ["draw"]
        );
        assert_eq!(
            kinds(&[
                commit.clone(),
                seeded.clone(),
                result(json!([3, 0]), &"11".repeat(32))
            ]),
            ["reveal"]
        );
        assert_eq!(
            kinds(&[commit.clone(), result(json!([3, 0]), &seed)]),
            ["order"]
        );
        assert_eq!(kinds(std::slice::from_ref(&seeded)), ["order"]);
        assert_eq!(kinds(&[commit.clone(), commit.clone()]), ["order"]);
        assert_eq!(kinds(&[commit, seeded.clone(), seeded]), ["order"]);
    }
}
