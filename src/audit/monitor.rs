//! The one checker of a transparency log, shared by `fairdeal monitor` and
//! `fairdeal audit --log`: everything a third party can prove from the log
//! alone (docs/TRANSPARENCY.md). Given the log's verifier key and its signed
//! checkpoint, it checks the signature first, before anything else is read;
//! then it takes the entries a bundle at a time (nothing is kept of an entry
//! once it is checked), recomputes the tree on the way (a compact range:
//! memory grows with the log's height, not its size), compares each hash
//! tile as soon as its hashes are known, proves the checkpoint consistent
//! with the last one accepted, and checks what the entries promise: every
//! reveal opens its commitment, every successor was promised, events come in
//! their order, the first entry of each kind wins and a second is a finding,
//! and no client seed (or one that looks like it) was given by one tenant to
//! two pairs live at the same time (deal-shopping across pairs). For draws:
//! every result opens its commitment and names as many distinct entrants as
//! promised, a draw given its client seed but never run is named, and two
//! draws of one list with one seed are named.
//!
//! Memory grows with the number of pairs and draws, never with their square:
//! pairs sharing a seed are one group, reported once; at most
//! [`MAX_FINDINGS`] findings are listed (the rest are counted).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::table_checks::{TableTrack, repeated_voids};
use crate::tlog::key::verify_note;
use crate::tlog::tree::{ExpectedTile, Hash, TileBuilder};

/// What a monitor remembers between runs: the last checkpoint it accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonitorState {
    pub origin: String,
    pub vkey: String,
    pub size: u64,
    /// Base64 root hash.
    pub root: String,
}

/// A log held in memory: the verifier key, the signed checkpoint, every
/// entry up to its size, and the hash tiles as served (level, index,
/// bytes). The command line streams instead ([`LogChecker`]).
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
    /// `api`; for notes, `client_seed_shared` and `draw_seed_shared`.
    pub kind: &'static str,
    /// The log index it concerns, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    pub detail: String,
}

/// The most findings (and, apart, notes) a report lists; the rest are
/// counted in `findings_not_listed`. A hostile log can make one finding an
/// entry; a report must not grow with it.
pub const MAX_FINDINGS: usize = 1000;

/// Pairs (or draws) one grouped finding names at most.
const MAX_NAMED: usize = 20;

/// Findings kept, up to [`MAX_FINDINGS`], and whether any concerns the log
/// itself (its signature, key, tree, tiles or history) rather than what its
/// entries say.
#[derive(Debug, Default)]
struct Findings {
    listed: Vec<Finding>,
    not_listed: u64,
    log_unsound: bool,
}

impl Findings {
    fn add(&mut self, kind: &'static str, index: Option<u64>, detail: String) {
        if matches!(kind, "signature" | "key" | "tree" | "tile" | "fork") {
            self.log_unsound = true;
        }
        if self.listed.len() < MAX_FINDINGS {
            self.listed.push(Finding {
                kind,
                index,
                detail,
            });
        } else {
            self.not_listed += 1;
        }
    }
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
    /// Findings beyond the [`MAX_FINDINGS`] listed.
    pub findings_not_listed: u64,
    /// What an honest log may show and a reader should know, never a
    /// failure: a client seed shared by pairs of different tenants, or
    /// given again after the earlier pair was revealed.
    pub notes: Vec<Finding>,
    /// Whether the checkpoint itself was accepted: its signature, tree and
    /// tiles verify, and it extends the last accepted one. The monitor then
    /// remembers it, whatever its entries promise.
    pub checkpoint_accepted: bool,
    /// The state to keep for the next run (this checkpoint), when accepted.
    #[serde(skip)]
    pub state: Option<MonitorState>,
}

impl MonitorReport {
    pub fn passed(&self) -> bool {
        self.findings.is_empty() && self.findings_not_listed == 0
    }

    /// Every problem found, listed or not.
    pub fn problems(&self) -> u64 {
        self.findings.len() as u64 + self.findings_not_listed
    }
}

/// What the log says of one pair: the first entry of each kind (a second is
/// a finding and changes nothing). `audit --log` holds an export to it.
#[derive(Clone, Debug, Default)]
pub struct PairFacts {
    pub server_seed_hash: String,
    pub client_seed_sha256: Option<String>,
    /// The revealed server seed (by a reveal or a table's void).
    pub server_seed: Option<String>,
    /// Its rounds by nonce: game and round id (kept only when asked for).
    pub rounds: BTreeMap<u64, (Value, String)>,
}

/// What the log has said about one pair so far.
#[derive(Default)]
struct PairTrack {
    facts: PairFacts,
    next_server_seed_hash: String,
    committed_at_ms: Option<i64>,
    /// The opaque tenant of its commit entry (absent from older entries).
    tenant: Option<String>,
    client_seed_at: Option<u64>,
    /// Its client seed's group of pairs with the same or a lookalike seed.
    seed_group: Option<usize>,
    /// The nonce the next round must have; `None` after nonce 2^64 − 1.
    next_nonce: Option<u64>,
    rounds: u64,
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
    entries: u64,
    winners: u64,
    tenant: Option<String>,
    client_seed_at_ms: Option<i64>,
    client_seed: bool,
    drawn: bool,
}

/// Items (pairs, draws) grouped by the hashes of their client seeds: an
/// item joins the group any of its hashes already names (its bytes' hash,
/// its lookalike hash), so old entries (bytes only) and new ones (both)
/// meet. Memory is linear in the items.
#[derive(Default)]
struct Groups {
    by_hash: HashMap<String, usize>,
    groups: Vec<SeedGroup>,
}

