//! A fresh database per test: a SQLite file in a temporary directory, or a
//! new database on the PostgreSQL server named by `TEST_DATABASE_URL`.

use std::io::Write as _;

use fairdeal::service::store::Store;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// One test's database, and a temporary directory (the SQLite files, logs,
/// the data directory of a real process).
#[derive(Debug)]
pub struct TestDatabase {
    pub backend: Backend,
    pub url: String,
    pub dir: tempfile::TempDir,
    /// PostgreSQL: the server's URL and the database to drop at the end.
    pub postgres: Option<(String, String)>,
}

impl TestDatabase {
    /// `None` (and a notice on stderr) for PostgreSQL when `TEST_DATABASE_URL`
    /// is unset outside CI. In CI an unset variable or an unreachable server
    /// fails the test.
    pub async fn create(backend: Backend) -> Option<Self> {
        let dir = tempfile::tempdir().expect("temp dir");
        if backend == Backend::Sqlite {
            return Some(Self {
                backend,
                url: format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
                dir,
                postgres: None,
            });
        }
        let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the PostgreSQL suite: set TEST_DATABASE_URL"
            );
            // Written straight to stderr so the test harness does not hide it.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: PostgreSQL test (set TEST_DATABASE_URL=postgres://USER@HOST:5432/DB to run it)"
            );
            return None;
        };
        let name = format!("fairdeal_test_{}", uuid::Uuid::new_v4().simple());
        let admin = sqlx::PgPool::connect(&admin_url).await.unwrap_or_else(|e| {
            panic!("TEST_DATABASE_URL is set but PostgreSQL does not answer: {e}")
        });
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&admin)
            .await
            .expect("create a test database");
        admin.close().await;
        let base = admin_url.split('?').next().unwrap_or(&admin_url);
        let (server, _) = base.rsplit_once('/').expect("URL has a database name");
        Some(Self {
            backend,
            url: format!("{server}/{name}"),
            dir,
            postgres: Some((admin_url, name)),
        })
    }

    pub async fn store(&self, max_connections: u32) -> Store {
        Store::connect(&self.url, max_connections)
            .await
            .expect("connect")
    }

    /// Drops a PostgreSQL database (the temporary directory goes with `self`).
    pub async fn remove(self) {
        let Some((admin_url, name)) = &self.postgres else {
            return;
        };
        if let Ok(admin) = sqlx::PgPool::connect(admin_url).await {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&admin)
            .await;
            admin.close().await;
        }
    }
}

/// Runs `sql` (one statement or several, no parameters) on the store's
/// pool, behind the service's back; the rows it changed.
pub async fn run_sql(store: &Store, sql: &str) -> Result<u64, sqlx::Error> {
    match store {
        Store::Sqlite(pool, ..) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(pool)
            .await
            .map(|r| r.rows_affected()),
        Store::Postgres(pool, _) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(pool)
            .await
            .map(|r| r.rows_affected()),
    }
}

pub fn random_master_key_hex() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("OS randomness");
    hex::encode(bytes)
}
