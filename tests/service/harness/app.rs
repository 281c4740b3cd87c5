//! The service in this process: a real server on an ephemeral port over a
//! fresh database, with an operator key, for `on_both_backends!` scenarios.

use std::sync::Arc;
use std::time::Duration;

use fairdeal::service::dealer::Dealer;
use fairdeal::service::http::statements::Monitors;
use fairdeal::service::http::{self, AppState, Limits};
use fairdeal::service::log::integrator;
use fairdeal::service::log::witnessing::{LiveWitnesses, Witnesses};
use fairdeal::service::metrics::Metrics;
use fairdeal::service::sealing::MasterKey;
use fairdeal::service::store::{InsertKey, Store};
use fairdeal::tlog::key::LogKey;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::client::Client;
use super::database::{Backend, TestDatabase, random_master_key_hex};

pub struct TestApp {
    /// Sends the operator key.
    pub operator: Client,
    /// Sends no key.
    pub public: Client,
    pub dealer: Arc<Dealer>,
    /// The transparency log's key.
    pub log: Arc<LogKey>,
    integrating: JoinHandle<()>,
    witnessing: JoinHandle<()>,
    pub db: TestDatabase,
    shutdown: oneshot::Sender<()>,
    server: JoinHandle<std::io::Result<()>>,
}

