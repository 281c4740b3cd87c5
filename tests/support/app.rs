//! `spawn_app`: a real server on an ephemeral port, with a fresh database
//! (a temporary SQLite file, or a new PostgreSQL database on the server named
//! by `TEST_DATABASE_URL`), an operator key, and typed request helpers.

use std::io::Write as _;
use std::sync::Arc;

use fairdeal::service::dealer::Dealer;
use fairdeal::service::http::{self, AppState};
use fairdeal::service::metrics::Metrics;
use fairdeal::service::sealing::MasterKey;
use fairdeal::service::store::Store;
use reqwest::{Method, StatusCode, header::HeaderMap};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A PostgreSQL database made for one test.
pub struct PgDatabase {
    pub url: String,
    admin_url: String,
    name: String,
}

impl PgDatabase {
    /// A fresh database on the `TEST_DATABASE_URL` server; `None` (and a
    /// notice on stderr) when the variable is unset outside CI. In CI an unset
    /// variable or an unreachable server fails the test.
    pub async fn create() -> Option<Self> {
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
            url: format!("{server}/{name}"),
            admin_url,
            name,
        })
    }

    pub async fn drop_database(&self) {
        if let Ok(admin) = sqlx::PgPool::connect(&self.admin_url).await {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            )))
            .execute(&admin)
            .await;
            admin.close().await;
        }
    }
}

pub struct TestApp {
    pub base: String,
    pub http: reqwest::Client,
    pub key: String,
    pub dealer: Arc<Dealer>,
    pub metrics: Arc<Metrics>,
    pub master_key_hex: String,
    pub database_url: String,
    pub dir: tempfile::TempDir,
    pg: Option<PgDatabase>,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<std::io::Result<()>>>,
}

/// A response, its body kept as text and parsed as JSON when it is JSON.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Reply {
    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

pub fn random_master_key_hex() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("OS randomness");
    hex::encode(bytes)
}

/// Starts a server; `None` when the backend is PostgreSQL and it is not
/// configured on this machine (outside CI).
pub async fn spawn_app(backend: Backend) -> Option<TestApp> {
    let dir = tempfile::tempdir().expect("temp dir");
    let pg = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(PgDatabase::create().await?),
    };
    let database_url = match &pg {
        Some(db) => db.url.clone(),
        None => format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
    };
    let store = Store::connect(&database_url, 8).await.expect("connect");
    store.migrate().await.expect("migrate");
    let master_key_hex = random_master_key_hex();
    let key = MasterKey::from_hex(&master_key_hex).expect("key");
    assert!(
        store
            .check_key_fingerprint(&key.fingerprint())
            .await
            .expect("fingerprint")
    );
    let new_key = fairdeal::service::keys::generate("test-backend", 0).expect("api key");
    store.insert_key(&new_key.row).await.expect("store key");
    let dealer = Arc::new(Dealer::new(store, key));
    let metrics = Arc::new(Metrics::new());
    let state = AppState {
        dealer: dealer.clone(),
        metrics: metrics.clone(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(http::serve(listener, state, async {
        let _ = rx.await;
    }));
    Some(TestApp {
        base,
        http: reqwest::Client::new(),
        key: new_key.key,
        dealer,
        metrics,
        master_key_hex,
        database_url,
        dir,
        pg,
        shutdown: Some(tx),
        server: Some(server),
    })
}

impl TestApp {
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        operator: bool,
        body: Option<&Value>,
    ) -> Reply {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if operator {
            request = request.bearer_auth(&self.key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        Self::reply(request.send().await.expect("request sent")).await
    }

    pub async fn reply(response: reqwest::Response) -> Reply {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            text,
            json,
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, false, None).await
    }

    pub async fn get_as_operator(&self, path: &str) -> Reply {
        self.request(Method::GET, path, true, None).await
    }

    pub async fn post(&self, path: &str, body: Option<&Value>) -> Reply {
        self.request(Method::POST, path, true, body).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> Reply {
        self.request(Method::PUT, path, true, Some(body)).await
    }

    /// A pair with `client_seed` set, ready to deal.
    pub async fn active_pair(&self, client_seed: &str) -> Value {
        let created = self.post("/v1/seed-pairs", None).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        let id = created.json["id"].as_str().expect("id").to_owned();
        let set = self
            .put(
                &format!("/v1/seed-pairs/{id}/client-seed"),
                &serde_json::json!({ "client_seed": client_seed }),
            )
            .await;
        assert_eq!(set.status, StatusCode::OK, "{}", set.text);
        set.json
    }

    pub async fn deal(&self, pair_id: &str, game: Value) -> Reply {
        self.post(
            &format!("/v1/seed-pairs/{pair_id}/rounds"),
            Some(&serde_json::json!({ "game": game })),
        )
        .await
    }

    /// Stops the server (in-flight requests finish) and removes a PostgreSQL
    /// test database.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.await;
        }
        self.dealer.store().close().await;
        if let Some(pg) = &self.pg {
            pg.drop_database().await;
        }
    }
}

/// Defines `mod $name { sqlite, postgres }`, running `$scenario` against each.
#[macro_export]
macro_rules! on_both_backends {
    ($name:ident, $scenario:path) => {
        mod $name {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                let app = support::app::spawn_app(support::app::Backend::Sqlite)
                    .await
                    .expect("SQLite always runs");
                $scenario(&app).await;
                app.stop().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                let Some(app) = support::app::spawn_app(support::app::Backend::Postgres).await
                else {
                    return;
                };
                $scenario(&app).await;
                app.stop().await;
            }
        }
    };
}
