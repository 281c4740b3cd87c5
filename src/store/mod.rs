//! The one storage seam: seed pairs, rounds, API keys, in domain words.
//!
//! SQLite (the embedded default) and PostgreSQL sit behind the same methods and
//! the same SQL text (`$N` placeholders work in both); only the migrations
//! differ by dialect. Every guarantee that must hold across processes is
//! enforced by the database:
//!
//! - a round's nonce comes from `UPDATE seed_pairs SET next_nonce = next_nonce + 1
//!   … RETURNING`, in the same transaction as the round's insert, so nonces run
//!   0, 1, 2, … without gap or repeat, and `UNIQUE (seed_pair_id, nonce)` backs
//!   it up;
//! - a round is answered only after that transaction commits;
//! - rotation first locks the pair row, then looks for rounds in play with a
//!   fresh statement, so a round committed concurrently is always seen.
//!
//! The store never sees a server seed in the clear except a revealed one: it
//! stores and returns sealed bytes, and the caller's closures open them.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sqlx::FromRow;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

/// A database, SQLite or PostgreSQL.
#[derive(Clone, Debug)]
pub enum Store {
    /// The embedded default. SQLite has one writer at a time; the mutex
    /// queues this process's writers so they wait in line instead of
    /// polling the database lock (which made tail latency spike under load).
    Sqlite(SqlitePool, Arc<tokio::sync::Mutex<()>>),
    /// For several processes sharing one database.
    Postgres(PgPool),
}

/// Runs the same code against whichever pool the store holds. The body is
/// compiled once per backend, so it must use SQL both dialects accept.
macro_rules! with_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match $store {
            Store::Sqlite($pool, _) => $body,
            Store::Postgres($pool) => $body,
        }
    };
}

/// A seed pair as stored.
#[derive(Clone, Debug, FromRow)]
pub struct PairRow {
    pub id: String,
    pub status: String,
    pub server_seed_hash: String,
    pub server_seed_sealed: Option<Vec<u8>>,
    pub server_seed: Option<String>,
    pub next_server_seed_hash: String,
    pub next_server_seed_sealed: Option<Vec<u8>>,
    pub client_seed: Option<String>,
    pub next_nonce: i64,
    pub created_at: i64,
    pub revealed_at: Option<i64>,
    pub predecessor_id: Option<String>,
    pub successor_id: Option<String>,
    /// Position in the order of reveals (1, 2, …), once revealed.
    pub reveal_seq: Option<i64>,
}

/// A round as stored.
#[derive(Clone, Debug, FromRow)]
pub struct RoundRow {
    pub id: String,
    pub seed_pair_id: String,
    pub nonce: i64,
    pub game: String,
    pub deal: String,
    pub status: String,
    pub created_at: i64,
    pub closed_at: Option<i64>,
    pub idempotency_key: Option<String>,
}

/// An API key as stored (the secret itself is never stored).
#[derive(Clone, Debug, FromRow)]
pub struct KeyRow {
    pub id: String,
    pub name: String,
    pub secret_hash: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A new seed pair, its seeds already sealed.
#[derive(Debug)]
pub struct NewPair {
    pub id: String,
    pub status: &'static str,
    pub server_seed_hash: String,
    pub server_seed_sealed: Vec<u8>,
    pub next_server_seed_hash: String,
    pub next_server_seed_sealed: Vec<u8>,
    pub client_seed: Option<String>,
    pub created_at: i64,
    pub predecessor_id: Option<String>,
}

/// The outcome of setting a client seed.
#[derive(Debug)]
pub enum SetClientSeed {
    Set(PairRow),
    NotFound,
    /// Already set (or revealed): the pair as it is.
    AlreadySet(PairRow),
}

/// What the deal closure receives inside the round transaction.
#[derive(Debug)]
pub struct DealContext<'a> {
    pub nonce: u64,
    pub server_seed_sealed: &'a [u8],
    pub client_seed: &'a str,
}

/// A round to insert, made by the deal closure.
#[derive(Debug)]
pub struct NewRound {
    pub id: String,
    pub game: String,
    pub deal: String,
    pub created_at: i64,
}

