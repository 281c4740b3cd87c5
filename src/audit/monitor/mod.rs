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
//!
//! Its rooms: this file holds the checker's state and its run (the
//! signature, entries in, tiles compared, the tree, the report);
//! `rules.rs` the rules of each pair entry kind (a new rule of a pair
//! entry goes there), `draws.rs` those of draw entries, `compact.rs` the
//! compact memory, `snapshot.rs` what is kept between runs, and
//! `cross_check.rs` the export's digests held to the log. The reader of a
//! log over HTTP and the report's words are `cli/monitor.rs`'s.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::cross::digest16;
use super::ids::{Id, uuid_of};
use super::table_checks::{TableTrack, repeated_voids};
use crate::tlog::key::verify_note;
use crate::tlog::tree::{ExpectedTile, Hash, TileBuilder};

#[cfg(test)]
mod checker_tests;
mod compact;
mod cross_check;
#[cfg(test)]
mod cross_check_tests;
#[cfg(test)]
mod draw_tests;
mod draws;
mod fields;
mod rules;
mod snapshot;

use compact::*;
pub use cross_check::{CrossCheck, LedgerMark};
use draws::DrawTrack;
use fields::Fields;
pub use snapshot::Snapshot;
use snapshot::*;

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

impl LogView {
    /// The log of `entries` as an honest service serves it, signed by `key`
    /// for `origin`, with every hash tile (for tests and tools).
    pub fn signed(
        entries: Vec<Vec<u8>>,
        key: &crate::tlog::key::LogKey,
        origin: &str,
    ) -> anyhow::Result<Self> {
        use crate::tlog::tree;
        let stored = tree::stored_hashes_of(&entries)?;
        let size = entries.len() as u64;
        let root = tree::tree_hash(size, &stored)?;
        let checkpoint = key.sign_note(&format!("{origin}\n{size}\n{root}\n"))?;
        Ok(Self {
            vkey: key.vkey(),
            checkpoint,
            hash_tiles: tree::hash_tiles(size, &stored)?,
            entries,
        })
    }
}

/// One problem, named with what it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `signature`, `tree`, `tile`, `fork`, `key`, `entry`, `order`,
    /// `reveal`, `succession`, `client_seed_reuse`, `stale_commitment`,
    /// `draw`, `draw_not_run`, `draw_reuse`, `table`, `repeated_voids`,
    /// `chain`, `api`; for notes, `client_seed_shared`, `draw_seed_shared`
    /// and `chain_tip_unchecked`.
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
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(from = "StoredFindings", into = "StoredFindings")]
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
    /// With a witness policy: the trusted witnesses whose cosignatures of
    /// the checkpoint checked verify.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witnessed_by: Option<Vec<String>>,
    /// With a witness policy, when the latest checkpoint was not yet
    /// witnessed and the largest witnessed one was checked instead: the
    /// latest's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_unwitnessed_size: Option<u64>,
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
    /// A chain pair's published round seeds by nonce (hex, as logged).
    pub round_seeds: BTreeMap<u64, String>,
}

/// The longest name kept of an id that is not a UUID (a hostile log's ids
/// can be long; a name is for reading).
const MAX_NAME: usize = 80;

/// Ids that are not UUIDs: each text (by its SHA-256) and its number, and
/// its name (cut to [`MAX_NAME`] characters).
#[derive(Default, Serialize, Deserialize)]
struct Names {
    numbers: HashMap<[u8; 32], u64>,
    texts: HashMap<u64, String>,
}

impl Names {
    /// The id of `text` ([`Id::UNKNOWN`] for a text not a UUID and never
    /// kept).
    fn id(&self, text: &str) -> Id {
        if let Some(uuid) = uuid_of(text) {
            return Id::uuid(uuid);
        }
        self.numbers
            .get(&<[u8; 32]>::from(Sha256::digest(text.as_bytes())))
            .map_or(Id::UNKNOWN, |n| Id::numbered(*n))
    }

