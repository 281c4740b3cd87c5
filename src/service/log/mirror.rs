//! The log mirror: every transparency-log entry, written once, outside the
//! database, before anything that appended it is answered or signed.
//!
//! A database goes back in time in many ways (a restored dump,
//! point-in-time recovery, a promoted asynchronous replica, a volume
//! snapshot, a copied SQLite file, a restore under a running process). A
//! witness's larger tree catches it only behind the last *published*
//! checkpoint; the deals acknowledged since (up to the checkpoint interval)
//! would be dealt again from the same seeds. The mirror closes that window:
//!
//! - every mutating request is answered only after the entries it appended
//!   are in the mirror ([`LogMirror::flush`], one pass for all requests
//!   waiting, as a group commit), and the integrator signs no checkpoint
//!   beyond what the mirror holds and matches;
//! - the mirror raises the store's [`LogFloor`] to its size, so a database
//!   that is behind fails every transaction that would append an entry at
//!   an index the log already used (nothing is dealt, drawn or signed);
//! - a pass that finds the database behind or different says so
//!   ([`Standing`]), and the service refuses every write until
//!   `fairdeal recover` appends the lost entries again from the mirror.
//!
//! The mirror is a directory of **segments**, each written once: the
//! entries one pass mirrored, in one file named by the index of its first
//! entry (written to a temporary name, `fsync`ed, then hard-linked to its
//! name: the link fails if the name exists, so no segment is ever written
//! over, and a name, once there, holds every byte). Segments tile the
//! indexes: each starts where one ends. Two processes that mirror at once
//! try the same name; the second reads the first's segment, compares what
//! both hold (other bytes under one index are a fork) and goes on from its
//! end. `segments/SSSSSS/IIIIIIIIIIIIIIII` is the segment starting at entry
//! `I` (decimal, padded) in shard `I / 65536`. One pass costs one `fsync`
//! of a file and one of its directory, however many deals it covers.
//! Several processes share one mirror as they share one database. It must
//! not live on the database's volume or snapshot (docs/OPERATIONS.md,
//! "Restore").

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::service::store::{LogFloor, Store};

/// Segment starts per shard directory.
const SHARD: u64 = 1 << 16;

/// Entries read from the database per query in a pass.
const BATCH: u64 = 4096;

/// How the database stands against the mirror, as the last pass found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The database holds every mirrored entry (and maybe more, not yet
    /// mirrored).
    Current,
    /// The database holds `database` entries, a prefix of the `mirrored`
    /// ones: it was restored or rolled back. `fairdeal recover` appends
    /// the rest again.
    Behind { database: u64, mirrored: u64 },
    /// Entry `index` in the database differs from the mirror's: the
    /// database was rolled back and written again since.
    Forked { index: u64 },
    /// The mirror could not be read or written (the cause is in the log).
    Unwritable,
    /// `fairdeal recover` is running (or was cut short: run it again).
    Recovering,
    /// The database's log is bound to another mirror (`database`, its id)
    /// than this process's (`this`): a process started since with an empty
    /// mirror and `--log-mirror-new` took it over, or this process was
    /// given a mirror the others do not share. Entries this process would
    /// acknowledge are not where a recovery reads them.
    OtherMirror { database: String, this: String },
}

impl Standing {
    /// Why writes are refused, for an operator: the state and the way out.
    /// `None` when they are not.
    pub fn refusal(&self) -> Option<String> {
        match self {
            Standing::Current => None,
            Standing::Behind { database, mirrored } => Some(format!(
                "the database holds {database} log entries, but {mirrored} were already \
                 acknowledged or published: it was restored from a backup or rolled back. \
                 No deal, draw or checkpoint until an operator runs `fairdeal recover` \
                 (docs/OPERATIONS.md, Restore)"
            )),
            Standing::Forked { index } => Some(format!(
                "log entry {index} in the database differs from the one already acknowledged: \
                 the database was rolled back and written to since. No deal, draw or \
                 checkpoint until an operator restores it again and runs `fairdeal recover` \
                 (docs/OPERATIONS.md, Restore)"
            )),
            Standing::Recovering => Some(
                "an operator is recovering the database after a restore (`fairdeal recover`); \
                 writes resume when it finishes (if it was cut short, run it again)"
                    .to_owned(),
            ),
            Standing::OtherMirror { database, this } => Some(format!(
                "this database's log is mirrored by another log mirror (id {database}) than \
                 this process's (id {this}): every process must be given the same mirror. \
                 Restart this process with the mirror the others use (--log-mirror) \
                 (docs/OPERATIONS.md, Restore)"
            )),
            Standing::Unwritable => Some(
                "the log mirror cannot be written, so nothing new can be acknowledged; \
                 the cause is in the service's log"
                    .to_owned(),
            ),
        }
    }
}