/// The items given one client seed, or seeds that look alike.
#[derive(Default)]
struct SeedGroup {
    /// The first item's hash of its bytes: a later item with other bytes
    /// makes the group a lookalike one.
    first_exact: String,
    lookalike: bool,
    /// Items in log order, with their tenant.
    members: Vec<(String, Option<String>)>,
    /// Live (unrevealed) members by tenant.
    live: HashMap<Option<String>, u32>,
    /// Members given the seed while another of their tenant held it live:
    /// (item, log index).
    shopped: Vec<(String, u64)>,
}

impl Groups {
    fn join(&mut self, exact: &str, lookalike: Option<&str>) -> usize {
        let keys = std::iter::once(exact).chain(lookalike);
        let found = keys.clone().find_map(|key| self.by_hash.get(key).copied());
        let group = found.unwrap_or_else(|| {
            self.groups.push(SeedGroup {
                first_exact: exact.to_owned(),
                ..SeedGroup::default()
            });
            self.groups.len() - 1
        });
        for key in keys {
            self.by_hash.entry(key.to_owned()).or_insert(group);
        }
        if self.groups[group].first_exact != exact {
            self.groups[group].lookalike = true;
        }
        group
    }
}

impl SeedGroup {
    /// Whether a member of `tenant` would overlap a live member of the same
    /// tenant (an entry without a tenant could be anyone's).
    fn live_same_tenant(&self, tenant: &Option<String>) -> bool {
        match tenant {
            Some(_) => {
                self.live.get(tenant).copied().unwrap_or(0)
                    + self.live.get(&None).copied().unwrap_or(0)
                    > 0
            }
            None => self.live.values().any(|n| *n > 0),
        }
    }

    fn release(&mut self, tenant: &Option<String>) {
        if let Some(n) = self.live.get_mut(tenant) {
            *n = n.saturating_sub(1);
        }
    }

    /// The members, named up to [`MAX_NAMED`].
    fn named(&self) -> String {
        named(
            self.members.iter().map(|(id, _)| id.as_str()),
            self.members.len(),
        )
    }
}

/// `ids` joined, at most [`MAX_NAMED`] of `count`, and how many more.
fn named<'a>(ids: impl Iterator<Item = &'a str>, count: usize) -> String {
    let mut text = ids.take(MAX_NAMED).collect::<Vec<_>>().join(", ");
    if count > MAX_NAMED {
        text.push_str(&format!(" and {} more", count - MAX_NAMED));
    }
    text
}

/// A string field of an entry, owned (empty when absent).
fn text(entry: &Value, field: &str) -> String {
    entry[field].as_str().unwrap_or_default().to_owned()
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

/// The log checker, fed as the log is read: [`LogChecker::new`] with the key
/// and the checkpoint (verified at once: read nothing more unless
/// [`LogChecker::trusted`]), then every entry in order
/// ([`LogChecker::entry`]), each hash tile as it becomes known
/// ([`LogChecker::take_tiles`], [`LogChecker::compare_tile`]), and
/// [`LogChecker::finish`].
pub struct LogChecker {
    vkey: String,
    origin: String,
    size: u64,
    root_text: String,
    trusted: bool,
    previous: Option<MonitorState>,
    keep_rounds: bool,
    tree: TileBuilder,
    root_at_previous: Option<Hash>,
    ready: Vec<ExpectedTile>,
    findings: Findings,
    pairs: HashMap<String, PairTrack>,
    pair_seeds: Groups,
    draws: HashMap<String, DrawTrack>,
    draw_seeds: Groups,
    voids: Vec<(String, String)>,
    rounds: u64,
}

impl std::fmt::Debug for LogChecker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogChecker")
            .field("origin", &self.origin)
            .field("size", &self.size)
            .field("read", &self.tree.leaves())
            .finish_non_exhaustive()
    }
}

impl LogChecker {
    /// Verifies `checkpoint` with the key the reader trusts: `pin` (given
    /// out of band), else the one `previous` remembers, else `vkey` (the
    /// one the log serves, trusted on first use). A served key other than
    /// the trusted one is a finding, and never verifies anything. Errors
    /// are for a checkpoint body that is not a checkpoint at all.
    pub fn new(
        vkey: &str,
        pin: Option<&str>,
        checkpoint: &str,
        previous: Option<&MonitorState>,
        keep_rounds: bool,
    ) -> anyhow::Result<Self> {
        let mut findings = Findings::default();
        let pinned = pin.unwrap_or(previous.map_or(vkey, |p| p.vkey.as_str()));
        if let (Some(pin), Some(previous)) = (pin, previous)
            && pin != previous.vkey
        {
            findings.add(
                "key",
                None,
                format!(
                    "the key given ({pin}) is not the one the state file trusted ({}): a new key is \
                     trusted only with a new state file",
                    previous.vkey
                ),
            );
        }
        if pinned != vkey {
            findings.add(
                "key",
                None,
                format!("the log key changed from {pinned} to {vkey}"),
            );
        }
        let body = match verify_note(checkpoint, pinned) {
            Ok(body) => Some(body),
            Err(err) => {
                findings.add(
                    "signature",
                    None,
                    format!("the checkpoint does not verify with {pinned}: {err:#}"),
                );
                None
            }
        };
        let (origin, size, root_text) = match &body {
            Some(body) => {
                let lines: Vec<&str> = body.lines().collect();
                let [origin, size, root, ..] = lines.as_slice() else {
                    anyhow::bail!("the checkpoint's body is not origin, size and root");
                };
                let size = size.parse::<u64>().map_err(|_| {
                    anyhow::anyhow!("the checkpoint's size {size:?} is not a number")
                })?;
                ((*origin).to_owned(), size, (*root).to_owned())
            }
            None => (String::new(), 0, String::new()),
        };
        if body.is_some() && !pinned.starts_with(&format!("{origin}+")) {
            findings.add(
                "key",
                None,
                format!("the checkpoint's origin {origin:?} is not the key's name"),
            );
        }
        let trusted = body.is_some();
        if let Some(previous) = previous
            && trusted
            && previous.size > size
        {
            findings.add(
                "fork",
                None,
                format!(
                    "the log shrank: the last accepted checkpoint had {} entries (root {}), this one {size} (root {root_text})",
                    previous.size, previous.root
                ),
            );
        }
        Ok(Self {
            vkey: pinned.to_owned(),
            origin,
            size,
            root_text,
            trusted,
            previous: previous.cloned(),
            keep_rounds,
            tree: TileBuilder::default(),
            root_at_previous: previous
                .filter(|p| p.size == 0)
                .map(|_| Hash(Sha256::digest(b"").into())),
            ready: Vec::new(),
            findings,
            pairs: HashMap::new(),
            pair_seeds: Groups::default(),
            draws: HashMap::new(),
            draw_seeds: Groups::default(),
            voids: Vec::new(),
            rounds: 0,
        })
    }