    /// The id of `text`, numbering it when it is not a UUID.
    fn keep(&mut self, text: &str) -> Id {
        if let Some(uuid) = uuid_of(text) {
            return Id::uuid(uuid);
        }
        let next = self.numbers.len() as u64;
        let n = *self
            .numbers
            .entry(Sha256::digest(text.as_bytes()).into())
            .or_insert(next);
        if n == next {
            let mut name: String = text.chars().take(MAX_NAME).collect();
            if name.len() < text.len() {
                name.push('…');
            }
            self.texts.insert(n, name);
        }
        Id::numbered(n)
    }

    /// `ids` (the first of `count`) named, and how many more.
    fn named(&self, ids: &[Id], count: u64) -> String {
        let names: Vec<String> = ids.iter().map(|id| self.name(*id)).collect();
        named(names.iter().map(String::as_str), count as usize)
    }

    fn name(&self, id: Id) -> String {
        if id.0[0] == 0 {
            let mut uuid = [0; 16];
            uuid.copy_from_slice(&id.0[1..]);
            return uuid::Uuid::from_bytes(uuid).hyphenated().to_string();
        }
        let mut n = [0; 8];
        n.copy_from_slice(&id.0[1..9]);
        self.texts
            .get(&u64::from_be_bytes(n))
            .cloned()
            .unwrap_or_default()
    }
}

/// A commitment given as 64 lower-case hex digits, as bytes (`None` when it
/// is not one: nothing opens it).
/// 32 bytes from exactly 64 lowercase hex digits.
pub(super) fn hash32(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0; 32];
    hex::decode_to_slice(text, &mut out).ok()?;
    Some(out)
}

/// Tenants, interned: 0 is "no tenant" (entries of older logs).
#[derive(Default, Serialize, Deserialize)]
struct Tenants {
    ids: HashMap<String, u32>,
    count: u32,
}

impl Tenants {
    fn of(&mut self, tenant: Option<&str>) -> u32 {
        let Some(tenant) = tenant else {
            return 0;
        };
        if let Some(&id) = self.ids.get(tenant) {
            return id;
        }
        self.count = self.count.saturating_add(1);
        self.ids.insert(tenant.to_owned(), self.count);
        self.count
    }
}

/// What the log has said about one pair not revealed yet. A revealed pair
/// keeps nothing but its id: whatever a later entry says of it is a finding
/// whatever it holds.
#[derive(Default, Serialize, Deserialize)]
struct Live {
    commitment: Option<[u8; 32]>,
    next: Option<[u8; 32]>,
    committed_at_ms: Option<i64>,
    tenant: u32,
    seeded: bool,
    /// Its client seed's group of pairs with the same or a lookalike seed.
    group: Option<u32>,
    /// The nonce the next round must have; `None` after nonce 2^64 − 1.
    next_nonce: Option<u64>,
    rounds: u64,
    /// A table pair's seats and their commitments and reveals.
    table: Option<Box<TableTrack>>,
    /// A fairdeal-chain-v1 pair's chain and the seeds published so far.
    #[serde(default)]
    chain: Option<Box<ChainTrack>>,
    /// What its entries give for the export's digest (`audit --log`, and
    /// a monitor's ledger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    digest: Option<Box<LiveDigest>>,
}

/// A chain pair's chain as its entries show it: its length, how many
/// round seeds were published (from nonce 0, in order), and the last one
/// (the commitment `s_0` before any).
#[derive(Serialize, Deserialize)]
struct ChainTrack {
    length: u64,
    published: u64,
    last: Option<[u8; 32]>,
}

/// SHA-256 steps the checker spends on revealed chains' tips in one run
/// (about 5 s): a tip opens the seeds no round used, `length − published`
/// steps above the last published seed, and a hostile log could ask for
/// 2^24 steps a pair. Past it, tips are noted unchecked; every published
/// round seed is still checked (one step each).
const CHAIN_TIP_BUDGET: u64 = 1 << 26;

/// A live pair's share of the cross-check with an export: its client
/// seed's hash as logged, and its rounds so far ([`super::cross`]).
#[derive(Default, Serialize, Deserialize)]
struct LiveDigest {
    client_seed_sha256: String,
    #[serde(with = "u128_bytes")]
    rounds: u128,
    count: u64,
}