/// Why a write was not acknowledged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAcknowledged {
    /// Writes are refused: the state and the way out.
    Refused(String),
    /// The database did not answer the mirror's pass: retry.
    DatabaseUnavailable,
}

impl std::fmt::Display for NotAcknowledged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAcknowledged::Refused(why) => f.write_str(why),
            NotAcknowledged::DatabaseUnavailable => {
                f.write_str("the database did not answer the log mirror's pass")
            }
        }
    }
}

/// The mirror of one log.
#[derive(Debug)]
pub struct LogMirror {
    dir: PathBuf,
    /// Entries `[0, count)` are in the mirror.
    count: AtomicU64,
    standing: Mutex<Standing>,
    /// Requests registered for a pass, and the registrations the last
    /// finished pass covered (see [`LogMirror::flush`]).
    requested: AtomicU64,
    covered: AtomicU64,
    pass: tokio::sync::Mutex<()>,
    /// Raised to `count` as the mirror learns it.
    floor: LogFloor,
    /// The last segment this process wrote or read: its start and entries
    /// (what each pass compares the database's last entry with).
    last: Mutex<Option<(u64, Vec<Vec<u8>>)>>,
    /// This mirror's id (its `ID` file), which the database records as
    /// the one mirror of its log.
    id: String,
    /// When a pass last read the id the database records, and the other
    /// mirror's id it found, if it did.
    binding_checked: Mutex<Option<(std::time::Instant, Option<String>)>>,
}

/// The setting under which the database records its log's mirror.
pub const MIRROR_ID_SETTING: &str = "log_mirror_id";

/// How often a pass reads the mirror id the database records: a process
/// left on a replaced mirror refuses writes within this.
const BINDING_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

