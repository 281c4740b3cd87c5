//! The transparency log's tables: entries (appended by the event
//! transactions, see `append_log_entry!`), stored hashes and checkpoints
//! (written by the integrator), and the reads that serve them.

use std::cell::RefCell;

use super::Store;
use crate::tlog::tree::{self, Hash, HashReader, MemoryHashes};

/// A pair holding a client seed, as [`Store::pairs_with_client_seed`] lists it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClientSeedHolder {
    pub id: String,
    #[sqlx(try_from = "String")]
    pub status: super::rows::PairStatus,
    pub client_seed_log_index: Option<i64>,
    pub reveal_log_index: Option<i64>,
    /// Compared with the asking pair's, never answered.
    pub tenant: String,
    /// Whether its seed is byte for byte the asking pair's (otherwise it
    /// only looks alike).
    pub exact: bool,
}

/// Stored hashes per `INSERT` statement (two parameters each).
const HASHES_PER_INSERT: usize = 1000;

/// A signed checkpoint as stored.
#[derive(Clone, Debug)]
pub struct LogCheckpoint {
    pub size: u64,
    pub root: Vec<u8>,
    /// The signed note.
    pub note: String,
}

/// Stored hashes held in memory that remembers which indexes it was asked
/// for and did not hold, so they can be fetched and the step retried.
struct Prefetching<'a> {
    known: &'a MemoryHashes,
    missing: RefCell<Vec<u64>>,
}

impl HashReader for Prefetching<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        let result = self.known.read_hashes(indexes);
        if result.is_err() {
            self.missing
                .borrow_mut()
                .extend(indexes.iter().filter(|i| !self.known.0.contains_key(i)));
        }
        result
    }
}

/// What growing the tree gave: the new stored hashes (index, hash) and the
/// new root — or the stored hashes to fetch before trying again.
enum Grown {
    Done(Vec<(u64, Hash)>, Hash),
    Needs(Vec<u64>),
}

/// Appends `entries` (leaves `start`, `start + 1`, …) to the tree whose
/// stored hashes `known` holds what is needed.
fn grow(start: u64, entries: &[Vec<u8>], known: &mut MemoryHashes) -> anyhow::Result<Grown> {
    let mut added = Vec::new();
    for (offset, entry) in entries.iter().enumerate() {
        let n = start + offset as u64;
        let reader = Prefetching {
            known,
            missing: RefCell::new(Vec::new()),
        };
        match tree::append(n, entry, &reader) {
            Ok(hashes) => {
                let first = tree::first_stored_index(n);
                for (i, hash) in hashes.into_iter().enumerate() {
                    let index = first + i as u64;
                    known.0.insert(index, hash);
                    added.push((index, hash));
                }
            }
            Err(_) if !reader.missing.borrow().is_empty() => {
                return Ok(Grown::Needs(reader.missing.into_inner()));
            }
            Err(err) => return Err(err),
        }
    }
    let size = start + entries.len() as u64;
    let reader = Prefetching {
        known,
        missing: RefCell::new(Vec::new()),
    };
    match tree::tree_hash(size, &reader) {
        Ok(root) => Ok(Grown::Done(added, root)),
        Err(_) if !reader.missing.borrow().is_empty() => {
            Ok(Grown::Needs(reader.missing.into_inner()))
        }
        Err(err) => Err(err),
    }
}

/// What one integration did: the tree's new size, and whether entries
/// appended before it began are still left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Integrated {
    pub size: u64,
    pub behind: bool,
}

impl Store {
    /// Integrates up to `batch` entries not yet in the tree: computes their
    /// stored hashes and the new root, and stores them with the checkpoint
    /// `sign(size, root)` returns, in one transaction. Only one process
    /// integrates at a time (SQLite has one writer; PostgreSQL takes an
    /// advisory lock, and a process that does not get it does nothing).
    /// The root of a size is fixed by the entries, which never change, so
    /// no two checkpoints can disagree. Returns the new size, if it grew,
    /// and whether entries appended before this call are still left out
    /// (more than `batch` were pending).
    ///
    /// The reading, hashing and signing happen before the write
    /// transaction, which only stores the result (if the tree is still the
    /// size it was read at): the writer's turn, which deals wait for, is
    /// not held while a second's worth of entries is hashed.
    pub async fn integrate_log<F>(&self, batch: u64, sign: F) -> anyhow::Result<Option<Integrated>>
    where
        F: Fn(u64, Hash) -> anyhow::Result<String>,
    {
        self.integrate_log_to(batch, u64::MAX, sign).await
    }

