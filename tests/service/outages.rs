//! Database outages fail fast and honestly: a request is answered 503 with
//! `Retry-After` (not a 500 after a long wait), `/readyz` answers at once, a
//! deal retried with its `Idempotency-Key` after the outage is dealt exactly
//! once, and a server that cannot reach its database at start-up says which
//! database and why.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fairdeal::service::store::Store;
use reqwest::StatusCode;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::harness::{Backend, Deployment, TestDatabase, serve_app};

/// A TCP relay between the service and PostgreSQL that can be cut: every
/// relayed connection is dropped and new ones are closed at once, as when
/// the database host goes away.
struct Relay {
    addr: std::net::SocketAddr,
    cut: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    acceptor: JoinHandle<()>,
}

impl Relay {
    async fn start(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind relay");
        let addr = listener.local_addr().expect("relay address");
        let cut = Arc::new(AtomicBool::new(false));
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let acceptor = {
            let (cut, links) = (cut.clone(), links.clone());
            tokio::spawn(async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    if cut.load(Ordering::SeqCst) {
                        continue; // dropped: the connection closes at once
                    }
                    let upstream = upstream.clone();
                    links.lock().await.push(tokio::spawn(async move {
                        if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    }));
                }
            })
        };
        Self {
            addr,
            cut,
            links,
            acceptor,
        }
    }

    async fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for link in self.links.lock().await.drain(..) {
            link.abort();
        }
    }

    fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

