//! Probes of fairdeal-chain-v1 pairs by an independent checker: what a
//! dishonest operator with database access changes behind the service's
//! back, and whether `fairdeal monitor --check-api` names it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{TestApp, on_both_backends, run_monitor};

/// A chain pair of 3 with two rounds dealt and closed, both seeds published
/// and integrated into a checkpoint: (pair id, round ids).
async fn two_published_rounds(app: &TestApp) -> (String, Vec<String>) {
    let created = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 3}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let pair = created.id();
    app.operator
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &json!({"client_seed": "probe player"}),
        )
        .await
        .success();
    let mut rounds = Vec::new();
    for _ in 0..2 {
        let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        rounds.push(dealt.id());
    }
    for round in &rounds {
        app.operator.close(round).await;
    }
    // Both round_seed entries in a signed checkpoint.
    for _ in 0..400 {
        let receipt = app
            .public
            .get(&format!("/v1/rounds/{}/seed-receipt", rounds[1]))
            .await;
        if receipt.status == StatusCode::OK {
            return (pair, rounds);
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the seed receipt was not proven within ten seconds");
}

async fn check_api(app: &TestApp) -> (Option<i32>, Value) {
    let (out, report) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    (out.status.code(), report)
}

/// Round 0's published seed replaced in the database: the public round view
/// now shows a seed that is not the one the log's `round_seed` entry
/// published (and does not hash to the chain's commitment). `--check-api`
/// reads every round the log names back from the API and must name it.
async fn a_changed_published_chain_seed_is_named_with_check_api(app: &TestApp) {
    let (_, rounds) = two_published_rounds(app).await;
    let (code, report) = check_api(app).await;
    assert_eq!(code, Some(0), "{report:#}");
    let changed = app
        .tamper(
            "UPDATE rounds SET server_seed = $1 WHERE nonce = 0 AND seed_log_index IS NOT NULL",
            "11".repeat(32),
        )
        .await;
    assert_eq!(changed, 1);
    let view = app.public.get(&format!("/v1/rounds/{}", rounds[0])).await;
    assert_eq!(view.json["server_seed"], "11".repeat(32), "{}", view.text);
    let (code, report) = check_api(app).await;
    assert_eq!(code, Some(1), "the API contradicts the log: {report:#}");
    assert_eq!(crate::monitor::kinds(&report), ["api"], "{report:#}");
}
on_both_backends!(a_changed_published_chain_seed_is_named_with_check_api);

/// Round 1's published seed withdrawn from the database: the log published
/// it, the API now shows the round as unpublished (no seed, no cards).
async fn a_withdrawn_published_chain_seed_is_named_with_check_api(app: &TestApp) {
    let (_, rounds) = two_published_rounds(app).await;
    let changed = app
        .tamper(
            "UPDATE rounds SET server_seed = NULL, seed_log_index = NULL WHERE nonce = $1 AND seed_log_index IS NOT NULL",
            1_i64,
        )
        .await;
    assert_eq!(changed, 1);
    let view = app.public.get(&format!("/v1/rounds/{}", rounds[1])).await;
    assert!(view.json.get("server_seed").is_none(), "{}", view.text);
    let (code, report) = check_api(app).await;
    assert_eq!(code, Some(1), "the API hides a logged seed: {report:#}");
    assert_eq!(crate::monitor::kinds(&report), ["api"], "{report:#}");
}
on_both_backends!(a_withdrawn_published_chain_seed_is_named_with_check_api);
