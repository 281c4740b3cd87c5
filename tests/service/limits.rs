//! Connection limits, with real sockets: slow headers, idle connections and
//! slow bodies are cut off by their timeouts; connections beyond the cap are
//! closed at once; health checks and deals keep being answered meanwhile.

use std::time::Duration;

use fairdeal::service::http::Limits;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::{Backend, TestApp, TestDatabase, serve_app_with};

/// Longest a test waits for the server to act on a one-second limit.
const PATIENCE: Duration = Duration::from_secs(10);

async fn app_with(limits: Limits) -> TestApp {
    let db = TestDatabase::create(Backend::Sqlite)
        .await
        .expect("SQLite always runs");
    let store = db.store(8).await;
    serve_app_with(db, store, limits).await
}

fn address(app: &TestApp) -> String {
    app.public.base().trim_start_matches("http://").to_owned()
}

/// Reads until the server closes the connection; what it sent.
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut received))
        .await
        .expect("the server closes the connection in time")
        .ok();
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn slow_headers_and_idle_connections_are_closed_while_health_checks_answer() {
    let app = app_with(Limits {
        header_read_timeout: Duration::from_secs(1),
        ..Limits::default()
    })
    .await;
    let addr = address(&app);
    let mut abusers = Vec::new();
    for n in 0..300 {
        let mut stream = TcpStream::connect(&addr).await.expect("connect");
        if n % 2 == 0 {
            // Slowloris: headers begun, never finished.
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: fairdeal\r\nX-Slow: ")
                .await
                .expect("write");
        }
        abusers.push(stream);
    }
    // Meanwhile the service answers.
    assert_eq!(app.public.get("/healthz").await.status, StatusCode::OK);
    let pair_id = app.operator.active_pair("under abuse").await;
    let dealt = app
        .operator
        .deal(&pair_id, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.status, StatusCode::CREATED);
    // And every abusive connection is closed by the server.
    for stream in &mut abusers {
        read_until_closed(stream).await;
    }
    // A kept-alive connection left idle after a request is closed too.
    let mut stream = TcpStream::connect(&addr).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: fairdeal\r\n\r\n")
        .await
        .expect("write");
    let answered = read_until_closed(&mut stream).await;
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_body_is_answered_408_problem_json() {
    let app = app_with(Limits {
        request_timeout: Duration::from_secs(1),
        ..Limits::default()
    })
    .await;
    let mut stream = TcpStream::connect(address(&app)).await.expect("connect");
    stream
        .write_all(
            b"POST /v1/verify HTTP/1.1\r\nHost: fairdeal\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\nConnection: close\r\n\r\n{\"server_seed\":",
        )
        .await
        .expect("write");
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer
            .to_lowercase()
            .contains("content-type: application/problem+json"),
        "{answer}"
    );
    assert!(answer.contains("Idempotency-Key"), "{answer}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn connections_beyond_the_cap_are_closed_at_once_and_counted() {
    let app = app_with(Limits {
        header_read_timeout: Duration::from_secs(1),
        max_connections: 8,
        ..Limits::default()
    })
    .await;
    let addr = address(&app);
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(TcpStream::connect(&addr).await.expect("connect"));
    }
    // Let the server accept all eight before the ninth arrives.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut beyond = TcpStream::connect(&addr).await.expect("connect");
    let _ = beyond
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: fairdeal\r\n\r\n")
        .await;
    let answer = read_until_closed(&mut beyond).await;
    assert!(answer.is_empty(), "closed without an answer: {answer}");
    // Once the idle ones time out, the service answers again.
    for stream in &mut held {
        read_until_closed(stream).await;
    }
    let metrics = app.public.get("/metrics").await;
    assert_eq!(metrics.status, StatusCode::OK);
    assert!(
        metrics
            .text
            .contains("fairdeal_connections_refused_total 1"),
        "{}",
        metrics.text
    );
    app.stop().await;
}

/// Each key gets its burst, then 429 `/problems/rate-limited` with
/// `Retry-After` before anything is done (no pair is made); every answer
/// to a keyed request states the policy and what remains; another key, a
/// public read without a key, and a request with a wrong secret for the
/// limited key (which must not spend it) are not refused; after the wait
/// the key is served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_over_its_rate_limit_is_answered_429_and_nothing_is_done() {
    use std::num::NonZeroU32;
    let app = app_with(Limits {
        rate_limit: Some(fairdeal::service::http::RateLimit {
            per_second: NonZeroU32::new(1).expect("1"),
            burst: NonZeroU32::new(3).expect("3"),
        }),
        ..Limits::default()
    })
    .await;
    let api = &app.operator;
    // A wrong secret for the key is 401, and spends nothing of its allowance.
    let (id, _) = fairdeal::service::keys::parse(api.key()).expect("a key");
    let wrong = app
        .public
        .clone()
        .with_key(&format!("fdk_{id}_{}", "ab".repeat(32)));
    for _ in 0..5 {
        let reply = wrong.post("/v1/seed-pairs").await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text);
    }
    let pairs_before = app.number("SELECT COUNT(*) FROM seed_pairs").await;
    let mut made = Vec::new();
    for remaining in [2, 1, 0] {
        let reply = api.post("/v1/seed-pairs").await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        made.push(reply.id());
        assert_eq!(
            reply.header("ratelimit-policy"),
            Some("\"per-key\";q=3;w=3")
        );
        let now = reply.header("ratelimit").expect("RateLimit").to_owned();
        assert!(
            now.starts_with(&format!("\"per-key\";r={remaining};t=")),
            "{now}"
        );
    }
    let refused = api.post("/v1/seed-pairs").await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.text
    );
    assert_eq!(refused.json["type"], "/problems/rate-limited");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.header("ratelimit"), Some("\"per-key\";r=0;t=1"));
    let detail = refused.json["detail"].as_str().expect("detail");
    assert!(
        detail.contains("3 requests at once and 1 a second after them"),
        "{detail}"
    );
    assert_eq!(
        app.number("SELECT COUNT(*) FROM seed_pairs").await,
        pairs_before + 3,
        "the refused request made nothing"
    );
    // Another key has its own allowance; public reads without a key are
    // not limited and carry no RateLimit header.
    let key =
        fairdeal::service::keys::generate("other", fairdeal::service::keys::DEFAULT_TENANT, 0)
            .expect("key");
    app.dealer
        .store()
        .insert_key(&key.row)
        .await
        .expect("insert");
    let other = app.public.clone().with_key(&key.key);
    let reply = other.post("/v1/seed-pairs").await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    assert_eq!(
        reply
            .header("ratelimit")
            .map(|r| r.starts_with("\"per-key\";r=2;")),
        Some(true)
    );
    for pair in &made {
        let read = app
            .public
            .without_key()
            .get(&format!("/v1/seed-pairs/{pair}"))
            .await;
        assert_eq!(read.status, StatusCode::OK, "{}", read.text);
        assert_eq!(read.header("ratelimit"), None);
    }
    // After the wait, the key is served again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let reply = api.post("/v1/seed-pairs").await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
}
