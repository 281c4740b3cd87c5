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
//!   fresh statement, so a round committed concurrently is always seen;
//! - a client seed is refused while another live holder of the tenant has
//!   it or a lookalike ([`SeedReuse`]), read in the transaction that sets
//!   it, after its log entry: the log's row lock orders every transaction
//!   that writes the log, so two that give out lookalike seeds at once
//!   cannot both read "no holder".
//!
//! The store never sees a server seed in the clear except a revealed one: it
//! stores and returns sealed bytes, and the caller's closures open them.
//!
//! Where things go: row types and statuses in `rows`, one module per table
//! (`pairs`, `tables`, `rounds`, `draws`, `log`, `keys`) with its queries and outcome enums. Every write
//! runs in [`write_tx!`]; a unique-constraint violation is matched by its name
//! ([`Constraint`]), never by the wording of an error message.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};

#[macro_use]
mod rows;

pub use draws::{
    BeginDraw, DrawCommitment, DrawRequest, DrawRow, DrawStatus, DrawUpdate, DuplicateLine,
    StoreLines,
};
pub use evidence::RoundLogRow;
pub use keys::InsertKey;
pub use log::{ClientSeedHolder, Integrated, LogCheckpoint};
pub use pairs::{PairFilter, Rotate, Rotation, SealedDeal, SetClientSeed, parse_listing_cursor};
pub use recovery::{LostSeed, RestoredRound};
pub use rounds::{
    BatchedRound, ChainRound, ChainWork, CloseRound, DealContext, InsertRound, PublishedSeed,
    RoundRequest, is_idempotency_race,
};
pub use rows::{KeyRow, NewChain, NewPair, NewRound, PairRow, PairStatus, RoundRow, RoundStatus};
pub use tables::{
    Derived, Phase, SeatCommitment, SeatContribution, SeatOutcome, SeatRefused, SeatRow, SeatTaken,
    Voiding,
};

/// WAL pages after which SQLite's writer checkpoints by itself, in the
/// commit that crosses it: a backstop for processes that do not run
/// [`Store::checkpoint_wal`] (the CLI), or should it fall behind. At the
/// default 1,000 pages a commit of deals waited for a checkpoint about one
/// commit in thirteen under load, 7–10 ms each time.
const WRITER_AUTOCHECKPOINT_PAGES: u32 = 16_000;

/// The page cache of each pooled SQLite connection, in KiB (SQLite's own
/// default is 2,000 KiB a connection). Writes and migrations go through the
/// writer, so those connections read (and checkpoint the WAL), and each
/// keeps a private copy of the pages it reads: with 16 of them that was
/// 6–8 MB of a server's 38–40 MB under the load runs, for no measurable gain
/// (a page they miss is read from the operating system's cache). The
/// writer keeps SQLite's default: a batch of deals revisits its pages.
pub const READER_CACHE_KIB: u32 = 128;

/// How often the server checkpoints SQLite's WAL ([`Store::checkpoint_wal`]).
pub const WAL_CHECKPOINT_PERIOD: Duration = Duration::from_millis(100);

/// Which end a listing starts from: the first made (by time, or nonce)
/// or the last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    #[default]
    Oldest,
    Newest,
}

/// A database, SQLite or PostgreSQL.
#[derive(Clone, Debug)]
pub enum Store {
    /// The embedded default: a pool of connections for reads, and ONE
    /// connection for every write. SQLite has one writer at a time; the
    /// mutex queues this process's writers so they wait in line instead of
    /// polling the database lock (which made tail latency spike under load),
    /// and the writer's page cache stays warm: no other connection of this
    /// process writes, so it is never invalidated by one.
    Sqlite(
        SqlitePool,
        Arc<tokio::sync::Mutex<SqliteConnection>>,
        LogFloor,
    ),
    /// For several processes sharing one database.
    Postgres(PgPool, LogFloor),
}

