//! Where the witness keeps, for each log origin, the latest checkpoint it
//! cosigned: SQLite (a file in the data directory, by default) or
//! PostgreSQL (shared by several witness processes).
//!
//! The one write is a compare-and-set: a row moves from the (size, root)
//! the decision was made against to the new checkpoint in ONE statement,
//! `UPDATE … WHERE origin = $ AND size = $ AND root = $`, and a log's first
//! row is `INSERT … ON CONFLICT DO NOTHING`. A statement that changed no row
//! means another request (of this process, of another process on the same
//! database, or before a restart) moved the row first: the caller decides
//! again against what is there now. Tree sizes only grow, and the same size
//! keeps its root, so a (size, root) seen once never comes back: no
//! request can roll the row back or cosign beside a fork.
//!
//! The tables and the migrations table are the witness's own
//! (`witness_checkpoints`, `_fairdeal_witness_migrations`), so a witness
//! may share a database with the dealing service.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use super::protocol::Held;

/// The migrations table of the witness (not sqlx's default, which the
/// dealing service's migrations use).
const MIGRATIONS_TABLE: &str = "_fairdeal_witness_migrations";

/// The witness's database.
#[derive(Clone, Debug)]
pub enum WitnessStore {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl WitnessStore {
    /// Connects to `url` (`sqlite://PATH`, created if missing, or
    /// `postgres://…`) and applies the witness's migrations.
    pub async fn open(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        let store = Self::connect(url, max_connections).await?;
        store.migrate().await?;
        Ok(store)
    }

    async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options =
                PgConnectOptions::from_str(url).context("reading the PostgreSQL database URL")?;
            // Where it points, never the password.
            let target = format!(
                "PostgreSQL at {}:{}/{}",
                options.get_host(),
                options.get_port(),
                options.get_database().unwrap_or_default()
            );
            let pool = PgPoolOptions::new()
                .max_connections(max_connections.max(1))
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await
                .with_context(|| format!("connecting to {target}"))?;
            Ok(Self::Postgres(pool))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .context("reading the SQLite database URL")?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                // FULL: a checkpoint is on disk before its cosignature leaves.
                .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(max_connections.max(1))
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await
                .with_context(|| format!("opening the SQLite database {}", options_path(url)))?;
            Ok(Self::Sqlite(pool))
        } else {
            anyhow::bail!("the witness's database URL must start with sqlite: or postgres://")
        }
    }

    /// Applies pending migrations (several processes at once on PostgreSQL:
    /// sqlx takes an advisory lock).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self {
            Self::Sqlite(pool) => {
                let mut migrator = sqlx::migrate!("./migrations/witness/sqlite");
                migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
                migrator.run(pool).await
            }
            Self::Postgres(pool) => {
                let mut migrator = sqlx::migrate!("./migrations/witness/postgres");
                migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
                migrator.run(pool).await
            }
        }
        .context("applying the witness's database migrations")
    }

    /// The latest checkpoint cosigned for `origin`.
    pub async fn latest(&self, origin: &str) -> anyhow::Result<Option<Held>> {
        const SQL: &str = "SELECT size, root, note FROM witness_checkpoints WHERE origin = $1";
        let row: Option<(i64, Vec<u8>, String)> = with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(origin)
            .fetch_optional(pool)
            .await)
        .context("reading the latest cosigned checkpoint")?;
        row.map(|(size, root, note)| {
            Ok(Held {
                size: u64::try_from(size).context("a stored tree size is negative")?,
                root: <[u8; 32]>::try_from(root.as_slice())
                    .ok()
                    .context("a stored root hash is not 32 bytes")?,
                note,
            })
        })
        .transpose()
    }

    /// Moves `origin`'s row from `from` (the (size, root) held when the
    /// decision was made; `None`: no row) to `to`, in one atomic statement.
    /// `false` when the row was not `from` any more (another request moved
    /// it): nothing was written.
    pub async fn advance(
        &self,
        origin: &str,
        from: Option<(u64, [u8; 32])>,
        to: &Held,
        now_ms: i64,
    ) -> anyhow::Result<bool> {
        let size = i64::try_from(to.size).context("a tree size above 2^63 - 1")?;
        let changed = match from {
            Some((old_size, old_root)) => {
                const SQL: &str = "UPDATE witness_checkpoints \
                     SET size = $1, root = $2, note = $3, updated_ms = $4 \
                     WHERE origin = $5 AND size = $6 AND root = $7";
                let old_size = i64::try_from(old_size).context("a tree size above 2^63 - 1")?;
                with_pool!(self, |pool| sqlx::query(SQL)
                    .bind(size)
                    .bind(&to.root[..])
                    .bind(&to.note)
                    .bind(now_ms)
                    .bind(origin)
                    .bind(old_size)
                    .bind(&old_root[..])
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected()))
            }
            None => {
                const SQL: &str = "INSERT INTO witness_checkpoints \
                     (origin, size, root, note, updated_ms) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (origin) DO NOTHING";
                with_pool!(self, |pool| sqlx::query(SQL)
                    .bind(origin)
                    .bind(size)
                    .bind(&to.root[..])
                    .bind(&to.note)
                    .bind(now_ms)
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected()))
            }
        }
        .context("recording the cosigned checkpoint")?;
        Ok(changed == 1)
    }

    /// Whether the database answers (for `/healthz`).
    pub async fn ping(&self) -> anyhow::Result<()> {
        with_pool!(self, |pool| sqlx::query("SELECT 1")
            .execute(pool)
            .await
            .map(drop))
        .context("the witness's database does not answer")
    }

    /// Closes the pool.
    pub async fn close(&self) {
        with_pool!(self, |pool| pool.close().await)
    }
}

/// A SQLite URL's path, for messages.
fn options_path(url: &str) -> &str {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    path.split('?').next().unwrap_or(path)
}