impl LogMirror {
    /// Opens (creating) the mirror at `dir`, for a store whose floor it
    /// raises to what the mirror holds.
    pub fn open(dir: &Path, floor: LogFloor) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir.join("segments"))
            .with_context(|| format!("creating the log mirror at {}", dir.display()))?;
        let count = scan_count(dir)
            .with_context(|| format!("reading the log mirror at {}", dir.display()))?;
        let id = mirror_id(dir)
            .with_context(|| format!("reading the log mirror's id at {}", dir.display()))?;
        floor.raise(count);
        Ok(Self {
            dir: dir.to_owned(),
            count: AtomicU64::new(count),
            standing: Mutex::new(Standing::Current),
            requested: AtomicU64::new(0),
            covered: AtomicU64::new(0),
            pass: tokio::sync::Mutex::new(()),
            floor,
            last: Mutex::new(None),
            id,
            binding_checked: Mutex::new(None),
        })
    }

    /// This mirror's id: made once, when the mirror is, and shared by every
    /// process that opens it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Binds the database's log to this mirror: records its id if the
    /// database records none (a new database, or one restored from before
    /// its log was mirrored), or over another's when `take_over` (the old
    /// mirror was lost: every process still on it refuses writes from its
    /// next pass). Otherwise the other mirror's id, which the database
    /// records.
    pub async fn bind(&self, store: &Store, take_over: bool) -> anyhow::Result<Option<String>> {
        if take_over {
            store.set_setting(MIRROR_ID_SETTING, &self.id).await?;
            return Ok(None);
        }
        self.bound_elsewhere(store, true).await
    }

    /// The other mirror the database's log is bound to, if it is, read at
    /// most once per [`BINDING_CHECK`] (or now, when `now`).
    async fn bound_elsewhere(&self, store: &Store, now: bool) -> anyhow::Result<Option<String>> {
        if !now
            && let Some((at, found)) = &*self.binding_checked.lock().expect("binding")
            && at.elapsed() < BINDING_CHECK
        {
            return Ok(found.clone());
        }
        let bound = match store.setting(MIRROR_ID_SETTING).await? {
            Some(bound) => bound,
            None => store.claim_setting(MIRROR_ID_SETTING, &self.id).await?,
        };
        let found = (bound != self.id).then_some(bound);
        *self.binding_checked.lock().expect("binding") =
            Some((std::time::Instant::now(), found.clone()));
        Ok(found)
    }

    /// Where it is.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Entries the mirror holds (`[0, count)`), as last learned.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Acquire)
    }

    /// How the database stood at the last pass.
    pub fn standing(&self) -> Standing {
        self.standing.lock().expect("standing").clone()
    }

    fn set_standing(&self, standing: Standing) {
        let mut held = self.standing.lock().expect("standing");
        if *held != standing {
            match standing.refusal() {
                Some(why) => tracing::error!(refusing = %why, "the database is behind its log"),
                None => tracing::info!("the database holds its log again: writes resume"),
            }
        }
        *held = standing;
    }

    /// The file that says a recovery is under way (see
    /// `service::dealer::recovery`).
    pub fn recovery_marker(&self) -> PathBuf {
        self.dir.join("RECOVERING")
    }

    /// How the database stands against the mirror now (one pass: entries
    /// the database holds past the mirror are mirrored).
    pub async fn standing_of(&self, store: &Store) -> anyhow::Result<Standing> {
        let _pass = self.pass.lock().await;
        let standing = match self.bound_elsewhere(store, true).await? {
            Some(database) => Standing::OtherMirror {
                database,
                this: self.id.clone(),
            },
            None => self.pass_while_recovering(store).await?,
        };
        self.set_standing(standing.clone());
        Ok(standing)
    }

    /// Entry `index`, if the mirror holds it.
    pub fn read(&self, index: u64) -> anyhow::Result<Option<Vec<u8>>> {
        if let Some((start, entries)) = &*self.last.lock().expect("last segment")
            && (*start..*start + entries.len() as u64).contains(&index)
        {
            return Ok(Some(entries[(index - start) as usize].clone()));
        }
        Ok(segment_covering(&self.dir, index)?
            .map(|(start, entries)| entries[(index - start) as usize].clone()))
    }

    /// Entries `[from, to)`, all of which the mirror must hold.
    pub fn read_range(&self, from: u64, to: u64) -> anyhow::Result<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(to.saturating_sub(from) as usize);
        let mut segment = segment_covering(&self.dir, from)?;
        while (out.len() as u64) < to.saturating_sub(from) {
            let (start, entries) = segment
                .with_context(|| format!("the mirror lacks entry {}", from + out.len() as u64))?;
            let end = start + entries.len() as u64;
            let at = from + out.len() as u64;
            out.extend(
                entries
                    .into_iter()
                    .skip((at - start) as usize)
                    .take((to - at) as usize),
            );
            segment = read_segment(&self.dir, end)?.map(|entries| (end, entries));
        }
        Ok(out)
    }

    /// Writes `entries` as the entries from `start` on, once (see
    /// [`write_segments`]): the index of the first that differs from what
    /// the mirror holds, if any.
    pub fn write(&self, start: u64, entries: &[Vec<u8>]) -> anyhow::Result<Option<u64>> {
        Ok(write_segments(&self.dir, start, entries)?.forked)
    }

    /// Learns what other processes mirrored since (they share the mirror)
    /// and raises the floor to it: called before every write, so that a
    /// database restored under several processes refuses the write before
    /// it commits, whichever process acknowledged the entries it lost.
    pub fn catch_up(&self) {
        if let Err(err) = self.catch_up_count() {
            tracing::error!(error = format!("{err:#}"), "reading the log mirror failed");
        }
    }

    /// Learns entries other processes mirrored since (they share it).
    fn catch_up_count(&self) -> anyhow::Result<u64> {
        let mut count = self.count();
        while let Some(entries) = read_segment(&self.dir, count)? {
            let end = count + entries.len() as u64;
            *self.last.lock().expect("last segment") = Some((count, entries));
            count = end;
        }
        self.count.fetch_max(count, Ordering::AcqRel);
        self.floor.raise(count);
        Ok(count)
    }

    /// Waits until every entry the database held when this was called is
    /// mirrored, or the database is found behind or forked. Call it after
    /// a write and before answering it. Concurrent callers share passes:
    /// a pass that began after a caller registered covers it.
    pub async fn flush(&self, store: &Store) -> Result<(), NotAcknowledged> {
        let ticket = self.requested.fetch_add(1, Ordering::AcqRel) + 1;
        let _pass = self.pass.lock().await;
        if self.covered.load(Ordering::Acquire) >= ticket && self.standing() == Standing::Current {
            return Ok(());
        }
        let covers = self.requested.load(Ordering::Acquire);
        let standing = match self.pass(store).await {
            Ok(standing) => standing,
            // The database out of reach says nothing of the mirror: this
            // request is not acknowledged, and the next pass looks again.
            Err(err) if crate::service::store::is_unavailable_cause(&err) => {
                tracing::warn!(
                    error = format!("{err:#}"),
                    "the log mirror could not read the database"
                );
                return Err(NotAcknowledged::DatabaseUnavailable);
            }
            // The database answered with an error (a damaged file, a
            // schema it lacks): not the mirror's fault, and nothing is
            // acknowledged until a pass succeeds.
            Err(err) if err.chain().any(|cause| cause.is::<sqlx::Error>()) => {
                tracing::error!(
                    error = format!("{err:#}"),
                    "the database failed the log mirror's pass"
                );
                return Err(NotAcknowledged::DatabaseUnavailable);
            }
            Err(err) => {
                tracing::error!(error = format!("{err:#}"), "the log mirror failed");
                Standing::Unwritable
            }
        };
        self.set_standing(standing.clone());
        match standing.refusal() {
            None => {
                self.covered.fetch_max(covers, Ordering::AcqRel);
                Ok(())
            }
            Some(why) => Err(NotAcknowledged::Refused(why)),
        }
    }

    /// One pass: reads what the database holds past the mirror and writes
    /// it, after checking that the last mirrored entry is the database's.
    async fn pass(&self, store: &Store) -> anyhow::Result<Standing> {
        if self.recovery_marker().exists() {
            return Ok(Standing::Recovering);
        }
        if let Some(database) = self.bound_elsewhere(store, false).await? {
            return Ok(Standing::OtherMirror {
                database,
                this: self.id.clone(),
            });
        }
        self.pass_while_recovering(store).await
    }

    /// [`LogMirror::pass`], whether or not a recovery is under way (the
    /// recovery's own passes).
    async fn pass_while_recovering(&self, store: &Store) -> anyhow::Result<Standing> {
        let mut count = self.catch_up_count()?;
        loop {
            // One query a pass: the last mirrored entry (to compare) and
            // what follows it.
            let mut rows = store
                .log_entries(count.saturating_sub(1), count + BATCH)
                .await?;
            if count > 0 {
                if rows.is_empty() {
                    // The database does not hold the last mirrored entry.
                    let (next, _) = store.log_sizes().await?;
                    if next > 0 && !self.matches(store, next - 1).await? {
                        return Ok(Standing::Forked { index: next - 1 });
                    }
                    return Ok(Standing::Behind {
                        database: next,
                        mirrored: count,
                    });
                }
                if self.read(count - 1)?.as_deref() != Some(rows[0].as_slice()) {
                    return Ok(Standing::Forked { index: count - 1 });
                }
                rows.remove(0);
            }
            if rows.is_empty() {
                return Ok(Standing::Current);
            }
            let full = rows.len() as u64 == BATCH;
            // Off the async workers: a write waits for the disk.
            let dir = self.dir.clone();
            let start = count;
            let written = tokio::task::spawn_blocking(move || write_segments(&dir, start, &rows))
                .await
                .context("the mirror's writer stopped")??;
            if let Some(index) = written.forked {
                return Ok(Standing::Forked { index });
            }
            *self.last.lock().expect("last segment") = Some(written.last);
            count = written.end;
            self.count.fetch_max(count, Ordering::AcqRel);
            self.floor.raise(count);
            if !full {
                return Ok(Standing::Current);
            }
        }
    }

    /// Whether the database's entry `index` is the mirror's.
    async fn matches(&self, store: &Store, index: u64) -> anyhow::Result<bool> {
        let held = store.log_entries(index, index + 1).await?;
        Ok(self.read(index)?.as_deref() == held.first().map(Vec::as_slice))
    }

    /// Fills an empty mirror from the database's log (a new mirror for a
    /// database that already holds one; the operator said so).
    pub async fn fill_from(&self, store: &Store) -> anyhow::Result<u64> {
        anyhow::ensure!(self.count() == 0, "the log mirror is not empty");
        self.pass(store).await?;
        Ok(self.count())
    }
}