    /// Whether the checkpoint verified: only then is it worth reading the
    /// entries it claims.
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    /// The number of entries the verified checkpoint claims (0 when it did
    /// not verify).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Entries taken so far.
    pub fn read(&self) -> u64 {
        self.tree.leaves()
    }

    /// Takes the next entry (entries come in log order, from 0).
    pub fn entry(&mut self, bytes: &[u8]) {
        let index = self.tree.leaves();
        self.ready.extend(self.tree.push(bytes));
        if self.previous.as_ref().is_some_and(|p| p.size == index + 1) {
            self.root_at_previous = Some(self.tree.root());
        }
        self.check_entry(index, bytes);
    }

    /// The hash tiles whose hashes are all known now (full ones; after
    /// [`LogChecker::end_of_entries`], the partial ones too), to be read and
    /// handed to [`LogChecker::compare_tile`].
    pub fn take_tiles(&mut self) -> Vec<ExpectedTile> {
        std::mem::take(&mut self.ready)
    }

    /// Every entry has been taken: the partial tiles at the right edge
    /// become ready.
    pub fn end_of_entries(&mut self) {
        self.ready.extend(self.tree.partial_tiles());
    }

    /// Compares a hash tile as served with the hashes the entries give.
    pub fn compare_tile(&mut self, tile: &ExpectedTile, served: &[u8]) {
        if tile.bytes() != served {
            self.findings.add(
                "tile",
                None,
                format!(
                    "hash tile {}/{} does not match the entries",
                    tile.level, tile.index
                ),
            );
        }
    }

    /// A finding the reader made (an answer that is not what it must be).
    pub fn add_finding(&mut self, kind: &'static str, detail: String) {
        self.findings.add(kind, None, detail);
    }

    fn check_entry(&mut self, index: u64, bytes: &[u8]) {
        let Ok(entry) = serde_json::from_slice::<Value>(bytes) else {
            self.findings
                .add("entry", Some(index), "not JSON".to_owned());
            return;
        };
        let pair_id = text(&entry, "seed_pair");
        match entry["type"].as_str() {
            Some("commit") => self.commit(index, pair_id, &entry),
            Some("client_seed") => self.client_seed(index, pair_id, &entry),
            Some("round") => self.round(index, pair_id, &entry),
            Some("reveal") => self.reveal(index, pair_id, &entry),
            Some(kind @ ("seat_commitment" | "seat_contribution" | "table_void")) => {
                self.table_entry(index, kind, pair_id, &entry)
            }
            Some("draw_commit" | "draw_client_seed" | "draw_result") => {
                check_draw_entry(
                    &mut self.draws,
                    &mut self.draw_seeds,
                    index,
                    &entry,
                    &mut |kind, index, detail| self.findings.add(kind, index, detail),
                );
            }
            Some(other) => self.findings.add(
                "entry",
                Some(index),
                format!("an entry of unknown type {other:?}"),
            ),
            None => self
                .findings
                .add("entry", Some(index), "an entry without a type".to_owned()),
        }
    }

