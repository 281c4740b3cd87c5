//! Seed pairs: commit, set the client seed, read, rotate, list the revealed.

use super::rows::{NewPair, PairRow, PairStatus, RoundStatus};
use super::{SeedReuse, Store};

/// The outcome of setting a client seed.
#[derive(Debug)]
pub enum SetClientSeed {
    Set(PairRow),
    NotFound,
    /// Already set (or revealed): the pair as it is.
    AlreadySet(PairRow),
    /// Refused ([`SeedReuse::Refused`]): these live pairs of the tenant
    /// hold the seed or one that looks like it. Nothing was written.
    SeedInUse(Vec<String>),
}

/// [`seed_holders!`] of the tenant's live pairs other than `$id`.
macro_rules! live_pair_holders {
    ($tx:ident, $reuse:expr, $client_seed:expr, $id:expr) => {
        seed_holders!(
            $tx,
            $reuse,
            LIVE_PAIR_HOLDERS,
            $client_seed,
            $id,
            PairStatus::Active.as_str()
        )
    };
}

/// The tenant's live pairs other than `$2` holding the lookalike `$1` (for
/// [`seed_holders!`]).
const LIVE_PAIR_HOLDERS: &str = "SELECT id FROM seed_pairs WHERE client_seed_lookalike = $1 \
     AND status = $4 AND id <> $2 AND tenant = (SELECT tenant FROM seed_pairs WHERE id = $2) \
     ORDER BY id LIMIT $3";

/// A round whose deal is sealed: its id and the sealed bytes.
pub type SealedDeal = (String, Vec<u8>);

/// What rotation needs, made by the rotate closure from the current pair's
/// sealed seeds and its rounds' sealed deals.
#[derive(Debug)]
pub struct Rotation {
    pub revealed_server_seed: String,
    /// The pair opened after it; none when the session ends.
    pub successor: Option<NewPair>,
    /// When it happens (ms).
    pub at: i64,
    /// The log entries of the rotation, in order: the reveal, then the
    /// successor's commitment and its client seed (none for a table, whose
    /// seats contribute it later; neither when the session ends).
    pub log_entries: Vec<Vec<u8>>,
    /// Each sealed round's id and its deal's JSON, to store in the clear.
    pub opened_deals: Vec<(String, String)>,
    /// The index of a reveal entry the log already holds for this pair
    /// (one a restored database lost and `fairdeal recover` appended
    /// again): then `log_entries` is empty and no second reveal is logged.
    pub logged_reveal: Option<i64>,
    /// Entries appended after the reveal, in the same transaction (the
    /// reveal of a successor a restored database lost; see
    /// `dealer::recovery`).
    pub also_logged: Vec<Vec<u8>>,
}

/// The outcome of a rotation.
#[derive(Debug)]
pub enum Rotate {
    Rotated {
        revealed: Box<PairRow>,
        current: Box<PairRow>,
    },
    /// Revealed with no successor: the session is over.
    Ended(Box<PairRow>),
    NotFound,
    NotActive(PairStatus),
    /// Rounds still in play (ids), so the seed cannot be revealed yet.
    RoundsInPlay(Vec<String>),
    /// A one-player pair rotated without a client seed (or seats) for its
    /// successor.
    NeedsClientSeed,
    /// A table rotated with a client seed: its successor is a table, whose
    /// seats contribute the seed.
    TableTakesNoClientSeed,
    /// Refused ([`SeedReuse::Refused`]): these live pairs of the tenant hold
    /// the successor's client seed or one that looks like it. Nothing was
    /// written.
    SeedInUse(Vec<String>),
}

impl PairRow {
    /// Where this pair stands in a listing: its creation time and id. Pass
    /// it back to continue after the pair.
    pub fn listing_cursor(&self) -> String {
        format!("{}.{}", self.created_at, self.id)
    }
}

