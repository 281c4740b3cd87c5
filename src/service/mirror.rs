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
//! The mirror is a directory of files written once each (write to a
//! temporary name, `fsync`, hard-link to the entry's name: the link fails
//! if the name exists, so two processes can never write different bytes
//! under one index, and a process finding bytes that differ has found a
//! fork). `entries/NNNN/IIIIIIIIIIIIIIII` holds entry `I` (decimal, padded)
//! in shard `I / 4096`. Several processes share one mirror as they share
//! one database. It must not live on the database's volume or snapshot
//! (docs/OPERATIONS.md, "Restore").

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;

use crate::service::store::{LogFloor, Store};

/// Entries per shard directory.
const SHARD: u64 = 4096;

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
            Standing::Unwritable => Some(
                "the log mirror cannot be written, so nothing new can be acknowledged; \
                 the cause is in the service's log"
                    .to_owned(),
            ),
        }
    }
}

/// What writing one entry found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Written now.
    New,
    /// Already there with the same bytes (another process, or a retry).
    Same,
    /// Already there with other bytes: a fork.
    Differs,
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
}

impl LogMirror {
    /// Opens (creating) the mirror at `dir`, for a store whose floor it
    /// raises to what the mirror holds.
    pub fn open(dir: &Path, floor: LogFloor) -> anyhow::Result<Self> {
        let entries = dir.join("entries");
        std::fs::create_dir_all(&entries)
            .with_context(|| format!("creating the log mirror at {}", dir.display()))?;
        let count = scan_count(&entries)
            .with_context(|| format!("reading the log mirror at {}", dir.display()))?;
        floor.raise(count);
        Ok(Self {
            dir: dir.to_owned(),
            count: AtomicU64::new(count),
            standing: Mutex::new(Standing::Current),
            requested: AtomicU64::new(0),
            covered: AtomicU64::new(0),
            pass: tokio::sync::Mutex::new(()),
            floor,
        })
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

    fn path(&self, index: u64) -> PathBuf {
        self.dir
            .join("entries")
            .join(format!("{:04}", index / SHARD))
            .join(format!("{index:016}"))
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
        let standing = self.pass(store).await?;
        self.set_standing(standing.clone());
        Ok(standing)
    }

    /// Entry `index`, if the mirror holds it.
    pub fn read(&self, index: u64) -> anyhow::Result<Option<Vec<u8>>> {
        match std::fs::read(self.path(index)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err).with_context(|| format!("reading mirrored entry {index}")),
        }
    }