/// A `u128` as its 16 bytes, little-endian (CBOR has no 128-bit integer).
mod u128_bytes {
    pub fn serialize<S: serde::Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&super::Bytes(value.to_le_bytes().to_vec()), s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let bytes = <super::Bytes as serde::Deserialize>::deserialize(d)?;
        let bytes: [u8; 16] = bytes
            .0
            .try_into()
            .map_err(|_| serde::de::Error::custom("not 16 bytes"))?;
        Ok(u128::from_le_bytes(bytes))
    }
}

/// The log checker, fed as the log is read: [`LogChecker::new`] with the key
/// and the checkpoint (verified at once: read nothing more unless
/// [`LogChecker::trusted`]), then every entry in order
/// ([`LogChecker::entry`]), each hash tile as it becomes known
/// ([`LogChecker::take_tiles`], [`LogChecker::compare_tile`]), and
/// [`LogChecker::finish`]. With a [`Snapshot`] of an earlier run it
/// resumes where that run ended ([`LogChecker::resume`]).
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
    /// Whether it resumed from a snapshot.
    resumed: bool,
    memory: Memory,
    /// Each pair's facts, when asked for (`audit --log`).
    facts: HashMap<String, PairFacts>,
    /// Games' sorted JSON, for the rounds' digests (`audit --log`).
    games: super::cross::GameTexts,
    /// Only these pairs' facts, when given.
    facts_of: Option<HashSet<String>>,
    /// An export's digests to hold each revealed pair against.
    cross: Option<CrossCheck>,
    /// A ledger is wanted ([`LogChecker::keep_ledger`]): a snapshot
    /// without one is not resumed.
    ledger_wanted: bool,
    /// The ledger's records of this run, for the caller to write
    /// ([`LogChecker::take_ledger`]).
    ledger_out: Option<Vec<u8>>,
    /// See [`MonitorReport::witnessed_by`].
    witnessed_by: Option<Vec<String>>,
    latest_unwitnessed_size: Option<u64>,
    /// A hash tile the checkpoint covers is shown not to match the entries
    /// (or is not served): nothing read after it can be authenticated, so
    /// a reader stops ([`LogChecker::disproven`]).
    disproven: bool,
}

