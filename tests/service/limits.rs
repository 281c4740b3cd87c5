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