    fn commit(&mut self, index: u64, pair_id: String, entry: &Value) {
        if self.pairs.contains_key(&pair_id) {
            self.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} is committed twice (the first commitment stands)"),
            );
            return;
        }
        let track = PairTrack {
            facts: PairFacts {
                server_seed_hash: text(entry, "server_seed_hash"),
                ..PairFacts::default()
            },
            next_server_seed_hash: text(entry, "next_server_seed_hash"),
            committed_at_ms: time_ms(entry),
            tenant: entry["tenant"].as_str().map(str::to_owned),
            next_nonce: Some(0),
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
            match self.pairs.get(predecessor) {
                Some(p)
                    if p.successor.as_deref() == Some(pair_id.as_str())
                        && p.next_server_seed_hash == track.facts.server_seed_hash => {}
                Some(_) => self.findings.add(
                    "succession",
                    Some(index),
                    format!(
                        "pair {pair_id} names {predecessor} as its predecessor, which did not promise it (its reveal names another successor, or another next commitment)"
                    ),
                ),
                None => self.findings.add(
                    "succession",
                    Some(index),
                    format!(
                        "pair {pair_id} names {predecessor} as its predecessor, which the log never committed"
                    ),
                ),
            }
        }
        self.pairs.insert(pair_id, track);
    }

    fn client_seed(&mut self, index: u64, pair_id: String, entry: &Value) {
        let exact = text(entry, "client_seed_sha256");
        let Some(track) = self.pairs.get_mut(&pair_id) else {
            self.findings.add(
                "order",
                Some(index),
                format!("a client seed for {pair_id} before its commitment"),
            );
            return;
        };
        if track.client_seed_at.is_some() || track.revealed_at.is_some() {
            self.findings.add(
                "order",
                Some(index),
                format!(
                    "pair {pair_id} gets a second client seed, or one after its reveal (the first stands)"
                ),
            );
            return;
        }
        if let Some(problem) = track
            .table
            .as_ref()
            .and_then(|t| t.client_seed_entry(&pair_id))
        {
            self.findings.add("table", Some(index), problem);
        }
        track.client_seed_at = Some(index);
        track.facts.client_seed_sha256 = Some(exact.clone());
        // A table's seed is derived from every seat's contribution: no
        // operator chose it, so it is no one's to shop with.
        if track.table.is_some() {
            return;
        }
        let group_id = self
            .pair_seeds
            .join(&exact, entry["client_seed_lookalike_sha256"].as_str());
        track.seed_group = Some(group_id);
        let tenant = track.tenant.clone();
        let group = &mut self.pair_seeds.groups[group_id];
        if group.live_same_tenant(&tenant) {
            group.shopped.push((pair_id.clone(), index));
        }
        *group.live.entry(tenant.clone()).or_default() += 1;
        group.members.push((pair_id, tenant));
    }

    fn round(&mut self, index: u64, pair_id: String, entry: &Value) {
        self.rounds += 1;
        let nonce = entry["nonce"].as_u64();
        let Some(track) = self.pairs.get_mut(&pair_id) else {
            self.findings.add(
                "order",
                Some(index),
                format!("a round of {pair_id} before its commitment"),
            );
            return;
        };
        if track.client_seed_at.is_none() || track.revealed_at.is_some() {
            self.findings.add(
                "order",
                Some(index),
                format!("a round of {pair_id} before its client seed or after its reveal"),
            );
        }
        track.rounds += 1;
        match (nonce, track.next_nonce) {
            (Some(nonce), Some(next)) if nonce == next => {
                track.next_nonce = nonce.checked_add(1);
                if self.keep_rounds {
                    track
                        .facts
                        .rounds
                        .insert(nonce, (entry["game"].clone(), text(entry, "round")));
                }
            }
            (_, None) => self.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} deals nonce {nonce:?} after nonce 2^64 - 1, its last"),
            ),
            (_, Some(next)) => {
                self.findings.add(
                    "order",
                    Some(index),
                    format!(
                        "pair {pair_id} deals nonce {nonce:?} where {next} was next (a gap or a repeat)"
                    ),
                );
                // A gap moves on (later rounds are judged from it); a repeat
                // does not take the first one's place.
                if let Some(nonce) = nonce.filter(|n| *n > next) {
                    track.next_nonce = nonce.checked_add(1);
                }
            }
        }
    }

    /// The pair's seed revealed (by rotation or a table's void) at `index`:
    /// it no longer holds its client seed live.
    fn released(&mut self, pair_id: &str, index: u64, seed: String) {
        let Some(track) = self.pairs.get_mut(pair_id) else {
            return;
        };
        track.revealed_at = Some(index);
        track.facts.server_seed = Some(seed);
        if let Some(group) = track.seed_group {
            self.pair_seeds.groups[group].release(&track.tenant);
        }
    }

    fn reveal(&mut self, index: u64, pair_id: String, entry: &Value) {
        let Some(track) = self.pairs.get_mut(&pair_id) else {
            self.findings.add(
                "order",
                Some(index),
                format!("a reveal of {pair_id}, never committed"),
            );
            return;
        };
        if !opens(entry, &track.facts.server_seed_hash) {
            self.findings.add(
                "reveal",
                Some(index),
                format!("pair {pair_id}'s revealed seed does not hash to its commitment"),
            );
        }
        if track.revealed_at.is_some() {
            self.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} is revealed twice (the first reveal stands)"),
            );
            return;
        }
        track.successor = entry["successor"].as_str().map(str::to_owned);
        self.released(&pair_id, index, text(entry, "server_seed"));
    }

    fn table_entry(&mut self, index: u64, kind: &str, pair_id: String, entry: &Value) {
        let Some(track) = self.pairs.get_mut(&pair_id) else {
            self.findings.add(
                "order",
                Some(index),
                format!("a {kind} of {pair_id}, never committed"),
            );
            return;
        };
        let Some(table) = track.table.as_mut() else {
            self.findings.add(
                "table",
                Some(index),
                format!("a {kind} of {pair_id}, which was not committed as a table"),
            );
            return;
        };
        if kind != "table_void" {
            if let Some(problem) = table.seat_entry(&pair_id, entry) {
                self.findings.add("table", Some(index), problem);
            }
            return;
        }
        let twice = table.voided;
        if let Some(problem) = table.void_entry(&pair_id, entry) {
            self.findings.add("table", Some(index), problem);
        }
        if twice {
            return;
        }
        self.voids.push((pair_id.clone(), table.set.clone()));
        if !opens(entry, &track.facts.server_seed_hash) {
            self.findings.add(
                "reveal",
                Some(index),
                format!("void table {pair_id}'s revealed seed does not hash to its commitment"),
            );
        }
        if track.client_seed_at.is_some() || track.revealed_at.is_some() {
            self.findings.add(
                "order",
                Some(index),
                format!("table {pair_id} is voided after its client seed or reveal"),
            );
        }
        if track.revealed_at.is_none() {
            self.released(&pair_id, index, text(entry, "server_seed"));
        }
    }

    /// Everything read: the tree against the checkpoint, consistency with
    /// the last accepted one, and what the entries promised as a whole.
    /// `now_ms` is the time, `reveal_within_ms` the policy age for
    /// unrevealed commitments. The facts of each pair come back beside the
    /// report.
    pub fn finish(
        mut self,
        now_ms: i64,
        reveal_within_ms: i64,
    ) -> (MonitorReport, HashMap<String, PairFacts>) {
        if self.trusted {
            self.check_tree();
        }
        let mut notes = Findings::default();
        self.seed_groups(&mut notes);
        let unrevealed = self
            .pairs
            .values()
            .filter(|p| p.revealed_at.is_none())
            .count() as u64;
        let mut oldest: Option<i64> = None;
        let mut unused = Vec::new();
        let mut stale = Vec::new();
        for (id, track) in &self.pairs {
            if track.revealed_at.is_some() {
                continue;
            }
            if let Some(at) = track.committed_at_ms {
                let age = now_ms.saturating_sub(at);
                oldest = Some(oldest.map_or(age, |o| o.max(age)));
                if age > reveal_within_ms {
                    stale.push((id.clone(), age / 1000));
                }
            }
            if track.client_seed_at.is_none() && track.rounds == 0 {
                unused.push(id.clone());
            }
        }
        stale.sort();
        for (id, age) in stale {
            self.findings.add(
                "stale_commitment",
                None,
                format!("pair {id} was committed {age} s ago and is still not revealed"),
            );
        }
        unused.sort();
        self.draw_findings(now_ms, reveal_within_ms, &mut notes);
        // A table voided again and again: the operator may be re-rolling it
        // until the seats' contributions suit it (each void reveals what the
        // deal would have been).
        for voided in repeated_voids(&self.voids) {
            self.findings.add(
                "repeated_voids",
                None,
                format!(
                    "the same seats (or seats that look alike) were voided {} times (pairs {}): a table re-rolled by voiding it looks like this",
                    voided.len(),
                    named(voided.iter().map(String::as_str), voided.len())
                ),
            );
        }
        let mut unseeded: Vec<String> = self
            .draws
            .iter()
            .filter(|(_, d)| !d.client_seed)
            .map(|(id, _)| id.clone())
            .collect();
        unseeded.sort();
        let accepted = self.trusted && !self.findings.log_unsound;
        let report = MonitorReport {
            origin: self.origin.clone(),
            size: self.size,
            root: self.root_text.clone(),
            pairs: self.pairs.len() as u64,
            rounds: self.rounds,
            unrevealed,
            oldest_unrevealed_seconds: oldest.map(|ms| ms / 1000),
            unused_commitments: unused,
            draws: self.draws.len() as u64,
            draws_drawn: self.draws.values().filter(|d| d.drawn).count() as u64,
            unseeded_draws: unseeded,
            tables: self.pairs.values().filter(|p| p.table.is_some()).count() as u64,
            table_voids: self.voids.len() as u64,
            findings: self.findings.listed,
            findings_not_listed: self.findings.not_listed,
            notes: notes.listed,
            checkpoint_accepted: accepted,
            state: accepted.then(|| MonitorState {
                origin: self.origin.clone(),
                vkey: self.vkey.clone(),
                size: self.size,
                root: self.root_text.clone(),
            }),
        };
        let facts = self
            .pairs
            .into_iter()
            .map(|(id, track)| (id, track.facts))
            .collect();
        (report, facts)
    }

    fn check_tree(&mut self) {
        if self.tree.leaves() != self.size {
            self.findings.add(
                "tree",
                None,
                format!(
                    "the checkpoint says {} entries; {} were served",
                    self.size,
                    self.tree.leaves()
                ),
            );
            return;
        }
        let computed = self.tree.root();
        if computed.to_string() != self.root_text {
            self.findings.add(
                "tree",
                None,
                format!(
                    "the entries served give the root {computed}, not the checkpoint's {}: entries were changed or withheld",
                    self.root_text
                ),
            );
        }
        if let Some(previous) = &self.previous
            && previous.size <= self.size
            && let Some(old_root) = self.root_at_previous
            && old_root.to_string() != previous.root
        {
            self.findings.add(
                "fork",
                None,
                format!(
                    "the log forked: the last accepted checkpoint of {} entries had root {}, but this log's first {} entries give {old_root} (now {} entries, root {})",
                    previous.size, previous.root, previous.size, self.size, self.root_text
                ),
            );
        }
    }

    /// One finding per client seed given by one tenant to pairs live at
    /// the same time; one note per seed shared otherwise.
    fn seed_groups(&mut self, notes: &mut Findings) {
        for group in &self.pair_seeds.groups {
            if group.members.len() < 2 {
                continue;
            }
            let alike = if group.lookalike {
                "client seeds that look alike (the same once folded: invisible characters, case, Unicode form, letters of other scripts)"
            } else {
                "the same client seed"
            };
            if let Some(&(_, index)) = group.shopped.first() {
                self.findings.add(
                    "client_seed_reuse",
                    Some(index),
                    format!(
                        "{alike} went to pairs {}; {} of them got it while another pair of the same tenant held it unrevealed ({}): deals could have been shopped across them",
                        group.named(),
                        group.shopped.len(),
                        named(group.shopped.iter().map(|(id, _)| id.as_str()), group.shopped.len())
                    ),
                );
            } else {
                notes.add(
                    "client_seed_shared",
                    None,
                    format!(
                        "{alike} went to pairs {}, never to two of one tenant at the same time (another tenant's pair, or after the earlier pair was revealed): not deal-shopping",
                        group.named()
                    ),
                );
            }
        }
    }

    fn draw_findings(&mut self, now_ms: i64, reveal_within_ms: i64, notes: &mut Findings) {
        let mut unrun: Vec<(&String, i64)> = self
            .draws
            .iter()
            .filter(|(_, d)| d.client_seed && !d.drawn)
            .filter_map(|(id, d)| Some((id, now_ms.saturating_sub(d.client_seed_at_ms?))))
            .filter(|(_, age)| *age > reveal_within_ms)
            .collect();
        unrun.sort();
        for (id, age) in unrun {
            self.findings.add(
                "draw_not_run",
                None,
                format!(
                    "draw {id} got its client seed {} s ago and was never run: its winners were knowable to the operator",
                    age / 1000
                ),
            );
        }
        // The same list with the same (or a lookalike) client seed in two
        // draws of one tenant: the operator could publish whichever result
        // it liked (draw-shopping).
        for group in &self.draw_seeds.groups {
            if group.members.len() < 2 {
                continue;
            }
            let mut tenants: HashMap<&Option<String>, usize> = HashMap::new();
            for (_, tenant) in &group.members {
                *tenants.entry(tenant).or_default() += 1;
            }
            let unknown = tenants.get(&None).copied().unwrap_or(0);
            let same_tenant = tenants
                .iter()
                .any(|(t, n)| *n > 1 || (t.is_some() && unknown > 0));
            let alike = if group.lookalike {
                "with client seeds that look alike"
            } else {
                "with the same client seed"
            };
            if same_tenant {
                self.findings.add(
                    "draw_reuse",
                    None,
                    format!(
                        "draws {} draw from the same list {alike}: the operator could publish the result it liked",
                        group.named()
                    ),
                );
            } else {
                notes.add(
                    "draw_seed_shared",
                    None,
                    format!(
                        "draws {} of different tenants draw from the same list {alike}",
                        group.named()
                    ),
                );
            }
        }
    }
}

