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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::cross::digest16;
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

/// A pair's or a draw's id in 17 bytes: 0 and its UUID when the text is
/// one in the service's form (lower case, hyphenated); else 1 and a number
/// given to that text the first time it was kept ([`Names`]). The two never
/// meet, whatever text a log holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(super) struct Id(pub(super) [u8; 17]);

impl Id {
    pub(super) fn uuid(bytes: [u8; 16]) -> Self {
        let mut id = [0; 17];
        id[1..].copy_from_slice(&bytes);
        Self(id)
    }

    pub(super) fn numbered(n: u64) -> Self {
        let mut id = [0; 17];
        id[0] = 1;
        id[1..9].copy_from_slice(&n.to_be_bytes());
        Self(id)
    }

    /// The id of a text never kept: it matches nothing.
    const UNKNOWN: Self = Self([2; 17]);
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

/// The UUID of `text`, when it is one in the service's form (lower case,
/// hyphenated).
pub(super) fn uuid_of(text: &str) -> Option<[u8; 16]> {
    if text.len() == 36 && !text.bytes().any(|b| b.is_ascii_uppercase()) {
        return uuid::Uuid::try_parse(text).ok().map(uuid::Uuid::into_bytes);
    }
    None
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

/// How far a monitor's ledger of revealed pairs' digests goes
/// ([`super::cross::PairDigest`]): its records and bytes, which the file
/// beside the state holds (its first `bytes`) when the snapshot is
/// resumed, and the hash chain of its records (each link the SHA-256 of
/// the last and the record's bytes): the snapshot, whose own SHA-256
/// guards it, vouches for every byte of the ledger it was written with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerMark {
    pub pairs: u64,
    pub bytes: u64,
    pub chain: [u8; 32],
}

impl LedgerMark {
    /// The mark one more record takes the ledger to.
    pub fn after(self, record: &[u8]) -> Self {
        Self {
            pairs: self.pairs + 1,
            bytes: self.bytes + record.len() as u64,
            chain: Sha256::new()
                .chain_update(self.chain)
                .chain_update(record)
                .finalize()
                .into(),
        }
    }
}

/// The cross-check of an export's digests against the log, as the log is
/// read: the pairs whose digests differ, or that the export lacks.
#[derive(Debug, Default)]
pub struct CrossCheck {
    pub export: super::cross::ExportDigests,
    /// Pairs the log revealed whose rounds or seeds the export does not
    /// hold as the log does (at most [`MAX_FINDINGS`] named).
    pub differing: Vec<String>,
    pub differing_not_named: u64,
    /// Pairs the log revealed, and their rounds.
    pub revealed_pairs: u64,
    pub revealed_rounds: u64,
    /// The export's digests while another thread still reads the export
    /// ([`LogChecker::cross_check`]).
    arriving: Option<std::sync::mpsc::Receiver<super::cross::ExportDigests>>,
    /// Pairs the log revealed before the export's digests arrived, held
    /// when they do (at most [`CrossCheck::MOST_PENDING`] and
    /// [`CrossCheck::MOST_PENDING_BYTES`]: the log's reader then waits for
    /// the export).
    pending: Vec<super::cross::PairDigest>,
    pending_bytes: usize,
    /// Pairs the log revealed, not in the export, before the reveals the
    /// export says it covers (an export resumed after a cursor) and after
    /// them (revealed after the export began): not the export's to hold
    /// (counted by [`CrossCheck::result`]).
    pub before_export: u64,
    pub after_export: u64,
    /// The reveals of pairs missing from the export that its coverage
    /// would excuse, by their index: excused only outside the span of the
    /// reveals the export does hold (an honest export is one run of the
    /// log's reveals, in their order), which is known at the end.
    outside: Vec<u64>,
    /// The first and last reveal the export holds.
    held_span: Option<(u64, u64)>,
    /// The pair revealed at the entry before the export's coverage starts
    /// (the cursor it resumed after), when one is.
    pub resumed_after: Option<String>,
    /// Pairs missing from the export that its coverage does not excuse
    /// (revealed within the span of the reveals it holds), by the index of
    /// their reveal: at most [`MAX_FINDINGS`], the rest counted.
    pub missing_within: Vec<u64>,
    pub missing_within_not_named: u64,
    /// Pairs the export holds whose reveal lies outside what its end line
    /// says it covers (an honest export holds none): the pair and the
    /// index, at most [`MAX_FINDINGS`], the rest counted.
    pub held_outside: Vec<(String, u64)>,
    pub held_outside_not_named: u64,
    /// The export's digests never came (its reader failed): every pair
    /// revealed differs, and reading on is pointless.
    pub export_lost: bool,
}

impl CrossCheck {
    /// 65,536 pairs waiting (about 7 MB with the service's ids) before the
    /// log's reader waits for the export: the export is read faster than
    /// the log, so this is reached only when the export is much the larger
    /// of the two.
    const MOST_PENDING: usize = 1 << 16;
    /// And at most 8 MiB of them, counting their ids (a hostile log's ids
    /// can be 64 KiB long).
    const MOST_PENDING_BYTES: usize = 8 << 20;

    /// The export's digests, if they arrived (waiting for them with
    /// `wait`): every pending pair is then held against them. An export
    /// that was never sent (its reader failed) leaves the export empty.
    fn receive(&mut self, wait: bool) {
        let Some(arriving) = &self.arriving else {
            return;
        };
        let export = if wait {
            arriving.recv().ok()
        } else {
            match arriving.try_recv() {
                Ok(export) => Some(export),
                Err(std::sync::mpsc::TryRecvError::Empty) => return,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            }
        };
        self.arriving = None;
        self.export_lost = export.is_none();
        self.export = export.unwrap_or_else(|| {
            let mut empty = super::cross::ExportDigests::default();
            empty.seal();
            empty
        });
        self.pending_bytes = 0;
        for pending in std::mem::take(&mut self.pending) {
            self.hold(&pending);
        }
    }

    /// Every pair held: the result, once the export's digests are in
    /// (waiting for them). A missing pair the export's coverage would
    /// excuse is excused only if it lies outside the reveals the export
    /// holds: before the first of them (and its coverage), or after the
    /// last (and its coverage).
    pub fn result(mut self) -> Self {
        self.receive(true);
        let covered = self.export.coverage();
        let span = self.held_span;
        for index in std::mem::take(&mut self.outside) {
            let excused = match covered {
                Some(covered) if index < covered.from => {
                    span.is_none_or(|(first, _)| index < first)
                }
                Some(covered) if index >= covered.size => span.is_none_or(|(_, last)| index > last),
                _ => false,
            };
            match excused {
                true if index < covered.map_or(0, |c| c.from) => self.before_export += 1,
                true => self.after_export += 1,
                false if self.missing_within.len() < MAX_FINDINGS => {
                    self.missing_within.push(index)
                }
                false => self.missing_within_not_named += 1,
            }
        }
        self.missing_within.sort_unstable();
        self
    }

    /// Holds a pair the log revealed against the export, when it has
    /// arrived; else keeps it for then. From the checker as it reads a
    /// reveal, or from a monitor's ledger for the pairs revealed before the
    /// snapshot the checker resumed from.
    pub(crate) fn revealed(&mut self, reveal: super::cross::PairDigest) {
        self.revealed_pairs += 1;
        self.revealed_rounds += reveal.count;
        if self.arriving.is_some() {
            self.receive(
                self.pending.len() >= Self::MOST_PENDING
                    || self.pending_bytes >= Self::MOST_PENDING_BYTES,
            );
        }
        if self.arriving.is_some() {
            self.pending_bytes +=
                std::mem::size_of::<super::cross::PairDigest>() + reveal.pair.len();
            self.pending.push(reveal);
            return;
        }
        self.hold(&reveal);
    }

    fn hold(&mut self, reveal: &super::cross::PairDigest) {
        let held = self
            .export
            .hold(&reveal.pair, reveal.fields, reveal.rounds, reveal.count);
        let covered = self.export.coverage();
        if covered.is_some_and(|c| c.from > 0 && reveal.index == c.from - 1) {
            self.resumed_after = Some(reveal.pair.to_string());
        }
        let outside = covered.is_some_and(|c| reveal.index < c.from || reveal.index >= c.size);
        if held != super::cross::Held::Absent {
            let (first, last) = self.held_span.unwrap_or((reveal.index, reveal.index));
            self.held_span = Some((first.min(reveal.index), last.max(reveal.index)));
            if outside {
                if self.held_outside.len() < MAX_FINDINGS {
                    self.held_outside
                        .push((reveal.pair.to_string(), reveal.index));
                } else {
                    self.held_outside_not_named += 1;
                }
            }
        }
        let differs = match held {
            super::cross::Held::Same => false,
            super::cross::Held::Differs => true,
            // A pair that dealt nothing (a void table) has nothing to
            // export.
            super::cross::Held::Absent if reveal.count == 0 => false,
            // Outside what the export says it covers: settled at the end.
            super::cross::Held::Absent if outside => {
                self.outside.push(reveal.index);
                false
            }
            super::cross::Held::Absent => true,
        };
        if differs {
            if self.differing.len() < MAX_FINDINGS {
                self.differing.push(reveal.pair.to_string());
            } else {
                self.differing_not_named += 1;
            }
        }
    }
}

/// What the log has said about one draw so far.
#[derive(Default, Serialize, Deserialize)]
struct DrawTrack {
    commitment: Option<[u8; 32]>,
    list: String,
    entries: u64,
    winners: u64,
    tenant: u32,
    client_seed_at_ms: Option<i64>,
    client_seed: bool,
    drawn: bool,
}

/// Items (pairs, draws) grouped by their client seeds: an item joins the
/// group its bytes' hash or its lookalike hash (absent from entries of
/// older logs) already names. A group of one item is 33 bytes and two keys;
/// memory is linear in the items.
#[derive(Default, Serialize, Deserialize)]
struct Groups {
    #[serde(with = "packed_keys")]
    by_key: SortedMap<[u8; 16], u32>,
    #[serde(with = "packed_groups")]
    groups: Chunked<Group>,
}

#[derive(Serialize, Deserialize)]
struct Group {
    first: Id,
    /// The first item's hash of its bytes: a later item with other bytes
    /// makes the group a lookalike one.
    first_exact: [u8; 16],
    /// Set once a second item joins.
    more: Option<Box<Many>>,
}

/// Records per chunk of a [`Chunked`] list, and of a packed list in a
/// snapshot.
const CHUNK: usize = 1 << 16;

/// A list that grows a chunk at a time: no copy of the whole when it grows,
/// and never more than a chunk of spare room (a `Vec` keeps up to half).
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    fn len(&self) -> usize {
        self.len
    }

