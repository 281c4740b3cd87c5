//! Seed pairs: commit, client seed, deal, rotate, reveal.

use fairdeal_core::{ClientSeed, Commitment, Deal, Game, ServerSeed, verify};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{TestApp, id, on_both_backends};

/// Checks a revealed round with the protocol library alone.
fn assert_round_verifies(round: &Value) {
    let seed = ServerSeed::from_hex(round["server_seed"].as_str().expect("revealed seed"))
        .expect("seed hex");
    let commitment =
        Commitment::from_hex(round["server_seed_hash"].as_str().expect("hash")).expect("hash hex");
    let client =
        ClientSeed::new(round["client_seed"].as_str().expect("client seed")).expect("valid");
    let game: Game = serde_json::from_value(round["game"].clone()).expect("game");
    let recorded: Deal = serde_json::from_value(round["deal"].clone()).expect("deal");
    let nonce = round["nonce"].as_u64().expect("nonce");
    let report = verify(&seed, &commitment, &client, nonce, game, &recorded);
    assert!(
        report.is_ok(),
        "round {} does not verify: {report:?}",
        round["id"]
    );
}

async fn whole_lifecycle_deals_every_game_and_verifies_after_rotation(app: &TestApp) {
    let api = &app.operator;
    // Commit first: no client seed, no server seed, both commitments published.
    let created = api.post("/v1/seed-pairs").await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.json["status"], "awaiting_client_seed");
    assert_eq!(created.json["client_seed"], Value::Null);
    assert!(created.json.get("server_seed").is_none());
    assert_eq!(created.json["next_nonce"], 0);
    let pair_id = created.id();
    let promised_next = created.json["next_server_seed_hash"]
        .as_str()
        .expect("next hash")
        .to_owned();

    // No dealing before the client seed.
    let early = api.deal(&pair_id, json!({"type": "deck"})).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.text);

    let client_seed = format!("/v1/seed-pairs/{pair_id}/client-seed");
    let set = api
        .put_json(&client_seed, &json!({"client_seed": "🂡 lucky"}))
        .await;
    assert_eq!(set.status, StatusCode::OK);
    assert_eq!(set.json["status"], "active");
    let again = api
        .put_json(&client_seed, &json!({"client_seed": "other"}))
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.content_type(), "application/problem+json");
    // The same seed again is a retry: the same answer, no second entry.
    const LOG_SIZE: &str = "SELECT next_index FROM log_state";
    let logged = app.number(LOG_SIZE).await;
    let retry = api
        .put_json(&client_seed, &json!({"client_seed": "🂡 lucky"}))
        .await;
    assert_eq!(retry.status, StatusCode::OK, "{}", retry.text);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(retry.json, set.json);
    assert_eq!(app.number(LOG_SIZE).await, logged, "a retry logs nothing");

    let games = [
        json!({"type": "holdem", "players": 6}),
        json!({"type": "omaha", "players": 3}),
        json!({"type": "deck", "decks": 6}),
        json!({"type": "hands", "players": 4, "cards": 5, "decks": 1}),
    ];
    let mut round_ids = Vec::new();
    for (nonce, game) in games.iter().enumerate() {
        let dealt = api.deal(&pair_id, game.clone()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        assert_eq!(dealt.json["nonce"], nonce as u64);
        assert_eq!(dealt.json["protocol"], "fairdeal-v1");
        assert_eq!(dealt.json["status"], "in_play");
        assert_eq!(&dealt.json["game"], game);
        assert!(dealt.json["deal"].is_object(), "the operator sees the deal");
        assert!(dealt.json.get("server_seed").is_none());
        round_ids.push(dealt.id());
    }
    assert_eq!(
        app.public
            .get(&format!("/v1/rounds/{}", round_ids[2]))
            .await
            .json["deal"]["deck"]
            .as_array()
            .map(Vec::len),
        None,
        "a public reader sees no cards before reveal"
    );
    let public = app
        .public
        .get(&format!("/v1/rounds/{}", round_ids[0]))
        .await;
    assert_eq!(public.status, StatusCode::OK);
    assert!(public.json.get("deal").is_none());
    assert_eq!(public.json["nonce"], 0);
    let operator = api.get(&format!("/v1/rounds/{}", round_ids[0])).await;
    assert_eq!(
        operator.json["deal"]["hands"].as_array().map(Vec::len),
        Some(6)
    );

    for round_id in &round_ids {
        api.close(round_id).await;
    }
    let rotated = api.rotate(&pair_id, "round two").await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let revealed = &rotated.json["revealed"];
    let current = &rotated.json["current"];
    assert_eq!(revealed["status"], "revealed");
    let seed = ServerSeed::from_hex(revealed["server_seed"].as_str().expect("seed")).expect("hex");
    assert_eq!(seed.commitment().to_string(), revealed["server_seed_hash"]);
    assert_eq!(current["status"], "active");
    assert_eq!(current["server_seed_hash"], promised_next.as_str());
    assert_eq!(current["client_seed"], "round two");
    assert_eq!(current["next_nonce"], 0);
    assert_eq!(current["predecessor_id"], pair_id.as_str());
    assert_eq!(revealed["successor_id"], current["id"]);
    assert_ne!(
        current["next_server_seed_hash"],
        current["server_seed_hash"]
    );

    // After reveal everyone sees every round, and each one verifies.
    let listed = app
        .public
        .get(&format!("/v1/seed-pairs/{pair_id}/rounds"))
        .await;
    assert_eq!(listed.status, StatusCode::OK);
    let rounds = listed.json["rounds"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 4);
    for (nonce, round) in rounds.iter().enumerate() {
        assert_eq!(round["nonce"], nonce as u64);
        assert_round_verifies(round);
    }

    // A revealed pair takes no more rounds; the new one deals from nonce 0
    // with the seed that was promised.
    let refused = api.deal(&pair_id, json!({"type": "deck"})).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    let next_pair = id(current);
    let dealt = api
        .deal(&next_pair, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.json["nonce"], 0);
    api.close(&dealt.id()).await;
    let second = api.rotate(&next_pair, "three").await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.text);
    let round = app.public.get(&format!("/v1/rounds/{}", dealt.id())).await;
    assert_eq!(round.json["server_seed_hash"], promised_next.as_str());
    assert_round_verifies(&round.json);
}
on_both_backends!(whole_lifecycle_deals_every_game_and_verifies_after_rotation);