/// The outcome of dealing a round.
#[derive(Debug)]
pub enum InsertRound {
    Dealt(RoundRow),
    /// The idempotency key was used before on this pair: that round.
    Replayed(RoundRow),
    NotFound,
    /// The pair does not take rounds (`awaiting_client_seed` or `revealed`).
    NotActive(String),
    /// The pair has dealt 2^63 rounds.
    Exhausted,
}

/// What rotation needs to build the next pair, made by the rotate closure
/// from the current pair's sealed seeds.
#[derive(Debug)]
pub struct Rotation {
    pub revealed_server_seed: String,
    pub successor: NewPair,
}

/// The outcome of a rotation.
#[derive(Debug)]
pub enum Rotate {
    Rotated {
        revealed: Box<PairRow>,
        current: Box<PairRow>,
    },
    NotFound,
    NotActive(String),
    /// Rounds still in play (ids), so the seed cannot be revealed yet.
    RoundsInPlay(Vec<String>),
}

/// The outcome of closing a round.
#[derive(Debug)]
pub enum CloseRound {
    Closed(RoundRow),
    NotFound,
}

/// A unique-constraint violation, by constraint or column name.
fn is_unique_violation(err: &sqlx::Error, name: &str) -> bool {
    match err {
        sqlx::Error::Database(db) => {
            db.is_unique_violation()
                && (db.constraint() == Some(name) || db.message().contains(name))
        }
        _ => false,
    }
}

// Column lists as macros so every query stays a compile-time literal (sqlx
// refuses SQL built at run time unless audited).
macro_rules! pair_columns {
    () => {
        "id, status, server_seed_hash, server_seed_sealed, server_seed, \
         next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at, \
         revealed_at, predecessor_id, successor_id, reveal_seq"
    };
}

macro_rules! round_columns {
    () => {
        "id, seed_pair_id, nonce, game, deal, status, created_at, closed_at, idempotency_key"
    };
}

/// Binds a [`NewPair`] to [`INSERT_PAIR`]'s parameters, in order.
macro_rules! bind_new_pair {
    ($query:expr, $pair:expr) => {
        $query
            .bind(&$pair.id)
            .bind($pair.status)
            .bind(&$pair.server_seed_hash)
            .bind(&$pair.server_seed_sealed)
            .bind(&$pair.next_server_seed_hash)
            .bind(&$pair.next_server_seed_sealed)
            .bind(&$pair.client_seed)
            .bind($pair.created_at)
            .bind(&$pair.predecessor_id)
    };
}

const INSERT_PAIR: &str = concat!(
    "INSERT INTO seed_pairs (id, status, server_seed_hash, server_seed_sealed, \
     next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at, \
     predecessor_id) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9) RETURNING ",
    pair_columns!()
);

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