impl TestApp {
    /// Runs `sql` with one bound value on the app's database behind the
    /// service's back, as an operator rewriting history would; the number
    /// of rows it changed.
    pub async fn tamper<T>(&self, sql: &'static str, value: T) -> u64
    where
        T: for<'q> sqlx::Encode<'q, sqlx::Sqlite>
            + sqlx::Type<sqlx::Sqlite>
            + for<'q> sqlx::Encode<'q, sqlx::Postgres>
            + sqlx::Type<sqlx::Postgres>
            + Send
            + 'static,
    {
        match self.dealer.store() {
            Store::Sqlite(pool, ..) => sqlx::query(sql)
                .bind(value)
                .execute(pool)
                .await
                .map(|r| r.rows_affected()),
            Store::Postgres(pool, _) => sqlx::query(sql)
                .bind(value)
                .execute(pool)
                .await
                .map(|r| r.rows_affected()),
        }
        .expect("the statement runs")
    }

    /// The one whole number `sql` (a `SELECT` of one row and column)
    /// reads from the app's database.
    pub async fn number(&self, sql: &'static str) -> i64 {
        match self.dealer.store() {
            Store::Sqlite(pool, ..) => sqlx::query_scalar(sql).fetch_one(pool).await,
            Store::Postgres(pool, _) => sqlx::query_scalar(sql).fetch_one(pool).await,
        }
        .expect("the query reads one number")
    }

    /// Runs `sql` (a statement that reads nothing) on the app's database.
    pub async fn execute(&self, sql: &'static str) {
        match self.dealer.store() {
            Store::Sqlite(pool, ..) => sqlx::query(sql).execute(pool).await.map(|_| ()),
            Store::Postgres(pool, _) => sqlx::query(sql).execute(pool).await.map(|_| ()),
        }
        .expect("the statement runs")
    }
}

/// Starts a server; `None` when the backend is PostgreSQL and it is not
/// configured on this machine (outside CI).
pub async fn spawn_app(backend: Backend) -> Option<TestApp> {
    let db = TestDatabase::create(backend).await?;
    let store = db.store(8).await;
    Some(serve_app(db, store).await)
}

/// Starts a server over `store` (a connection to `db`, perhaps made some
/// other way than [`TestDatabase::store`]).
pub async fn serve_app(db: TestDatabase, store: Store) -> TestApp {
    serve_app_with(db, store, Limits::default()).await
}

/// [`serve_app`] with other connection limits.
pub async fn serve_app_with(db: TestDatabase, store: Store, limits: Limits) -> TestApp {
    serve_app_witnessed(db, store, limits, Witnesses::default()).await
}

/// [`serve_app_with`] asking `witnesses` to cosign every checkpoint.
pub async fn serve_app_witnessed(
    db: TestDatabase,
    store: Store,
    limits: Limits,
    witnesses: Witnesses,
) -> TestApp {
    serve_app_full(db, store, limits, witnesses, Monitors::default()).await
}

/// A server that keeps and serves the statements of `monitors` (their
/// verifier keys), as `serve --monitor` does.
pub async fn spawn_app_monitored(backend: Backend, monitors: &[String]) -> Option<TestApp> {
    let db = TestDatabase::create(backend).await?;
    let store = db.store(8).await;
    let monitors = Monitors::new(monitors).expect("monitor keys");
    Some(serve_app_full(db, store, Limits::default(), Witnesses::default(), monitors).await)
}

async fn serve_app_full(
    db: TestDatabase,
    store: Store,
    limits: Limits,
    witnesses: Witnesses,
    monitors: Monitors,
) -> TestApp {
    store.migrate().await.expect("migrate");
    let key = MasterKey::from_hex(&random_master_key_hex()).expect("key");
    assert!(
        store
            .check_key_fingerprint(&key.fingerprint())
            .await
            .expect("fingerprint")
    );
    let new_key = fairdeal::service::keys::generate(
        "test-backend",
        fairdeal::service::keys::DEFAULT_TENANT,
        0,
    )
    .expect("api key");
    assert_eq!(
        store.insert_key(&new_key.row).await.expect("store key"),
        InsertKey::Inserted
    );
    let log = Arc::new(
        LogKey::from_hex(&random_master_key_hex(), "test.example/fairdeal").expect("log key"),
    );
    integrator::integrate_now(&store, &log, None)
        .await
        .expect("first checkpoint");
    let integrating = tokio::spawn(integrator::run(
        store.clone(),
        log.clone(),
        None,
        Duration::from_millis(50),
    ));
    let witnesses = Arc::new(LiveWitnesses::new(witnesses, None));
    let metrics = Arc::new(Metrics::new());
    let witnessing = tokio::spawn(fairdeal::service::log::witnessing::run(
        store.clone(),
        witnesses.clone(),
        metrics.clone(),
        Duration::from_millis(50),
        // As a service with a log mirror (the default): a witness that
        // answers garbage stops nothing.
        fairdeal::service::log::witnessing::Guard::Mirror,
    ));
    let dealer = Arc::new(Dealer::new(store, key));
    let state = AppState {
        dealer: dealer.clone(),
        metrics,
        log: log.clone(),
        log_size_seen: Default::default(),
        tiles: Default::default(),
        witnesses,
        monitors: Arc::new(monitors),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let public = Client::new(&format!("http://{}", listener.local_addr().expect("addr")));
    let (shutdown, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(http::serve_with(listener, state, limits, async {
        let _ = stopped.await;
    }));
    TestApp {
        operator: public.clone().with_key(&new_key.key),
        public,
        dealer,
        log,
        integrating,
        witnessing,
        db,
        shutdown,
        server,
    }
}

impl TestApp {
    /// A client of a second server over the same database, as another
    /// process would be: its own state (nothing served or kept yet); it
    /// runs until the test ends.
    pub async fn another_server(&self) -> Client {
        let state = AppState {
            dealer: self.dealer.clone(),
            metrics: Arc::new(Metrics::new()),
            log: self.log.clone(),
            log_size_seen: Default::default(),
            tiles: Default::default(),
            witnesses: Default::default(),
            monitors: Default::default(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let client = Client::new(&format!("http://{}", listener.local_addr().expect("addr")));
        tokio::spawn(http::serve_with(
            listener,
            state,
            Limits::default(),
            std::future::pending::<()>(),
        ));
        client
    }

    /// Stops the server (in-flight requests finish) and removes a PostgreSQL
    /// test database.
    pub async fn stop(self) {
        let _ = self.shutdown.send(());
        let _ = self.server.await;
        self.integrating.abort();
        self.witnessing.abort();
        self.dealer.store().close().await;
        self.db.remove().await;
    }
}

/// Defines `mod $scenario { sqlite, postgres }` next to the scenario
/// `async fn $scenario(app: &TestApp)`, running it against each backend.
macro_rules! on_both_backends {
    ($scenario:ident) => {
        mod $scenario {
            use $crate::harness::{Backend, spawn_app};

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                let app = spawn_app(Backend::Sqlite)
                    .await
                    .expect("SQLite always runs");
                super::$scenario(&app).await;
                app.stop().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                let Some(app) = spawn_app(Backend::Postgres).await else {
                    return;
                };
                super::$scenario(&app).await;
                app.stop().await;
            }
        }
    };
}
pub(crate) use on_both_backends;