async fn rotation_is_refused_while_a_round_is_in_play(app: &TestApp) {
    let api = &app.operator;
    let pair_id = api.active_pair("mid-hand").await;
    let round_id = api
        .deal(&pair_id, json!({"type": "holdem", "players": 9}))
        .await
        .id();
    let refused = api.rotate(&pair_id, "x").await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.json["rounds_in_play"], json!([round_id]));
    assert!(refused.text.contains(&round_id));
    let still = app.public.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(still.json["status"], "active");
    assert!(still.json.get("server_seed").is_none());

    // Rounds left in play close by themselves after the timeout.
    let timeout_ms = 3_600_000;
    let now = fairdeal::time::now_ms();
    let closed = app
        .dealer
        .close_stale_rounds(timeout_ms, now)
        .await
        .expect("auto-close");
    assert_eq!(closed, 0, "a fresh round is not stale");
    let closed = app
        .dealer
        .close_stale_rounds(timeout_ms, now + timeout_ms + 1000)
        .await
        .expect("auto-close");
    assert_eq!(closed, 1);
    let round = app.public.get(&format!("/v1/rounds/{round_id}")).await;
    assert_eq!(round.json["status"], "closed");
    let rotated = api.rotate(&pair_id, "x").await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    assert_eq!(rotated.header("idempotent-replayed"), None);
    // The same rotation again is a retry whose answer was lost: the same
    // pairs and receipts, and nothing new.
    let successor = id(&rotated.json["current"]);
    let logged = app.number("SELECT next_index FROM log_state").await;
    let retry = api.rotate(&pair_id, "x").await;
    assert_eq!(retry.status, StatusCode::OK, "{}", retry.text);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(retry.json, rotated.json);
    assert_eq!(
        app.number("SELECT next_index FROM log_state").await,
        logged,
        "a retry logs nothing"
    );
    let listed = api
        .get("/v1/seed-pairs?status=active&limit=1000")
        .await
        .success();
    let active: Vec<&str> = listed["seed_pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .filter_map(|p| p["predecessor_id"].as_str())
        .filter(|p| *p == pair_id)
        .collect();
    assert_eq!(active.len(), 1, "one successor: {listed}");
    // Another rotation of a revealed pair is refused, naming its successor.
    let again = api.rotate(&pair_id, "y").await;
    assert_eq!(
        again.status,
        StatusCode::CONFLICT,
        "a revealed pair cannot rotate again"
    );
    assert!(again.text.contains(&successor), "{}", again.text);
}
on_both_backends!(rotation_is_refused_while_a_round_is_in_play);