/// How many entries the transparency log is known to have had, from
/// outside the database (the log mirror, `service::log::mirror`): no entry is
/// ever appended at an index below it. A database restored from a backup,
/// a snapshot or a lagging replica assigns indexes the log already used;
/// with the floor raised, every transaction that would append one fails
/// with [`BehindLog`] and rolls back, so nothing is dealt or signed on it.
/// Zero (no floor) without a mirror.
#[derive(Clone, Debug, Default)]
pub struct LogFloor(Arc<std::sync::atomic::AtomicU64>);

impl LogFloor {
    /// The floor now.
    pub fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Raises the floor to `size` (never lowers it).
    pub fn raise(&self, size: u64) {
        self.0.fetch_max(size, std::sync::atomic::Ordering::AcqRel);
    }
}

/// A write refused because the database is behind its log: it would have
/// appended entry `index`, but the log already had `known` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BehindLog {
    pub index: u64,
    pub known: u64,
}

impl std::fmt::Display for BehindLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the database would append log entry {}, but the log already holds {} entries: \
             it was restored or rolled back (docs/OPERATIONS.md, Restore)",
            self.index, self.known
        )
    }
}

impl std::error::Error for BehindLog {}

/// For the writes whose errors are `sqlx::Error`: carried as its source,
/// so that [`is_behind_log`] finds it through any wrapping.
impl From<BehindLog> for sqlx::Error {
    fn from(refused: BehindLog) -> Self {
        sqlx::Error::Configuration(Box::new(refused))
    }
}

/// Whether `err` is, or was caused by, a [`BehindLog`] refusal.
pub fn is_behind_log(err: &anyhow::Error) -> Option<BehindLog> {
    err.chain()
        .find_map(|cause| cause.downcast_ref::<BehindLog>().copied())
}

/// Runs `body` in a write transaction: waits for this process's writer turn
/// (SQLite), begins, runs the body with `$tx` (use `&mut *$tx` as the
/// executor), and commits when the body yields its value, which is the
/// macro's value. Errors (`?`, in the body or from begin and commit) return
/// from the enclosing function; leaving without committing rolls back.
macro_rules! write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {{
        match $store {
            Store::Sqlite(_, writer, _) => {
                let mut writer = writer.lock().await;
                let mut $tx = sqlx::Connection::begin(&mut *writer).await?;
                let value = $body;
                $tx.commit().await?;
                value
            }
            Store::Postgres(pool, _) => {
                let mut $tx = pool.begin().await?;
                let value = $body;
                $tx.commit().await?;
                value
            }
        }
    }};
}

/// Records setting `$1` as `$2`, over any value held.
pub(crate) const UPSERT_SETTING: &str = "INSERT INTO settings (name, value) VALUES ($1, $2) \
     ON CONFLICT (name) DO UPDATE SET value = excluded.value";

/// Appends a transparency-log entry inside the current write transaction
/// (`$tx`) and yields its index; refused with [`BehindLog`] below the
/// store's [`LogFloor`] (`$floor`). The `log_state` row stays locked until the
/// transaction ends, so indexes follow commit order, and the entry commits
/// or rolls back with its event.
macro_rules! append_log_entry {
    ($floor:expr, $tx:ident, $entry:expr) => {{
        let (index,): (i64,) = sqlx::query_as(
            "UPDATE log_state SET next_index = next_index + 1 WHERE id = 1 \
             RETURNING next_index - 1",
        )
        .fetch_one(&mut *$tx)
        .await?;
        // Never at an index the log already used (a restored database):
        // the transaction rolls back with its event.
        let known = $floor.get();
        if (index as u64) < known {
            return Err($crate::service::store::BehindLog {
                index: index as u64,
                known,
            }
            .into());
        }
        sqlx::query("INSERT INTO log_entries (idx, entry) VALUES ($1, $2)")
            .bind(index)
            .bind($entry)
            .execute(&mut *$tx)
            .await?;
        index
    }};
}

