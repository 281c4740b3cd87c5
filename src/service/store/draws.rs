//! Draws (fairdeal-draw-v1): an uploaded list is stored a batch at a time
//! under a hidden draft row, which becomes the published draw — list
//! commitment and server seed commitment, with their log entry — in one
//! transaction at the end, or is deleted with its lines if the list is
//! refused. Setting the client seed and running the draw are each one
//! conditional update with its log entry.

use std::fmt;

use serde::{Deserialize, Serialize};
use sqlx::{FromRow, QueryBuilder};
use utoipa::ToSchema;

use super::{SeedReuse, Store};

/// Where a draw is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DrawStatus {
    /// Its list is arriving: not published.
    Uploading,
    /// Its list was refused or abandoned: its lines are being deleted.
    Discarded,
    /// Committed (list and server seed); waits for its client seed.
    AwaitingClientSeed,
    /// Has its client seed; waits to be run.
    Ready,
    /// Drawn: winners stored, server seed revealed.
    Drawn,
}

status_text!(DrawStatus {
    Uploading => "uploading",
    Discarded => "discarded",
    AwaitingClientSeed => "awaiting_client_seed",
    Ready => "ready",
    Drawn => "drawn",
});

/// A draw as stored.
#[derive(Clone, Debug, FromRow)]
pub struct DrawRow {
    pub seq: i64,
    pub id: String,
    pub tenant: String,
    pub label: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: DrawStatus,
    pub entries_uploaded: bool,
    pub entries_sha256: Option<String>,
    pub entries: Option<i64>,
    pub entries_bytes: Option<i64>,
    pub touched_at: i64,
    pub winners: i64,
    pub client_seed_source: String,
    pub server_seed_hash: Option<String>,
    pub server_seed_sealed: Option<Vec<u8>>,
    pub server_seed: Option<String>,
    pub client_seed: Option<String>,
    /// The winners' entrant indices as a JSON array, once drawn.
    pub result: Option<String>,
    pub idempotency_key: Option<String>,
    pub created_at: i64,
    pub client_seed_at: Option<i64>,
    pub drawn_at: Option<i64>,
    pub commit_log_index: Option<i64>,
    pub client_seed_log_index: Option<i64>,
    pub result_log_index: Option<i64>,
    /// Set by recovery after a restore: the first of this draw's log
    /// entries the database lost. It never takes a client seed or runs.
    pub lost_log_index: Option<i64>,
}

/// Lines deleted per transaction when a draft is discarded.
pub const DELETE_CHUNK: i64 = 20_000;

impl DrawRow {
    /// Whether the draw is public (committed): not a draft.
    pub fn is_published(&self) -> bool {
        !matches!(self.status, DrawStatus::Uploading | DrawStatus::Discarded)
    }

    /// The revealed server seed, only once drawn: the one rule for who may
    /// see a draw's seed.
    pub fn revealed_seed(&self) -> Option<&str> {
        match self.status {
            DrawStatus::Drawn => self.server_seed.as_deref(),
            _ => None,
        }
    }

    /// The winners' indices, once drawn.
    pub fn winner_indices(&self) -> anyhow::Result<Option<Vec<u32>>> {
        self.result
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(Into::into)
    }
}

macro_rules! draw_columns {
    () => {
        "seq, id, tenant, label, status, entries_uploaded, entries_sha256, entries, \
         entries_bytes, touched_at, winners, \
         client_seed_source, server_seed_hash, server_seed_sealed, server_seed, client_seed, \
         result, idempotency_key, created_at, client_seed_at, drawn_at, commit_log_index, \
         client_seed_log_index, result_log_index, lost_log_index"
    };
}

/// What a new draw says of itself, before its commitment.
#[derive(Debug, Clone)]
pub struct DrawRequest {
    pub id: String,
    pub tenant: String,
    pub label: Option<String>,
    pub winners: i64,
    pub client_seed_source: String,
    pub idempotency_key: Option<String>,
    pub created_at: i64,
}

