//! The reads behind a pair's bulk log evidence
//! (`GET /v1/seed-pairs/{id}/evidence`): a page of rounds with their log
//! entries, a checkpoint by its size, and stored hashes by the hundred.

use std::collections::HashMap;

use super::{LogCheckpoint, Store};

/// A round with its log entry (none for a round dealt before the log).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RoundLogRow {
    pub id: String,
    pub nonce: i64,
    pub log_index: Option<i64>,
    pub entry: Option<Vec<u8>>,
}

/// Stored hashes read per statement (one parameter each).
const HASHES_PER_SELECT: usize = 500;

impl Store {
    /// Rounds of a pair with nonce > `after` (all when `None`), by nonce, at
    /// most `limit`, each with its log entry's bytes.
    pub async fn rounds_with_log_entries(
        &self,
        pair_id: &str,
        after: Option<i64>,
        limit: i64,
    ) -> Result<Vec<RoundLogRow>, sqlx::Error> {
        with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT r.id, r.nonce, r.log_index, e.entry FROM rounds r \
                 LEFT JOIN log_entries e ON e.idx = r.log_index \
                 WHERE r.seed_pair_id = $1 AND r.nonce > $2 ORDER BY r.nonce LIMIT $3",
            )
            .bind(pair_id)
            .bind(after.unwrap_or(-1))
            .bind(limit)
            .fetch_all(pool)
            .await
        })
    }

    /// The signed checkpoint of exactly `size` entries, if the log signed one.
    pub async fn log_checkpoint_of_size(
        &self,
        size: u64,
    ) -> Result<Option<LogCheckpoint>, sqlx::Error> {
        let Ok(size) = i64::try_from(size) else {
            return Ok(None);
        };
        let row: Option<(Vec<u8>, String)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT root, note FROM log_checkpoints WHERE size = $1")
                .bind(size)
                .fetch_optional(pool)
                .await
        })?;
        Ok(row.map(|(root, note)| LogCheckpoint {
            size: size as u64,
            root,
            note,
        }))
    }

    /// The stored hashes at `indexes` (any order, repeats allowed), a few
    /// hundred a statement; an index with no stored hash is an error.
    pub async fn log_hashes_by_index(
        &self,
        indexes: &[u64],
    ) -> anyhow::Result<HashMap<u64, [u8; 32]>> {
        let mut found = HashMap::with_capacity(indexes.len());
        for chunk in indexes.chunks(HASHES_PER_SELECT) {
            let mut chunk: Vec<i64> = chunk
                .iter()
                .map(|&i| i64::try_from(i))
                .collect::<Result<_, _>>()?;
            if let Store::Sqlite(pool, ..) = self {
                // One row, not one a hash: the SQLite driver hands each row
                // over across a thread (a tile's 256 rows cost the server
                // several times the CPU of one row of hex).
                chunk.sort_unstable();
                chunk.dedup();
                let mut select = sqlx::QueryBuilder::new(
                    "SELECT group_concat(hex(hash), '' ORDER BY idx) FROM log_hashes WHERE idx IN (",
                );
                let mut list = select.separated(", ");
                for index in &chunk {
                    list.push_bind(*index);
                }
                select.push(")");
                let (joined,): (Option<String>,) = select.build_query_as().fetch_one(pool).await?;
                let bytes = hex::decode(joined.unwrap_or_default())?;
                if bytes.len() == 32 * chunk.len() {
                    for (index, hash) in chunk.iter().zip(bytes.chunks_exact(32)) {
                        let mut h = [0; 32];
                        h.copy_from_slice(hash);
                        found.insert(*index as u64, h);
                    }
                }
                // Fewer hashes than asked (or one not 32 bytes): the check
                // below names the first index missing.
                continue;
            }
            // Built inside the body: a query builder is typed by its backend.
            let rows: Vec<(i64, Vec<u8>)> = with_pool!(self, |pool| {
                let mut select =
                    sqlx::QueryBuilder::new("SELECT idx, hash FROM log_hashes WHERE idx IN (");
                let mut list = select.separated(", ");
                for index in &chunk {
                    list.push_bind(*index);
                }
                select.push(")");
                select.build_query_as().fetch_all(pool).await
            })?;
            for (index, hash) in rows {
                let hash: [u8; 32] = hash
                    .try_into()
                    .map_err(|_| anyhow::anyhow!("a stored log hash is not 32 bytes"))?;
                found.insert(index as u64, hash);
            }
        }
        if let Some(missing) = indexes.iter().find(|i| !found.contains_key(i)) {
            anyhow::bail!("stored log hash {missing} is missing");
        }
        Ok(found)
    }
}