/// The id of the mirror at `dir`: its `ID` file, made the first time (to
/// a temporary name, then hard-linked, so that processes opening a new
/// mirror at once all read the one that was linked first).
fn mirror_id(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join("ID");
    let read = |path: &Path| -> anyhow::Result<Option<String>> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let id = text.trim();
                anyhow::ensure!(
                    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
                    "the mirror's ID file does not hold a mirror id (32 hex digits)"
                );
                Ok(Some(id.to_owned()))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err.into()),
        }
    };
    if let Some(id) = read(&path)? {
        return Ok(id);
    }
    let id = uuid::Uuid::new_v4().simple().to_string();
    let temporary = dir.join(format!(".ID.{id}.tmp"));
    {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(format!("{id}\n").as_bytes())?;
        file.sync_data()?;
    }
    let linked = std::fs::hard_link(&temporary, &path);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => std::fs::File::open(dir)?.sync_all()?,
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err.into()),
    }
    read(&path)?.context("the mirror's ID file vanished")
}

/// Where the segment starting at entry `start` is kept under `dir`.
fn segment_path(dir: &Path, start: u64) -> PathBuf {
    dir.join("segments")
        .join(format!("{:06}", start / SHARD))
        .join(format!("{start:016}"))
}

/// A segment's bytes: each entry as its length (4 bytes, big-endian), then
/// its bytes; then the SHA-256 of all that, so that a segment damaged on
/// disk reads as damaged, never as other entries.
fn encode(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.iter().map(|e| e.len() + 4).sum::<usize>() + 32);
    for entry in entries {
        out.extend_from_slice(&(entry.len() as u32).to_be_bytes());
        out.extend_from_slice(entry);
    }
    let digest = Sha256::digest(&out);
    out.extend_from_slice(&digest);
    out
}