/// What the checker remembers of the entries it has read: what a later
/// entry, or the end of the log, is checked against. Kept between runs
/// (a [`Snapshot`]).
#[derive(Default, Serialize, Deserialize)]
struct Memory {
    findings: Findings,
    names: Names,
    tenants: Tenants,
    live: HashMap<Id, Live>,
    #[serde(with = "packed_ids")]
    revealed: SortedMap<Id, ()>,
    /// Successors promised by reveals and not committed yet: successor →
    /// (predecessor, its next commitment).
    promised: HashMap<Id, (Id, Option<[u8; 32]>)>,
    pair_seeds: Groups,
    draws: HashMap<Id, DrawTrack>,
    draw_seeds: Groups,
    voids: Vec<(String, String)>,
    pairs: u64,
    tables: u64,
    rounds: u64,
    /// Steps spent on chain tips ([`CHAIN_TIP_BUDGET`]), and the tips left
    /// unchecked past it.
    #[serde(default)]
    chain_tip_steps: u64,
    #[serde(default)]
    chain_tips_unchecked: u64,
    /// The ledger of revealed pairs' digests, when one is kept: every
    /// live pair then carries its digest.
    #[serde(default)]
    ledger: Option<LedgerMark>,
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
            resumed: false,
            memory: Memory {
                findings,
                ..Memory::default()
            },
            facts: HashMap::new(),
            facts_of: None,
            cross: None,
            ledger_wanted: false,
            ledger_out: None,
            games: Default::default(),
            witnessed_by: None,
            latest_unwitnessed_size: None,
            disproven: false,
        })
    }

    /// Keeps the facts of these pairs only (with `keep_rounds`).
    pub fn facts_of(&mut self, pairs: HashSet<String>) {
        self.facts_of = Some(pairs);
    }

    /// Holds every pair the log reveals against the export whose digests
    /// (sealed) arrive on `export`, from the thread reading it:
    /// [`LogChecker::take_cross_check`] after the last entry. The pairs
    /// the log reveals before the digests arrive wait for them (a bounded
    /// number; then the reveal waits).
    pub fn cross_check(&mut self, export: std::sync::mpsc::Receiver<super::cross::ExportDigests>) {
        self.cross = Some(CrossCheck {
            arriving: Some(export),
            ..CrossCheck::default()
        });
    }

    /// Keeps a ledger of every revealed pair's digests
    /// ([`super::cross::PairDigest`]), taken a bundle at a time with
    /// [`LogChecker::take_ledger`]: what `audit --log --state` holds an
    /// export against instead of these entries. Before
    /// [`LogChecker::resume`], which then takes only a snapshot that kept
    /// one.
    pub fn keep_ledger(&mut self) {
        self.ledger_wanted = true;
        self.ledger_out = Some(Vec::new());
        self.memory.ledger.get_or_insert_default();
    }

    /// The ledger's records since the last call (empty without a ledger).
    pub fn take_ledger(&mut self) -> Vec<u8> {
        self.ledger_out
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// How far the ledger goes (records and bytes, the snapshot's and this
    /// run's), when one is kept.
    pub fn ledger(&self) -> Option<LedgerMark> {
        self.memory.ledger
    }

    /// Whether the export this checker holds the log against was lost
    /// (its reader failed): a reader of the log can stop.
    pub fn abandoned(&self) -> bool {
        self.cross.as_ref().is_some_and(|cross| cross.export_lost)
    }

    /// The cross-check as it stands, without waiting for the export: the
    /// checker can be finished (and its memory let go) while pairs a
    /// ledger recorded are still held ([`CrossCheck::revealed`]), before
    /// [`CrossCheck::result`].
    pub fn take_cross_check(&mut self) -> Option<CrossCheck> {
        self.cross.take()
    }

    /// Resumes from `snapshot`, the memory of the run that accepted the
    /// state this checker was made with: the entries it read are not read
    /// again (their tree, and what they left to check, are in it), and the
    /// findings of those entries are reported again. False (and nothing
    /// changed) when the snapshot is not of that state, its tree does not
    /// give its root, or this checkpoint did not verify or shrank.
    pub fn resume(&mut self, snapshot: Snapshot) -> bool {
        let Some(previous) = &self.previous else {
            return false;
        };
        if !self.trusted
            || self.tree.leaves() != 0
            || (self.ledger_wanted && snapshot.memory.ledger.is_none())
            || snapshot.state != *previous
            || previous.size > self.size
            || self.memory.findings.log_unsound
        {
            return false;
        }
        let Some(tree) = TileBuilder::from_bytes(&snapshot.tree.0) else {
            return false;
        };
        if tree.leaves() != previous.size || tree.root().to_string() != previous.root {
            return false;
        }
        self.root_at_previous = Some(tree.root());
        self.tree = tree;
        self.resumed = true;
        let findings = std::mem::take(&mut self.memory.findings);
        self.memory = snapshot.memory;
        // Findings of the log itself were about the earlier checkpoint,
        // which was accepted: only what its entries said carries over.
        for finding in findings.listed {
            self.memory
                .findings
                .add(finding.kind, finding.index, finding.detail);
        }
        true
    }

    /// Whether the checkpoint verified: only then is it worth reading the
    /// entries it claims.
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    /// Under a witness policy: the witnesses that vouched for the
    /// checkpoint, and the size of a later one that was not witnessed.
    pub fn witnessed(&mut self, by: Vec<String>, latest_unwitnessed_size: Option<u64>) {
        self.witnessed_by = Some(by);
        self.latest_unwitnessed_size = latest_unwitnessed_size;
    }

    /// The checkpoint is not to be trusted (a witness policy it does not
    /// meet): a finding of `kind`, nothing more read, nothing accepted.
    pub fn distrust(&mut self, kind: &'static str, detail: String) {
        self.memory.findings.add(kind, None, detail);
        self.trusted = false;
    }

    /// The number of entries the verified checkpoint claims (0 when it did
    /// not verify).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Entries taken so far (with those of a snapshot resumed).
    pub fn read(&self) -> u64 {
        self.tree.leaves()
    }

    /// Takes the next entry (entries come in log order, from 0).
    pub fn entry(&mut self, bytes: &[u8]) {
        self.entry_hashed(bytes, crate::tlog::tree::record_hash(bytes));
    }

    /// [`LogChecker::entry`] of an entry whose record hash (RFC 6962's,
    /// of `bytes`) the caller computed: a reader hashes each bundle's
    /// entries on the thread that fetched it, beside this one.
    pub(crate) fn entry_hashed(&mut self, bytes: &[u8], leaf: crate::tlog::tree::Hash) {
        let index = self.tree.leaves();
        self.ready.extend(self.tree.push_hash(leaf));
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

    /// Compares a hash tile as served with the hashes the entries give. A
    /// tile that does not match disproves the log's tree: the reading
    /// stops there ([`LogChecker::disproven`]).
    pub fn compare_tile(&mut self, tile: &ExpectedTile, served: &[u8]) {
        if tile.bytes() != served {
            self.disprove(format!(
                "hash tile {}/{} does not match the entries",
                tile.level, tile.index
            ));
        }
    }

    /// A hash tile the signed checkpoint covers is not served (`path`):
    /// the tree cannot be checked, and the reading stops there.
    pub fn tile_not_served(&mut self, path: &str) {
        self.disprove(format!(
            "{path} is not served, though the signed checkpoint covers it"
        ));
    }

    fn disprove(&mut self, what: String) {
        let read = self.tree.leaves();
        self.memory.findings.add(
            "tile",
            None,
            format!(
                "{what}: the log's tree is not the one its entries make, so no entry can be \
                 authenticated against its checkpoint; reading stopped after {read} of the {} \
                 entries it claims",
                self.size
            ),
        );
        self.disproven = true;
    }

    /// Whether the log's tree was shown wrong ([`LogChecker::compare_tile`]):
    /// a reader stops, for nothing after it can be authenticated.
    pub fn disproven(&self) -> bool {
        self.disproven
    }

    /// A finding the reader made (an answer that is not what it must be).
    pub fn add_finding(&mut self, kind: &'static str, detail: String) {
        self.memory.findings.add(kind, None, detail);
    }

    /// Everything read: the tree against the checkpoint, consistency with
    /// the last accepted one, and what the entries promised as a whole.
    /// `now_ms` is the time, `reveal_within_ms` the policy age for
    /// unrevealed commitments. The facts of each pair come back beside the
    /// report (when asked for), and the memory to resume from when the
    /// checkpoint is accepted.
    pub fn finish(
        self,
        now_ms: i64,
        reveal_within_ms: i64,
    ) -> (MonitorReport, HashMap<String, PairFacts>) {
        let (report, facts, _) = self.finish_keeping(now_ms, reveal_within_ms);
        (report, facts)
    }

    /// [`LogChecker::finish`], and the memory to resume from when the
    /// checkpoint was accepted.
    pub fn finish_keeping(
        mut self,
        now_ms: i64,
        reveal_within_ms: i64,
    ) -> (MonitorReport, HashMap<String, PairFacts>, Option<Snapshot>) {
        if self.trusted {
            self.check_tree();
        }
        // What the entries said carries over to the next run; what the end
        // of this one says (a commitment not revealed yet) is said again.
        let of_entries = self.memory.findings.clone();
        let mut notes = Findings::default();
        self.seed_groups(&mut notes);
        let m = &mut self.memory;
        if m.chain_tips_unchecked > 0 {
            notes.add(
                "chain_tip_unchecked",
                None,
                format!(
                    "{} revealed chain tips were not hashed down to their last published seeds: past {CHAIN_TIP_BUDGET} steps a run (every published round seed was checked)",
                    m.chain_tips_unchecked
                ),
            );
        }
        let mut oldest: Option<i64> = None;
        let mut unused = Vec::new();
        let mut stale = Vec::new();
        for (id, track) in &m.live {
            if let Some(at) = track.committed_at_ms {
                let age = now_ms.saturating_sub(at);
                oldest = Some(oldest.map_or(age, |o| o.max(age)));
                if age > reveal_within_ms {
                    stale.push((m.names.name(*id), age / 1000));
                }
            }
            if !track.seeded && track.rounds == 0 {
                unused.push(m.names.name(*id));
            }
        }
        stale.sort();
        for (id, age) in stale {
            m.findings.add(
                "stale_commitment",
                None,
                format!("pair {id} was committed {age} s ago and is still not revealed"),
            );
        }
        unused.sort();
        self.draw_findings(now_ms, reveal_within_ms, &mut notes);
        let m = &mut self.memory;
        // A table voided again and again: the operator may be re-rolling it
        // until the seats' contributions suit it (each void reveals what the
        // deal would have been).
        for voided in repeated_voids(&m.voids) {
            m.findings.add(
                "repeated_voids",
                None,
                format!(
                    "the same seats (or seats that look alike) were voided {} times (pairs {}): a table re-rolled by voiding it looks like this",
                    voided.len(),
                    named(voided.iter().map(String::as_str), voided.len())
                ),
            );
        }
        let mut unseeded: Vec<String> = m
            .draws
            .iter()
            .filter(|(_, d)| !d.client_seed)
            .map(|(id, _)| m.names.name(*id))
            .collect();
        unseeded.sort();
        let accepted = self.trusted && !m.findings.log_unsound;
        let state = MonitorState {
            origin: self.origin.clone(),
            vkey: self.vkey.clone(),
            size: self.size,
            root: self.root_text.clone(),
        };
        let findings = std::mem::replace(&mut m.findings, of_entries);
        let report = MonitorReport {
            origin: self.origin.clone(),
            size: self.size,
            root: self.root_text.clone(),
            pairs: m.pairs,
            rounds: m.rounds,
            unrevealed: m.live.len() as u64,
            oldest_unrevealed_seconds: oldest.map(|ms| ms / 1000),
            unused_commitments: unused,
            draws: m.draws.len() as u64,
            draws_drawn: m.draws.values().filter(|d| d.drawn).count() as u64,
            unseeded_draws: unseeded,
            tables: m.tables,
            table_voids: m.voids.len() as u64,
            findings: findings.listed,
            findings_not_listed: findings.not_listed,
            notes: notes.listed,
            checkpoint_accepted: accepted,
            witnessed_by: self.witnessed_by.clone(),
            latest_unwitnessed_size: self.latest_unwitnessed_size,
            state: accepted.then(|| state.clone()),
        };
        let snapshot = accepted.then(|| Snapshot {
            format: SNAPSHOT_FORMAT.to_owned(),
            state,
            tree: Bytes(self.tree.to_bytes()),
            memory: std::mem::take(&mut self.memory),
        });
        (report, self.facts, snapshot)
    }

    fn check_tree(&mut self) {
        let findings = &mut self.memory.findings;
        if self.disproven && self.tree.leaves() != self.size {
            return; // Said once, where the reading stopped.
        }
        if self.tree.leaves() != self.size {
            findings.add(
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
            findings.add(
                "tree",
                None,
                format!(
                    "the entries served give the root {computed}, not the checkpoint's {}: entries were changed or withheld{}",
                    self.root_text,
                    if self.resumed {
                        ", or the log does not extend the checkpoint accepted last time (a fork)"
                    } else {
                        ""
                    }
                ),
            );
        }
        if let Some(previous) = &self.previous
            && previous.size <= self.size
            && let Some(old_root) = self.root_at_previous
            && old_root.to_string() != previous.root
        {
            findings.add(
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
        let m = &mut self.memory;
        for group in m.pair_seeds.many() {
            let alike = if group.lookalike {
                "client seeds that look alike (the same once folded: invisible characters, case, Unicode form, letters of other scripts)"
            } else {
                "the same client seed"
            };
            let members = m.names.named(&group.named, group.members);
            if let Some(index) = group.first_shopped_at {
                m.findings.add(
                    "client_seed_reuse",
                    Some(index),
                    format!(
                        "{alike} went to pairs {members}; {} of them got it while another pair of the same tenant held it unrevealed ({}): deals could have been shopped across them",
                        group.shopped,
                        m.names.named(&group.shopped_named, group.shopped)
                    ),
                );
            } else {
                notes.add(
                    "client_seed_shared",
                    None,
                    format!(
                        "{alike} went to pairs {members}, never to two of one tenant at the same time (another tenant's pair, or after the earlier pair was revealed): not deal-shopping"
                    ),
                );
            }
        }
    }
}

/// [`Findings`] as kept in a [`Snapshot`].
#[derive(Clone, Serialize, Deserialize)]
struct StoredFindings {
    listed: Vec<(String, Option<u64>, String)>,
    not_listed: u64,
}

impl From<Findings> for StoredFindings {
    fn from(findings: Findings) -> Self {
        Self {
            listed: findings
                .listed
                .into_iter()
                .map(|f| (f.kind.to_owned(), f.index, f.detail))
                .collect(),
            not_listed: findings.not_listed,
        }
    }
}

impl From<StoredFindings> for Findings {
    fn from(stored: StoredFindings) -> Self {
        let mut findings = Findings::default();
        for (kind, index, detail) in stored.listed {
            let kind = FINDING_KINDS
                .iter()
                .find(|k| **k == kind)
                .copied()
                .unwrap_or("entry");
            findings.add(kind, index, detail);
        }
        findings.not_listed += stored.not_listed;
        findings
    }
}

/// Every kind of finding and note.
const FINDING_KINDS: &[&str] = &[
    "signature",
    "tree",
    "tile",
    "fork",
    "key",
    "entry",
    "order",
    "reveal",
    "succession",
    "client_seed_reuse",
    "stale_commitment",
    "draw",
    "draw_not_run",
    "draw_reuse",
    "table",
    "repeated_voids",
    "api",
    "client_seed_shared",
    "draw_seed_shared",
];

/// `ids` joined, at most [`MAX_NAMED`] of `count`, and how many more.
fn named<'a>(ids: impl Iterator<Item = &'a str>, count: usize) -> String {
    let mut text = ids.take(MAX_NAMED).collect::<Vec<_>>().join(", ");
    if count > MAX_NAMED {
        text.push_str(&format!(" and {} more", count - MAX_NAMED));
    }
    text
}

/// Whether `seed` (hex) hashes to `commitment`.
fn opens(seed: &str, commitment: Option<[u8; 32]>) -> bool {
    let Some(commitment) = commitment else {
        return false;
    };
    hex::decode(seed)
        .map(|bytes| <[u8; 32]>::from(Sha256::digest(bytes)) == commitment)
        .unwrap_or(false)
}

fn time_ms(text: &str) -> Option<i64> {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
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
    Ok(check_from(view, previous, None, now_ms, reveal_within_ms)?.0)
}

/// [`check`], resuming from `snapshot` (the memory of the run that
/// accepted `previous`) when it fits: then only the entries after it are
/// read. Also returns the snapshot to keep and the entries read.
pub fn check_from(
    view: &LogView,
    previous: Option<&MonitorState>,
    snapshot: Option<Snapshot>,
    now_ms: i64,
    reveal_within_ms: i64,
) -> anyhow::Result<(MonitorReport, Option<Snapshot>, u64)> {
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
    let mut read = 0;
    if checker.trusted() {
        if let Some(snapshot) = snapshot {
            checker.resume(snapshot);
        }
        let from = usize::try_from(checker.read()).unwrap_or(usize::MAX);
        for entry in view.entries.iter().skip(from) {
            checker.entry(entry);
            read += 1;
            compare(&mut checker);
        }
        checker.end_of_entries();
        compare(&mut checker);
    }
    let (report, _, snapshot) = checker.finish_keeping(now_ms, reveal_within_ms);
    Ok((report, snapshot, read))
}