    /// Adds `item`; its position.
    fn push(&mut self, item: T) -> usize {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
        self.len - 1
    }

    fn get_mut(&mut self, at: usize) -> Option<&mut T> {
        self.chunks.get_mut(at / CHUNK)?.get_mut(at % CHUNK)
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

/// A map kept as one sorted array of its records, with the records added
/// since the last merge in a small hash map beside it: about the size of
/// its records (a hash map keeps twice as much room), at the cost of a
/// binary search a look-up. The batch is merged in once it is an eighth of
/// the array (a merge of two sorted runs).
struct SortedMap<K, V> {
    sorted: Vec<(K, V)>,
    recent: HashMap<K, V>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            recent: HashMap::new(),
        }
    }
}

/// Where a key lies between the least and the greatest of its class, as a
/// number that grows with it (never shrinks when the key grows, within its
/// class; classes sort apart): the guide of [`SortedMap`]'s search.
trait Spread {
    fn spread(&self) -> u64;

    fn class(&self) -> u8 {
        0
    }
}

impl Spread for [u8; 16] {
    fn spread(&self) -> u64 {
        u64::from_be_bytes(self[..8].try_into().unwrap_or_default())
    }
}

/// A UUID's leading bytes (random, or a time); numbered ids are another
/// class.
impl Spread for Id {
    fn spread(&self) -> u64 {
        u64::from_be_bytes(self.0[1..9].try_into().unwrap_or_default())
    }

    fn class(&self) -> u8 {
        self.0[0]
    }
}

#[cfg(test)]
impl Spread for u64 {
    fn spread(&self) -> u64 {
        *self
    }
}

/// The place of `key` in `sorted` (by `Ord`), as `binary_search` gives it:
/// first a guess where it would lie were the keys spread evenly (hashes
/// and random UUIDs are), bracketed by steps doubling away from it, twice;
/// then a binary search of what is left. A binary search of a million
/// records misses the cache about twenty times; the guess lands a few
/// hundred records away, so most steps stay near it. Keys that are not
/// spread evenly (a hostile log's) cost at most the bracketing steps more
/// than a binary search. Only keys of one class are guided (a log with a
/// numbered id among its UUIDs is searched by halves alone).
fn search<K: Ord + Spread, V>(sorted: &[(K, V)], key: &K) -> Result<usize, usize> {
    let (mut lo, mut hi) = (0, sorted.len());
    let target = key.spread();
    for _ in 0..2 {
        if hi - lo <= 64
            || sorted[lo].0.class() != key.class()
            || sorted[hi - 1].0.class() != key.class()
        {
            break;
        }
        let (least, most) = (sorted[lo].0.spread(), sorted[hi - 1].0.spread());
        if target <= least || target >= most {
            break;
        }
        let span = (hi - 1 - lo) as u128;
        let guess = lo + (u128::from(target - least) * span / u128::from(most - least)) as usize;
        match sorted[guess].0.cmp(key) {
            std::cmp::Ordering::Equal => return Ok(guess),
            // The key lies in (guess, hi): step up until a record above it.
            std::cmp::Ordering::Less => {
                let mut step = 1;
                lo = guess + 1;
                while guess + step < hi {
                    match sorted[guess + step].0.cmp(key) {
                        std::cmp::Ordering::Equal => return Ok(guess + step),
                        std::cmp::Ordering::Less => lo = guess + step + 1,
                        std::cmp::Ordering::Greater => {
                            hi = guess + step;
                            break;
                        }
                    }
                    step *= 2;
                }
            }
            // The key lies in [lo, guess): step down.
            std::cmp::Ordering::Greater => {
                let mut step = 1;
                hi = guess;
                while step <= guess - lo {
                    match sorted[guess - step].0.cmp(key) {
                        std::cmp::Ordering::Equal => return Ok(guess - step),
                        std::cmp::Ordering::Greater => hi = guess - step,
                        std::cmp::Ordering::Less => {
                            lo = guess - step + 1;
                            break;
                        }
                    }
                    step *= 2;
                }
            }
        }
    }
    sorted[lo..hi]
        .binary_search_by(|(k, _)| k.cmp(key))
        .map(|at| lo + at)
        .map_err(|at| lo + at)
}

impl<K: Ord + std::hash::Hash + Copy + Spread, V: Copy> SortedMap<K, V> {
    fn get(&self, key: &K) -> Option<V> {
        if let Some(value) = self.recent.get(key) {
            return Some(*value);
        }
        search(&self.sorted, key).ok().map(|at| self.sorted[at].1)
    }

    fn contains(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Adds `key` with `value` unless it is there already.
    fn insert_new(&mut self, key: K, value: V) {
        if self.contains(&key) {
            return;
        }
        self.recent.insert(key, value);
        if self.recent.len() >= (self.sorted.len() / 8).max(1 << 12) {
            self.merge();
        }
    }

    fn merge(&mut self) {
        let mut batch: Vec<(K, V)> = self.recent.drain().collect();
        batch.sort_unstable_by_key(|r| r.0);
        self.sorted.reserve_exact(batch.len());
        self.sorted.extend(batch);
        // Two sorted runs: the stable sort merges them in one pass.
        self.sorted.sort_by_key(|r| r.0);
        self.recent = HashMap::new();
    }

    fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.sorted
            .iter()
            .copied()
            .chain(self.recent.iter().map(|(k, v)| (*k, *v)))
    }

    /// A map of `records` (the first of a key stands).
    fn from_records(records: impl Iterator<Item = (K, V)>) -> Self {
        let mut sorted: Vec<(K, V)> = records.collect();
        sorted.sort_by_key(|r| r.0);
        sorted.dedup_by(|later, first| later.0 == first.0);
        sorted.shrink_to_fit();
        Self {
            sorted,
            recent: HashMap::new(),
        }
    }
}

/// A group of two items or more.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Many {
    lookalike: bool,
    members: u64,
    /// The first [`MAX_NAMED`] members.
    named: Vec<Id>,
    /// Members by tenant: every one (draws), or the live ones (pairs).
    tenants: HashMap<u32, u32>,
    /// Members given the seed while another of their tenant held it live.
    shopped: u64,
    first_shopped_at: Option<u64>,
    shopped_named: Vec<Id>,
}

impl Many {
    fn count(&self, tenant: u32) -> u32 {
        self.tenants.get(&tenant).copied().unwrap_or(0)
    }

    fn add(&mut self, tenant: u32) {
        *self.tenants.entry(tenant).or_default() += 1;
    }

    fn release(&mut self, tenant: u32) {
        if let Some(n) = self.tenants.get_mut(&tenant) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.tenants.remove(&tenant);
            }
        }
    }

    /// Whether a member of `tenant` would overlap a live member of the same
    /// tenant (an entry without a tenant could be anyone's).
    fn live_same_tenant(&self, tenant: u32) -> bool {
        match tenant {
            0 => !self.tenants.is_empty(),
            _ => self.count(tenant) + self.count(0) > 0,
        }
    }
}

impl Groups {
    /// The group `item` joins (and whether it is a new one); the first
    /// item of a group that grows is described by `first` (its tenant, if
    /// it counts).
    fn join(
        &mut self,
        item: Id,
        exact: [u8; 16],
        lookalike: Option<[u8; 16]>,
        first: impl FnOnce(Id) -> Option<u32>,
    ) -> (u32, Option<&mut Many>) {
        // Both keys, always: a seed meets the same bytes whatever lookalike
        // hash an entry claims, and a lookalike whatever its bytes.
        let keys = [lookalike, Some(exact)];
        let found = keys.iter().flatten().find_map(|key| self.by_key.get(key));
        let group = match found {
            Some(group) => group,
            None => self.groups.push(Group {
                first: item,
                first_exact: exact,
                more: None,
            }) as u32,
        };
        for key in keys.iter().flatten() {
            self.by_key.insert_new(*key, group);
        }
        let Some(g) = self
            .groups
            .get_mut(group as usize)
            .filter(|_| found.is_some())
        else {
            return (group, None);
        };
        let head = g.first;
        let more = g.more.get_or_insert_with(|| {
            let mut more = Box::new(Many {
                members: 1,
                named: vec![head],
                ..Many::default()
            });
            if let Some(tenant) = first(head) {
                more.add(tenant);
            }
            more
        });
        more.members += 1;
        more.lookalike |= g.first_exact != exact;
        if more.named.len() < MAX_NAMED {
            more.named.push(item);
        }
        (group, Some(more))
    }

    /// The groups of two items or more.
    fn many(&self) -> impl Iterator<Item = &Many> {
        self.groups.iter().filter_map(|g| g.more.as_deref())
    }
}