/// A draw's commitments, made when its list is complete (or given).
#[derive(Debug)]
pub struct DrawCommitment {
    pub entries_sha256: String,
    pub entries: i64,
    pub server_seed_hash: String,
    pub server_seed_sealed: Vec<u8>,
    pub log_entry: Vec<u8>,
}

/// The outcome of starting a draw.
#[derive(Debug)]
pub enum BeginDraw {
    /// A new draft (upload) or a new published draw (commitment given).
    Started(DrawRow),
    /// The tenant already used this idempotency key: that draw.
    Existing(DrawRow),
}

/// A line that repeats an earlier one: its index and the earlier one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuplicateLine {
    pub index: u64,
    pub first: u64,
}

/// The outcome of storing a batch of a draft's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreLines {
    Stored,
    /// A line repeats an earlier one: nothing of the batch was stored.
    Duplicate(DuplicateLine),
    /// The draft is no longer uploading (discarded, or swept as abandoned).
    Gone,
}

/// The outcome of setting a draw's client seed or running it.
#[derive(Debug)]
pub enum DrawUpdate {
    Done(DrawRow),
    NotFound,
    /// Not in the status the change needs: the draw as it is.
    Refused(DrawRow),
    /// Refused ([`SeedReuse::Refused`]): these draws of the tenant from the
    /// same list have the client seed or one that looks like it. Nothing
    /// was written.
    SeedInUse(Vec<String>),
}

/// A draw's step as one write transaction: appends its log entry
/// (`$entry`), then runs the conditional update `$query` (given the
/// entry's index). When no row matched (the draw is not in the state the
/// step needs), rolls back, the entry with it, and answers the draw as it
/// is now ([`DrawUpdate::Refused`]).
/// `then |tx, row| …` runs after the update, in the transaction (it may
/// return early, which rolls back).
macro_rules! logged_draw_update {
    ($store:expr, $id:expr, $entry:expr, |$index:ident| $query:expr) => {
        logged_draw_update!($store, $id, $entry, |$index| $query, then | tx, row | {})
    };
    ($store:expr, $id:expr, $entry:expr, |$index:ident| $query:expr,
     then |$tx:ident, $row:ident| $then:expr) => {{
        let updated: DrawRow = write_tx!($store, |$tx| {
            let $index = append_log_entry!($store.log_floor(), $tx, $entry);
            let row: Option<DrawRow> = $query.fetch_optional(&mut *$tx).await?;
            let Some($row) = row else {
                // Roll back (the log entry goes too) before reading.
                drop($tx);
                return $store.draw_refused($id).await;
            };
            $then;
            $row
        });
        Ok(DrawUpdate::Done(updated))
    }};
}

/// The tenant's other draws from the same list holding the lookalike `$1`
/// (for [`seed_holders!`]).
const SAME_LIST_HOLDERS: &str = "SELECT id FROM draws WHERE client_seed_lookalike = $1 \
     AND id <> $2 AND tenant = (SELECT tenant FROM draws WHERE id = $2) \
     AND entries_sha256 = (SELECT entries_sha256 FROM draws WHERE id = $2) ORDER BY id LIMIT $3";