fn decode(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let (mut bytes, digest) = bytes.split_last_chunk::<32>()?;
    if Sha256::digest(bytes).as_slice() != digest {
        return None;
    }
    let mut entries = Vec::new();
    while !bytes.is_empty() {
        let (length, rest) = bytes.split_first_chunk::<4>()?;
        let length = u32::from_be_bytes(*length) as usize;
        if rest.len() < length {
            return None;
        }
        entries.push(rest[..length].to_vec());
        bytes = &rest[length..];
    }
    (!entries.is_empty()).then_some(entries)
}

/// The segment starting at entry `start`, if there is one.
fn read_segment(dir: &Path, start: u64) -> anyhow::Result<Option<Vec<Vec<u8>>>> {
    match std::fs::read(segment_path(dir, start)) {
        Ok(bytes) => decode(&bytes).map(Some).with_context(|| {
            format!(
                "the log mirror's segment at entry {start} is damaged (its checksum or its \
                     lengths do not hold): restore the mirror from its own backup; the database \
                     is not at fault"
            )
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err).with_context(|| format!("reading the mirror's segment at {start}")),
    }
}

/// The starts of the segments in shard `shard`, in order.
fn segment_starts(dir: &Path, shard: u64) -> anyhow::Result<Vec<u64>> {
    let path = dir.join("segments").join(format!("{shard:06}"));
    let mut starts: Vec<u64> = match std::fs::read_dir(&path) {
        Ok(listing) => listing
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => return Err(err).context("listing the mirror"),
    };
    starts.sort_unstable();
    Ok(starts)
}

/// The segment holding entry `index` (its start and entries), if any.
fn segment_covering(dir: &Path, index: u64) -> anyhow::Result<Option<(u64, Vec<Vec<u8>>)>> {
    for shard in (0..=index / SHARD).rev() {
        if let Some(start) = segment_starts(dir, shard)?
            .into_iter()
            .rev()
            .find(|start| *start <= index)
        {
            let entries = read_segment(dir, start)?.unwrap_or_default();
            return Ok((index < start + entries.len() as u64).then_some((start, entries)));
        }
    }
    Ok(None)
}

/// Entries the mirror at `dir` holds: the end of its last segment (the
/// segments tile the indexes from 0).
fn scan_count(dir: &Path) -> anyhow::Result<u64> {
    let mut shards: Vec<u64> = std::fs::read_dir(dir.join("segments"))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    shards.sort_unstable();
    while let Some(shard) = shards.pop() {
        if let Some(start) = segment_starts(dir, shard)?.pop() {
            let entries = read_segment(dir, start)?.unwrap_or_default();
            return Ok(start + entries.len() as u64);
        }
    }
    Ok(0)
}

/// What [`write_segments`] did.
struct SegmentsWritten {
    /// The first index whose bytes differ from what the mirror held.
    forked: Option<u64>,
    /// Where the mirror's segments end now (beyond the entries written when
    /// another process mirrored more).
    end: u64,
    /// The last segment written or read.
    last: (u64, Vec<Vec<u8>>),
}

/// Writes `entries` as the mirror's entries from `start` on: one segment,
/// to a temporary name, `fsync`ed, then hard-linked to its name, which
/// fails if a segment starts there already (another process mirrored
/// first): then that segment is compared with what it shares with these
/// entries, and the rest is written from its end. The shard directories
/// are synced once at the end, so the names survive a crash.
fn write_segments(dir: &Path, start: u64, entries: &[Vec<u8>]) -> anyhow::Result<SegmentsWritten> {
    let mut at = start;
    let mut rest = entries;
    let mut touched = Vec::new();
    let mut last = (start, Vec::new());
    while !rest.is_empty() {
        let path = segment_path(dir, at);
        let shard = path.parent().expect("a shard directory").to_owned();
        std::fs::create_dir_all(&shard).context("creating a mirror shard")?;
        let temporary = shard.join(format!(".{at}.{}.tmp", uuid::Uuid::new_v4().simple()));
        {
            let mut file = std::fs::File::create(&temporary).context("writing the mirror")?;
            file.write_all(&encode(rest))
                .context("writing the mirror")?;
            file.sync_data().context("syncing the mirror")?;
        }
        let linked = std::fs::hard_link(&temporary, &path);
        let _ = std::fs::remove_file(&temporary);
        if !touched.contains(&shard) {
            touched.push(shard);
        }
        match linked {
            Ok(()) => {
                last = (at, rest.to_vec());
                at += rest.len() as u64;
                rest = &[];
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                let held = read_segment(dir, at)?.context("a mirror segment vanished")?;
                let shared = held.len().min(rest.len());
                if let Some(offset) = (0..shared).find(|i| held[*i] != rest[*i]) {
                    return Ok(SegmentsWritten {
                        forked: Some(at + offset as u64),
                        end: at,
                        last: (at, held),
                    });
                }
                rest = &rest[shared..];
                at += held.len() as u64;
                last = (at - held.len() as u64, held);
            }
            Err(err) => return Err(err).context("naming a mirror segment"),
        }
    }
    for shard in touched {
        std::fs::File::open(&shard)
            .and_then(|d| d.sync_all())
            .context("syncing a mirror shard")?;
    }
    Ok(SegmentsWritten {
        forked: None,
        end: at,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(range: std::ops::Range<u8>) -> Vec<Vec<u8>> {
        range.map(|i| vec![i; usize::from(i) + 1]).collect()
    }

    #[test]
    fn a_segment_is_written_once_and_other_bytes_are_a_fork() {
        let dir = tempfile::tempdir().expect("dir");
        let mirror = LogMirror::open(dir.path(), LogFloor::default()).expect("opens");
        assert_eq!(mirror.write(0, &entries(0..3)).expect("writes"), None);
        // Another process, which read more: it goes on from the end.
        assert_eq!(mirror.write(0, &entries(0..5)).expect("writes"), None);
        // A database rewritten since: the first entry that differs.
        let mut other = entries(0..6);
        other[4] = b"rewritten".to_vec();
        assert_eq!(mirror.write(0, &other).expect("writes"), Some(4));
        assert_eq!(mirror.read(4).expect("reads"), Some(vec![4; 5]));
        assert_eq!(mirror.read(5).expect("reads"), None);
        assert_eq!(mirror.read_range(1, 5).expect("reads"), entries(1..5));
        assert!(mirror.read_range(1, 6).is_err(), "entry 5 is not there");
    }

    #[test]
    fn the_count_is_where_the_segments_end_and_other_processes_are_learned() {
        let dir = tempfile::tempdir().expect("dir");
        let floor = LogFloor::default();
        let mirror = LogMirror::open(dir.path(), floor.clone()).expect("opens");
        mirror.write(0, &entries(0..3)).expect("writes");
        mirror.write(3, &entries(3..4)).expect("writes");
        let reopened = LogMirror::open(dir.path(), floor.clone()).expect("opens");
        assert_eq!(reopened.count(), 4);
        assert_eq!(floor.get(), 4);
        // Another process writes on: learned on the next pass.
        mirror.write(4, &entries(4..7)).expect("writes");
        assert_eq!(reopened.catch_up_count().expect("counts"), 7);
        assert_eq!(floor.get(), 7);
        // A segment in a later shard is found at start.
        write_segments(dir.path(), SHARD + 2, &entries(0..2)).expect("writes");
        let reopened = LogMirror::open(dir.path(), LogFloor::default()).expect("opens");
        assert_eq!(reopened.count(), SHARD + 4);
        assert_eq!(reopened.read(SHARD + 3).expect("reads"), Some(vec![1; 2]));
        assert_eq!(reopened.read(6).expect("reads"), Some(vec![6; 7]));
    }

    #[test]
    fn a_mirror_has_one_id_for_every_process_that_opens_it() {
        let dir = tempfile::tempdir().expect("dir");
        let first = LogMirror::open(dir.path(), LogFloor::default()).expect("opens");
        let second = LogMirror::open(dir.path(), LogFloor::default()).expect("opens");
        assert_eq!(first.id(), second.id());
        assert_eq!(first.id().len(), 32);
        let other = tempfile::tempdir().expect("dir");
        let elsewhere = LogMirror::open(other.path(), LogFloor::default()).expect("opens");
        assert_ne!(first.id(), elsewhere.id());
        std::fs::write(dir.path().join("ID"), "not an id").expect("written");
        assert!(LogMirror::open(dir.path(), LogFloor::default()).is_err());
    }

    #[test]
    fn a_segment_cut_short_is_an_error_not_an_entry() {
        assert_eq!(decode(&encode(&entries(0..3))), Some(entries(0..3)));
        let mut bytes = encode(&entries(0..3));
        bytes.pop();
        assert_eq!(decode(&bytes), None);
        let mut bytes = encode(&entries(0..3));
        bytes[5] ^= 1;
        assert_eq!(decode(&bytes), None, "a flipped bit is damage");
        assert_eq!(decode(&[]), None);
    }
}