/// The fields of an entry the checker reads, borrowed where it can be.
/// Entries that do not fit (a field of another type, a key twice) are read
/// as JSON values instead, with the same meaning.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Fields<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    seed_pair: Option<Cow<'a, str>>,
    #[serde(borrow)]
    server_seed_hash: Option<Cow<'a, str>>,
    #[serde(borrow)]
    next_server_seed_hash: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tenant: Option<Cow<'a, str>>,
    #[serde(borrow)]
    predecessor: Option<Cow<'a, str>>,
    #[serde(borrow)]
    seats: Option<&'a RawValue>,
    #[serde(borrow)]
    client_seed_sha256: Option<Cow<'a, str>>,
    #[serde(borrow)]
    client_seed_lookalike_sha256: Option<Cow<'a, str>>,
    nonce: Option<u64>,
    #[serde(borrow)]
    round: Option<Cow<'a, str>>,
    #[serde(borrow)]
    game: Option<&'a RawValue>,
    #[serde(borrow)]
    server_seed: Option<Cow<'a, str>>,
    #[serde(borrow)]
    successor: Option<Cow<'a, str>>,
    chain_length: Option<u64>,
    #[serde(borrow)]
    time: Option<Cow<'a, str>>,
}

impl<'a> Fields<'a> {
    /// The fields of an entry that is JSON but not of the expected types.
    fn of_value(entry: &Value) -> Fields<'static> {
        let text = |field: &str| entry[field].as_str().map(|s| Cow::Owned(s.to_owned()));
        Fields {
            kind: text("type"),
            seed_pair: text("seed_pair"),
            server_seed_hash: text("server_seed_hash"),
            next_server_seed_hash: text("next_server_seed_hash"),
            tenant: text("tenant"),
            predecessor: text("predecessor"),
            seats: None,
            client_seed_sha256: text("client_seed_sha256"),
            client_seed_lookalike_sha256: text("client_seed_lookalike_sha256"),
            nonce: entry["nonce"].as_u64(),
            round: text("round"),
            game: None,
            server_seed: text("server_seed"),
            successor: text("successor"),
            chain_length: entry["chain_length"].as_u64(),
            time: text("time"),
        }
    }

    fn text(field: &'a Option<Cow<'a, str>>) -> &'a str {
        field.as_deref().unwrap_or_default()
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

/// A checker's memory at the end of an accepted run, to resume from: the
/// state it accepted, the tree at that size, and what its entries left to
/// check. Written beside the monitor's state file.
#[derive(Serialize, Deserialize)]
pub struct Snapshot {
    format: String,
    state: MonitorState,
    tree: Bytes,
    memory: Memory,
}

/// A reader or writer that hashes what passes through it.
struct Hashing<T> {
    inner: T,
    hasher: Sha256,
}

impl<T: std::io::Write> std::io::Write for Hashing<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<T: std::io::Read> std::io::Read for Hashing<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// The format of a [`Snapshot`]: a snapshot of another is not resumed.
const SNAPSHOT_FORMAT: &str = "fairdeal-monitor-snapshot-5";

/// Bytes, serialized as one byte string.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        deserializer.deserialize_byte_buf(Visit)
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

// The large parts of a snapshot (an id per pair, a key per client seed, a
// group per client seed) are written as lists of byte strings, each of
// [`CHUNK`] records at most: written and read back a chunk at a time, a
// million pairs' worth in a fraction of a second and little memory beyond
// the checker's own.

/// Writes `records` as byte strings of [`CHUNK`] records at most.
fn write_records<S: serde::Serializer, const N: usize>(
    s: S,
    records: impl Iterator<Item = [u8; N]>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq as _;
    let mut records = records.peekable();
    let mut seq = s.serialize_seq(None)?;
    while records.peek().is_some() {
        let chunk: Vec<u8> = records.by_ref().take(CHUNK).flatten().collect();
        seq.serialize_element(&Bytes(chunk))?;
    }
    seq.end()
}

/// Reads what [`write_records`] wrote, handing each record to `each`.
fn read_records<'de, D: serde::Deserializer<'de>, const N: usize>(
    d: D,
    each: impl FnMut([u8; N]) -> Result<(), String>,
) -> Result<(), D::Error> {
    struct Visit<F, const N: usize>(F);
    impl<'de, F: FnMut([u8; N]) -> Result<(), String>, const N: usize> serde::de::Visitor<'de>
        for Visit<F, N>
    {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of byte strings of {N}-byte records")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            use serde::de::Error as _;
            while let Some(Bytes(chunk)) = seq.next_element()? {
                if !chunk.len().is_multiple_of(N) {
                    return Err(A::Error::custom(format!(
                        "a chunk of {N}-byte records is {} bytes",
                        chunk.len()
                    )));
                }
                for record in chunk.chunks_exact(N) {
                    let mut bytes = [0; N];
                    bytes.copy_from_slice(record);
                    (self.0)(bytes).map_err(A::Error::custom)?;
                }
            }
            Ok(())
        }
    }
    d.deserialize_seq(Visit(each))
}

fn split16(record: &[u8]) -> ([u8; 16], &[u8]) {
    let mut head = [0; 16];
    head.copy_from_slice(&record[..16]);
    (head, &record[16..])
}

mod packed_ids {
    use super::*;

    pub fn serialize<S: serde::Serializer>(
        ids: &SortedMap<Id, ()>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        write_records(s, ids.iter().map(|(id, ())| id.0))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<SortedMap<Id, ()>, D::Error> {
        let mut ids = Vec::new();
        read_records::<D, 17>(d, |record| {
            ids.push((Id(record), ()));
            Ok(())
        })?;
        Ok(SortedMap::from_records(ids.into_iter()))
    }
}

mod packed_keys {
    use super::*;

    pub fn serialize<S: serde::Serializer>(
        keys: &SortedMap<[u8; 16], u32>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        write_records(
            s,
            keys.iter().map(|(key, group)| {
                let mut record = [0; 20];
                record[..16].copy_from_slice(&key);
                record[16..].copy_from_slice(&group.to_be_bytes());
                record
            }),
        )
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<SortedMap<[u8; 16], u32>, D::Error> {
        let mut keys = Vec::new();
        read_records::<D, 20>(d, |record| {
            let (key, group) = split16(&record);
            let group = u32::from_be_bytes(group.try_into().map_err(|_| "a short record")?);
            keys.push((key, group));
            Ok(())
        })?;
        Ok(SortedMap::from_records(keys.into_iter()))
    }
}

mod packed_groups {
    use super::*;

    /// Every group's first item and its hash; then the groups of more than
    /// one, by position.
    pub fn serialize<S: serde::Serializer>(
        groups: &Chunked<Group>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        struct Heads<'a>(&'a Chunked<Group>);
        impl Serialize for Heads<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                write_records(
                    s,
                    self.0.iter().map(|g| {
                        let mut record = [0; 33];
                        record[..17].copy_from_slice(&g.first.0);
                        record[17..].copy_from_slice(&g.first_exact);
                        record
                    }),
                )
            }
        }
        let many: Vec<(u32, &Many)> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some((i as u32, g.more.as_deref()?)))
            .collect();
        let mut tuple = s.serialize_tuple(2)?;
        tuple.serialize_element(&Heads(groups))?;
        tuple.serialize_element(&many)?;
        tuple.end()
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Chunked<Group>, D::Error> {
        struct Heads(Chunked<Group>);
        impl<'de> Deserialize<'de> for Heads {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut groups = Chunked::default();
                read_records::<D, 33>(d, |record| {
                    let mut first = [0; 17];
                    first.copy_from_slice(&record[..17]);
                    let (first_exact, _) = split16(&record[17..]);
                    groups.push(Group {
                        first: Id(first),
                        first_exact,
                        more: None,
                    });
                    Ok(())
                })?;
                Ok(Heads(groups))
            }
        }
        let (Heads(mut groups), many) = <(Heads, Vec<(u32, Many)>)>::deserialize(d)?;
        for (at, more) in many {
            let group = groups
                .get_mut(at as usize)
                .ok_or_else(|| serde::de::Error::custom("a group beyond the list"))?;
            group.more = Some(Box::new(more));
        }
        Ok(groups)
    }
}

impl Snapshot {
    /// Writes the snapshot to `out`: CBOR, then the SHA-256 of it (a
    /// snapshot damaged on disk is not read back, and costs a full run
    /// instead of a false finding).
    pub fn write(&self, out: impl std::io::Write) -> anyhow::Result<()> {
        let mut hashing = Hashing {
            inner: out,
            hasher: Sha256::new(),
        };
        ciborium::into_writer(self, &mut hashing)?;
        let digest = hashing.hasher.finalize();
        hashing.inner.write_all(&digest)?;
        Ok(())
    }

    /// A snapshot read back; `None` when what is read is not one of this
    /// format, is damaged, or does not hold together.
    pub fn read(from: impl std::io::Read) -> Option<Self> {
        use std::io::Read as _;
        let mut hashing = Hashing {
            inner: from,
            hasher: Sha256::new(),
        };
        let snapshot: Self = ciborium::from_reader(&mut hashing).ok()?;
        let digest = hashing.hasher.finalize();
        let mut trailer = Vec::new();
        hashing.inner.take(33).read_to_end(&mut trailer).ok()?;
        if trailer != digest.as_slice() {
            return None;
        }
        let m = &snapshot.memory;
        let fits = |groups: &Groups| {
            let n = groups.groups.len() as u32;
            groups.by_key.iter().all(|(_, g)| g < n)
        };
        let tables_hold =
            m.live.values().filter_map(|p| p.table.as_deref()).all(|t| {
                t.commitments.len() == t.seats.len() && t.contributed.len() == t.seats.len()
            });
        let holds = snapshot.format == SNAPSHOT_FORMAT
            && TileBuilder::from_bytes(&snapshot.tree.0).is_some()
            && fits(&m.pair_seeds)
            && fits(&m.draw_seeds)
            && tables_hold
            && m.live.values().all(|p| {
                p.group
                    .is_none_or(|g| (g as usize) < m.pair_seeds.groups.len())
            });
        holds.then_some(snapshot)
    }

    /// The state it was taken at.
    pub fn state(&self) -> &MonitorState {
        &self.state
    }