impl Store {
    /// Starts a draw: a hidden draft to upload a list into (`commitment`
    /// `None`), or a published draw whose list was committed by hash.
    pub async fn begin_draw(
        &self,
        draw: &DrawRequest,
        commitment: Option<&DrawCommitment>,
    ) -> Result<BeginDraw, sqlx::Error> {
        const INSERT: &str = concat!(
            "INSERT INTO draws (id, tenant, label, status, entries_uploaded, winners, \
             client_seed_source, idempotency_key, created_at, entries_sha256, entries, \
             server_seed_hash, server_seed_sealed, commit_log_index, touched_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $9) \
             ON CONFLICT (tenant, idempotency_key) DO NOTHING RETURNING ",
            draw_columns!()
        );
        const EXISTING: &str = concat!(
            "SELECT ",
            draw_columns!(),
            " FROM draws WHERE tenant = $1 AND idempotency_key = $2"
        );
        Ok(write_tx!(self, |tx| {
            let index = match commitment {
                Some(c) => Some(append_log_entry!(self.log_floor(), tx, &c.log_entry)),
                None => None,
            };
            let status = if commitment.is_some() {
                DrawStatus::AwaitingClientSeed
            } else {
                DrawStatus::Uploading
            };
            let row: Option<DrawRow> = sqlx::query_as(INSERT)
                .bind(&draw.id)
                .bind(&draw.tenant)
                .bind(&draw.label)
                .bind(status.as_str())
                .bind(commitment.is_none())
                .bind(draw.winners)
                .bind(&draw.client_seed_source)
                .bind(&draw.idempotency_key)
                .bind(draw.created_at)
                .bind(commitment.map(|c| &c.entries_sha256))
                .bind(commitment.map(|c| c.entries))
                .bind(commitment.map(|c| &c.server_seed_hash))
                .bind(commitment.map(|c| &c.server_seed_sealed))
                .bind(index)
                .fetch_optional(&mut *tx)
                .await?;
            match row {
                Some(row) => BeginDraw::Started(row),
                None => {
                    let existing: DrawRow = sqlx::query_as(EXISTING)
                        .bind(&draw.tenant)
                        .bind(&draw.idempotency_key)
                        .fetch_one(&mut *tx)
                        .await?;
                    // Nothing to keep: the log entry goes with the rollback.
                    return Ok(BeginDraw::Existing(existing));
                }
            }
        }))
    }

    /// Stores `lines` (consecutive, the first at `first_index`) of draft
    /// `seq` (`id`), in one transaction, and marks the draft as alive now;
    /// or, if one repeats a line already stored or an earlier one of the
    /// batch, stores nothing and names it; or, if the draft is no longer
    /// uploading, stores nothing.
    pub async fn insert_draw_lines(
        &self,
        seq: i64,
        id: &str,
        first_index: u64,
        lines: &[String],
        now_ms: i64,
    ) -> Result<StoreLines, sqlx::Error> {
        const TOUCH: &str = "UPDATE draws SET touched_at = $3 \
                             WHERE seq = $1 AND id = $2 AND status = $4 RETURNING seq";
        const FIRST: &str = "SELECT idx FROM draw_entries WHERE draw_seq = $1 AND line = $2";
        // PostgreSQL parses a statement of 24,576 parameters slowly (two
        // thirds of a batch's time); there the batch goes as one JSON array
        // of lines, expanded in order. SQLite takes the multi-row VALUES.
        const INSERT_PG: &str = "INSERT INTO draw_entries (draw_seq, idx, line) \
             SELECT $1, $2 + t.o - 1, t.l \
             FROM json_array_elements_text($3::json) WITH ORDINALITY AS t(l, o) ORDER BY t.o \
             ON CONFLICT (draw_seq, line) DO NOTHING RETURNING idx";
        let as_json = match self {
            Store::Postgres(..) => {
                Some(serde_json::to_string(lines).map_err(|e| sqlx::Error::Encode(Box::new(e)))?)
            }
            Store::Sqlite(..) => None,
        };
        Ok(write_tx!(self, |tx| {
            let alive: Option<(i64,)> = sqlx::query_as(TOUCH)
                .bind(seq)
                .bind(id)
                .bind(now_ms)
                .bind(DrawStatus::Uploading.as_str())
                .fetch_optional(&mut *tx)
                .await?;
            if alive.is_none() {
                return Ok(StoreLines::Gone);
            }
            if lines.is_empty() {
                StoreLines::Stored
            } else {
                let stored: Vec<(i64,)> = match &as_json {
                    Some(json) => {
                        sqlx::query_as(INSERT_PG)
                            .bind(seq)
                            .bind(first_index as i64)
                            .bind(json.as_str())
                            .fetch_all(&mut *tx)
                            .await?
                    }
                    None => {
                        let mut insert =
                            QueryBuilder::new("INSERT INTO draw_entries (draw_seq, idx, line) ");
                        insert.push_values(lines.iter().enumerate(), |mut row, (i, line)| {
                            row.push_bind(seq)
                                .push_bind((first_index + i as u64) as i64)
                                .push_bind(line.as_str());
                        });
                        insert.push(" ON CONFLICT (draw_seq, line) DO NOTHING RETURNING idx");
                        insert.build_query_as().fetch_all(&mut *tx).await?
                    }
                };
                if stored.len() == lines.len() {
                    StoreLines::Stored
                } else {
                    // The first line not stored repeats an earlier one.
                    let mut stored: Vec<u64> = stored.into_iter().map(|(i,)| i as u64).collect();
                    stored.sort_unstable();
                    let offset = stored
                        .iter()
                        .enumerate()
                        .find(|(i, idx)| **idx != first_index + *i as u64)
                        .map_or(stored.len(), |(i, _)| i);
                    let (first,): (i64,) = sqlx::query_as(FIRST)
                        .bind(seq)
                        .bind(&lines[offset])
                        .fetch_one(&mut *tx)
                        .await?;
                    // Rolls back this batch; the caller discards the draft.
                    return Ok(StoreLines::Duplicate(DuplicateLine {
                        index: first_index + offset as u64,
                        first: first as u64,
                    }));
                }
            }
        }))
    }