/// Whether a client seed may go to a pair (or a draw) while another live
/// holder of the same tenant (a pair not yet revealed; a draw of the same
/// list) has it or a seed that looks like it: one seed on two pairs lets
/// the operator deal each hand on both and show the one it liked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedReuse {
    /// Refused: the holders are answered instead, and nothing is written.
    Refused,
    /// The operator insists (`allow_reuse`); the log shows it, and the
    /// monitor and the page name it.
    Allowed,
}

/// How many holders a refusal of a lookalike seed names.
pub const SEED_HOLDERS_SHOWN: i64 = 5;

/// The ids (at most [`SEED_HOLDERS_SHOWN`], by id) that `$sql` finds
/// holding a seed that looks like `$client_seed`, other than `$id`, when
/// `$reuse` refuses them; empty when it allows them. `$sql` binds the
/// lookalike digest `$1`, `$id` as `$2`, the limit `$3`, then `$binds`.
/// Runs after the transaction's [`append_log_entry!`]: the `log_state` row
/// lock taken there orders every transaction that writes the log, so the
/// holders read here stay the holders until this transaction commits.
macro_rules! seed_holders {
    ($tx:ident, $reuse:expr, $sql:expr, $client_seed:expr, $id:expr $(, $bind:expr)*) => {{
        if $reuse == $crate::service::store::SeedReuse::Allowed {
            Vec::new()
        } else {
            let ids: Vec<(String,)> = sqlx::query_as($sql)
                .bind($crate::text::lookalike_sha256($client_seed))
                .bind($id)
                .bind($crate::service::store::SEED_HOLDERS_SHOWN)
                $(.bind($bind))*
                .fetch_all(&mut *$tx)
                .await?;
            ids.into_iter().map(|(id,)| id).collect::<Vec<String>>()
        }
    }};
}

/// What every reveal does in its write transaction (`$tx`) before it
/// writes the pair's row (a rotation's, an end's, a table's void): on
/// PostgreSQL (`$is_postgres`) takes the lock that serialises reveals, so
/// `reveal_seq` follows commit order (the export lists reveals in that
/// order); then deletes the pair's sealed chain seeds, all public once its
/// seed is.
macro_rules! before_reveal {
    ($tx:ident, $is_postgres:expr, $pair_id:expr) => {{
        if $is_postgres {
            sqlx::query("SELECT pg_advisory_xact_lock(7401)")
                .execute(&mut *$tx)
                .await?;
        }
        sqlx::query("DELETE FROM chain_anchors WHERE seed_pair_id = $1")
            .bind($pair_id)
            .execute(&mut *$tx)
            .await?;
    }};
}

// After the macros above, which they use.
mod draws;
mod evidence;
mod keys;
mod log;
mod pairs;
mod recovery;
mod rounds;
mod tables;

/// The named unique constraints the code reacts to. PostgreSQL reports the
/// constraint's name; SQLite reports `UNIQUE constraint failed: ` and the
/// constrained columns, which the table below ties to the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// `UNIQUE (seed_pair_id, nonce)` on rounds.
    RoundsPairNonce,
    /// `UNIQUE (seed_pair_id, idempotency_key)` on rounds.
    RoundsPairIdempotency,
    /// `UNIQUE (name)` on api_keys.
    ApiKeysName,
}

impl Constraint {
    const ALL: [Constraint; 3] = [
        Constraint::RoundsPairNonce,
        Constraint::RoundsPairIdempotency,
        Constraint::ApiKeysName,
    ];

