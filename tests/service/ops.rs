//! Operations: health, readiness, metrics, and the OpenAPI description.

use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{TestApp, on_both_backends};

async fn health_readiness_and_metrics_answer(app: &TestApp) {
    assert_eq!(app.public.get("/healthz").await.status, StatusCode::OK);
    assert_eq!(app.public.get("/readyz").await.status, StatusCode::OK);
    let version = app.public.get("/version").await.success();
    assert_eq!(version["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(version["protocol"], "fairdeal-v1");
    let commit = version["commit"].as_str().unwrap_or_default();
    assert!(
        fairdeal::VERSION.contains(commit) && !commit.is_empty(),
        "{version}"
    );
    let pair_id = app.operator.active_pair("metrics").await;
    for game in [
        json!({"type": "omaha", "players": 4}),
        json!({"type": "omaha", "players": 4}),
        json!({"type": "holdem", "players": 40}),
    ] {
        app.operator.deal(&pair_id, game).await;
    }
    let metrics = app.public.get("/metrics").await;
    assert_eq!(metrics.status, StatusCode::OK);
    assert!(metrics.content_type().starts_with("text/plain"));
    assert!(
        metrics
            .text
            .contains("fairdeal_rounds_dealt_total{game=\"omaha\"} 2"),
        "{}",
        metrics.text
    );
    assert!(metrics.text.contains(
        "fairdeal_http_request_duration_seconds_count{method=\"POST\",route=\"/v1/seed-pairs/{id}/rounds\"} 3"
    ), "{}", metrics.text);
    assert!(metrics.text.contains(
        "fairdeal_http_responses_total{method=\"POST\",route=\"/v1/seed-pairs/{id}/rounds\",status=\"422\"} 1"
    ), "{}", metrics.text);
    assert!(!metrics.text.contains(&pair_id), "no ids in metric labels");
}
on_both_backends!(health_readiness_and_metrics_answer);

/// A method is any token a client cares to send: as a label it would grow
/// the metrics (and the memory behind them) by a series a request.
async fn methods_outside_http_are_one_label(app: &TestApp) {
    for n in 0..50 {
        let method =
            reqwest::Method::from_bytes(format!("PROBE{n:04}{}", "X".repeat(2000)).as_bytes())
                .expect("a token");
        let reply = app
            .public
            .send(app.public.request(method, "/healthz"))
            .await;
        assert_eq!(
            reply.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{}",
            reply.text
        );
    }
    let metrics = app.public.get("/metrics").await.text;
    assert!(
        !metrics.contains("PROBE"),
        "a method as sent became a label"
    );
    assert!(
        metrics.contains(
            "fairdeal_http_responses_total{method=\"other\",route=\"/healthz\",status=\"405\"} 50"
        ),
        "{metrics}"
    );
}
on_both_backends!(methods_outside_http_are_one_label);

#[test]
fn openapi_yaml_is_generated_from_the_code() {
    let generated = fairdeal::service::http::openapi_yaml();
    crate::snapshot::assert_file_current(
        "openapi.yaml",
        &generated,
        "run `cargo run -- openapi > openapi.yaml`",
    );
    for path in [
        "/v1/seed-pairs:",
        "/v1/seed-pairs/{id}:",
        "/v1/seed-pairs/{id}/client-seed:",
        "/v1/seed-pairs/{id}/rounds:",
        "/v1/seed-pairs/{id}/rotate:",
        "/v1/rounds/{id}:",
        "/v1/rounds/{id}/close:",
        "/v1/verify:",
        "/healthz:",
        "/readyz:",
        "/metrics:",
        "/version:",
    ] {
        assert!(
            generated.contains(&format!("  {path}\n")),
            "openapi.yaml lacks {path}"
        );
    }
}