    /// Publishes draft `seq` (`id`): its list's commitment (and size), its
    /// server seed's, and their log entry. `None` if it is no longer a
    /// draft.
    pub async fn publish_draw(
        &self,
        seq: i64,
        id: &str,
        commitment: &DrawCommitment,
        entries_bytes: u64,
    ) -> Result<Option<DrawRow>, sqlx::Error> {
        const PUBLISH: &str = concat!(
            "UPDATE draws SET status = $2, entries_sha256 = $3, entries = $4, \
             server_seed_hash = $5, server_seed_sealed = $6, commit_log_index = $7, \
             entries_bytes = $9 WHERE seq = $1 AND status = $8 AND id = $10 RETURNING ",
            draw_columns!()
        );
        Ok(write_tx!(self, |tx| {
            let index = append_log_entry!(self.log_floor(), tx, &commitment.log_entry);
            let row: Option<DrawRow> = sqlx::query_as(PUBLISH)
                .bind(seq)
                .bind(DrawStatus::AwaitingClientSeed.as_str())
                .bind(&commitment.entries_sha256)
                .bind(commitment.entries)
                .bind(&commitment.server_seed_hash)
                .bind(&commitment.server_seed_sealed)
                .bind(index)
                .bind(DrawStatus::Uploading.as_str())
                .bind(entries_bytes as i64)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
            if row.is_none() {
                return Ok(None);
            }
            row
        }))
    }

    /// Discards draft `seq` (`id`): marks it discarded (so that its upload,
    /// if it is still running, stores nothing more and cannot publish), then
    /// deletes its lines [`DELETE_CHUNK`] at a time, each in a transaction
    /// of its own so that other writers get their turn, then the row.
    /// False if it was not a draft (published meanwhile, or gone).
    pub async fn discard_draft(&self, seq: i64, id: &str) -> Result<bool, sqlx::Error> {
        let marked: Option<(i64,)> = write_tx!(self, |tx| {
            sqlx::query_as(
                "UPDATE draws SET status = $3 WHERE seq = $1 AND id = $2 \
                 AND status IN ($3, $4) RETURNING seq",
            )
            .bind(seq)
            .bind(id)
            .bind(DrawStatus::Discarded.as_str())
            .bind(DrawStatus::Uploading.as_str())
            .fetch_optional(&mut *tx)
            .await?
        });
        if marked.is_none() {
            return Ok(false);
        }
        loop {
            let deleted = write_tx!(self, |tx| {
                sqlx::query(
                    "DELETE FROM draw_entries WHERE draw_seq = $1 AND idx IN \
                     (SELECT idx FROM draw_entries WHERE draw_seq = $1 ORDER BY idx LIMIT $2)",
                )
                .bind(seq)
                .bind(DELETE_CHUNK)
                .execute(&mut *tx)
                .await?
                .rows_affected()
            });
            if deleted == 0 {
                break;
            }
        }
        write_tx!(self, |tx| {
            sqlx::query("DELETE FROM draws WHERE seq = $1 AND status = $2")
                .bind(seq)
                .bind(DrawStatus::Discarded.as_str())
                .execute(&mut *tx)
                .await?;
        });
        Ok(true)
    }