/// Checks a draw entry against what the log said of its draw before;
/// findings go to `find`.
fn check_draw_entry(
    draws: &mut HashMap<String, DrawTrack>,
    seeds: &mut Groups,
    index: u64,
    entry: &Value,
    find: &mut impl FnMut(&'static str, Option<u64>, String),
) {
    let id = text(entry, "draw");
    let kind = entry["type"].as_str().unwrap_or_default();
    if kind == "draw_commit" {
        if draws.contains_key(&id) {
            find(
                "order",
                Some(index),
                format!("draw {id} is committed twice (the first commitment stands)"),
            );
            return;
        }
        draws.insert(
            id,
            DrawTrack {
                server_seed_hash: text(entry, "server_seed_hash"),
                entries_sha256: text(entry, "entries_sha256"),
                entries: entry["entries"].as_u64().unwrap_or_default(),
                winners: entry["winners"].as_u64().unwrap_or_default(),
                tenant: entry["tenant"].as_str().map(str::to_owned),
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
                    format!("draw {id} gets a second client seed (the first stands)"),
                );
                return;
            }
            track.client_seed = true;
            track.client_seed_at_ms = time_ms(entry);
            // Grouped by list and seed: the list's hash leads each key.
            let list = &track.entries_sha256;
            let exact = format!("{list}:{}", text(entry, "client_seed_sha256"));
            let lookalike = entry["client_seed_lookalike_sha256"]
                .as_str()
                .map(|l| format!("{list}:{l}"));
            let group = seeds.join(&exact, lookalike.as_deref());
            seeds.groups[group]
                .members
                .push((id.clone(), track.tenant.clone()));
        }
        _ => {
            if !track.client_seed || track.drawn {
                find(
                    "order",
                    Some(index),
                    format!("draw {id} is drawn before its client seed, or twice"),
                );
                if track.drawn {
                    return;
                }
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
                        "draw {id} promised {} distinct winners of {} entries; its result names {} winner(s)",
                        track.winners,
                        track.entries,
                        winners.len()
                    ),
                );
            }
        }
    }
}