/// `postgres://user@host:port/db` → (`host:port`, the same URL through `via`).
fn through(url: &str, via: std::net::SocketAddr) -> (String, String) {
    let (scheme_user, rest) = url.split_once('@').expect("URL with user@host");
    let (host_port, path) = rest.split_once('/').expect("URL with a database");
    (host_port.to_owned(), format!("{scheme_user}@{via}/{path}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_database_outage_is_answered_503_and_a_retried_deal_is_dealt_once() {
    let Some(db) = TestDatabase::create(Backend::Postgres).await else {
        return;
    };
    let (upstream, _) = through(&db.url, "127.0.0.1:1".parse().expect("addr"));
    let relay = Relay::start(upstream).await;
    let (_, relayed_url) = through(&db.url, relay.addr);
    let store = Store::connect_with_timeout(&relayed_url, 4, Duration::from_millis(500))
        .await
        .expect("connect through the relay");
    let app = serve_app(db, store).await;
    // A client that gives up long before the old 10 s acquire timeout.
    let client = app.operator.clone();
    let pair_id = client.active_pair("outage").await;
    let game = json!({"game": {"type": "holdem", "players": 2}});
    let deal = |key: &'static str| {
        let client = client.clone();
        let pair_id = pair_id.clone();
        let game = game.clone();
        async move {
            client
                .try_send(
                    client
                        .request(
                            reqwest::Method::POST,
                            &format!("/v1/seed-pairs/{pair_id}/rounds"),
                        )
                        .header("Idempotency-Key", key)
                        .timeout(Duration::from_secs(5))
                        .json(&game),
                )
                .await
                .expect("an answer, not a hang")
        }
    };
    assert_eq!(deal("before").await.status, StatusCode::CREATED);

    relay.cut().await;
    let refused = deal("during").await;
    assert_eq!(
        refused.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        refused.text
    );
    assert_eq!(refused.content_type(), "application/problem+json");
    assert!(
        refused.header("retry-after").is_some(),
        "Retry-After is set"
    );
    assert!(refused.text.contains("Idempotency-Key"), "{}", refused.text);
    let ready = client
        .try_send(
            client
                .request(reqwest::Method::GET, "/readyz")
                .timeout(Duration::from_secs(3)),
        )
        .await
        .expect("/readyz answers during the outage");
    assert_eq!(ready.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(ready.header("retry-after").is_some());

    relay.restore();
    let mut recovered = false;
    for _ in 0..50 {
        if client.get("/readyz").await.status == StatusCode::OK {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(recovered, "the service recovers by itself");
    let first = deal("during").await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let again = deal("during").await;
    assert_eq!(again.id(), first.id(), "the retry returns the same round");
    let rounds = client
        .get(&format!("/v1/seed-pairs/{pair_id}/rounds"))
        .await
        .success();
    let nonces: Vec<u64> = rounds["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| r["nonce"].as_u64().expect("nonce"))
        .collect();
    assert_eq!(nonces, [0, 1], "no nonce lost or spent twice");
    app.stop().await;
}

#[test]
fn serve_names_the_database_it_cannot_reach_and_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = Deployment {
        data_dir: dir.path().to_owned(),
        database_url: "postgres://fairdeal@127.0.0.1:1/fairdeal".to_owned(),
        master_key_hex: crate::harness::random_master_key_hex(),
    };
    let out = deployment.run(&["serve", "--listen", "127.0.0.1:0", "--db-wait", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("PostgreSQL at 127.0.0.1:1/fairdeal"),
        "names the host: {stderr}"
    );
    assert!(
        stderr.to_lowercase().contains("refused"),
        "names the cause: {stderr}"
    );
}

#[test]
fn a_taken_key_name_is_an_input_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = Deployment {
        data_dir: dir.path().to_owned(),
        database_url: format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
        master_key_hex: crate::harness::random_master_key_hex(),
    };
    deployment.create_key("backend");
    let again = deployment.run(&["keys", "create", "--name", "backend"]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--name") && stderr.contains("exists already"),
        "{stderr}"
    );
    assert!(again.stdout.is_empty(), "no key is printed");
}

/// A database that does not exist, or a user the server refuses, cannot be
/// waited out: `serve` fails at once (no retrying for `--db-wait`), says
/// what is wrong and how to fix it, once.
#[test]
fn serve_refuses_at_once_a_database_it_can_never_use() {
    let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this: set TEST_DATABASE_URL"
        );
        return;
    };
    let base = admin_url.split('?').next().unwrap_or(&admin_url);
    let (server, _) = base.rsplit_once('/').expect("URL has a database name");
    let missing = format!("fairdeal_missing_{}", uuid::Uuid::new_v4().simple());
    let (scheme, rest) = server.split_once("://").expect("a URL");
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    for (url, words) in [
        (
            format!("{server}/{missing}"),
            vec![
                format!("has no database \"{missing}\""),
                format!("createdb -h "),
            ],
        ),
        (
            format!("{scheme}://no_such_role_fairdeal@{host}/postgres"),
            vec![
                "refused the user or password".to_owned(),
                "FAIRDEAL_DATABASE_URL".to_owned(),
            ],
        ),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let deployment = Deployment {
            data_dir: dir.path().to_owned(),
            database_url: url.clone(),
            master_key_hex: crate::harness::random_master_key_hex(),
        };
        let out = deployment.run(&["serve", "--listen", "127.0.0.1:0", "--db-wait", "600"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url}: {stderr}");
        for word in &words {
            assert!(stderr.contains(word.as_str()), "{url}: {word} in {stderr}");
        }
        assert!(
            !stderr.contains("retrying") && !stderr.contains(" at line "),
            "{stderr}"
        );
    }
}

/// The database dropped under a running service: every route that needs it
/// answers 503 `database-unavailable` with `Retry-After`, as a database
/// that is down does, never a 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_database_dropped_under_the_service_is_answered_503() {
    let Some(db) = TestDatabase::create(Backend::Postgres).await else {
        return;
    };
    let store = Store::connect_with_timeout(&db.url, 4, Duration::from_millis(500))
        .await
        .expect("connect");
    let (admin_url, name) = db.postgres.clone().expect("a PostgreSQL database");
    let app = serve_app(db, store).await;
    let api = app.operator.clone();
    let pair = api.active_pair("dropped").await;
    let admin = sqlx::PgPool::connect(&admin_url).await.expect("admin");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE {name} WITH (FORCE)"
    )))
    .execute(&admin)
    .await
    .expect("drop");
    admin.close().await;
    let game = json!({"game": {"type": "holdem", "players": 2}});
    for reply in [
        api.post_json(&format!("/v1/seed-pairs/{pair}/rounds"), &game)
            .await,
        api.get(&format!("/v1/seed-pairs/{pair}")).await,
        api.get("/v1/seed-pairs").await,
        app.public.get("/readyz").await,
    ] {
        assert_eq!(
            reply.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{}",
            reply.text
        );
        assert_eq!(
            reply.json["type"], "/problems/database-unavailable",
            "{}",
            reply.text
        );
        assert!(reply.header("retry-after").is_some(), "{}", reply.text);
    }
    app.stop().await;
}