    /// The constraint's name in the migrations.
    pub fn name(self) -> &'static str {
        match self {
            Constraint::RoundsPairNonce => "rounds_pair_nonce_unique",
            Constraint::RoundsPairIdempotency => "rounds_pair_idempotency_unique",
            Constraint::ApiKeysName => "api_keys_name_unique",
        }
    }

    /// The columns SQLite names when the constraint fails.
    fn sqlite_columns(self) -> &'static str {
        match self {
            Constraint::RoundsPairNonce => "rounds.seed_pair_id, rounds.nonce",
            Constraint::RoundsPairIdempotency => "rounds.seed_pair_id, rounds.idempotency_key",
            Constraint::ApiKeysName => "api_keys.name",
        }
    }

    /// The unique constraint `err` violated, if it is one of these.
    pub fn violated_by(err: &sqlx::Error) -> Option<Constraint> {
        let sqlx::Error::Database(db) = err else {
            return None;
        };
        if !db.is_unique_violation() {
            return None;
        }
        Self::ALL.into_iter().find(|c| match db.constraint() {
            Some(name) => name == c.name(),
            None => db
                .message()
                .strip_prefix("UNIQUE constraint failed: ")
                .is_some_and(|columns| columns == c.sqlite_columns()),
        })
    }
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Whether any cause in `err`'s chain is [`is_unavailable`].
pub fn is_unavailable_cause(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<sqlx::Error>())
        .any(is_unavailable)
}

/// Whether `err` means the database is out of reach (down, restarting, every
/// connection busy past the acquire timeout) rather than a fault of the
/// request or of the code. Such a request may be retried.
pub fn is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        // PostgreSQL shutting down or starting up terminates or refuses
        // sessions with these SQLSTATEs (class 57P: operator intervention),
        // too many connections (53300), a connection lost (class 08), the
        // database dropped or renamed under the service (3D000), or its
        // user's password changed (class 28): out of reach until an
        // operator acts, and retried then.
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("57P")
                || code.starts_with("08")
                || code.starts_with("28")
                || code == "53300"
                || code == "3D000"
        }),
        _ => false,
    }
}

/// What to do about a database that answers but will not take the
/// service's connection as it is configured: it does not exist (3D000), or
/// the user or password is refused (class 28). Waiting does not help, so
/// `serve` says so at once instead of retrying for `--db-wait`. `None` for
/// any other error. Never the password.
pub fn permanent_connect_problem(err: &anyhow::Error, url: &str) -> Option<String> {
    let db = err
        .chain()
        .find_map(|cause| match cause.downcast_ref::<sqlx::Error>() {
            Some(sqlx::Error::Database(db)) => Some(db),
            _ => None,
        })?;
    let code = db.code()?;
    let target = describe_url(url);
    if code == "3D000" {
        let options = PgConnectOptions::from_str(url).ok()?;
        let (host, port) = (options.get_host(), options.get_port());
        let name = options.get_database().unwrap_or("(default database)");
        return Some(format!(
            "{target}: the server has no database {name:?} ({}). Create it (createdb -h {host} \
             -p {port} {name}, or CREATE DATABASE \"{name}\" as a superuser), then start again",
            db.message()
        ));
    }
    code.starts_with("28").then(|| {
        format!(
            "{target}: the server refused the user or password of the database URL ({}). \
             Check FAIRDEAL_DATABASE_URL (--database-url) and the server's pg_hba.conf, then \
             start again",
            db.message()
        )
    })
}

/// Where a database URL points, for messages: `PostgreSQL at HOST:PORT/DB` or
/// `SQLite at PATH`. Never the password.
pub fn describe_url(url: &str) -> String {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        match PgConnectOptions::from_str(url) {
            Ok(options) => format!(
                "PostgreSQL at {}:{}/{}",
                options.get_host(),
                options.get_port(),
                options.get_database().unwrap_or("(default database)")
            ),
            Err(_) => "PostgreSQL (an unreadable URL)".to_owned(),
        }
    } else {
        format!(
            "SQLite at {}",
            url.trim_start_matches("sqlite://")
                .trim_start_matches("sqlite:")
        )
    }
}