impl Store {
    /// Connects to `url` (`sqlite://PATH` or `postgres://…`), creating a
    /// SQLite file if it does not exist.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(Duration::from_secs(10))
                .connect(url)
                .await
                .context("connecting to PostgreSQL")?;
            Ok(Store::Postgres(pool))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .context("reading the SQLite database URL")?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                // FULL: a round acknowledged to a client survives power loss.
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(max_connections)
                .connect_with(options)
                .await
                .context("opening the SQLite database")?;
            Ok(Store::Sqlite(pool, Arc::new(tokio::sync::Mutex::new(()))))
        } else {
            anyhow::bail!(
                "the database URL must start with sqlite: or postgres:// (got a URL with another scheme)"
            )
        }
    }

    /// Waits for this process's turn to write (SQLite only).
    async fn writer(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match self {
            Store::Sqlite(_, writer) => Some(writer.lock().await),
            Store::Postgres(_) => None,
        }
    }

    /// Which backend, for logs.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(..) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Applies pending migrations (safe to run from several processes: sqlx
    /// takes an advisory lock on PostgreSQL).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self {
            Store::Sqlite(pool, _) => SQLITE_MIGRATIONS.run(pool).await,
            Store::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await,
        }
        .context("applying database migrations")
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        with_pool!(self, |pool| pool.close().await)
    }

    /// `SELECT 1`.
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        with_pool!(self, |pool| sqlx::query("SELECT 1")
            .execute(pool)
            .await
            .map(|_| ()))
    }

    /// Records the master key's fingerprint on first start; afterwards checks
    /// it. Returns false when the database was sealed under another key.
    pub async fn check_key_fingerprint(&self, fingerprint: &str) -> anyhow::Result<bool> {
        let _writer = self.writer().await;
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO settings (name, value) VALUES ('master_key_fingerprint', $1) \
                 ON CONFLICT (name) DO NOTHING",
            )
            .bind(fingerprint)
            .execute(pool)
            .await?;
            let (stored,): (String,) =
                sqlx::query_as("SELECT value FROM settings WHERE name = 'master_key_fingerprint'")
                    .fetch_one(pool)
                    .await?;
            Ok(stored == fingerprint)
        })
    }

    pub async fn insert_pair(&self, pair: &NewPair) -> Result<PairRow, sqlx::Error> {
        let _writer = self.writer().await;
        with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let row: PairRow = bind_new_pair!(sqlx::query_as(INSERT_PAIR), pair)
                .fetch_one(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    pub async fn pair(&self, id: &str) -> Result<Option<PairRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", pair_columns!(), " FROM seed_pairs WHERE id = $1");
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)
    }

    pub async fn set_client_seed(
        &self,
        id: &str,
        client_seed: &str,
    ) -> Result<SetClientSeed, sqlx::Error> {
        const SQL: &str = concat!(
            "UPDATE seed_pairs SET client_seed = $2, status = 'active' \
             WHERE id = $1 AND status = 'awaiting_client_seed' RETURNING ",
            pair_columns!()
        );
        let writer = self.writer().await;
        let updated: Option<PairRow> = with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(id)
                .bind(client_seed)
                .fetch_optional(pool)
                .await
        })?;
        drop(writer);
        Ok(match updated {
            Some(row) => SetClientSeed::Set(row),
            None => match self.pair(id).await? {
                Some(row) => SetClientSeed::AlreadySet(row),
                None => SetClientSeed::NotFound,
            },
        })
    }

    /// Deals a round in one transaction: takes the pair's next nonce, calls
    /// `deal` with it and the sealed seed, inserts the round, commits. With an
    /// idempotency key already used on this pair, returns that round and
    /// spends no nonce.
    pub async fn insert_round<F>(
        &self,
        pair_id: &str,
        idempotency_key: Option<&str>,
        deal: F,
    ) -> anyhow::Result<InsertRound>
    where
        F: Fn(&DealContext<'_>) -> anyhow::Result<NewRound>,
    {
        // A concurrent request with the same idempotency key can lose the race
        // on the unique constraint; it then finds the winner's round.
        for _attempt in 0..2 {
            if let Some(key) = idempotency_key
                && let Some(existing) = self.round_by_idempotency_key(pair_id, key).await?
            {
                return Ok(InsertRound::Replayed(existing));
            }
            match self.try_insert_round(pair_id, idempotency_key, &deal).await {
                Err(err)
                    if err
                        .downcast_ref::<sqlx::Error>()
                        .is_some_and(|e| is_unique_violation(e, "idempotency")) =>
                {
                    continue;
                }
                other => return other,
            }
        }
        anyhow::bail!("idempotency key race did not settle")
    }

    async fn try_insert_round<F>(
        &self,
        pair_id: &str,
        idempotency_key: Option<&str>,
        deal: &F,
    ) -> anyhow::Result<InsertRound>
    where
        F: Fn(&DealContext<'_>) -> anyhow::Result<NewRound>,
    {
        let take_nonce = "UPDATE seed_pairs SET next_nonce = next_nonce + 1 \
             WHERE id = $1 AND status = 'active' AND next_nonce < 9223372036854775807 \
             RETURNING next_nonce - 1, server_seed_sealed, client_seed";
        const INSERT: &str = concat!(
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at, idempotency_key) \
             VALUES ($1, $2, $3, $4, $5, 'in_play', $6, $7) RETURNING ",
            round_columns!()
        );
        let writer = self.writer().await;
        let dealt: Option<RoundRow> = with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let taken: Option<(i64, Option<Vec<u8>>, Option<String>)> = sqlx::query_as(take_nonce)
                .bind(pair_id)
                .fetch_optional(&mut *tx)
                .await?;
            match taken {
                Some((nonce, Some(sealed), Some(client_seed))) => {
                    let round = deal(&DealContext {
                        nonce: nonce as u64,
                        server_seed_sealed: &sealed,
                        client_seed: &client_seed,
                    })?;
                    let row: RoundRow = sqlx::query_as(INSERT)
                        .bind(&round.id)
                        .bind(pair_id)
                        .bind(nonce)
                        .bind(&round.game)
                        .bind(&round.deal)
                        .bind(round.created_at)
                        .bind(idempotency_key)
                        .fetch_one(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Some(row)
                }
                Some(_) => {
                    anyhow::bail!("an active seed pair without a sealed seed or client seed")
                }
                None => None,
            }
        });
        drop(writer);
        if let Some(row) = dealt {
            return Ok(InsertRound::Dealt(row));
        }
        Ok(match self.pair(pair_id).await? {
            None => InsertRound::NotFound,
            Some(pair) if pair.status == "active" => InsertRound::Exhausted,
            Some(pair) => InsertRound::NotActive(pair.status),
        })
    }

    async fn round_by_idempotency_key(
        &self,
        pair_id: &str,
        key: &str,
    ) -> Result<Option<RoundRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            round_columns!(),
            " FROM rounds WHERE seed_pair_id = $1 AND idempotency_key = $2"
        );
        with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(pair_id)
                .bind(key)
                .fetch_optional(pool)
                .await
        })
    }

    pub async fn round(&self, id: &str) -> Result<Option<RoundRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", round_columns!(), " FROM rounds WHERE id = $1");
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)
    }

    /// Rounds of a pair with nonce > `after` (all when `None`), by nonce, at
    /// most `limit`.
    pub async fn rounds_of_pair(
        &self,
        pair_id: &str,
        after: Option<i64>,
        limit: i64,
    ) -> Result<Vec<RoundRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            round_columns!(),
            " FROM rounds WHERE seed_pair_id = $1 AND nonce > $2 \
             ORDER BY nonce LIMIT $3"
        );
        with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(pair_id)
                .bind(after.unwrap_or(-1))
                .bind(limit)
                .fetch_all(pool)
                .await
        })
    }

    /// Marks a round closed (closing a closed round changes nothing).
    pub async fn close_round(&self, id: &str, now: i64) -> Result<CloseRound, sqlx::Error> {
        let _writer = self.writer().await;
        const SQL: &str = concat!(
            "UPDATE rounds SET status = 'closed', closed_at = COALESCE(closed_at, $2) \
             WHERE id = $1 RETURNING ",
            round_columns!()
        );
        let row: Option<RoundRow> = with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .bind(now)
            .fetch_optional(pool)
            .await)?;
        Ok(row.map_or(CloseRound::NotFound, CloseRound::Closed))
    }

    /// Closes every round in play created before `created_before`; returns
    /// how many.
    pub async fn close_stale_rounds(
        &self,
        created_before: i64,
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        let _writer = self.writer().await;
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE rounds SET status = 'closed', closed_at = $2 \
                 WHERE status = 'in_play' AND created_at < $1",
            )
            .bind(created_before)
            .bind(now)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })
    }

    /// Reveals the pair and opens its successor, atomically. `rotation`
    /// receives the current pair (with its sealed seeds) and returns the
    /// revealed seed and the successor to insert.
    pub async fn rotate<F>(&self, pair_id: &str, rotation: F) -> anyhow::Result<Rotate>
    where
        F: Fn(&PairRow) -> anyhow::Result<Rotation>,
    {
        // Locks the row (PostgreSQL) or the database (SQLite) for the rest of
        // the transaction; a concurrent deal waits, then sees `revealed`.
        const LOCK: &str = concat!(
            "UPDATE seed_pairs SET next_nonce = next_nonce WHERE id = $1 RETURNING ",
            pair_columns!()
        );
        let in_play = "SELECT id FROM rounds WHERE seed_pair_id = $1 AND status = 'in_play' \
                       ORDER BY nonce LIMIT 100";
        const REVEAL: &str = concat!(
            "UPDATE seed_pairs SET status = 'revealed', server_seed = $2, server_seed_sealed = NULL, \
             next_server_seed_sealed = NULL, revealed_at = $3, successor_id = $4, \
             reveal_seq = (SELECT COALESCE(MAX(reveal_seq), 0) + 1 FROM seed_pairs) \
             WHERE id = $1 RETURNING ",
            pair_columns!()
        );
        let _writer = self.writer().await;
        let is_postgres = matches!(self, Store::Postgres(_));
        with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let Some(pair): Option<PairRow> = sqlx::query_as(LOCK)
                .bind(pair_id)
                .fetch_optional(&mut *tx)
                .await?
            else {
                return Ok(Rotate::NotFound);
            };
            if pair.status != "active" {
                return Ok(Rotate::NotActive(pair.status));
            }
            let rounds: Vec<(String,)> = sqlx::query_as(in_play)
                .bind(pair_id)
                .fetch_all(&mut *tx)
                .await?;
            if !rounds.is_empty() {
                return Ok(Rotate::RoundsInPlay(
                    rounds.into_iter().map(|(id,)| id).collect(),
                ));
            }
            let Rotation {
                revealed_server_seed,
                successor,
            } = rotation(&pair)?;
            let now = successor.created_at;
            let current: PairRow = bind_new_pair!(sqlx::query_as(INSERT_PAIR), successor)
                .fetch_one(&mut *tx)
                .await?;
            if is_postgres {
                // Serialises reveals so reveal_seq follows commit order.
                sqlx::query("SELECT pg_advisory_xact_lock(7401)")
                    .execute(&mut *tx)
                    .await?;
            }
            let revealed: PairRow = sqlx::query_as(REVEAL)
                .bind(pair_id)
                .bind(&revealed_server_seed)
                .bind(now)
                .bind(&successor.id)
                .fetch_one(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Rotate::Rotated {
                revealed: Box::new(revealed),
                current: Box::new(current),
            })
        })
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
            " FROM seed_pairs WHERE status = 'revealed' AND reveal_seq > $1 ORDER BY reveal_seq LIMIT $2"
        );
        with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await
        })
    }

    pub async fn insert_key(&self, key: &KeyRow) -> anyhow::Result<()> {
        let _writer = self.writer().await;
        let result = with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO api_keys (id, name, secret_hash, created_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(&key.id)
            .bind(&key.name)
            .bind(&key.secret_hash)
            .bind(key.created_at)
            .execute(pool)
            .await
            .map(|_| ())
        });
        match result {
            Ok(()) => Ok(()),
            Err(err) if is_unique_violation(&err, "name") => {
                anyhow::bail!(
                    "a key named {:?} exists already; choose another name",
                    key.name
                )
            }
            Err(err) => Err(err).context("storing the key"),
        }
    }

    pub async fn key(&self, id: &str) -> Result<Option<KeyRow>, sqlx::Error> {
        with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, name, secret_hash, created_at, revoked_at FROM api_keys WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await
        })
    }

    pub async fn keys(&self) -> Result<Vec<KeyRow>, sqlx::Error> {
        with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, name, secret_hash, created_at, revoked_at FROM api_keys ORDER BY created_at, name",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Revokes the key named `name`; false when there is no such active key.
    pub async fn revoke_key(&self, name: &str, now: i64) -> Result<bool, sqlx::Error> {
        let _writer = self.writer().await;
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE api_keys SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL",
            )
            .bind(name)
            .bind(now)
            .execute(pool)
            .await
            .map(|done| done.rows_affected() == 1)
        })
    }
}