    /// Discards drafts whose last batch came before `before_ms` (uploads cut
    /// off by a crash or a lost connection), and finishes discards a crash
    /// interrupted; how many.
    pub async fn discard_stale_drafts(&self, before_ms: i64) -> Result<u64, sqlx::Error> {
        let stale: Vec<(i64, String)> = with_pool!(self, |pool| sqlx::query_as(
            "SELECT seq, id FROM draws WHERE (status = $1 AND touched_at < $2) OR status = $3"
        )
        .bind(DrawStatus::Uploading.as_str())
        .bind(before_ms)
        .bind(DrawStatus::Discarded.as_str())
        .fetch_all(pool)
        .await)?;
        let mut discarded = 0;
        for (seq, id) in &stale {
            discarded += u64::from(self.discard_draft(*seq, id).await?);
        }
        Ok(discarded)
    }

    /// A page of `tenant`'s published draws past `after` (a `seq`) in
    /// `order`.
    pub async fn tenant_draws(
        &self,
        tenant: &str,
        after: Option<i64>,
        order: super::Order,
        limit: i64,
    ) -> Result<Vec<DrawRow>, sqlx::Error> {
        const OLDEST: &str = concat!(
            "SELECT ",
            draw_columns!(),
            " FROM draws WHERE tenant = $1 AND seq > $2 AND status NOT IN ($3, $4) \
             ORDER BY seq LIMIT $5"
        );
        const NEWEST: &str = concat!(
            "SELECT ",
            draw_columns!(),
            " FROM draws WHERE tenant = $1 AND seq < $2 AND status NOT IN ($3, $4) \
             ORDER BY seq DESC LIMIT $5"
        );
        let (sql, after) = match order {
            super::Order::Oldest => (OLDEST, after.unwrap_or(0)),
            super::Order::Newest => (NEWEST, after.unwrap_or(i64::MAX)),
        };
        with_pool!(self, |pool| sqlx::query_as(sql)
            .bind(tenant)
            .bind(after)
            .bind(DrawStatus::Uploading.as_str())
            .bind(DrawStatus::Discarded.as_str())
            .bind(limit)
            .fetch_all(pool)
            .await)
    }

