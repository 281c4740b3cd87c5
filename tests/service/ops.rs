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
    // A fresh server: every counter that can be known at start is there,
    // at 0, so an alert on its rate has a series from the first scrape.
    let fresh = app.public.get("/metrics").await;
    for game in fairdeal_core::GAME_TYPES {
        let line = format!("fairdeal_rounds_dealt_total{{game=\"{game}\"}} 0\n");
        assert!(fresh.text.contains(&line), "{line}: {}", fresh.text);
    }
    for event in fairdeal::service::metrics::EVENTS {
        let line = format!("fairdeal_events_total{{event=\"{event}\"}} 0\n");
        assert!(fresh.text.contains(&line), "{line}: {}", fresh.text);
    }
    let pair_id = app.operator.active_pair("metrics").await;
    for game in [
        json!({"type": "omaha", "players": 4}),
        json!({"type": "omaha", "players": 4}),
        json!({"type": "holdem", "players": 40}),
    ] {
        app.operator.deal(&pair_id, game).await;
    }
    let rotated = app.operator.active_pair("metrics rotation").await;
    let next = app.operator.rotate(&rotated, "metrics next").await;
    assert_eq!(next.status, StatusCode::OK, "{}", next.text);
    let metrics = app.public.get("/metrics").await;
    assert_eq!(metrics.status, StatusCode::OK);
    // The body is OpenMetrics (it ends `# EOF`): so is the content type.
    assert!(
        metrics
            .content_type()
            .starts_with("application/openmetrics-text; version=1.0.0"),
        "{}",
        metrics.content_type()
    );
    assert!(metrics.text.trim_end().ends_with("# EOF"));
    for line in [
        "fairdeal_events_total{event=\"rotation\"} 1",
        "fairdeal_db_pool_connections ",
        "fairdeal_db_pool_in_use ",
        "fairdeal_db_acquire_seconds ",
        "fairdeal_log_entries ",
        "fairdeal_log_checkpoint_size ",
        "fairdeal_log_unintegrated_entries ",
        "fairdeal_log_integration_lag_seconds ",
    ] {
        assert!(metrics.text.contains(line), "{line}: {}", metrics.text);
    }
    let entries = metrics
        .text
        .lines()
        .find_map(|l| l.strip_prefix("fairdeal_log_entries "))
        .and_then(|v| v.trim().parse::<u64>().ok());
    assert!(entries.is_some_and(|n| n >= 5), "{}", metrics.text);
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