/// A player leaves: the pair's seed is revealed with no successor (none is
/// committed, so none is left unrevealed), its rounds are public at once,
/// a retry is answered as the first, and a table that breaks up ends the
/// same way instead of voiding a successor in public.
async fn a_session_ends_with_its_seed_revealed_and_no_successor(app: &TestApp) {
    let api = &app.operator;
    let pair = api.active_pair("leaving now").await;
    let round = api
        .deal(&pair, json!({"type": "holdem", "players": 2}))
        .await
        .id();
    let refused = api.post(&format!("/v1/seed-pairs/{pair}/end")).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["type"], "/problems/rounds-in-play");
    api.close(&round).await;
    let ended = api.post(&format!("/v1/seed-pairs/{pair}/end")).await;
    assert_eq!(ended.status, StatusCode::OK, "{}", ended.text);
    assert_eq!(ended.json["status"], "revealed");
    assert_eq!(ended.json["successor_id"], Value::Null);
    assert!(
        ended.json["receipt"]["log_index"].is_u64(),
        "{}",
        ended.text
    );
    let seed =
        ServerSeed::from_hex(ended.json["server_seed"].as_str().expect("seed")).expect("hex");
    assert_eq!(
        seed.commitment().to_string(),
        ended.json["server_seed_hash"].as_str().expect("hash")
    );
    let public = app.public.get(&format!("/v1/rounds/{round}")).await;
    assert_eq!(public.json["server_seed"], ended.json["server_seed"]);
    assert!(public.json["deal"].is_object(), "{}", public.text);
    let again = api.post(&format!("/v1/seed-pairs/{pair}/end")).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let rotate = api.rotate(&pair, "after the end").await;
    assert_eq!(rotate.status, StatusCode::CONFLICT, "{}", rotate.text);
    assert_eq!(
        api.get("/v1/seed-pairs?status=active").await.json["seed_pairs"],
        json!([])
    );

    // A rotated pair's session goes on as its successor: end that one.
    let kept = api.active_pair("kept going").await;
    let next = api.rotate(&kept, "kept going next").await.success();
    let refused = api.post(&format!("/v1/seed-pairs/{kept}/end")).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    let successor = next["current"]["id"].as_str().expect("id");
    assert!(
        refused.json["detail"]
            .as_str()
            .is_some_and(|d| d.contains(successor))
    );

    // A table whose players left after a hand: its successor table ends,
    // revealed, and is never voided by the deadline sweep.
    let table = api
        .post_json("/v1/seed-pairs", &json!({"seats": ["ana", "ben"]}))
        .await
        .id();
    let ended = api.post(&format!("/v1/seed-pairs/{table}/end")).await;
    assert_eq!(ended.status, StatusCode::OK, "{}", ended.text);
    assert_eq!(ended.json["status"], "revealed");
    assert_eq!(
        ended.json["table"]["phase_deadline"],
        Value::Null,
        "{}",
        ended.text
    );
    // The deadline sweep, run as if an hour had passed, finds nothing.
    let voided = app
        .dealer
        .void_expired_tables(fairdeal::time::now_ms() + 3_600_000)
        .await
        .expect("sweep");
    assert_eq!(voided, 0);
    let next_index = app.number("SELECT next_index FROM log_state").await;
    crate::log::checkpoint_of(app, next_index as u64).await;
    let (out, report) = crate::harness::run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(
        report["unrevealed"].as_u64(),
        Some(1),
        "only the kept successor: {report:#}"
    );
}
on_both_backends!(a_session_ends_with_its_seed_revealed_and_no_successor);