/// Reads a cursor made by [`PairRow::listing_cursor`].
pub fn parse_listing_cursor(text: &str) -> Option<(i64, &str)> {
    let (ms, id) = text.split_once('.')?;
    Some((ms.parse().ok()?, id))
}

/// Which of a tenant's pairs to list.
#[derive(Debug, Default)]
pub struct PairFilter {
    pub status: Option<PairStatus>,
    pub label: Option<String>,
}

/// Binds a [`NewPair`] to [`INSERT_PAIR`]'s parameters, in order.
macro_rules! bind_new_pair {
    ($query:expr, $pair:expr) => {
        $query
            .bind(&$pair.id)
            .bind($pair.status.as_str())
            .bind(&$pair.server_seed_hash)
            .bind(&$pair.server_seed_sealed)
            .bind(&$pair.next_server_seed_hash)
            .bind(&$pair.next_server_seed_sealed)
            .bind(&$pair.client_seed)
            .bind($pair.created_at)
            .bind(&$pair.predecessor_id)
            .bind(&$pair.tenant)
            .bind(&$pair.label)
            .bind(
                $pair
                    .table
                    .as_ref()
                    .map(|(seats, _)| seats.labels().len() as i64),
            )
            .bind($pair.table.as_ref().map(|(_, deadline)| *deadline))
            .bind(
                $pair
                    .table
                    .as_ref()
                    .map(|(seats, _)| super::rows::seats_key(seats)),
            )
            .bind(
                $pair
                    .client_seed
                    .as_deref()
                    .filter(|_| $pair.table.is_none())
                    .map(crate::text::lookalike_sha256),
            )
            .bind($pair.chain.as_ref().map(|chain| chain.length as i64))
    };
}

/// Inserts a new table pair's seats (none for a one-player pair) and a
/// chain pair's sealed seeds on `$tx`.
macro_rules! insert_seats {
    ($tx:ident, $pair:expr) => {
        if let Some(chain) = &$pair.chain {
            // In batches: a chain of a million rounds has 7,813 of them.
            for batch in chain.anchors.chunks(1000) {
                let mut insert = sqlx::QueryBuilder::new(
                    "INSERT INTO chain_anchors (seed_pair_id, position, seed_sealed) ",
                );
                insert.push_values(batch, |mut row, (position, sealed)| {
                    row.push_bind(&$pair.id)
                        .push_bind(*position as i64)
                        .push_bind(sealed.as_slice());
                });
                insert.build().execute(&mut *$tx).await?;
            }
        }
        if let Some((seats, _)) = &$pair.table {
            for (position, label) in seats.labels().iter().enumerate() {
                sqlx::query(
                    "INSERT INTO table_seats (seed_pair_id, position, label) VALUES ($1, $2, $3)",
                )
                .bind(&$pair.id)
                .bind(position as i64)
                .bind(label)
                .execute(&mut *$tx)
                .await?;
            }
        }
    };
}

const INSERT_PAIR: &str = concat!(
    "INSERT INTO seed_pairs (id, status, server_seed_hash, server_seed_sealed, \
     next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at, \
     predecessor_id, tenant, label, seats, phase_deadline, seats_key, client_seed_lookalike, \
     chain_length, commit_log_index) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
     RETURNING ",
    pair_columns!()
);

impl Store {
    /// Inserts a committed pair and its log entry.
    pub async fn insert_pair(
        &self,
        pair: &NewPair,
        log_entry: &[u8],
    ) -> Result<PairRow, sqlx::Error> {
        Ok(write_tx!(self, |tx| {
            let index = append_log_entry!(self.log_floor(), tx, log_entry);
            let row: PairRow = bind_new_pair!(sqlx::query_as(INSERT_PAIR), pair)
                .bind(index)
                .fetch_one(&mut *tx)
                .await?;
            insert_seats!(tx, pair);
            row
        }))
    }