    /// Writes entry `index` once: durable (`fsync`ed) before it is named,
    /// and never over other bytes. The directory is synced by the caller
    /// ([`LogMirror::sync_shards`]) once for a batch.
    pub fn write(&self, index: u64, bytes: &[u8]) -> anyhow::Result<Written> {
        let path = self.path(index);
        let shard = path.parent().expect("a shard directory");
        std::fs::create_dir_all(shard).context("creating a mirror shard")?;
        let temporary = shard.join(format!(".{index}.{}.tmp", uuid::Uuid::new_v4().simple()));
        {
            let mut file = std::fs::File::create(&temporary).context("writing a mirror entry")?;
            file.write_all(bytes).context("writing a mirror entry")?;
            file.sync_data().context("syncing a mirror entry")?;
        }
        let linked = std::fs::hard_link(&temporary, &path);
        let _ = std::fs::remove_file(&temporary);
        match linked {
            Ok(()) => Ok(Written::New),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                let held = std::fs::read(&path).context("reading a mirror entry")?;
                Ok(if held == bytes {
                    Written::Same
                } else {
                    Written::Differs
                })
            }
            Err(err) => Err(err).context("naming a mirror entry"),
        }
    }

    /// Syncs the shard directories of entries `[from, to)`, so their names
    /// survive a crash.
    fn sync_shards(&self, from: u64, to: u64) -> anyhow::Result<()> {
        if from >= to {
            return Ok(());
        }
        for shard in from / SHARD..=(to - 1) / SHARD {
            let dir = self.dir.join("entries").join(format!("{shard:04}"));
            std::fs::File::open(&dir)
                .and_then(|d| d.sync_all())
                .context("syncing a mirror shard")?;
        }
        Ok(())
    }

    /// Learns entries other processes mirrored since (they share it).
    fn catch_up_count(&self) -> u64 {
        let mut count = self.count();
        while self.path(count).exists() {
            count += 1;
        }
        self.count.fetch_max(count, Ordering::AcqRel);
        self.floor.raise(count);
        count
    }

    /// Waits until every entry the database held when this was called is
    /// mirrored, or the database is found behind or forked. Call it after
    /// a write and before answering it. Concurrent callers share passes:
    /// a pass that began after a caller registered covers it.
    pub async fn flush(&self, store: &Store) -> Result<(), String> {
        let ticket = self.requested.fetch_add(1, Ordering::AcqRel) + 1;
        let _pass = self.pass.lock().await;
        if self.covered.load(Ordering::Acquire) >= ticket && self.standing() == Standing::Current {
            return Ok(());
        }
        let covers = self.requested.load(Ordering::Acquire);
        let standing = match self.pass(store).await {
            Ok(standing) => standing,
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
            Some(why) => Err(why),
        }
    }

    /// One pass: reads what the database holds past the mirror and writes
    /// it, after checking that the last mirrored entry is the database's.
    async fn pass(&self, store: &Store) -> anyhow::Result<Standing> {
        if self.recovery_marker().exists() {
            return Ok(Standing::Recovering);
        }
        let (next, _) = store.log_sizes().await?;
        let count = self.catch_up_count();
        if next < count {
            // Behind: a prefix, or rewritten since?
            if next > 0 && !self.matches(store, next - 1).await? {
                return Ok(Standing::Forked { index: next - 1 });
            }
            return Ok(Standing::Behind {
                database: next,
                mirrored: count,
            });
        }
        if count > 0 && !self.matches(store, count - 1).await? {
            return Ok(Standing::Forked { index: count - 1 });
        }
        let mut from = count;
        while from < next {
            let to = next.min(from + BATCH);
            let entries = store.log_entries(from, to).await?;
            anyhow::ensure!(
                entries.len() as u64 == to - from,
                "log entries {from}..{to} are not all stored"
            );
            for (offset, entry) in entries.iter().enumerate() {
                let index = from + offset as u64;
                if self.write(index, entry)? == Written::Differs {
                    return Ok(Standing::Forked { index });
                }
            }
            self.sync_shards(from, to)?;
            self.count.fetch_max(to, Ordering::AcqRel);
            self.floor.raise(to);
            from = to;
        }
        Ok(Standing::Current)
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

/// Entries `[0, count)` held in `entries/`: the highest shard's files,
/// counted up to the first one missing (a pass cut short by a crash leaves
/// names only above entries that were never acknowledged).
fn scan_count(entries: &Path) -> std::io::Result<u64> {
    let mut shards: Vec<u64> = std::fs::read_dir(entries)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    shards.sort_unstable();
    while let Some(shard) = shards.pop() {
        let mut held: Vec<u64> = std::fs::read_dir(entries.join(format!("{shard:04}")))?
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        held.sort_unstable();
        let mut count = shard * SHARD;
        for index in held {
            if index != count {
                break;
            }
            count += 1;
        }
        if count > shard * SHARD || shard == 0 {
            return Ok(count);
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_written_once_and_other_bytes_are_a_fork() {
        let dir = tempfile::tempdir().expect("dir");
        let mirror = LogMirror::open(dir.path(), LogFloor::default()).expect("opens");
        assert_eq!(mirror.write(0, b"a").expect("writes"), Written::New);
        assert_eq!(mirror.write(0, b"a").expect("writes"), Written::Same);
        assert_eq!(mirror.write(0, b"b").expect("writes"), Written::Differs);
        assert_eq!(mirror.read(0).expect("reads"), Some(b"a".to_vec()));
        assert_eq!(mirror.read(1).expect("reads"), None);
    }

    #[test]
    fn the_count_stops_at_the_first_missing_entry_across_shards() {
        let dir = tempfile::tempdir().expect("dir");
        let floor = LogFloor::default();
        let mirror = LogMirror::open(dir.path(), floor.clone()).expect("opens");
        for index in (0..SHARD + 3).chain([SHARD + 5]) {
            mirror.write(index, b"x").expect("writes");
        }
        let reopened = LogMirror::open(dir.path(), floor.clone()).expect("opens");
        assert_eq!(reopened.count(), SHARD + 3);
        assert_eq!(floor.get(), SHARD + 3);
        // Another process writes the missing ones: learned on the next pass.
        reopened.write(SHARD + 3, b"x").expect("writes");
        reopened.write(SHARD + 4, b"x").expect("writes");
        assert_eq!(reopened.catch_up_count(), SHARD + 6);
        assert_eq!(floor.get(), SHARD + 6);
    }
}