    /// Every tenant's drawn draws after `after` (their `seq`), oldest first,
    /// at most `limit`: what the export lists.
    pub async fn drawn_draws(&self, after: i64, limit: i64) -> Result<Vec<DrawRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            draw_columns!(),
            " FROM draws WHERE status = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        );
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(DrawStatus::Drawn.as_str())
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await)
    }

    /// The draw `id` (a draft too: callers decide what to show).
    pub async fn draw(&self, id: &str) -> Result<Option<DrawRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", draw_columns!(), " FROM draws WHERE id = $1");
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)
    }

    /// Sets the client seed of a draw awaiting one, with its log entry;
    /// under [`SeedReuse::Refused`], not while another draw of the tenant
    /// from the same list has it or a lookalike.
    pub async fn set_draw_client_seed(
        &self,
        id: &str,
        client_seed: &str,
        reuse: SeedReuse,
        at_ms: i64,
        log_entry: &[u8],
    ) -> Result<DrawUpdate, sqlx::Error> {
        const SQL: &str = concat!(
            "UPDATE draws SET client_seed = $2, status = $3, client_seed_at = $4, \
             client_seed_log_index = $5, client_seed_lookalike = $7 \
             WHERE id = $1 AND status = $6 AND lost_log_index IS NULL RETURNING ",
            draw_columns!()
        );
        logged_draw_update!(
            self,
            id,
            log_entry,
            |index| sqlx::query_as(SQL)
                .bind(id)
                .bind(client_seed)
                .bind(DrawStatus::Ready.as_str())
                .bind(at_ms)
                .bind(index)
                .bind(DrawStatus::AwaitingClientSeed.as_str())
                .bind(crate::text::lookalike_sha256(client_seed)),
            then | tx,
            row | {
                let holders: Vec<String> =
                    seed_holders!(tx, reuse, SAME_LIST_HOLDERS, client_seed, id);
                if !holders.is_empty() {
                    return Ok(DrawUpdate::SeedInUse(holders));
                }
            }
        )
    }

    /// Stores a ready draw's winners and reveals its seed, with the log
    /// entry, in one transaction.
    pub async fn record_draw(
        &self,
        id: &str,
        server_seed: &str,
        result: &str,
        at_ms: i64,
        log_entry: &[u8],
    ) -> Result<DrawUpdate, sqlx::Error> {
        const SQL: &str = concat!(
            "UPDATE draws SET status = $2, server_seed = $3, server_seed_sealed = NULL, \
             result = $4, drawn_at = $5, result_log_index = $6 WHERE id = $1 AND status = $7 \
             AND lost_log_index IS NULL RETURNING ",
            draw_columns!()
        );
        logged_draw_update!(self, id, log_entry, |index| sqlx::query_as(SQL)
            .bind(id)
            .bind(DrawStatus::Drawn.as_str())
            .bind(server_seed)
            .bind(result)
            .bind(at_ms)
            .bind(index)
            .bind(DrawStatus::Ready.as_str()))
    }

    /// After a refused conditional update (its transaction rolled back):
    /// the draw as it is now.
    async fn draw_refused(&self, id: &str) -> Result<DrawUpdate, sqlx::Error> {
        Ok(match self.draw(id).await? {
            Some(row) if row.is_published() => DrawUpdate::Refused(row),
            _ => DrawUpdate::NotFound,
        })
    }

    /// Lines `from..from + limit` of draw `seq`'s list, in order.
    pub async fn draw_lines(
        &self,
        seq: i64,
        from: u64,
        limit: u64,
    ) -> Result<Vec<(i64, String)>, sqlx::Error> {
        with_pool!(self, |pool| sqlx::query_as(
            "SELECT idx, line FROM draw_entries WHERE draw_seq = $1 AND idx >= $2 AND idx < $3 \
             ORDER BY idx"
        )
        .bind(seq)
        .bind(from as i64)
        .bind((from + limit) as i64)
        .fetch_all(pool)
        .await)
    }

    /// The lines at `indices` of draw `seq`'s list (any order).
    pub async fn draw_lines_at(
        &self,
        seq: i64,
        indices: &[u32],
    ) -> Result<Vec<(i64, String)>, sqlx::Error> {
        let mut found = Vec::with_capacity(indices.len());
        for chunk in indices.chunks(1000) {
            let rows: Vec<(i64, String)> = with_pool!(self, |pool| {
                let mut query =
                    QueryBuilder::new("SELECT idx, line FROM draw_entries WHERE draw_seq = ");
                query.push_bind(seq).push(" AND idx IN (");
                let mut list = query.separated(", ");
                for &index in chunk {
                    list.push_bind(i64::from(index));
                }
                query.push(")");
                query.build_query_as().fetch_all(pool).await
            })?;
            found.extend(rows);
        }
        Ok(found)
    }
}

impl fmt::Display for DuplicateLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} repeats line {}", self.index + 1, self.first + 1)
    }
}
