//! Rounds: concurrent deals, paging, idempotent retries.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Client, Reply, TestApp, on_both_backends};

async fn parallel_deals_on_one_pair_get_consecutive_nonces(app: &TestApp) {
    let pair_id = app.operator.active_pair("busy table").await;
    let n = 64;
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (api, pair_id) = (app.operator.clone(), pair_id.clone());
            tokio::spawn(async move {
                api.deal(&pair_id, json!({"type": "holdem", "players": 6}))
                    .await
            })
        })
        .collect();
    let mut nonces = Vec::new();
    for task in tasks {
        let reply = task.await.expect("task");
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        nonces.push(reply.json["nonce"].as_u64().expect("nonce"));
    }
    nonces.sort_unstable();
    assert_eq!(nonces, (0..n).collect::<Vec<u64>>(), "no gap, no repeat");
    let pair = app.public.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], n);
    // Paging walks every round once, in nonce order.
    let mut seen = Vec::new();
    let mut after: Option<u64> = None;
    loop {
        let query = after.map_or("?limit=10".to_owned(), |a| format!("?limit=10&after={a}"));
        let page = app
            .public
            .get(&format!("/v1/seed-pairs/{pair_id}/rounds{query}"))
            .await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        for round in page.json["rounds"].as_array().expect("rounds") {
            seen.push(round["nonce"].as_u64().expect("nonce"));
        }
        match page.json["next_after"].as_u64() {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, (0..n).collect::<Vec<u64>>());
}
on_both_backends!(parallel_deals_on_one_pair_get_consecutive_nonces);

/// A deal with an `Idempotency-Key`.
async fn deal_with_key(api: Client, pair_id: String, key: &'static str, game: Value) -> Reply {
    let request = api
        .request(Method::POST, &format!("/v1/seed-pairs/{pair_id}/rounds"))
        .header("Idempotency-Key", key)
        .json(&json!({ "game": game }));
    api.send(request).await
}

async fn a_retry_with_the_same_idempotency_key_returns_the_same_round(app: &TestApp) {
    let pair_id = app.operator.active_pair("retry").await;
    let send = |key: &'static str, game: Value| {
        deal_with_key(app.operator.clone(), pair_id.clone(), key, game)
    };
    let first = send("deal-1", json!({"type": "holdem", "players": 6})).await;
    let retry = send("deal-1", json!({"type": "holdem", "players": 6})).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(retry.status, StatusCode::CREATED);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(first.json, retry.json, "the same round, the same cards");
    let other = send("deal-1", json!({"type": "holdem", "players": 7})).await;
    assert_eq!(
        other.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        other.text
    );
    assert_eq!(other.json["field"], "Idempotency-Key");

    // Many simultaneous retries of one request deal once.
    let racers: Vec<_> = (0..12)
        .map(|_| tokio::spawn(send("deal-2", json!({"type": "deck"}))))
        .collect();
    let mut ids = std::collections::BTreeSet::new();
    for racer in racers {
        let reply = racer.await.expect("task");
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        ids.insert(reply.id());
    }
    assert_eq!(ids.len(), 1);
    let pair = app.public.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], 2, "retries spent no nonce");
}
on_both_backends!(a_retry_with_the_same_idempotency_key_returns_the_same_round);