/// How long a connection may take when no one said: patient, for tools and
/// tests on a busy machine. The service sets its own, short one
/// (`--db-acquire-timeout`), so that an outage fails fast.
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

impl Store {
    /// [`Store::connect_with_timeout`] with [`DEFAULT_ACQUIRE_TIMEOUT`].
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        Self::connect_with_timeout(url, max_connections, DEFAULT_ACQUIRE_TIMEOUT).await
    }

    /// Connects to `url` (`sqlite://PATH` or `postgres://…`), creating a
    /// SQLite file if it does not exist. A request waits at most
    /// `acquire_timeout` for a connection; past that it fails as
    /// unavailable ([`is_unavailable`]).
    pub async fn connect_with_timeout(
        url: &str,
        max_connections: u32,
        acquire_timeout: Duration,
    ) -> anyhow::Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let target = describe_url(url);
            let options = PgConnectOptions::from_str(url)
                .with_context(|| format!("reading the PostgreSQL URL for {target}"))?;
            // One connection first, so that a failure names its cause
            // (refused, unknown host, authentication) rather than only the
            // pool's "timed out".
            let patience = acquire_timeout.max(Duration::from_secs(5));
            match tokio::time::timeout(patience, PgConnection::connect_with(&options)).await {
                Ok(Ok(connection)) => {
                    let _ = connection.close().await;
                }
                Ok(Err(err)) => return Err(err).context(format!("connecting to {target}")),
                Err(_) => anyhow::bail!(
                    "connecting to {target}: no answer within {} s",
                    patience.as_secs()
                ),
            }
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(acquire_timeout)
                .connect_with(options)
                .await
                .with_context(|| format!("connecting to {target}"))?;
            Ok(Store::Postgres(pool, LogFloor::default()))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .context("reading the SQLite database URL")?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                // FULL: a round acknowledged to a client survives power loss.
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            // A SQLite file does not go away like a server: waiting for a
            // connection there is queueing behind writers, not an outage.
            // The writer checkpoints only as a backstop: the WAL is copied
            // back into the database by `checkpoint_wal`, off the writer's
            // path, so that no commit of deals waits for a checkpoint.
            let writer_options = options.clone().pragma(
                "wal_autocheckpoint",
                WRITER_AUTOCHECKPOINT_PAGES.to_string(),
            );
            let writer = SqliteConnection::connect_with(&writer_options)
                .await
                .with_context(|| format!("opening {}", describe_url(url)))?;
            let pool = SqlitePoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(acquire_timeout.max(Duration::from_secs(10)))
                // A connection to a local file does not go stale: no ping
                // before every use.
                .test_before_acquire(false)
                .connect_with(options.pragma("cache_size", format!("-{READER_CACHE_KIB}")))
                .await
                .with_context(|| format!("opening {}", describe_url(url)))?;
            Ok(Store::Sqlite(
                pool,
                Arc::new(tokio::sync::Mutex::new(writer)),
                LogFloor::default(),
            ))
        } else {
            anyhow::bail!(
                "the database URL must start with sqlite: or postgres:// (got a URL with another scheme)"
            )
        }
    }

    /// Copies the write-ahead log back into the database file as far as
    /// no reader still needs it (SQLite's `PASSIVE` checkpoint, on a reader
    /// connection, so the writer goes on meanwhile); nothing on PostgreSQL.
    /// Run every [`WAL_CHECKPOINT_PERIOD`] by the server. Returns the WAL's
    /// frames and how many are in the database.
    pub async fn checkpoint_wal(&self) -> Result<Option<(i64, i64)>, sqlx::Error> {
        match self {
            Store::Sqlite(pool, ..) => {
                let (_busy, frames, copied): (i64, i64, i64) =
                    sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                        .fetch_one(pool)
                        .await?;
                Ok(Some((frames, copied)))
            }
            Store::Postgres(..) => Ok(None),
        }
    }

    /// The floor below which no log entry is appended.
    pub fn log_floor(&self) -> &LogFloor {
        match self {
            Store::Sqlite(_, _, floor) | Store::Postgres(_, floor) => floor,
        }
    }

    /// Which backend, for logs.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(..) => "sqlite",
            Store::Postgres(..) => "postgres",
        }
    }

    /// Applies pending migrations (safe to run from several processes: sqlx
    /// takes an advisory lock on PostgreSQL).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self {
            // On the writer, like every other write (and with its full
            // page cache: a migration may copy a whole table).
            Store::Sqlite(_, writer, _) => SQLITE_MIGRATIONS.run(&mut *writer.lock().await).await,
            Store::Postgres(pool, _) => POSTGRES_MIGRATIONS.run(pool).await,
        }
        .context("applying database migrations")
    }

    /// The pool's connections and idle ones, and how long acquiring one
    /// takes now (seconds), for the metrics.
    pub async fn pool_sample(&self) -> Result<(u32, u32, f64), sqlx::Error> {
        let started = std::time::Instant::now();
        let (size, idle) = match self {
            Store::Sqlite(pool, ..) => {
                let connection = pool.acquire().await?;
                let sample = (pool.size(), pool.num_idle() as u32);
                drop(connection);
                sample
            }
            Store::Postgres(pool, _) => {
                let connection = pool.acquire().await?;
                let sample = (pool.size(), pool.num_idle() as u32);
                drop(connection);
                sample
            }
        };
        // The sample's own connection is not counted as in use.
        Ok((size, (idle + 1).min(size), started.elapsed().as_secs_f64()))
    }

    /// Whether `fairdeal serve` has set this database up (its settings
    /// table exists): commands other than `serve` never set one up.
    pub async fn has_schema(&self) -> Result<bool, sqlx::Error> {
        let (found,): (i64,) =
            match self {
                Store::Sqlite(pool, ..) => sqlx::query_as(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'settings'",
                )
                .fetch_one(pool)
                .await?,
                Store::Postgres(pool, _) => {
                    sqlx::query_as(
                        "SELECT count(*) FROM information_schema.tables \
                     WHERE table_schema = current_schema() AND table_name = 'settings'",
                    )
                    .fetch_one(pool)
                    .await?
                }
            };
        Ok(found > 0)
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

    /// Records `value` under `name` on first start; afterwards checks it.
    /// Returns the value the database holds (equal to `value` unless another
    /// process started it with another).
    pub async fn claim_setting(&self, name: &str, value: &str) -> Result<String, sqlx::Error> {
        Ok(write_tx!(self, |tx| {
            sqlx::query(
                "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .bind(value)
            .execute(&mut *tx)
            .await?;
            let (stored,): (String,) = sqlx::query_as("SELECT value FROM settings WHERE name = $1")
                .bind(name)
                .fetch_one(&mut *tx)
                .await?;
            stored
        }))
    }

    /// Records `value` under `name`, over any value held.
    pub async fn set_setting(&self, name: &str, value: &str) -> Result<(), sqlx::Error> {
        write_tx!(self, |tx| {
            sqlx::query(UPSERT_SETTING)
                .bind(name)
                .bind(value)
                .execute(&mut *tx)
                .await?;
        });
        Ok(())
    }

    /// A setting, if set.
    pub async fn setting(&self, name: &str) -> Result<Option<String>, sqlx::Error> {
        let value: Option<(String,)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT value FROM settings WHERE name = $1")
                .bind(name)
                .fetch_optional(pool)
                .await
        })?;
        Ok(value.map(|(value,)| value))
    }

    /// Records the master key's fingerprint on first start; afterwards checks
    /// it. Returns false when the database was sealed under another key.
    pub async fn check_key_fingerprint(&self, fingerprint: &str) -> Result<bool, sqlx::Error> {
        Ok(self
            .claim_setting("master_key_fingerprint", fingerprint)
            .await?
            == fingerprint)
    }
}