    /// [`Store::integrate_log`], never past `limit` entries (what the log
    /// mirror holds: no checkpoint signs an entry not yet mirrored).
    pub async fn integrate_log_to<F>(
        &self,
        batch: u64,
        limit: u64,
        sign: F,
    ) -> anyhow::Result<Option<Integrated>>
    where
        F: Fn(u64, Hash) -> anyhow::Result<String>,
    {
        let (next, integrated): (i64, i64) = with_pool!(self, |pool| {
            sqlx::query_as("SELECT next_index, integrated_size FROM log_state WHERE id = 1")
                .fetch_one(pool)
                .await
        })?;
        if (next as u64) < (integrated as u64) || (integrated as u64) > limit {
            // A database behind its own tree, or a tree past the mirror:
            // nothing is signed (the mirror's standing says why).
            return Ok(None);
        }
        let (start, end) = (
            integrated as u64,
            (next as u64).min(integrated as u64 + batch).min(limit),
        );
        if end == start && self.log_checkpoint_at(integrated).await? {
            return Ok(None);
        }
        let rows: Vec<(Vec<u8>,)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT entry FROM log_entries WHERE idx >= $1 AND idx < $2 ORDER BY idx",
            )
            .bind(start as i64)
            .bind(end as i64)
            .fetch_all(pool)
            .await
        })?;
        let entries: Vec<Vec<u8>> = rows.into_iter().map(|(entry,)| entry).collect();
        anyhow::ensure!(
            entries.len() as u64 == end - start,
            "log entries {start}..{end} are not all stored"
        );
        let mut known = MemoryHashes::default();
        let (added, root) = loop {
            match grow(start, &entries, &mut known)? {
                Grown::Done(added, root) => break (added, root),
                Grown::Needs(missing) => {
                    let hashes = self.log_hashes(&missing).await?;
                    for (index, hash) in missing.into_iter().zip(hashes) {
                        known.0.insert(index, Hash(hash));
                    }
                }
            }
        };
        let note = sign(end, root)?;
        let tiles = self.completed_tiles(start, &entries, &mut known).await?;
        let is_postgres = matches!(self, Store::Postgres(..));
        Ok(write_tx!(self, |tx| {
            if is_postgres {
                let (leader,): (bool,) = sqlx::query_as("SELECT pg_try_advisory_xact_lock(7402)")
                    .fetch_one(&mut *tx)
                    .await?;
                if !leader {
                    return Ok(None);
                }
            }
            // Another process may have integrated since the read: then
            // its checkpoint stands (the same root for the same size).
            let (now,): (i64,) =
                sqlx::query_as("SELECT integrated_size FROM log_state WHERE id = 1")
                    .fetch_one(&mut *tx)
                    .await?;
            if now != integrated {
                return Ok(None);
            }
            // Multi-row inserts: a statement per hash would hold the
            // writer for a millisecond per few dozen hashes.
            for chunk in added.chunks(HASHES_PER_INSERT) {
                let mut insert = sqlx::QueryBuilder::new("INSERT INTO log_hashes (idx, hash) ");
                insert.push_values(chunk, |mut row, (index, hash)| {
                    row.push_bind(*index as i64).push_bind(hash.0.to_vec());
                });
                insert.build().execute(&mut *tx).await?;
            }
            for (level, index, body) in &tiles {
                sqlx::query(
                    "INSERT INTO log_tiles (level, idx, body) VALUES ($1, $2, $3) \
                     ON CONFLICT (level, idx) DO NOTHING",
                )
                .bind(*level)
                .bind(*index)
                .bind(body.as_slice())
                .execute(&mut *tx)
                .await?;
            }
            sqlx::query(
                "INSERT INTO log_checkpoints (size, root, note) VALUES ($1, $2, $3) \
                 ON CONFLICT (size) DO NOTHING",
            )
            .bind(end as i64)
            .bind(root.0.to_vec())
            .bind(&note)
            .execute(&mut *tx)
            .await?;
            sqlx::query("UPDATE log_state SET integrated_size = $1 WHERE id = 1")
                .bind(end as i64)
                .execute(&mut *tx)
                .await?;
            Some(Integrated {
                size: end,
                behind: end < (next as u64).min(limit),
            })
        }))
    }

    /// The full tiles that entries `start..` (`entries`) complete, as
    /// served: entry bundles (level -1) and hash tiles (level 0, 1, ...),
    /// each (level, index, body). Entries and hashes from before `start`
    /// that a tile needs are read; `known` holds the hashes at hand. An
    /// entry too long for a bundle leaves its bundle out (it is served, or
    /// refused, as before).
    async fn completed_tiles(
        &self,
        start: u64,
        entries: &[Vec<u8>],
        known: &mut MemoryHashes,
    ) -> anyhow::Result<Vec<(i32, i64, Vec<u8>)>> {
        use crate::tlog::tiles::{TILE_WIDTH, entry_bundle};
        let end = start + entries.len() as u64;
        let mut tiles = Vec::new();
        for bundle in (start / TILE_WIDTH)..(end / TILE_WIDTH) {
            let from = bundle * TILE_WIDTH;
            let mut held = if from < start {
                self.log_entries(from, start).await?
            } else {
                Vec::new()
            };
            let (low, high) = (from.max(start) - start, from + TILE_WIDTH - start);
            held.extend(entries[low as usize..high as usize].iter().cloned());
            if let Ok(body) = entry_bundle(held.iter().map(Vec::as_slice)) {
                tiles.push((-1, i64::try_from(bundle)?, body));
            }
        }
        for level in 0u8..8 {
            let height = level * 8;
            let (before, after) = (start >> height, end >> height);
            for tile in (before / TILE_WIDTH)..(after / TILE_WIDTH) {
                let indexes: Vec<u64> = (tile * TILE_WIDTH..(tile + 1) * TILE_WIDTH)
                    .map(|n| tlog_tiles::stored_hash_index(height, n))
                    .collect();
                let missing: Vec<u64> = indexes
                    .iter()
                    .copied()
                    .filter(|i| !known.0.contains_key(i))
                    .collect();
                if !missing.is_empty() {
                    for (index, hash) in missing.iter().zip(self.log_hashes(&missing).await?) {
                        known.0.insert(*index, Hash(hash));
                    }
                }
                let mut body = Vec::with_capacity(32 * indexes.len());
                for index in &indexes {
                    let hash = known
                        .0
                        .get(index)
                        .ok_or_else(|| anyhow::anyhow!("stored log hash {index} is missing"))?;
                    body.extend(hash.0);
                }
                tiles.push((i32::from(level), i64::try_from(tile)?, body));
            }
        }
        Ok(tiles)
    }

    /// The stored full tiles of `level` (-1: entry bundles) from index
    /// `first`, at most `count`, in order (fewer where the log ends or a
    /// tile was integrated before full tiles were stored whole).
    pub async fn log_tiles_from(
        &self,
        level: i32,
        first: u64,
        count: u64,
    ) -> anyhow::Result<Vec<(u64, Vec<u8>)>> {
        let first = i64::try_from(first)?;
        let end = first.saturating_add(i64::try_from(count)?);
        let rows: Vec<(i64, Vec<u8>)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT idx, body FROM log_tiles \
                 WHERE level = $1 AND idx >= $2 AND idx < $3 ORDER BY idx",
            )
            .bind(level)
            .bind(first)
            .bind(end)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(index, body)| (index as u64, body))
            .collect())
    }

    /// Whether a checkpoint of `size` entries is stored.
    async fn log_checkpoint_at(&self, size: i64) -> Result<bool, sqlx::Error> {
        let row: Option<(i64,)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT size FROM log_checkpoints WHERE size = $1")
                .bind(size)
                .fetch_optional(pool)
                .await
        })?;
        Ok(row.is_some())
    }

    /// Entries appended to the log, and entries integrated into the tree.
    pub async fn log_sizes(&self) -> Result<(u64, u64), sqlx::Error> {
        let (next, integrated): (i64, i64) = with_pool!(self, |pool| {
            sqlx::query_as("SELECT next_index, integrated_size FROM log_state WHERE id = 1")
                .fetch_one(pool)
                .await
        })?;
        Ok((next as u64, integrated as u64))
    }

    /// The latest signed checkpoint, if any.
    pub async fn log_checkpoint(&self) -> Result<Option<LogCheckpoint>, sqlx::Error> {
        let row: Option<(i64, Vec<u8>, String)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT size, root, note FROM log_checkpoints ORDER BY size DESC LIMIT 1",
            )
            .fetch_optional(pool)
            .await
        })?;
        Ok(row.map(|(size, root, note)| LogCheckpoint {
            size: size as u64,
            root,
            note,
        }))
    }

    /// Makes `setting` the witness set ([`crate::service::log::witness_set`]),
    /// appending `entry` (its `witness_set` entry) in the same transaction:
    /// the index, or `None` (nothing written) when the database holds this
    /// very set already. The set is compared after the append has locked
    /// the log, so two processes recording one set log it once.
    pub async fn log_witness_set(
        &self,
        setting: &str,
        entry: &[u8],
    ) -> anyhow::Result<Option<u64>> {
        use crate::service::log::witness_set::SETTING;
        Ok(write_tx!(self, |tx| {
            let index = append_log_entry!(self.log_floor(), tx, entry);
            let held: Option<(String,)> =
                sqlx::query_as("SELECT value FROM settings WHERE name = $1")
                    .bind(SETTING)
                    .fetch_optional(&mut *tx)
                    .await?;
            if held.is_some_and(|(held,)| held == setting) {
                // Rolled back with the append: the transaction is dropped.
                return Ok(None);
            }
            sqlx::query(super::UPSERT_SETTING)
                .bind(SETTING)
                .bind(setting)
                .execute(&mut *tx)
                .await?;
            Some(index as u64)
        }))
    }

    /// Stores `witness`'s verified cosignature line of the checkpoint of
    /// `size` (a second one of the same size and witness is not stored).
    pub async fn store_cosignature(
        &self,
        size: u64,
        witness: &str,
        line: &str,
        at_ms: i64,
    ) -> Result<(), sqlx::Error> {
        write_tx!(self, |tx| {
            sqlx::query(
                "INSERT INTO log_cosignatures (size, witness, line, cosigned_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (size, witness) DO NOTHING",
            )
            .bind(size as i64)
            .bind(witness)
            .bind(line)
            .bind(at_ms)
            .execute(&mut *tx)
            .await?;
        });
        Ok(())
    }

    /// The cosignature lines stored for the checkpoint of `size`, by
    /// witness (its verifier key).
    pub async fn cosignatures(&self, size: u64) -> Result<Vec<(String, String)>, sqlx::Error> {
        with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT witness, line FROM log_cosignatures WHERE size = $1 ORDER BY witness",
            )
            .bind(size as i64)
            .fetch_all(pool)
            .await
        })
    }

    /// The largest size each witness cosigned (its verifier key), as stored.
    pub async fn witnessed_sizes(&self) -> Result<Vec<(String, u64)>, sqlx::Error> {
        let rows: Vec<(String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT witness, MAX(size) FROM log_cosignatures GROUP BY witness")
                .fetch_all(pool)
                .await
        })?;
        Ok(rows.into_iter().map(|(w, s)| (w, s as u64)).collect())
    }

    /// The sizes, largest first (at most `limit`), that at least `quorum`
    /// witnesses cosigned, each with its witnesses.
    pub async fn sizes_cosigned_by(
        &self,
        quorum: u64,
        limit: i64,
    ) -> Result<Vec<(u64, Vec<String>)>, sqlx::Error> {
        let sizes: Vec<(i64,)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT size FROM log_cosignatures GROUP BY size HAVING COUNT(*) >= $1 \
                 ORDER BY size DESC LIMIT $2",
            )
            .bind(quorum as i64)
            .bind(limit)
            .fetch_all(pool)
            .await
        })?;
        let mut out = Vec::with_capacity(sizes.len());
        for (size,) in sizes {
            let witnesses = self
                .cosignatures(size as u64)
                .await?
                .into_iter()
                .map(|(w, _)| w)
                .collect();
            out.push((size as u64, witnesses));
        }
        Ok(out)
    }

    /// Keeps `note`, `monitor`'s verified statement about the checkpoint of
    /// `size` made at `time` (its own, POSIX seconds), unless the one kept
    /// is of a larger size, or of the same size and not older (a statement
    /// posted again cannot put back an earlier one): whether it was kept.
    pub async fn store_monitor_statement(
        &self,
        monitor: &str,
        size: u64,
        time: u64,
        note: &str,
        at_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let time = i64::try_from(time).unwrap_or(i64::MAX);
        Ok(write_tx!(self, |tx| {
            sqlx::query(
                "INSERT INTO monitor_statements (monitor, size, time, note, received_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (monitor) DO UPDATE \
                 SET size = excluded.size, time = excluded.time, note = excluded.note, \
                 received_at = excluded.received_at \
                 WHERE monitor_statements.size < excluded.size \
                 OR (monitor_statements.size = excluded.size AND monitor_statements.time < excluded.time)",
            )
            .bind(monitor)
            .bind(size as i64)
            .bind(time)
            .bind(note)
            .bind(at_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected()
        }) == 1)
    }

    /// Every monitor's kept statement: (its verifier key, size, note), by key.
    pub async fn monitor_statements(&self) -> Result<Vec<(String, u64, String)>, sqlx::Error> {
        let rows: Vec<(String, i64, String)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT monitor, size, note FROM monitor_statements ORDER BY monitor")
                .fetch_all(pool)
                .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(m, size, note)| (m, size as u64, note))
            .collect())
    }

    /// Deletes the cosignatures of sizes below `size` (kept: those of
    /// `size` and above).
    pub async fn prune_cosignatures(&self, size: u64) -> Result<u64, sqlx::Error> {
        Ok(write_tx!(self, |tx| {
            sqlx::query("DELETE FROM log_cosignatures WHERE size < $1")
                .bind(size as i64)
                .execute(&mut *tx)
                .await?
                .rows_affected()
        }))
    }

    /// Entries `[from, to)`, in order.
    pub async fn log_entries(&self, from: u64, to: u64) -> Result<Vec<Vec<u8>>, sqlx::Error> {
        let rows: Vec<(Vec<u8>,)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT entry FROM log_entries WHERE idx >= $1 AND idx < $2 ORDER BY idx",
            )
            .bind(from as i64)
            .bind(to as i64)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows.into_iter().map(|(entry,)| entry).collect())
    }

    /// The inclusion proof of entry `index` in the tree of `size` entries.
    pub async fn log_inclusion_proof(&self, size: u64, index: u64) -> anyhow::Result<Vec<Hash>> {
        self.prove(|stored| tree::inclusion_proof(size, index, stored))
            .await
    }

    /// The consistency proof from the tree of `old_size` entries to the tree
    /// of `size` entries (RFC 9162 §2.1.4; empty when the sizes are equal).
    pub async fn log_consistency_proof(
        &self,
        size: u64,
        old_size: u64,
    ) -> anyhow::Result<Vec<Hash>> {
        self.prove(|stored| tree::consistency_proof(size, old_size, stored))
            .await
    }

    /// Runs `proof` against the stored hashes, fetching from the database
    /// the ones it asks for until it has them all.
    async fn prove<F>(&self, proof: F) -> anyhow::Result<Vec<Hash>>
    where
        F: Fn(&Prefetching<'_>) -> anyhow::Result<Vec<Hash>>,
    {
        let mut known = MemoryHashes::default();
        loop {
            let reader = Prefetching {
                known: &known,
                missing: RefCell::new(Vec::new()),
            };
            match proof(&reader) {
                Ok(hashes) => return Ok(hashes),
                Err(_) if !reader.missing.borrow().is_empty() => {
                    let missing = reader.missing.into_inner();
                    for (at, hash) in missing.iter().zip(self.log_hashes(&missing).await?) {
                        known.0.insert(*at, Hash(hash));
                    }
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Pairs given `client_seed`, at most `limit`: first every one whose
    /// live interval in log order overlaps `[from, until)` (the asking
    /// pair's: from its `client_seed` entry to its `reveal` entry), then the
    /// others, each group by the log index of its `client_seed` entry. A
    /// pair from before the log (no indexes) counts as live from before the
    /// log until its reveal, if it has been revealed before the log.
    pub async fn pairs_with_client_seed(
        &self,
        client_seed: &str,
        from: i64,
        until: i64,
        limit: i64,
    ) -> Result<Vec<ClientSeedHolder>, sqlx::Error> {
        with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, status, client_seed_log_index, reveal_log_index, tenant, \
                 client_seed = $1 AS exact FROM seed_pairs \
                 WHERE client_seed = $1 OR client_seed_lookalike = $7 \
                 ORDER BY CASE WHEN COALESCE(client_seed_log_index, -1) < $2 \
                   AND COALESCE(reveal_log_index, CASE WHEN status = $3 THEN -1 ELSE $4 END) > $5 \
                   THEN 0 ELSE 1 END, \
                 COALESCE(client_seed_log_index, -1), id LIMIT $6",
            )
            .bind(client_seed)
            .bind(until)
            .bind(super::rows::PairStatus::Revealed.as_str())
            .bind(i64::MAX)
            .bind(from)
            .bind(limit)
            .bind(crate::text::lookalike_sha256(client_seed))
            .fetch_all(pool)
            .await
        })
    }

    /// Fills in the lookalike form of client seeds stored without it (set
    /// before migration 0012, or cleared by 0019 when the form changed): an
    /// active pair's and a draw's, the ones a new seed is refused against,
    /// a batch at a time; returns how many. Revealed pairs keep what they
    /// had, the form their log entries state.
    pub async fn fill_client_seed_lookalikes(&self) -> anyhow::Result<u64> {
        const UNFILLED: [(&str, &str); 2] = [
            (
                "SELECT id, client_seed FROM seed_pairs WHERE client_seed_lookalike IS NULL \
                 AND client_seed IS NOT NULL AND seats IS NULL AND status = 'active' LIMIT 500",
                "UPDATE seed_pairs SET client_seed_lookalike = $2 WHERE id = $1",
            ),
            (
                "SELECT id, client_seed FROM draws WHERE client_seed_lookalike IS NULL \
                 AND client_seed IS NOT NULL LIMIT 500",
                "UPDATE draws SET client_seed_lookalike = $2 WHERE id = $1",
            ),
        ];
        let mut filled = 0u64;
        for (select, update) in UNFILLED {
            loop {
                let rows: Vec<(String, String)> = with_pool!(self, |pool| {
                    sqlx::query_as(select).fetch_all(pool).await
                })?;
                if rows.is_empty() {
                    break;
                }
                write_tx!(self, |tx| {
                    for (id, client_seed) in &rows {
                        sqlx::query(update)
                            .bind(id)
                            .bind(crate::text::lookalike_sha256(client_seed))
                            .execute(&mut *tx)
                            .await?;
                    }
                });
                filled += rows.len() as u64;
            }
        }
        Ok(filled)
    }

    /// The stored hashes at `indexes`, in that order (one statement for a
    /// tile's 256: a tile is served in one round trip to the database).
    pub async fn log_hashes(&self, indexes: &[u64]) -> anyhow::Result<Vec<[u8; 32]>> {
        let found = self.log_hashes_by_index(indexes).await?;
        indexes
            .iter()
            .map(|index| {
                found
                    .get(index)
                    .copied()
                    .ok_or_else(|| anyhow::anyhow!("stored log hash {index} is missing"))
            })
            .collect()
    }
}