/// The answers' fields a later release may add values to are open (a
/// string listing today's values, CHANGELOG.md), so that a client
/// generated today reads a new value rather than failing on it; a request
/// parameter taking the same values keeps the closed list.
#[test]
fn fields_a_release_may_extend_are_open_in_openapi() {
    let doc = serde_json::to_value(fairdeal::service::http::openapi()).expect("JSON");
    let schemas = &doc["components"]["schemas"];
    let problem_type = &schemas["Problem"]["properties"]["type"];
    assert!(problem_type.get("enum").is_none(), "{problem_type}");
    let said = problem_type["description"].as_str().expect("described");
    for kind in fairdeal::service::http::problems::ProblemKind::ALL {
        assert!(said.contains(&format!("`{}`", kind.uri())), "{said}");
    }
    assert!(said.contains("New values may be added"), "{said}");
    for name in ["PairStatus", "RoundStatus", "DrawStatus"] {
        let schema = &schemas[name];
        assert!(schema.get("enum").is_none(), "{name}: {schema}");
        assert!(
            schema["description"]
                .as_str()
                .is_some_and(|d| d.contains("today") && d.contains("New values may be added")),
            "{name}: {schema}"
        );
    }
    let listing = doc["paths"]["/v1/seed-pairs"]["get"]["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "status")
        .expect("the status filter")
        .clone();
    assert_eq!(
        listing["schema"]["enum"],
        serde_json::json!([
            "awaiting_contributions",
            "awaiting_client_seed",
            "active",
            "revealed",
            "void"
        ]),
        "{listing}"
    );
}

/// Each kind of problem has a page at its `type`, saying what it means and
/// what to do; three 409s a backend must tell apart have three types.
async fn problem_types_resolve_and_tell_conflicts_apart(app: &TestApp) {
    let api = &app.operator;
    let listed = app.public.get("/problems").await;
    assert_eq!(listed.status, StatusCode::OK);
    assert!(listed.content_type().starts_with("text/plain"));
    let waiting = api.post("/v1/seed-pairs").await.id();
    let not_active = api
        .deal(&waiting, serde_json::json!({"type": "deck"}))
        .await;
    let pair = api.active_pair("problem types").await;
    let again = api
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &serde_json::json!({"client_seed": "another"}),
        )
        .await;
    let round = api
        .deal(&pair, serde_json::json!({"type": "deck"}))
        .await
        .id();
    let in_play = api.rotate(&pair, "next problem types").await;
    let mut types = Vec::new();
    for (reply, expected) in [
        (not_active, "/problems/pair-not-active"),
        (again, "/problems/client-seed-already-set"),
        (in_play, "/problems/rounds-in-play"),
    ] {
        assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text);
        assert_eq!(reply.json["type"], expected, "{}", reply.text);
        let page = app.public.get(expected).await;
        assert_eq!(page.status, StatusCode::OK, "{expected}");
        assert!(
            page.text
                .contains(reply.json["title"].as_str().unwrap_or("?"))
                && listed.text.contains(expected),
            "{}",
            page.text
        );
        types.push(expected);
    }
    assert_eq!(types.len(), 3);
    api.close(&round).await;
    let missing = app.public.get("/problems/no-such-kind").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.json["type"], "/problems/not-found");
}
on_both_backends!(problem_types_resolve_and_tell_conflicts_apart);

/// Every answer carries a request id (`X-Request-Id`), a problem body
/// names it, and the service's log lines of the request carry it: a
/// backend's own id is kept when it is plain, anything else replaced.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_answer_and_its_log_lines_carry_a_request_id() {
    use crate::harness::{Backend, Client, Deployment, TestDatabase};
    let Some(db) = TestDatabase::create(Backend::Sqlite).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let log = db.dir.path().join("serve.log");
    let server = deployment.serve(&log, &[]);
    let api = Client::new(&server.base).with_key(&key);
    let ask = |id: Option<&'static str>| {
        let mut request = api.request(reqwest::Method::GET, "/v1/seed-pairs/no-such-pair");
        if let Some(id) = id {
            request = request.header("X-Request-Id", id);
        }
        api.send(request)
    };
    let kept = ask(Some("backend-trace.7_a")).await;
    assert_eq!(kept.status, StatusCode::NOT_FOUND, "{}", kept.text);
    assert_eq!(kept.header("x-request-id"), Some("backend-trace.7_a"));
    assert_eq!(
        kept.json["request_id"], "backend-trace.7_a",
        "{}",
        kept.text
    );
    for sent in [None, Some("two words"), Some("<script>")] {
        let made = ask(sent).await;
        let id = made.header("x-request-id").expect("an id").to_owned();
        assert!(
            id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{sent:?}: {id}"
        );
        assert_eq!(made.json["request_id"], id.as_str(), "{}", made.text);
    }
    // A success carries one too, and two requests never share one.
    let first = api.get("/v1/seed-pairs").await;
    let second = api.get("/v1/seed-pairs").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_ne!(first.header("x-request-id"), second.header("x-request-id"));
    assert!(server.terminate().success());
    let lines = std::fs::read_to_string(&log).expect("the log");
    let logged = lines
        .lines()
        .filter(|line| line.contains("\"request_id\":\"backend-trace.7_a\""))
        .count();
    assert!(
        logged >= 1,
        "no log line carries the request's id:\n{lines}"
    );
    assert!(!lines.contains("<script>"), "a refused id reached the log");
}
