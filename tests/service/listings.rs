//! One cursor shape for every listing, and both orders: pairs, a pair's
//! rounds (a chain pair's commitments too) and draws, walked oldest first
//! and newest first by `next_cursor`; the deprecated `after` still pages
//! oldest first; a cursor that belongs elsewhere is refused naming the
//! field.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Client, TestApp, on_both_backends};

/// Every item of a listing at `path` (its array under `field`), walked by
/// `next_cursor` two at a time from `query` (`order=…` or nothing), with the
/// `id`s (or nonces) each page gave.
async fn walk(api: &Client, path: &str, field: &str, query: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut url = format!("{path}?limit=2{query}");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let page = api.get(&url).await.success();
        let got = page[field].as_array().expect("items");
        items.extend(got.iter().map(|item| {
            item.get("id")
                .cloned()
                .filter(|id| !id.is_null())
                .unwrap_or_else(|| item["nonce"].clone())
        }));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return items,
        }
    }
    panic!("{path} did not end in 50 pages");
}

async fn listings_page_oldest_or_newest_first_with_one_cursor(app: &TestApp) {
    let api = &app.operator;
    let mut pairs = Vec::new();
    for n in 0..5 {
        pairs.push(api.active_pair(&format!("lister-{n}")).await);
    }
    let chain = api
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 8}),
        )
        .await
        .id();
    api.put_json(
        &format!("/v1/seed-pairs/{chain}/client-seed"),
        &json!({"client_seed": "chain-lister"}),
    )
    .await
    .success();
    pairs.push(chain.clone());
    for _ in 0..5 {
        let round = api
            .deal(&chain, json!({"type": "holdem", "players": 2}))
            .await
            .id();
        api.close(&round).await;
    }
    // Pairs: both orders, every pair once; `after` still pages oldest first.
    let oldest = walk(api, "/v1/seed-pairs", "seed_pairs", "").await;
    let ids: Vec<Value> = pairs.iter().map(|p| json!(p)).collect();
    assert_eq!(oldest, ids);
    let newest = walk(api, "/v1/seed-pairs", "seed_pairs", "&order=newest").await;
    assert_eq!(newest, ids.iter().rev().cloned().collect::<Vec<_>>());
    let first = api.get("/v1/seed-pairs?limit=2").await.success();
    let after = first["next_after"].as_str().expect("next_after").to_owned();
    let rest = api
        .get(&format!("/v1/seed-pairs?limit=100&after={after}"))
        .await
        .success();
    assert_eq!(rest["seed_pairs"][0]["id"], ids[2]);
    let newest_page = api
        .get("/v1/seed-pairs?limit=2&order=newest")
        .await
        .success();
    assert_eq!(
        newest_page["next_after"],
        Value::Null,
        "after pages oldest first only"
    );
    // A chain pair's rounds, newest first, with the same commitments.
    let rounds = format!("/v1/seed-pairs/{chain}/rounds");
    let nonces = walk(&app.public, &rounds, "rounds", "&order=newest").await;
    let ids_newest: Vec<Value> = walk(api, &rounds, "rounds", "&order=newest").await;
    assert_eq!(ids_newest.len(), 5);
    assert_eq!(nonces.len(), 5);
    let all_oldest = app
        .public
        .get(&format!("{rounds}?limit=100"))
        .await
        .success();
    let mut commitments_newest = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(c) => format!("{rounds}?limit=2&cursor={c}"),
            None => format!("{rounds}?limit=2&order=newest"),
        };
        let page = app.public.get(&url).await.success();
        for round in page["rounds"].as_array().expect("rounds") {
            commitments_newest.push((
                round["nonce"].clone(),
                round["chain"]["round_commitment"].clone(),
            ));
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let mut commitments_oldest: Vec<(Value, Value)> = all_oldest["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| (r["nonce"].clone(), r["chain"]["round_commitment"].clone()))
        .collect();
    commitments_oldest.reverse();
    assert_eq!(commitments_newest, commitments_oldest);
    assert_eq!(
        commitments_newest
            .iter()
            .map(|(n, _)| n.as_u64())
            .collect::<Vec<_>>(),
        [Some(4), Some(3), Some(2), Some(1), Some(0)]
    );
    assert!(
        commitments_newest.iter().all(|(_, c)| c.is_string()),
        "{commitments_newest:?}"
    );
    // Draws: both orders.
    let mut draws = Vec::new();
    for n in 0..3 {
        let reply = api
            .send(
                api.request(
                    reqwest::Method::POST,
                    "/v1/draws?winners=1&client_seed_source=beacon",
                )
                .header("content-type", "text/plain")
                .body(format!("ann\nbo{n}\n")),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        draws.push(json!(reply.id()));
    }
    assert_eq!(walk(api, "/v1/draws", "draws", "").await, draws);
    let newest = walk(api, "/v1/draws", "draws", "&order=newest").await;
    assert_eq!(newest, draws.iter().rev().cloned().collect::<Vec<_>>());
    // Refusals name the field: another listing's cursor, a forged one,
    // cursor with after, the other order, after newest first.
    let pair_cursor = api.get("/v1/seed-pairs?limit=1").await.success()["next_cursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let newest_cursor = api
        .get(&format!("{rounds}?limit=1&order=newest"))
        .await
        .success()["next_cursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    for (url, field) in [
        (format!("{rounds}?cursor={pair_cursor}"), "cursor"),
        (format!("/v1/draws?cursor={pair_cursor}"), "cursor"),
        (format!("{rounds}?cursor=Zm9yZ2Vk"), "cursor"),
        (format!("{rounds}?cursor={newest_cursor}&after=1"), "cursor"),
        (
            format!("{rounds}?cursor={newest_cursor}&order=oldest"),
            "order",
        ),
        (format!("{rounds}?after=1&order=newest"), "after"),
        ("/v1/seed-pairs?after=1.x&order=newest".to_owned(), "after"),
    ] {
        let refused = api.get(&url).await;
        assert_eq!(
            refused.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{url}: {}",
            refused.text
        );
        assert_eq!(refused.json["field"], field, "{url}: {}", refused.text);
    }
    let refused = api.get("/v1/draws?order=sideways").await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
}
on_both_backends!(listings_page_oldest_or_newest_first_with_one_cursor);