/// Checks a log held in memory (`view`): the entries in bundles, the tiles
/// it holds compared as they become known. `previous` is the state of the
/// last accepted run. Errors are for a checkpoint body that is not one.
pub fn check(
    view: &LogView,
    previous: Option<&MonitorState>,
    now_ms: i64,
    reveal_within_ms: i64,
) -> anyhow::Result<MonitorReport> {
    let mut checker = LogChecker::new(&view.vkey, None, &view.checkpoint, previous, false)?;
    let tiles: HashMap<(u8, u64), &[u8]> = view
        .hash_tiles
        .iter()
        .map(|(level, index, bytes)| ((*level, *index), bytes.as_slice()))
        .collect();
    let compare = |checker: &mut LogChecker| {
        for tile in checker.take_tiles() {
            if let Some(served) = tiles.get(&(tile.level, tile.index)) {
                checker.compare_tile(&tile, served);
            }
        }
    };
    if checker.trusted() {
        for entry in &view.entries {
            checker.entry(entry);
            compare(&mut checker);
        }
        checker.end_of_entries();
        compare(&mut checker);
    }
    Ok(checker.finish(now_ms, reveal_within_ms).0)
}

#[cfg(test)]
mod draw_tests {
    use super::*;
    use serde_json::json;

    fn findings(entries: &[Value]) -> Vec<(&'static str, String)> {
        let mut draws = HashMap::new();
        let mut seeds = Groups::default();
        let mut found = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            check_draw_entry(
                &mut draws,
                &mut seeds,
                index as u64,
                entry,
                &mut |kind, _, detail| found.push((kind, detail)),
            );
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

#[cfg(test)]
mod checker_tests {
    use super::*;
    use crate::tlog::key::LogKey;
    use crate::tlog::tree;
    use serde_json::json;

    const ORIGIN: &str = "test.example/log";

    fn key() -> LogKey {
        LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key")
    }

    /// A log of `entries` as an honest service would serve it, with every
    /// hash tile.
    fn log(entries: Vec<Vec<u8>>) -> LogView {
        let stored = tree::stored_hashes_of(&entries).expect("stored hashes");
        let size = entries.len() as u64;
        let root = tree::tree_hash(size, &stored).expect("root");
        let checkpoint = key()
            .sign_note(&format!("{ORIGIN}\n{size}\n{root}\n"))
            .expect("sign");
        let hash_tiles = tree::hash_tiles(size, &stored).expect("hash tiles");
        LogView {
            vkey: key().vkey(),
            checkpoint,
            entries,
            hash_tiles,
        }
    }

    fn bytes(entries: &[Value]) -> Vec<Vec<u8>> {
        entries
            .iter()
            .map(|e| serde_json::to_vec(e).expect("JSON"))
            .collect()
    }

    fn run(entries: &[Value]) -> MonitorReport {
        check(&log(bytes(entries)), None, 0, i64::MAX).expect("checks")
    }

    fn kinds(report: &MonitorReport) -> Vec<&'static str> {
        report.findings.iter().map(|f| f.kind).collect()
    }

    fn seed() -> (String, String) {
        let seed = [9u8; 32];
        (hex::encode(seed), hex::encode(Sha256::digest(seed)))
    }

    fn commit(pair: &str, tenant: Option<&str>) -> Value {
        let (_, hash) = seed();
        let mut entry = json!({"type": "commit", "seed_pair": pair, "server_seed_hash": hash,
                               "next_server_seed_hash": hash, "predecessor": null,
                               "time": "2026-11-23T00:00:00Z"});
        if let Some(tenant) = tenant {
            entry["tenant"] = tenant.into();
        }
        entry
    }

    fn client_seed(pair: &str, client_seed: &str) -> Value {
        json!({"type": "client_seed", "seed_pair": pair,
               "client_seed_sha256": crate::tlog::entry::client_seed_sha256(client_seed),
               "client_seed_lookalike_sha256": crate::text::lookalike_sha256(client_seed),
               "time": "2026-11-23T00:00:01Z"})
    }

    fn round(pair: &str, nonce: u64) -> Value {
        json!({"type": "round", "seed_pair": pair, "round": format!("{pair}-{nonce}"),
               "nonce": nonce, "game": {"type": "deck"}, "time": "2026-11-23T00:00:02Z"})
    }

    fn reveal(pair: &str, successor: &str) -> Value {
        json!({"type": "reveal", "seed_pair": pair, "server_seed": seed().0,
               "successor": successor, "time": "2026-11-23T00:00:03Z"})
    }

    #[test]
    fn the_streamed_tree_gives_the_root_and_tiles_of_the_stored_hashes() {
        // Sizes around tile edges, and past one level-1 tile (65,536 leaves).
        for size in [
            0usize, 1, 2, 3, 255, 256, 257, 511, 512, 513, 65_535, 65_536, 65_537, 66_000,
        ] {
            let entries: Vec<Vec<u8>> = (0..size).map(|i| i.to_string().into_bytes()).collect();
            let report = check(&log(entries), None, 0, i64::MAX).expect("checks");
            // Every entry is "not JSON" here; only the tree matters.
            assert!(
                report.findings.iter().all(|f| f.kind == "entry"),
                "size {size}: {:?}",
                report.findings.iter().find(|f| f.kind != "entry")
            );
            assert!(report.checkpoint_accepted, "size {size}");
        }
    }

    #[test]
    fn a_changed_hash_tile_or_entry_is_found() {
        let entries: Vec<Vec<u8>> = (0..600).map(|i| i.to_string().into_bytes()).collect();
        let mut view = log(entries.clone());
        view.hash_tiles[1].2[5] ^= 1;
        let report = check(&view, None, 0, i64::MAX).expect("checks");
        assert!(kinds(&report).contains(&"tile"));
        assert!(!report.checkpoint_accepted);
        let mut view = log(entries);
        view.entries[300] = b"changed".to_vec();
        let report = check(&view, None, 0, i64::MAX).expect("checks");
        assert!(kinds(&report).contains(&"tree"));
        assert!(report.state.is_none());
    }

    #[test]
    fn a_client_seed_before_its_commitment_fails_and_facts_keep_the_first_entry() {
        // The re-commitment the log exists to rule out: the client seed,
        // then the commitment.
        let report = run(&[
            client_seed("p", "lucky"),
            commit("p", Some("t")),
            round("p", 0),
            reveal("p", "q"),
        ]);
        assert!(kinds(&report).contains(&"order"), "{:?}", report.findings);
        // A second commitment after the client seed: a finding, and the
        // first one stands.
        let mut second = commit("p", Some("t"));
        second["server_seed_hash"] = "ab".repeat(32).into();
        let view = log(bytes(&[
            commit("p", Some("t")),
            client_seed("p", "lucky"),
            second,
            round("p", 0),
            reveal("p", "q"),
        ]));
        let mut checker =
            LogChecker::new(&view.vkey, None, &view.checkpoint, None, true).expect("checker");
        for entry in &view.entries {
            checker.entry(entry);
        }
        checker.end_of_entries();
        let (report, facts) = checker.finish(0, i64::MAX);
        assert_eq!(kinds(&report), ["order"]);
        assert_eq!(facts["p"].server_seed_hash, seed().1);
        assert_eq!(facts["p"].rounds.len(), 1);
        // A second reveal does not replace the first.
        let mut other = reveal("p", "z");
        other["server_seed"] = "11".repeat(32).into();
        let report = run(&[
            commit("p", Some("t")),
            client_seed("p", "lucky"),
            reveal("p", "q"),
            other,
        ]);
        assert_eq!(kinds(&report), ["reveal", "order"]);
    }

    #[test]
    fn lookalike_seeds_on_live_pairs_of_one_tenant_are_one_finding() {
        let seeds = [
            "player-7f3a9c",
            "player-7f3a9c\u{200B}",
            "player-\u{2060}7f3a9c",
            "\u{FEFF}player-7f3a9c",
            "pl\u{0430}yer-7f3a9c",
        ];
        let mut entries = Vec::new();
        for (i, s) in seeds.iter().enumerate() {
            entries.push(commit(&format!("p{i}"), Some("t")));
            entries.push(client_seed(&format!("p{i}"), s));
        }
        let report = run(&entries);
        assert_eq!(
            kinds(&report),
            ["client_seed_reuse"],
            "{:?}",
            report.findings
        );
        let detail = &report.findings[0].detail;
        assert!(
            detail.contains("look alike") && detail.contains("p4"),
            "{detail}"
        );
        assert!(report.notes.is_empty());
    }

    #[test]
    fn a_seed_shared_across_tenants_or_after_a_reveal_is_a_note_not_a_failure() {
        let report = run(&[
            commit("a", Some("brand-1")),
            client_seed("a", "lucky7"),
            commit("b", Some("brand-2")),
            client_seed("b", "lucky7"),
        ]);
        assert!(report.passed(), "{:?}", report.findings);
        assert_eq!(report.notes.len(), 1);
        let report = run(&[
            commit("a", Some("brand-1")),
            client_seed("a", "lucky7"),
            reveal("a", "x"),
            commit("b", Some("brand-1")),
            client_seed("b", "lucky7"),
        ]);
        assert!(report.passed(), "{:?}", report.findings);
        assert_eq!(report.notes.len(), 1);
        // Older entries name no tenant: anyone's, so still a failure.
        let report = run(&[
            commit("a", None),
            client_seed("a", "lucky7"),
            commit("b", Some("brand-2")),
            client_seed("b", "lucky7"),
        ]);
        assert_eq!(kinds(&report), ["client_seed_reuse"]);
    }

    #[test]
    fn thousands_of_pairs_sharing_a_seed_are_one_finding() {
        let mut entries = Vec::new();
        for i in 0..3000 {
            entries.push(commit(&format!("p{i}"), Some("t")));
            entries.push(client_seed(&format!("p{i}"), "lucky"));
        }
        let report = run(&entries);
        assert_eq!(kinds(&report), ["client_seed_reuse"]);
        assert!(report.findings[0].detail.contains("and 2980 more"));
    }

    #[test]
    fn a_nonce_after_the_last_one_is_a_finding_not_a_wrap() {
        let report = run(&[
            commit("p", Some("t")),
            client_seed("p", "s"),
            round("p", 0),
            round("p", u64::MAX),
            round("p", 0),
        ]);
        let details: Vec<&str> = report.findings.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(details[1].contains("after nonce 2^64 - 1"), "{details:?}");
    }

    #[test]
    fn a_checkpoint_that_does_not_verify_is_not_read_further() {
        let mut view = log(bytes(&[commit("p", Some("t"))]));
        let forged = format!("{ORIGIN}\n1099511627776\n{}\n", "A".repeat(43) + "=");
        view.checkpoint = LogKey::from_hex(&"08".repeat(32), ORIGIN)
            .expect("key")
            .sign_note(&forged)
            .expect("sign");
        let checker =
            LogChecker::new(&view.vkey, None, &view.checkpoint, None, false).expect("checker");
        assert!(!checker.trusted());
        assert_eq!(checker.size(), 0);
        // A key remembered from before wins over the one served.
        let previous = MonitorState {
            origin: ORIGIN.into(),
            vkey: view.vkey.clone(),
            size: 0,
            root: String::new(),
        };
        let other = LogKey::from_hex(&"08".repeat(32), ORIGIN).expect("key");
        let checker = LogChecker::new(
            &other.vkey(),
            None,
            &view.checkpoint,
            Some(&previous),
            false,
        )
        .expect("checker");
        assert!(!checker.trusted());
    }

    #[test]
    fn too_many_findings_are_counted_not_listed() {
        let mut entries = vec![commit("p", Some("t")), client_seed("p", "s")];
        entries.extend((0..(MAX_FINDINGS as u64 + 50)).map(|_| round("p", 7)));
        let report = run(&entries);
        assert_eq!(report.findings.len(), MAX_FINDINGS);
        assert_eq!(report.findings_not_listed, 50);
        assert!(!report.passed());
    }
}