    /// How far its ledger of revealed pairs' digests goes, when it kept one.
    pub fn ledger(&self) -> Option<LedgerMark> {
        self.memory.ledger
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

    /// Compares a hash tile as served with the hashes the entries give.
    pub fn compare_tile(&mut self, tile: &ExpectedTile, served: &[u8]) {
        if tile.bytes() != served {
            self.memory.findings.add(
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
        self.memory.findings.add(kind, None, detail);
    }

    fn check_entry(&mut self, index: u64, bytes: &[u8]) {
        // The entry as a JSON value, when it does not fit the borrowed
        // fields (its fields are then read from the value).
        let mut value = None;
        let fields = match serde_json::from_slice::<Fields>(bytes) {
            Ok(fields) => fields,
            Err(_) => {
                let Ok(entry) = serde_json::from_slice::<Value>(bytes) else {
                    self.memory
                        .findings
                        .add("entry", Some(index), "not JSON".to_owned());
                    return;
                };
                Fields::of_value(value.insert(entry))
            }
        };
        let pair_id = Fields::text(&fields.seed_pair);
        let full = || serde_json::from_slice::<Value>(bytes).unwrap_or_default();
        match fields.kind.as_deref() {
            Some("commit") => {
                // A table's seats, read from the whole entry.
                let entry = match &value {
                    Some(value) => value["seats"].is_array().then(|| value.clone()),
                    None => fields.seats.is_some().then(full),
                };
                self.commit(index, pair_id, &fields, entry.as_ref())
            }
            Some("client_seed") => self.client_seed(index, pair_id, &fields),
            Some("round") => self.round(index, pair_id, &fields),
            Some("round_seed") => self.round_seed(index, pair_id, &fields),
            Some("reveal") => self.reveal(index, pair_id, &fields),
            Some(kind @ ("seat_commitment" | "seat_contribution" | "table_void")) => {
                self.table_entry(index, kind, pair_id, &full())
            }
            Some("draw_commit" | "draw_client_seed" | "draw_result") => {
                self.draw_entry(index, &full());
            }
            Some(other) => self.memory.findings.add(
                "entry",
                Some(index),
                format!("an entry of unknown type {other:?}"),
            ),
            None => {
                self.memory
                    .findings
                    .add("entry", Some(index), "an entry without a type".to_owned())
            }
        }
    }

    fn commit(&mut self, index: u64, pair_id: &str, fields: &Fields, entry: Option<&Value>) {
        let m = &mut self.memory;
        let id = m.names.keep(pair_id);
        if m.live.contains_key(&id) || m.revealed.contains(&id) {
            m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} is committed twice (the first commitment stands)"),
            );
            return;
        }
        m.pairs += 1;
        let commitment_text = Fields::text(&fields.server_seed_hash);
        let commitment = hash32(commitment_text);
        if commitment.is_none() {
            m.findings.add(
                "entry",
                Some(index),
                format!(
                    "pair {pair_id}'s commitment {commitment_text:?} is not a SHA-256 hash in hex"
                ),
            );
        }
        let chain = match fields.chain_length {
            None => None,
            Some(length) if (1..=fairdeal_core::MAX_CHAIN_LENGTH).contains(&length) => {
                Some(Box::new(ChainTrack {
                    length,
                    published: 0,
                    last: commitment,
                }))
            }
            Some(length) => {
                m.findings.add(
                    "chain",
                    Some(index),
                    format!(
                        "pair {pair_id}'s chain length {length} is not 1 to {}",
                        fairdeal_core::MAX_CHAIN_LENGTH
                    ),
                );
                None
            }
        };
        let track = Live {
            commitment,
            chain,
            next: hash32(Fields::text(&fields.next_server_seed_hash)),
            committed_at_ms: fields.time.as_deref().and_then(time_ms),
            tenant: m.tenants.of(fields.tenant.as_deref()),
            next_nonce: Some(0),
            table: entry.and_then(|entry| {
                let seats = entry["seats"].as_array()?;
                Some(Box::new(TableTrack::new(
                    seats
                        .iter()
                        .map(|s| s.as_str().unwrap_or_default().to_owned())
                        .collect(),
                    entry["seat_set"].as_str(),
                )))
            }),
            ..Live::default()
        };
        if track.table.is_some() {
            m.tables += 1;
        }
        if let Some(predecessor) = fields.predecessor.as_deref() {
            let from = m.names.id(predecessor);
            match m.promised.remove(&id) {
                Some((p, next)) if p == from && next == track.commitment => {}
                promise => {
                    if let Some(promise) = promise {
                        // Not this one's: it stays for the pair it was.
                        m.promised.insert(id, promise);
                    }
                    let known = m.live.contains_key(&from) || m.revealed.contains(&from);
                    m.findings.add(
                        "succession",
                        Some(index),
                        if known {
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which did not promise it (its reveal names another successor, or another next commitment)"
                            )
                        } else {
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which the log never committed"
                            )
                        },
                    );
                }
            }
        }
        let mut track = track;
        if self.cross.is_some() || m.ledger.is_some() {
            track.digest = Some(Box::default());
        }
        m.live.insert(id, track);
        if self.keep_rounds && self.facts_of.as_ref().is_none_or(|p| p.contains(pair_id)) {
            self.facts.insert(
                pair_id.to_owned(),
                PairFacts {
                    server_seed_hash: commitment_text.to_owned(),
                    ..PairFacts::default()
                },
            );
        }
    }

    /// A finding for an entry of a pair that is not live: never committed,
    /// or revealed already.
    fn not_live(&mut self, index: u64, pair_id: &str, what: &str) {
        let m = &mut self.memory;
        let when = if m.revealed.contains(&m.names.id(pair_id)) {
            "after its reveal"
        } else {
            "before its commitment"
        };
        m.findings
            .add("order", Some(index), format!("{what} of {pair_id} {when}"));
    }

    fn client_seed(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let exact_text = Fields::text(&fields.client_seed_sha256);
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a client seed");
            return;
        };
        if track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} gets a second client seed (the first stands)"),
            );
            return;
        }
        if let Some(problem) = track
            .table
            .as_ref()
            .and_then(|t| t.client_seed_entry(pair_id))
        {
            m.findings.add("table", Some(index), problem);
        }
        track.seeded = true;
        if let Some(digest) = track.digest.as_mut() {
            digest.client_seed_sha256 = exact_text.to_owned();
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.client_seed_sha256 = Some(exact_text.to_owned());
        }
        // A table's seed is derived from every seat's contribution: no
        // operator chose it, so it is no one's to shop with.
        if track.table.is_some() {
            return;
        }
        let tenant = track.tenant;
        let lookalike = fields.client_seed_lookalike_sha256.as_deref();
        let live = &m.live;
        let (group, more) = m.pair_seeds.join(
            id,
            digest16(&[exact_text.as_bytes()]),
            lookalike.map(|l| digest16(&[l.as_bytes()])),
            |first| live.get(&first).map(|p| p.tenant),
        );
        if let Some(more) = more {
            if more.live_same_tenant(tenant) {
                more.shopped += 1;
                more.first_shopped_at.get_or_insert(index);
                if more.shopped_named.len() < MAX_NAMED {
                    more.shopped_named.push(id);
                }
            }
            more.add(tenant);
        }
        if let Some(track) = m.live.get_mut(&id) {
            track.group = Some(group);
        }
    }

    fn round(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        self.memory.rounds += 1;
        let nonce = fields.nonce;
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a round");
            return;
        };
        if !track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("a round of {pair_id} before its client seed"),
            );
        }
        track.rounds += 1;
        if let (Some(chain), Some(nonce)) = (&track.chain, nonce)
            && nonce >= chain.length
        {
            m.findings.add(
                "chain",
                Some(index),
                format!(
                    "pair {pair_id} deals nonce {nonce} past the end of its chain of {}",
                    chain.length
                ),
            );
        }
        match (nonce, track.next_nonce) {
            (Some(nonce), Some(next)) if nonce == next => {
                track.next_nonce = nonce.checked_add(1);
                let game = || {
                    fields
                        .game
                        .and_then(|g| serde_json::from_str::<Value>(g.get()).ok())
                        .unwrap_or(Value::Null)
                };
                if let Some(digest) = track.digest.as_mut() {
                    let game = self
                        .games
                        .sorted(fields.game.map_or("null", |game| game.get()));
                    let round = super::cross::round_digest_of_text(
                        nonce,
                        &game,
                        Fields::text(&fields.round),
                    );
                    digest.rounds = digest.rounds.wrapping_add(round);
                    digest.count += 1;
                }
                if let Some(facts) = self.facts.get_mut(pair_id) {
                    let game = game();
                    facts
                        .rounds
                        .insert(nonce, (game, Fields::text(&fields.round).to_owned()));
                }
            }
            (_, None) => m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} deals nonce {nonce:?} after nonce 2^64 - 1, its last"),
            ),
            (_, Some(next)) => {
                m.findings.add(
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

    /// The live pair `id` revealed (by rotation or a table's void): it no
    /// longer holds its client seed live, and nothing is kept of it but its
    /// id.
    fn released(&mut self, index: u64, id: Id, pair_id: &str, seed: &str) -> Option<Live> {
        let m = &mut self.memory;
        let track = m.live.remove(&id)?;
        m.revealed.insert_new(id, ());
        if let Some(group) = track.group
            && let Some(more) = m
                .pair_seeds
                .groups
                .get_mut(group as usize)
                .and_then(|g| g.more.as_mut())
        {
            more.release(track.tenant);
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.server_seed = Some(seed.to_owned());
        }
        if let Some(digest) = track.digest.as_ref() {
            // A chain pair's tip is held to its round seeds instead.
            let fields = super::cross::fields_digest(
                &track.commitment.map(hex::encode).unwrap_or_default(),
                if track.chain.is_some() { "" } else { seed },
                &digest.client_seed_sha256,
            );
            let reveal = super::cross::PairDigest {
                pair: pair_id.into(),
                index,
                fields,
                rounds: digest.rounds,
                count: digest.count,
            };
            if let Some(mark) = self.memory.ledger.as_mut() {
                // Written where it goes (or, with no one to take it, aside)
                // and chained from there.
                let mut aside = Vec::new();
                let out = self.ledger_out.as_mut().unwrap_or(&mut aside);
                let start = out.len();
                reveal.write(out);
                *mark = mark.after(&out[start..]);
            }
            if let Some(cross) = self.cross.as_mut() {
                cross.revealed(reveal);
            }
        }
        Some(track)
    }

    fn reveal(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let id = self.memory.names.id(pair_id);
        let seed = Fields::text(&fields.server_seed);
        let Some(track) = self.released(index, id, pair_id, seed) else {
            let twice = self.memory.revealed.contains(&id);
            self.memory.findings.add(
                "order",
                Some(index),
                if twice {
                    format!("pair {pair_id} is revealed twice (the first reveal stands)")
                } else {
                    format!("a reveal of {pair_id}, never committed")
                },
            );
            return;
        };
        if let Some(problem) = self.reveal_problem(&track, pair_id, seed) {
            self.memory.findings.add("reveal", Some(index), problem);
        }
        let m = &mut self.memory;
        if let Some(successor) = fields.successor.as_deref() {
            m.promised
                .entry(m.names.keep(successor))
                .or_insert((id, track.next));
        }
    }

    /// What is wrong with `seed`, revealed for the pair `track` was: it
    /// does not hash to the commitment; for a chain pair, a round dealt
    /// whose seed was never published, or a tip that does not hash down to
    /// the last published seed (checked within [`CHAIN_TIP_BUDGET`]).
    fn reveal_problem(&mut self, track: &Live, pair_id: &str, seed: &str) -> Option<String> {
        let Some(chain) = &track.chain else {
            return (!opens(seed, track.commitment)).then(|| {
                format!("pair {pair_id}'s revealed seed does not hash to its commitment")
            });
        };
        let dealt = track.next_nonce.unwrap_or(u64::MAX);
        if chain.published < dealt {
            return Some(format!(
                "chain pair {pair_id} is revealed with rounds {} to {} whose seeds were never published",
                chain.published,
                dealt - 1
            ));
        }
        let Ok(tip) = <[u8; 32]>::try_from(hex::decode(seed).unwrap_or_default()) else {
            return Some(format!(
                "chain pair {pair_id}'s revealed tip is not 32 bytes in hex"
            ));
        };
        let steps = chain.length.saturating_sub(chain.published);
        let m = &mut self.memory;
        if m.chain_tip_steps.saturating_add(steps) > CHAIN_TIP_BUDGET {
            m.chain_tips_unchecked += 1;
            return None;
        }
        m.chain_tip_steps += steps;
        let mut down = tip;
        for _ in 0..steps {
            down = Sha256::digest(down).into();
        }
        (Some(down) != chain.last).then(|| {
            format!(
                "chain pair {pair_id}'s revealed tip does not hash down to its last published seed (or its commitment)"
            )
        })
    }

    /// A chain round's seed published: in nonce order, after its round, and
    /// hashing to the seed before it (the first to the commitment).
    fn round_seed(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a round seed");
            return;
        };
        let dealt = track.next_nonce.unwrap_or(u64::MAX);
        let Some(chain) = track.chain.as_mut() else {
            m.findings.add(
                "chain",
                Some(index),
                format!("a round seed of {pair_id}, which was not committed as a chain"),
            );
            return;
        };
        let nonce = fields.nonce;
        if nonce != Some(chain.published) {
            m.findings.add(
                "order",
                Some(index),
                format!(
                    "pair {pair_id} publishes the seed of round {nonce:?} where round {}'s was next (seeds are published in nonce order)",
                    chain.published
                ),
            );
            return;
        }
        if chain.published >= dealt {
            m.findings.add(
                "order",
                Some(index),
                format!(
                    "pair {pair_id} publishes the seed of round {} before the round was dealt",
                    chain.published
                ),
            );
        }
        let seed = hash32(Fields::text(&fields.server_seed));
        let links =
            seed.is_some_and(|seed| Some(<[u8; 32]>::from(Sha256::digest(seed))) == chain.last);
        if !links {
            m.findings.add(
                "chain",
                Some(index),
                format!(
                    "round {} of {pair_id}: its published seed does not hash to {}",
                    chain.published,
                    if chain.published == 0 {
                        "the pair's commitment"
                    } else {
                        "the previous round's seed"
                    }
                ),
            );
        }
        if let Some(digest) = track.digest.as_mut() {
            digest.rounds = digest.rounds.wrapping_add(super::cross::chain_seed_digest(
                chain.published,
                Fields::text(&fields.server_seed),
            ));
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.round_seeds.insert(
                chain.published,
                Fields::text(&fields.server_seed).to_owned(),
            );
        }
        chain.published += 1;
        if seed.is_some() {
            chain.last = seed;
        }
    }

    fn table_entry(&mut self, index: u64, kind: &str, pair_id: &str, entry: &Value) {
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, &format!("a {kind}"));
            return;
        };
        let Some(table) = track.table.as_mut() else {
            m.findings.add(
                "table",
                Some(index),
                format!("a {kind} of {pair_id}, which was not committed as a table"),
            );
            return;
        };
        if kind != "table_void" {
            if let Some(problem) = table.seat_entry(pair_id, entry) {
                m.findings.add("table", Some(index), problem);
            }
            return;
        }
        if let Some(problem) = table.void_entry(pair_id, entry) {
            m.findings.add("table", Some(index), problem);
        }
        m.voids.push((pair_id.to_owned(), table.set.clone()));
        if track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("table {pair_id} is voided after its client seed"),
            );
        }
        let seed = entry["server_seed"].as_str().unwrap_or_default();
        if let Some(track) = self.released(index, id, pair_id, seed)
            && let Some(problem) = self.reveal_problem(&track, pair_id, seed)
        {
            self.memory
                .findings
                .add("reveal", Some(index), format!("void table: {problem}"));
        }
    }

    /// Checks a draw entry against what the log said of its draw before.
    fn draw_entry(&mut self, index: u64, entry: &Value) {
        let m = &mut self.memory;
        let id_text = entry["draw"].as_str().unwrap_or_default();
        let kind = entry["type"].as_str().unwrap_or_default();
        let id = if kind == "draw_commit" {
            m.names.keep(id_text)
        } else {
            m.names.id(id_text)
        };
        if kind == "draw_commit" {
            if m.draws.contains_key(&id) {
                m.findings.add(
                    "order",
                    Some(index),
                    format!("draw {id_text} is committed twice (the first commitment stands)"),
                );
                return;
            }
            let track = DrawTrack {
                commitment: hash32(entry["server_seed_hash"].as_str().unwrap_or_default()),
                list: entry["entries_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                entries: entry["entries"].as_u64().unwrap_or_default(),
                winners: entry["winners"].as_u64().unwrap_or_default(),
                tenant: m.tenants.of(entry["tenant"].as_str()),
                ..DrawTrack::default()
            };
            m.draws.insert(id, track);
            return;
        }
        let Some(track) = m.draws.get_mut(&id) else {
            m.findings.add(
                "order",
                Some(index),
                format!("a {kind} entry of draw {id_text}, never committed"),
            );
            return;
        };
        if kind == "draw_client_seed" {
            if track.client_seed || track.drawn {
                m.findings.add(
                    "order",
                    Some(index),
                    format!("draw {id_text} gets a second client seed (the first stands)"),
                );
                return;
            }
            track.client_seed = true;
            track.client_seed_at_ms = entry["time"].as_str().and_then(time_ms);
            // Grouped by list and seed: the list's hash leads each key.
            let list = track.list.clone();
            let tenant = track.tenant;
            let exact = digest16(&[
                list.as_bytes(),
                entry["client_seed_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .as_bytes(),
            ]);
            let lookalike = entry["client_seed_lookalike_sha256"]
                .as_str()
                .map(|l| digest16(&[list.as_bytes(), l.as_bytes()]));
            let draws = &m.draws;
            let (_, more) = m.draw_seeds.join(id, exact, lookalike, |first| {
                Some(draws.get(&first).map_or(0, |d| d.tenant))
            });
            if let Some(more) = more {
                more.add(tenant);
            }
            return;
        }
        if !track.client_seed || track.drawn {
            m.findings.add(
                "order",
                Some(index),
                format!("draw {id_text} is drawn before its client seed, or twice"),
            );
            if track.drawn {
                return;
            }
        }
        track.drawn = true;
        if !opens(
            entry["server_seed"].as_str().unwrap_or_default(),
            track.commitment,
        ) {
            m.findings.add(
                "reveal",
                Some(index),
                format!("draw {id_text}'s revealed seed does not hash to its commitment"),
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
            m.findings.add(
                "draw",
                Some(index),
                format!(
                    "draw {id_text} promised {} distinct winners of {} entries; its result names {} winner(s)",
                    track.winners,
                    track.entries,
                    winners.len()
                ),
            );
        }
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

    fn draw_findings(&mut self, now_ms: i64, reveal_within_ms: i64, notes: &mut Findings) {
        let m = &mut self.memory;
        let mut unrun: Vec<(String, i64)> = m
            .draws
            .iter()
            .filter(|(_, d)| d.client_seed && !d.drawn)
            .filter_map(|(id, d)| Some((*id, now_ms.saturating_sub(d.client_seed_at_ms?))))
            .filter(|(_, age)| *age > reveal_within_ms)
            .map(|(id, age)| (m.names.name(id), age))
            .collect();
        unrun.sort();
        for (id, age) in unrun {
            m.findings.add(
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
        for group in m.draw_seeds.many() {
            let unknown = group.count(0);
            let same_tenant = group
                .tenants
                .iter()
                .any(|(t, n)| *n > 1 || (*t != 0 && unknown > 0));
            let alike = if group.lookalike {
                "with client seeds that look alike"
            } else {
                "with the same client seed"
            };
            let members = m.names.named(&group.named, group.members);
            if same_tenant {
                m.findings.add(
                    "draw_reuse",
                    None,
                    format!(
                        "draws {members} draw from the same list {alike}: the operator could publish the result it liked"
                    ),
                );
            } else {
                notes.add(
                    "draw_seed_shared",
                    None,
                    format!("draws {members} of different tenants draw from the same list {alike}"),
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

#[cfg(test)]
mod draw_tests {
    use super::*;
    use serde_json::json;

    fn findings(entries: &[Value]) -> Vec<(&'static str, String)> {
        let mut checker = LogChecker {
            vkey: String::new(),
            origin: String::new(),
            size: 0,
            root_text: String::new(),
            trusted: false,
            previous: None,
            keep_rounds: false,
            tree: TileBuilder::default(),
            root_at_previous: None,
            ready: Vec::new(),
            resumed: false,
            memory: Memory::default(),
            facts: HashMap::new(),
            facts_of: None,
            cross: None,
            ledger_wanted: false,
            ledger_out: None,
            games: Default::default(),
            witnessed_by: None,
            latest_unwitnessed_size: None,
        };
        for (index, entry) in entries.iter().enumerate() {
            checker.draw_entry(index as u64, entry);
        }
        checker
            .memory
            .findings
            .listed
            .into_iter()
            .map(|f| (f.kind, f.detail))
            .collect()
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
    use serde_json::json;

    const ORIGIN: &str = "test.example/log";

    fn key() -> LogKey {
        LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key")
    }

    /// A log of `entries` as an honest service would serve it, with every
    /// hash tile.
    fn log(entries: Vec<Vec<u8>>) -> LogView {
        LogView::signed(entries, &key(), ORIGIN).expect("a log")
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

    /// A chain of `length` from a fixed tip: `s_0 … s_N`.
    fn chain(length: u64) -> Vec<[u8; 32]> {
        let mut seeds = vec![[4u8; 32]];
        for _ in 0..length {
            let below: [u8; 32] = Sha256::digest(seeds[seeds.len() - 1]).into();
            seeds.push(below);
        }
        seeds.reverse();
        seeds
    }

    fn chain_commit(pair: &str, seeds: &[[u8; 32]]) -> Value {
        let mut entry = commit(pair, Some("t"));
        entry["server_seed_hash"] = hex::encode(seeds[0]).into();
        entry["chain_length"] = (seeds.len() as u64 - 1).into();
        entry
    }

    fn round_seed(pair: &str, nonce: u64, seed: &[u8; 32]) -> Value {
        json!({"type": "round_seed", "seed_pair": pair, "round": format!("{pair}-{nonce}"),
               "nonce": nonce, "server_seed": hex::encode(seed), "time": "2026-11-23T00:00:02Z"})
    }

    fn chain_reveal(pair: &str, seeds: &[[u8; 32]]) -> Value {
        let mut entry = reveal(pair, "next");
        entry["server_seed"] = hex::encode(seeds[seeds.len() - 1]).into();
        entry
    }

    /// An honest chain pair: rounds dealt, seeds published in order as
    /// rounds end (some while later rounds are in play), the tip revealed.
    fn honest_chain() -> (Vec<[u8; 32]>, Vec<Value>) {
        let seeds = chain(6);
        let entries = vec![
            chain_commit("c", &seeds),
            client_seed("c", "chained"),
            round("c", 0),
            round("c", 1),
            round_seed("c", 0, &seeds[1]),
            round("c", 2),
            round_seed("c", 1, &seeds[2]),
            round_seed("c", 2, &seeds[3]),
            round("c", 3),
            round_seed("c", 3, &seeds[4]),
            chain_reveal("c", &seeds),
        ];
        (seeds, entries)
    }

    #[test]
    fn an_honest_chain_pair_has_no_finding() {
        let (_, entries) = honest_chain();
        let report = run(&entries);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }

    /// Each way to publish a chain's seeds wrongly is a finding of its own
    /// kind, naming the round.
    #[test]
    fn a_chain_published_wrongly_is_named() {
        let (seeds, honest) = honest_chain();
        let cases: Vec<(&str, Vec<Value>, &str, &str)> = vec![
            (
                "a seed that does not link",
                {
                    let mut e = honest.clone();
                    e[6] = round_seed("c", 1, &[7; 32]);
                    e
                },
                "chain",
                "round 1 of c: its published seed does not hash to the previous round's seed",
            ),
            (
                "seeds out of order",
                {
                    let mut e = honest.clone();
                    e.swap(6, 7);
                    e
                },
                "order",
                "publishes the seed of round Some(2) where round 1's was next",
            ),
            (
                "a seed before its round",
                {
                    let mut e = honest.clone();
                    e.swap(8, 9);
                    e
                },
                "order",
                "publishes the seed of round 3 before the round was dealt",
            ),
            (
                "a reveal with a round unpublished",
                {
                    let mut e = honest.clone();
                    e.remove(9);
                    e
                },
                "reveal",
                "revealed with rounds 3 to 3 whose seeds were never published",
            ),
            (
                "a tip of another chain",
                {
                    let mut e = honest.clone();
                    e[10]["server_seed"] = hex::encode([5u8; 32]).into();
                    e
                },
                "reveal",
                "revealed tip does not hash down to its last published seed",
            ),
            (
                "a round past the chain's end",
                {
                    let short = &seeds[..3];
                    let mut e = vec![chain_commit("c", short), client_seed("c", "x")];
                    e.extend((0..3).map(|n| round("c", n)));
                    e
                },
                "chain",
                "deals nonce 2 past the end of its chain of 2",
            ),
            (
                "a round seed of a plain pair",
                vec![
                    commit("p", Some("t")),
                    client_seed("p", "y"),
                    round("p", 0),
                    round_seed("p", 0, &seeds[1]),
                ],
                "chain",
                "a round seed of p, which was not committed as a chain",
            ),
        ];
        for (what, entries, kind, detail) in cases {
            let report = run(&entries);
            assert!(
                report
                    .findings
                    .iter()
                    .any(|f| f.kind == kind && f.detail.contains(detail)),
                "{what}: {:?}",
                report.findings
            );
        }
    }

    /// A snapshot is the monitor's own file, but one crafted or damaged
    /// with its digest made to match must still never panic the checker:
    /// 1,000 copies with one to three bytes changed (a fixed sequence), each
    /// read back and, when it reads, resumed over a log that grew.
    #[test]
    fn a_crafted_snapshot_with_a_matching_digest_never_panics_the_checker() {
        let mut entries = vec![commit("p", Some("t")), client_seed("p", "lucky")];
        entries.extend((0..300).map(|n| round("p", n)));
        entries.push(commit("q", Some("t")));
        entries.push(client_seed("q", "LUCKY"));
        let (first, snapshot, _) =
            check_from(&log(bytes(&entries)), None, None, 0, i64::MAX).expect("checks");
        let previous = first.state.expect("accepted");
        let mut written = Vec::new();
        snapshot
            .expect("accepted")
            .write(&mut written)
            .expect("CBOR");
        let body = written.len() - 32;
        let mut more = entries.clone();
        more.extend((300..320).map(|n| round("p", n)));
        more.push(reveal("p", "r"));
        let grown = log(bytes(&more));
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut resumed = 0;
        for _ in 0..1_000 {
            let mut copy = written[..body].to_vec();
            for _ in 0..=next(3) {
                let at = next(copy.len());
                copy[at] = next(256) as u8;
            }
            copy.extend(Sha256::digest(&copy));
            if let Some(snapshot) = Snapshot::read(copy.as_slice()) {
                let (report, _, _) =
                    check_from(&grown, Some(&previous), Some(snapshot), 0, i64::MAX)
                        .expect("checks");
                resumed += usize::from(report.checkpoint_accepted);
            }
        }
        // Some changes (a finding's text, a count) still read and resume.
        assert!(resumed > 0);
    }

    /// An accepted run's snapshot, written as to its file and read back.
    fn written_and_read_back(snapshot: Option<Snapshot>) -> Snapshot {
        let mut written = Vec::new();
        snapshot
            .expect("accepted")
            .write(&mut written)
            .expect("CBOR");
        Snapshot::read(written.as_slice()).expect("read back")
    }

    /// A run keeping a ledger: its report, snapshot, the ledger's bytes
    /// it wrote, and whether it resumed.
    fn with_ledger(
        view: &LogView,
        previous: Option<&MonitorState>,
        snapshot: Option<Snapshot>,
    ) -> (MonitorReport, Option<Snapshot>, Vec<u8>, bool) {
        let mut checker =
            LogChecker::new(&view.vkey, None, &view.checkpoint, previous, false).expect("checker");
        checker.keep_ledger();
        let resumed = snapshot.is_some_and(|s| checker.resume(s));
        let from = usize::try_from(checker.read()).expect("small");
        let mut ledger = Vec::new();
        for entry in view.entries.iter().skip(from) {
            checker.entry(entry);
            ledger.extend(checker.take_ledger());
        }
        checker.end_of_entries();
        let (report, _, snapshot) = checker.finish_keeping(0, i64::MAX);
        (report, snapshot, ledger, resumed)
    }

    #[test]
    fn a_ledger_kept_across_a_resumed_run_is_the_ledger_of_one_full_run() {
        // p is revealed before the cut; q is committed and dealt before it
        // and revealed after (its digest crosses the cut in the snapshot);
        // r is committed and revealed after.
        let before = vec![
            commit("p", Some("t")),
            client_seed("p", "p's"),
            round("p", 0),
            reveal("p", "p2"),
            commit("q", Some("t")),
            client_seed("q", "q's"),
            round("q", 0),
        ];
        let after = vec![
            round("q", 1),
            reveal("q", "q2"),
            commit("r", Some("u")),
            client_seed("r", "r's"),
            round("r", 0),
            reveal("r", "r2"),
        ];
        let all: Vec<Value> = before.iter().chain(&after).cloned().collect();
        let (full, _, whole, _) = with_ledger(&log(bytes(&all)), None, None);
        assert!(full.findings.is_empty(), "{:?}", full.findings);
        let records = |mut bytes: &[u8]| {
            std::iter::from_fn(|| {
                crate::audit::cross::PairDigest::read(&mut bytes).expect("a record")
            })
            .map(|r| (r.pair.to_string(), r.index, r.count))
            .collect::<Vec<_>>()
        };
        assert_eq!(
            records(&whole),
            [
                ("p".to_owned(), 3, 1),
                ("q".to_owned(), 8, 2),
                ("r".to_owned(), 12, 1)
            ]
        );

        let (first, snapshot, start, _) = with_ledger(&log(bytes(&before)), None, None);
        let snapshot = written_and_read_back(snapshot);
        let mark = snapshot.ledger().expect("a ledger kept");
        assert_eq!((mark.pairs, mark.bytes), (1, start.len() as u64));
        assert_eq!(mark, LedgerMark::default().after(&start));
        let previous = first.state.expect("accepted");
        let (_, kept, rest, resumed) =
            with_ledger(&log(bytes(&all)), Some(&previous), Some(snapshot));
        assert!(resumed);
        assert_eq!(
            [start, rest].concat(),
            whole,
            "the same bytes, in the same order"
        );
        let mark = kept.and_then(|s| s.ledger()).expect("kept");
        assert_eq!((mark.pairs, mark.bytes), (3, whole.len() as u64));

        // A snapshot kept without a ledger is not resumed by a run that
        // keeps one: it reads everything and writes the whole ledger.
        let (_, without, _) =
            check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
        assert!(without.as_ref().is_some_and(|s| s.ledger().is_none()));
        let (_, _, again, resumed) = with_ledger(&log(bytes(&all)), Some(&previous), without);
        assert!(!resumed);
        assert_eq!(again, whole);
    }

    #[test]
    fn a_run_resumed_from_a_snapshot_reads_only_new_entries_and_finds_what_a_full_run_finds() {
        // Before the cut: p holds "lucky" live, q is committed, r deals
        // rounds across a tile edge.
        let mut before = vec![
            commit("p", Some("t")),
            client_seed("p", "lucky"),
            commit("q", Some("t")),
            commit("r", Some("u")),
            client_seed("r", "r's own"),
        ];
        before.extend((0..695).map(|n| round("r", n)));
        // After it: s of the same tenant gets a lookalike of "lucky" while
        // p is live (deal-shopping across the cut), q is seeded, dealt and
        // revealed (its commitment is before the cut), r is committed again.
        let mut after = vec![
            commit("s", Some("t")),
            client_seed("s", "LUCKY\u{200B}"),
            client_seed("q", "q's own"),
            round("q", 0),
            reveal("q", "q2"),
            commit("r", Some("u")),
        ];
        after.extend((695..1200).map(|n| round("r", n)));
        let all: Vec<Value> = before.iter().chain(&after).cloned().collect();
        let full = check(&log(bytes(&all)), None, 0, i64::MAX).expect("checks");
        assert_eq!(
            kinds(&full),
            ["order", "client_seed_reuse"],
            "{:?}",
            full.findings
        );

        let (first, snapshot, read) =
            check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
        assert_eq!(read, 700);
        let snapshot = written_and_read_back(snapshot);
        let previous = first.state.expect("accepted");
        let (resumed, _, read) = check_from(
            &log(bytes(&all)),
            Some(&previous),
            Some(snapshot),
            0,
            i64::MAX,
        )
        .expect("checks");
        assert_eq!(read, after.len() as u64, "only the new entries are read");
        assert!(resumed.checkpoint_accepted);
        let details = |r: &MonitorReport| -> Vec<(&str, Option<u64>, String)> {
            r.findings
                .iter()
                .map(|f| (f.kind, f.index, f.detail.clone()))
                .collect()
        };
        assert_eq!(details(&resumed), details(&full));
        assert_eq!(
            (
                resumed.pairs,
                resumed.rounds,
                resumed.unrevealed,
                resumed.notes.len()
            ),
            (full.pairs, full.rounds, full.unrevealed, full.notes.len())
        );

        // A log that changed an entry before the cut: the resumed tree does
        // not give its root, and nothing is accepted.
        let (_, snapshot, _) =
            check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
        let mut forked = all.clone();
        forked[10] = round("r", 99);
        let (report, kept, _) =
            check_from(&log(bytes(&forked)), Some(&previous), snapshot, 0, i64::MAX)
                .expect("checks");
        assert!(kinds(&report).contains(&"tree"), "{:?}", report.findings);
        assert!(!report.checkpoint_accepted && kept.is_none());

        // A snapshot of another checkpoint is not resumed: everything is read.
        let (_, other, _) =
            check_from(&log(bytes(&before[..600])), None, None, 0, i64::MAX).expect("checks");
        let (report, _, read) =
            check_from(&log(bytes(&all)), Some(&previous), other, 0, i64::MAX).expect("checks");
        assert_eq!(read, all.len() as u64);
        assert_eq!(details(&report), details(&full));
    }

    #[test]
    fn the_guided_search_answers_as_a_binary_search_whatever_the_keys_spread() {
        // Fixed pseudo-random bytes: the SHA-256 of a counter.
        let mut counter = 0u64;
        let mut random = move || {
            counter += 1;
            digest16(&[&counter.to_be_bytes()])
        };
        let key = |bytes: [u8; 16], spread: u64| -> [u8; 16] {
            let mut key = bytes;
            key[..8].copy_from_slice(&spread.to_be_bytes());
            key
        };
        let word = |bytes: [u8; 16]| u64::from_be_bytes(bytes[8..].try_into().unwrap_or_default());
        // Evenly spread, clustered at both ends, all but a few with one
        // prefix (only the bytes after the guide differ), and sizes around
        // the point where the guide is used.
        type Shape = (&'static str, usize, fn(u64) -> u64);
        let shapes: [Shape; 4] = [
            ("even", 100_000, |r| r),
            ("clustered", 50_000, |r| {
                if r % 2 == 0 {
                    r % 1000
                } else {
                    u64::MAX - r % 1000
                }
            }),
            ("one prefix", 20_000, |r| if r % 100 == 0 { r } else { 7 }),
            ("small", 70, |r| r),
        ];
        for (shape, n, spread) in shapes {
            let mut keys: Vec<([u8; 16], u32)> = (0..n)
                .map(|i| {
                    let bytes = random();
                    (key(bytes, spread(word(bytes))), i as u32)
                })
                .collect();
            keys.sort_unstable_by_key(|k| k.0);
            keys.dedup_by_key(|k| k.0);
            for (at, (k, _)) in keys.iter().enumerate().step_by(7) {
                assert_eq!(search(&keys, k), Ok(at), "{shape}: a key present");
            }
            for _ in 0..20_000 {
                let bytes = random();
                let absent = key(bytes, spread(word(bytes)));
                let expected = keys.binary_search_by(|(k, _)| k.cmp(&absent));
                assert_eq!(search(&keys, &absent), expected, "{shape}: any key");
            }
            let (first, last) = (keys[0].0, keys[keys.len() - 1].0);
            assert_eq!(search(&keys, &first), Ok(0), "{shape}");
            assert_eq!(search(&keys, &last), Ok(keys.len() - 1), "{shape}");
            assert_eq!(search(&keys, &[0; 16]).ok(), None, "{shape}");
            assert_eq!(search(&keys, &[255; 16]), Err(keys.len()), "{shape}");
        }
        let none: [([u8; 16], u32); 0] = [];
        assert_eq!(search(&none, &[1; 16]), Err(0));
        // Ids: UUIDs with a few numbered ids (another class) after them.
        let mut ids: Vec<(Id, ())> = (0..5_000)
            .map(|_| (Id::uuid(random()), ()))
            .chain((0..3).map(|n| (Id::numbered(n), ())))
            .collect();
        ids.sort_unstable_by_key(|id| id.0);
        for probe in (0..2_000)
            .map(|_| Id::uuid(random()))
            .chain(ids.iter().step_by(3).map(|id| id.0))
            .chain((0..5).map(Id::numbered))
        {
            let expected = ids.binary_search_by(|(k, _)| k.cmp(&probe));
            assert_eq!(search(&ids, &probe), expected, "{probe:?}");
        }
    }

    #[test]
    fn a_sorted_map_finds_every_key_across_merges_and_keeps_the_first_value() {
        let mut map = SortedMap::<u64, u64>::default();
        // Keys in a scrambled order, each given twice (the first stands).
        let keys: Vec<u64> = (0..100_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for (value, key) in keys.iter().enumerate() {
            map.insert_new(*key, value as u64);
        }
        for key in &keys {
            map.insert_new(*key, u64::MAX);
        }
        assert!(map.sorted.len() > 90_000, "merged as it grew");
        for (value, key) in keys.iter().enumerate() {
            assert_eq!(map.get(key), Some(value as u64));
            assert!(!map.contains(&key.wrapping_add(1)) || keys.contains(&key.wrapping_add(1)));
        }
        let again = SortedMap::from_records(map.iter());
        assert_eq!(again.iter().count(), keys.len());
        assert!(keys.iter().all(|k| again.get(k) == map.get(k)));
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
        // A second reveal does not replace the first (nothing is kept of a
        // revealed pair to check it against: the second one is the finding).
        let mut other = reveal("p", "z");
        other["server_seed"] = "11".repeat(32).into();
        let report = run(&[
            commit("p", Some("t")),
            client_seed("p", "lucky"),
            reveal("p", "q"),
            other,
        ]);
        assert_eq!(kinds(&report), ["order"]);
        assert!(report.findings[0].detail.contains("revealed twice"));
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

#[cfg(test)]
mod cross_check_tests {
    use super::*;
    use crate::audit::cross::{ExportDigests, PairDigest, fields_digest, round_digest_of_text};

    const GAME: &str = r#"{"players":2,"type":"holdem"}"#;

    fn pair(n: u32) -> String {
        format!("00000000-0000-4000-8000-{n:012}")
    }

    /// An export of `pairs`, one round each, sealed.
    fn export(pairs: impl Iterator<Item = u32>) -> ExportDigests {
        let mut export = ExportDigests::default();
        for n in pairs {
            export.round(u64::from(n), &pair(n), 0, GAME, "r", "aa", "bb", "c", false);
        }
        export.seal();
        export
    }

    /// A cross-check whose export has not arrived, and where it will.
    fn waiting() -> (std::sync::mpsc::SyncSender<ExportDigests>, CrossCheck) {
        let (send, arriving) = std::sync::mpsc::sync_channel(1);
        let cross = CrossCheck {
            arriving: Some(arriving),
            ..CrossCheck::default()
        };
        (send, cross)
    }

    /// What the log says of pair `n`, as the export does, or with another
    /// server seed.
    fn reveal(cross: &mut CrossCheck, n: u32, honest: bool) {
        let seed = if honest { "bb" } else { "bc" };
        let fields = fields_digest("aa", seed, &crate::tlog::entry::client_seed_sha256("c"));
        cross.revealed(PairDigest {
            pair: pair(n).into(),
            index: u64::from(n),
            fields,
            rounds: round_digest_of_text(0, GAME, "r"),
            count: 1,
        });
    }

    #[test]
    fn pairs_revealed_before_the_export_arrives_are_held_against_it_in_order() {
        let (send, mut cross) = waiting();
        // More than may wait: the last reveal waits for the export, which a
        // thread sends a moment later.
        let waiting = CrossCheck::MOST_PENDING as u32;
        for n in 0..waiting {
            reveal(&mut cross, n, n != 7);
        }
        assert_eq!(cross.pending.len(), CrossCheck::MOST_PENDING);
        assert!(
            cross.differing.is_empty(),
            "nothing judged before the export"
        );
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            send.send(export((0..waiting + 10).filter(|n| *n != 3)))
                .expect("sent");
        });
        reveal(&mut cross, waiting, false);
        assert!(cross.arriving.is_none() && cross.pending.is_empty());
        reveal(&mut cross, waiting + 1, true);
        sender.join().expect("the sender");
        // Pair 3 is not in the export, 7 and `waiting` differ: in the log's
        // order, as if the export had been there from the start.
        assert_eq!(cross.differing, [pair(3), pair(7), pair(waiting)]);
        assert_eq!(cross.revealed_pairs, u64::from(waiting) + 2);
        let unmatched: Vec<u64> = cross.export.unmatched().map(|(line, _)| line).collect();
        let expected: Vec<u64> = [7, waiting]
            .into_iter()
            .chain(waiting + 2..waiting + 10)
            .map(u64::from)
            .collect();
        assert_eq!(unmatched, expected);
    }

    #[test]
    fn long_ids_waiting_are_bounded_by_their_bytes() {
        let (send, mut cross) = waiting();
        let long = |n: u32| format!("{n}{}", "x".repeat(60_000));
        let digest = |pair: String| PairDigest {
            pair: pair.into(),
            index: 0,
            fields: [0; 16],
            rounds: 0,
            count: 1,
        };
        let mut n = 0;
        while cross.pending_bytes < CrossCheck::MOST_PENDING_BYTES {
            cross.revealed(digest(long(n)));
            n += 1;
        }
        assert!(n < 150 && cross.arriving.is_some(), "{n} waiting");
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            send.send(export(0..1)).expect("sent");
        });
        // Over the bound: this reveal waits for the export.
        cross.revealed(digest(long(n)));
        sender.join().expect("the sender");
        assert!(cross.pending.is_empty() && cross.pending_bytes == 0);
        assert_eq!(cross.differing.len(), n as usize + 1);
        assert!(!cross.export_lost);
    }

    #[test]
    fn an_export_that_never_arrives_leaves_every_revealed_pair_unmatched() {
        let (send, mut cross) = waiting();
        reveal(&mut cross, 1, true);
        drop(send);
        reveal(&mut cross, 2, true);
        assert_eq!(cross.differing, [pair(1), pair(2)]);
        assert!(cross.export_lost, "the log's reader is told to stop");
    }

    /// The cross-check of an export of `exported` pairs saying it covers
    /// the reveals `from..size`, against a log revealing pairs `0..n` at
    /// entries `0..n` (in `order`).
    fn covered(
        exported: &[u32],
        from: u64,
        size: u64,
        order: impl Iterator<Item = u32>,
    ) -> CrossCheck {
        let (send, mut cross) = waiting();
        let mut digests = export(exported.iter().copied());
        digests.cover(Some(crate::audit::export::LogCoverage { from, size }));
        send.send(digests).expect("sent");
        for n in order {
            reveal(&mut cross, n, true);
        }
        cross.result()
    }

    #[test]
    fn an_export_is_held_to_the_reveals_it_covers_and_counts_the_rest() {
        // The export says it covers entries 3 to 6 (resumed after pair 2's
        // reveal, ended when the log had 7) and holds pairs 3, 4 and 6, and
        // 8, beyond what it says; the log reveals pairs 0 to 9.
        let held = [3, 4, 6, 8];
        for order in [(0..10).collect::<Vec<_>>(), (5..10).chain(0..5).collect()] {
            let cross = covered(&held, 3, 7, order.into_iter());
            // 5 lies within what the export covers: left out, named.
            assert_eq!(cross.differing, [pair(5)]);
            // 7 lies before 8, which the export holds: one run of the
            // log's reveals has no gap, whatever the end line says.
            assert_eq!(cross.missing_within, [7]);
            assert_eq!((cross.before_export, cross.after_export), (3, 1));
            assert_eq!(cross.resumed_after, Some(pair(2)));
            assert_eq!(cross.export.unmatched().count(), 0);
        }

        // A dishonest end line: it claims the log had 5 entries, to leave
        // out pair 5 while holding 6 and 7; or that it resumed after entry
        // 5, to leave out pair 2 while holding 3. Both named all the same.
        let cross = covered(&[0, 1, 2, 3, 4, 6, 7], 0, 5, 0..8);
        assert_eq!(cross.missing_within, [5]);
        let cross = covered(&[0, 1, 3, 4], 6, 6, 0..6);
        assert_eq!(cross.missing_within, [2, 5]);
        assert_eq!(cross.resumed_after, Some(pair(5)));
        // Or that it covers what lies beyond the log, to excuse every
        // reveal before it: the pairs it holds are outside what it says.
        let cross = covered(&[3, 4], 1_000, 1_000, 0..6);
        assert_eq!(cross.held_outside, [(pair(3), 3), (pair(4), 4)]);
        assert!(
            covered(&held, 3, 7, 0..10).held_outside.len() == 1,
            "8, revealed after 7"
        );
        // An export that holds nothing and says it covers nothing: every
        // reveal is another export's (the summary says how many).
        let cross = covered(&[], 0, 0, 0..4);
        assert_eq!((cross.before_export, cross.after_export), (0, 4));
        assert!(cross.missing_within.is_empty() && cross.differing.is_empty());

        // Without a coverage (an export made before exports said), every
        // reveal is the export's.
        let (send, mut cross) = waiting();
        send.send(export([3, 4].into_iter())).expect("sent");
        for n in 0..6 {
            reveal(&mut cross, n, true);
        }
        let cross = cross.result();
        assert_eq!(cross.differing, [pair(0), pair(1), pair(2), pair(5)]);
        assert_eq!((cross.before_export, cross.after_export), (0, 0));
    }

    #[test]
    fn a_ledger_record_reads_back_as_written_and_a_damaged_one_is_an_error() {
        let records = [
            PairDigest {
                pair: pair(1).into(),
                index: 7,
                fields: [3; 16],
                rounds: u128::MAX - 5,
                count: 6,
            },
            PairDigest {
                pair: "ünïcode-id".into(),
                index: u64::MAX,
                fields: [0; 16],
                rounds: 1,
                count: 0,
            },
        ];
        // A record's size: its id's length and text, then 48 bytes.
        let size = |record: &PairDigest| 4 + record.pair.len() + 48;
        let mut bytes = Vec::new();
        for record in &records {
            record.write(&mut bytes);
        }
        assert_eq!(bytes.len(), records.iter().map(size).sum::<usize>());
        let mut from = bytes.as_slice();
        for record in &records {
            assert_eq!(
                PairDigest::read(&mut from).expect("read").as_ref(),
                Some(record)
            );
        }
        assert_eq!(PairDigest::read(&mut from).expect("the end"), None);
        // Cut short anywhere inside a record, or an id too long to be one:
        // an error, never a record.
        for cut in 1..size(&records[0]) {
            let mut from = &bytes[..cut];
            assert!(PairDigest::read(&mut from).is_err(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        long[..4].copy_from_slice(&(1u32 << 20).to_le_bytes());
        assert!(PairDigest::read(&mut long.as_slice()).is_err());
        // Any one byte changed: another record, or none, and another
        // link of the hash chain.
        let chain = LedgerMark::default().after(&bytes[..size(&records[0])]);
        for at in 0..size(&records[0]) {
            let mut damaged = bytes[..size(&records[0])].to_vec();
            damaged[at] ^= 0x10;
            let read = PairDigest::read(&mut damaged.as_slice());
            assert!(
                read.as_ref()
                    .map_or(true, |r| r.as_ref() != Some(&records[0])),
                "byte {at}"
            );
            assert_ne!(LedgerMark::default().after(&damaged), chain, "byte {at}");
        }
    }
}