    pub async fn pair(&self, id: &str) -> Result<Option<PairRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", pair_columns!(), " FROM seed_pairs WHERE id = $1");
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)
    }

    /// Sets the client seed once, with its log entry; under
    /// [`SeedReuse::Refused`], not while another live pair of the tenant
    /// holds it or a lookalike.
    pub async fn set_client_seed(
        &self,
        id: &str,
        client_seed: &str,
        reuse: SeedReuse,
        log_entry: &[u8],
    ) -> Result<SetClientSeed, sqlx::Error> {
        const SQL: &str = concat!(
            "UPDATE seed_pairs SET client_seed = $2, status = $3, client_seed_lookalike = $5 \
             WHERE id = $1 AND status = $4 RETURNING ",
            pair_columns!()
        );
        let updated: Option<PairRow> = write_tx!(self, |tx| {
            let updated: Option<PairRow> = sqlx::query_as(SQL)
                .bind(id)
                .bind(client_seed)
                .bind(PairStatus::Active.as_str())
                .bind(PairStatus::AwaitingClientSeed.as_str())
                .bind(crate::text::lookalike_sha256(client_seed))
                .fetch_optional(&mut *tx)
                .await?;
            match updated {
                Some(_) => {
                    let index = append_log_entry!(self.log_floor(), tx, log_entry);
                    let holders: Vec<String> = live_pair_holders!(tx, reuse, client_seed, id);
                    if !holders.is_empty() {
                        return Ok(SetClientSeed::SeedInUse(holders));
                    }
                    const RECORD: &str = concat!(
                        "UPDATE seed_pairs SET client_seed_log_index = $2 WHERE id = $1 RETURNING ",
                        pair_columns!()
                    );
                    let row: PairRow = sqlx::query_as(RECORD)
                        .bind(id)
                        .bind(index)
                        .fetch_one(&mut *tx)
                        .await?;
                    Some(row)
                }
                None => None,
            }
        });
        Ok(match updated {
            Some(row) => SetClientSeed::Set(row),
            None => match self.pair(id).await? {
                Some(row) => SetClientSeed::AlreadySet(row),
                None => SetClientSeed::NotFound,
            },
        })
    }

    /// Reveals the pair and opens its successor, atomically. `rotation`
    /// receives the current pair (with its sealed seeds) and its rounds'
    /// sealed deals, and returns the revealed seed, the opened deals (stored
    /// in the clear from now on) and the successor to insert (none when the
    /// session `ending`: then a pair still awaiting its client seed or its
    /// seats' contributions may be revealed too; it dealt nothing).
    /// `successor_seed`: the client seed the successor takes, refused under
    /// [`SeedReuse::Refused`] while another live pair of the tenant holds it
    /// or a lookalike.
    pub async fn rotate<F>(
        &self,
        pair_id: &str,
        ending: bool,
        successor_seed: Option<(&str, SeedReuse)>,
        rotation: F,
    ) -> anyhow::Result<Rotate>
    where
        F: Fn(&PairRow, &[SealedDeal]) -> anyhow::Result<Rotation>,
    {
        // Locks the row (PostgreSQL) or the database (SQLite) for the rest of
        // the transaction; a concurrent deal waits, then sees `revealed`.
        const LOCK: &str = concat!(
            "UPDATE seed_pairs SET next_nonce = next_nonce WHERE id = $1 RETURNING ",
            pair_columns!()
        );
        const IN_PLAY: &str = "SELECT id FROM rounds WHERE seed_pair_id = $1 AND status = $2 \
                               ORDER BY nonce LIMIT 100";
        const SEALED: &str = "SELECT id, deal_sealed FROM rounds \
                              WHERE seed_pair_id = $1 AND deal_sealed IS NOT NULL";
        const UNSEAL: &str = "UPDATE rounds SET deal = $2, deal_sealed = NULL WHERE id = $1";
        const REVEAL: &str = concat!(
            "UPDATE seed_pairs SET status = $5, server_seed = $2, server_seed_sealed = NULL, \
             next_server_seed_sealed = NULL, revealed_at = $3, successor_id = $4, reveal_log_index = $6, \
             phase_deadline = NULL, \
             reveal_seq = (SELECT COALESCE(MAX(reveal_seq), 0) + 1 FROM seed_pairs) \
             WHERE id = $1 RETURNING ",
            pair_columns!()
        );
        let is_postgres = matches!(self, Store::Postgres(..));
        Ok(write_tx!(self, |tx| {
            let Some(pair): Option<PairRow> = sqlx::query_as(LOCK)
                .bind(pair_id)
                .fetch_optional(&mut *tx)
                .await?
            else {
                return Ok(Rotate::NotFound);
            };
            let may_end = matches!(
                pair.status,
                PairStatus::Active
                    | PairStatus::AwaitingClientSeed
                    | PairStatus::AwaitingContributions
            );
            if pair.status != PairStatus::Active && !(ending && may_end) {
                return Ok(Rotate::NotActive(pair.status));
            }
            let rounds: Vec<(String,)> = sqlx::query_as(IN_PLAY)
                .bind(pair_id)
                .bind(RoundStatus::InPlay.as_str())
                .fetch_all(&mut *tx)
                .await?;
            if !rounds.is_empty() {
                return Ok(Rotate::RoundsInPlay(
                    rounds.into_iter().map(|(id,)| id).collect(),
                ));
            }
            let sealed: Vec<SealedDeal> = sqlx::query_as(SEALED)
                .bind(pair_id)
                .fetch_all(&mut *tx)
                .await?;
            let Rotation {
                revealed_server_seed,
                successor,
                at: now,
                opened_deals,
                log_entries,
                logged_reveal,
                also_logged,
            } = rotation(&pair, &sealed)?;
            for (round_id, deal) in &opened_deals {
                sqlx::query(UNSEAL)
                    .bind(round_id)
                    .bind(deal)
                    .execute(&mut *tx)
                    .await?;
            }
            // Log order: the reveal, the successor's commit, its client seed
            // (a table's successor has none yet; an ended session, neither).
            let (reveal_index, commit, client_seed) = match (logged_reveal, &log_entries[..]) {
                (Some(logged), []) => (logged, None, None),
                (None, [reveal, rest @ ..]) if rest.len() <= 2 => (
                    append_log_entry!(self.log_floor(), tx, reveal),
                    rest.first(),
                    rest.get(1),
                ),
                _ => anyhow::bail!(
                    "a rotation logs one to three entries, or none when its reveal is logged"
                ),
            };
            if let Some((seed, reuse)) = successor_seed {
                // After the reveal's entry; before the successor, which takes it.
                // The pair revealed here may have held it: it is no longer live.
                let holders: Vec<String> = live_pair_holders!(tx, reuse, seed, pair_id);
                if !holders.is_empty() {
                    return Ok(Rotate::SeedInUse(holders));
                }
            }
            for entry in &also_logged {
                append_log_entry!(self.log_floor(), tx, entry);
            }
            let mut current: Option<PairRow> = None;
            if let (Some(successor), Some(commit)) = (&successor, commit) {
                let commit_index = append_log_entry!(self.log_floor(), tx, commit);
                let row: PairRow = bind_new_pair!(sqlx::query_as(INSERT_PAIR), successor)
                    .bind(commit_index)
                    .fetch_one(&mut *tx)
                    .await?;
                insert_seats!(tx, successor);
                current = Some(row);
            }
            if let (Some(client_seed), Some(row)) = (client_seed, current.as_mut()) {
                let client_seed_index = append_log_entry!(self.log_floor(), tx, client_seed);
                const RECORD: &str = concat!(
                    "UPDATE seed_pairs SET client_seed_log_index = $2 WHERE id = $1 RETURNING ",
                    pair_columns!()
                );
                *row = sqlx::query_as(RECORD)
                    .bind(&row.id)
                    .bind(client_seed_index)
                    .fetch_one(&mut *tx)
                    .await?;
            }
            before_reveal!(tx, is_postgres, pair_id);
            let revealed: PairRow = sqlx::query_as(REVEAL)
                .bind(pair_id)
                .bind(&revealed_server_seed)
                .bind(now)
                .bind(successor.as_ref().map(|s| s.id.clone()))
                .bind(PairStatus::Revealed.as_str())
                .bind(reveal_index)
                .fetch_one(&mut *tx)
                .await?;
            match current {
                Some(current) => Rotate::Rotated {
                    revealed: Box::new(revealed),
                    current: Box::new(current),
                },
                None => Rotate::Ended(Box::new(revealed)),
            }
        }))
    }

    /// A tenant's pairs past the cursor `after` (its `created_at` and id)
    /// in `order` (oldest or newest first), at most `limit`, with the given
    /// status and label when those are given.
    pub async fn tenant_pairs(
        &self,
        tenant: &str,
        filter: &PairFilter,
        after: Option<(i64, &str)>,
        order: super::Order,
        limit: i64,
    ) -> Result<Vec<PairRow>, sqlx::Error> {
        const OLDEST: &str = concat!(
            "SELECT ",
            pair_columns!(),
            " FROM seed_pairs WHERE tenant = $1 \
             AND ($2 IS NULL OR status = $2) AND ($3 IS NULL OR label = $3) \
             AND (created_at > $4 OR (created_at = $4 AND id > $5)) \
             ORDER BY created_at, id LIMIT $6"
        );
        const NEWEST: &str = concat!(
            "SELECT ",
            pair_columns!(),
            " FROM seed_pairs WHERE tenant = $1 \
             AND ($2 IS NULL OR status = $2) AND ($3 IS NULL OR label = $3) \
             AND (created_at < $4 OR (created_at = $4 AND id < $5)) \
             ORDER BY created_at DESC, id DESC LIMIT $6"
        );
        let (sql, (after_ms, after_id)) = match order {
            super::Order::Oldest => (OLDEST, after.unwrap_or((i64::MIN, ""))),
            // Ids are ASCII (UUIDs): every one sorts before U+007F.
            super::Order::Newest => (NEWEST, after.unwrap_or((i64::MAX, "\u{7f}"))),
        };
        with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(tenant)
                .bind(filter.status.map(PairStatus::as_str))
                .bind(filter.label.as_deref())
                .bind(after_ms)
                .bind(after_id)
                .bind(limit)
                .fetch_all(pool)
                .await
        })
    }

    /// The last log index of a reveal at or before `seq` (an export's
    /// cursor), if any was logged. The greatest, not the last by
    /// `reveal_seq`: voids from before migration 0013 took sequence numbers
    /// above every reveal then, with earlier log indexes.
    pub async fn reveal_log_index_through(&self, seq: i64) -> Result<Option<i64>, sqlx::Error> {
        const SQL: &str = "SELECT MAX(reveal_log_index) FROM seed_pairs WHERE reveal_seq <= $1";
        let row: Option<(Option<i64>,)> = with_pool!(self, |pool| {
            sqlx::query_as(SQL).bind(seq).fetch_optional(pool).await
        })?;
        Ok(row.and_then(|(index,)| index))
    }

    /// Revealed pairs with `reveal_seq > after`, in reveal order, at most `limit`.
    pub async fn revealed_pairs(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<PairRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            pair_columns!(),
            " FROM seed_pairs WHERE status IN ($3, $4) AND reveal_seq > $1 \
             ORDER BY reveal_seq LIMIT $2"
        );
        with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(limit)
                .bind(PairStatus::Revealed.as_str())
                .bind(PairStatus::Void.as_str())
                .fetch_all(pool)
                .await
        })
    }
}
