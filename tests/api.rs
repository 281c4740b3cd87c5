//! The HTTP API, driven over real HTTP against a real server, each scenario on
//! SQLite and on PostgreSQL.

mod support;

use fairdeal_core::{ClientSeed, Commitment, Deal, Game, ServerSeed, verify};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::app::TestApp;

fn id(value: &Value) -> String {
    value["id"].as_str().expect("an id").to_owned()
}

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

async fn close(app: &TestApp, round_id: &str) {
    let closed = app
        .post(&format!("/v1/rounds/{round_id}/close"), None)
        .await;
    assert_eq!(closed.status, StatusCode::OK, "{}", closed.text);
    assert_eq!(closed.json["status"], "closed");
}

async fn whole_lifecycle_deals_every_game_and_verifies_after_rotation(app: &TestApp) {
    // Commit first: no client seed, no server seed, both commitments published.
    let created = app.post("/v1/seed-pairs", None).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.json["status"], "awaiting_client_seed");
    assert_eq!(created.json["client_seed"], Value::Null);
    assert!(created.json.get("server_seed").is_none());
    assert_eq!(created.json["next_nonce"], 0);
    let pair_id = id(&created.json);
    let promised_next = created.json["next_server_seed_hash"]
        .as_str()
        .expect("next hash")
        .to_owned();

    // No dealing before the client seed.
    let early = app.deal(&pair_id, json!({"type": "deck"})).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.text);

    let set = app
        .put(
            &format!("/v1/seed-pairs/{pair_id}/client-seed"),
            &json!({"client_seed": "🂡 lucky"}),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK);
    assert_eq!(set.json["status"], "active");
    let again = app
        .put(
            &format!("/v1/seed-pairs/{pair_id}/client-seed"),
            &json!({"client_seed": "other"}),
        )
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.content_type(), "application/problem+json");

    let games = [
        json!({"type": "holdem", "players": 6}),
        json!({"type": "omaha", "players": 3}),
        json!({"type": "deck", "decks": 6}),
        json!({"type": "hands", "players": 4, "cards": 5, "decks": 1}),
    ];
    let mut round_ids = Vec::new();
    for (nonce, game) in games.iter().enumerate() {
        let dealt = app.deal(&pair_id, game.clone()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        assert_eq!(dealt.json["nonce"], nonce as u64);
        assert_eq!(dealt.json["protocol"], "fairdeal-v1");
        assert_eq!(dealt.json["status"], "in_play");
        assert_eq!(&dealt.json["game"], game);
        assert!(dealt.json["deal"].is_object(), "the operator sees the deal");
        assert!(dealt.json.get("server_seed").is_none());
        round_ids.push(id(&dealt.json));
    }
    assert_eq!(
        app.get(&format!("/v1/rounds/{}", round_ids[2])).await.json["deal"]["deck"]
            .as_array()
            .map(Vec::len),
        None,
        "a public reader sees no cards before reveal"
    );
    let public = app.get(&format!("/v1/rounds/{}", round_ids[0])).await;
    assert_eq!(public.status, StatusCode::OK);
    assert!(public.json.get("deal").is_none());
    assert_eq!(public.json["nonce"], 0);
    let operator = app
        .get_as_operator(&format!("/v1/rounds/{}", round_ids[0]))
        .await;
    assert_eq!(
        operator.json["deal"]["hands"].as_array().map(Vec::len),
        Some(6)
    );

    for round_id in &round_ids {
        close(app, round_id).await;
    }
    let rotated = app
        .post(
            &format!("/v1/seed-pairs/{pair_id}/rotate"),
            Some(&json!({"client_seed": "round two"})),
        )
        .await;
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
    let listed = app.get(&format!("/v1/seed-pairs/{pair_id}/rounds")).await;
    assert_eq!(listed.status, StatusCode::OK);
    let rounds = listed.json["rounds"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 4);
    for (nonce, round) in rounds.iter().enumerate() {
        assert_eq!(round["nonce"], nonce as u64);
        assert_round_verifies(round);
    }

    // A revealed pair takes no more rounds; the new one deals from nonce 0
    // with the seed that was promised.
    let refused = app.deal(&pair_id, json!({"type": "deck"})).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    let next_pair = id(current);
    let dealt = app
        .deal(&next_pair, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.json["nonce"], 0);
    close(app, &id(&dealt.json)).await;
    let second = app
        .post(
            &format!("/v1/seed-pairs/{next_pair}/rotate"),
            Some(&json!({"client_seed": "three"})),
        )
        .await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.text);
    let round = app.get(&format!("/v1/rounds/{}", id(&dealt.json))).await;
    assert_eq!(round.json["server_seed_hash"], promised_next.as_str());
    assert_round_verifies(&round.json);
}
on_both_backends!(
    whole_lifecycle_deals_every_game_and_verifies_after_rotation,
    whole_lifecycle_deals_every_game_and_verifies_after_rotation
);

async fn rotation_is_refused_while_a_round_is_in_play(app: &TestApp) {
    let pair = app.active_pair("mid-hand").await;
    let pair_id = id(&pair);
    let dealt = app
        .deal(&pair_id, json!({"type": "holdem", "players": 9}))
        .await;
    let round_id = id(&dealt.json);
    let refused = app
        .post(
            &format!("/v1/seed-pairs/{pair_id}/rotate"),
            Some(&json!({"client_seed": "x"})),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.json["rounds_in_play"], json!([round_id]));
    assert!(refused.text.contains(&round_id));
    let still = app.get(&format!("/v1/seed-pairs/{pair_id}")).await;
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
    let round = app.get(&format!("/v1/rounds/{round_id}")).await;
    assert_eq!(round.json["status"], "closed");
    let rotated = app
        .post(
            &format!("/v1/seed-pairs/{pair_id}/rotate"),
            Some(&json!({"client_seed": "x"})),
        )
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let again = app
        .post(
            &format!("/v1/seed-pairs/{pair_id}/rotate"),
            Some(&json!({"client_seed": "x"})),
        )
        .await;
    assert_eq!(
        again.status,
        StatusCode::CONFLICT,
        "a revealed pair cannot rotate again"
    );
}
on_both_backends!(
    rotation_is_refused_while_a_round_is_in_play,
    rotation_is_refused_while_a_round_is_in_play
);

async fn parallel_deals_on_one_pair_get_consecutive_nonces(app: &TestApp) {
    let pair_id = id(&app.active_pair("busy table").await);
    let n = 64;
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let http = app.http.clone();
            let url = format!("{}/v1/seed-pairs/{pair_id}/rounds", app.base);
            let key = app.key.clone();
            tokio::spawn(async move {
                let response = http
                    .post(url)
                    .bearer_auth(key)
                    .json(&json!({"game": {"type": "holdem", "players": 6}}))
                    .send()
                    .await
                    .expect("sent");
                TestApp::reply(response).await
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
    let pair = app.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], n);
    // Paging walks every round once, in nonce order.
    let mut seen = Vec::new();
    let mut after: Option<u64> = None;
    loop {
        let query = after.map_or("?limit=10".to_owned(), |a| format!("?limit=10&after={a}"));
        let page = app
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
on_both_backends!(
    parallel_deals_on_one_pair_get_consecutive_nonces,
    parallel_deals_on_one_pair_get_consecutive_nonces
);

async fn a_retry_with_the_same_idempotency_key_returns_the_same_round(app: &TestApp) {
    let pair_id = id(&app.active_pair("retry").await);
    let url = format!("{}/v1/seed-pairs/{pair_id}/rounds", app.base);
    let send = |key: &'static str, game: Value| {
        let request = app
            .http
            .post(&url)
            .bearer_auth(&app.key)
            .header("Idempotency-Key", key)
            .json(&json!({ "game": game }));
        async move { TestApp::reply(request.send().await.expect("sent")).await }
    };
    let first = send("deal-1", json!({"type": "holdem", "players": 6})).await;
    let retry = send("deal-1", json!({"type": "holdem", "players": 6})).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(retry.status, StatusCode::CREATED);
    assert_eq!(
        retry
            .headers
            .get("idempotent-replayed")
            .map(|v| v.as_bytes()),
        Some(&b"true"[..])
    );
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
        ids.insert(id(&reply.json));
    }
    assert_eq!(ids.len(), 1);
    let pair = app.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], 2, "retries spent no nonce");
}
on_both_backends!(
    a_retry_with_the_same_idempotency_key_returns_the_same_round,
    a_retry_with_the_same_idempotency_key_returns_the_same_round
);

async fn operator_endpoints_need_a_valid_key(app: &TestApp) {
    let pair_id = id(&app.active_pair("auth").await);
    let round_id = id(&app.deal(&pair_id, json!({"type": "deck"})).await.json);
    let operator_calls: [(Method, String); 5] = [
        (Method::POST, "/v1/seed-pairs".to_owned()),
        (Method::PUT, format!("/v1/seed-pairs/{pair_id}/client-seed")),
        (Method::POST, format!("/v1/seed-pairs/{pair_id}/rounds")),
        (Method::POST, format!("/v1/seed-pairs/{pair_id}/rotate")),
        (Method::POST, format!("/v1/rounds/{round_id}/close")),
    ];
    let store = app.dealer.store();
    let revoked = fairdeal::service::keys::generate("revoked", 0).expect("key");
    store.insert_key(&revoked.row).await.expect("insert");
    assert!(store.revoke_key("revoked", 1).await.expect("revoke"));
    let wrong_secret = format!("{}{}", &app.key[..app.key.len() - 4], "0000");
    for (method, path) in &operator_calls {
        for auth in [
            None,
            Some("Bearer nonsense"),
            Some(wrong_secret.as_str()),
            Some(revoked.key.as_str()),
            Some("Basic dXNlcjpwYXNz"),
        ] {
            let mut request = app
                .http
                .request(method.clone(), format!("{}{path}", app.base));
            if let Some(auth) = auth {
                let value = if auth.starts_with("fdk_") {
                    format!("Bearer {auth}")
                } else {
                    auth.to_owned()
                };
                request = request.header("Authorization", value);
            }
            let reply = TestApp::reply(
                request
                    .json(&json!({"client_seed": "x", "game": {"type": "deck"}}))
                    .send()
                    .await
                    .expect("sent"),
            )
            .await;
            assert_eq!(
                reply.status,
                StatusCode::UNAUTHORIZED,
                "{method} {path} with {auth:?}"
            );
            assert_eq!(reply.content_type(), "application/problem+json");
            assert!(reply.headers.contains_key("www-authenticate"));
        }
    }
    // Public reads need no key, but a wrong key is still refused.
    assert_eq!(
        app.get(&format!("/v1/rounds/{round_id}")).await.status,
        StatusCode::OK
    );
    let bad = TestApp::reply(
        app.http
            .get(format!("{}/v1/rounds/{round_id}", app.base))
            .bearer_auth("fdk_0000000000000000_0000000000000000000000000000000000000000000000000000000000000000")
            .send()
            .await
            .expect("sent"),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNAUTHORIZED);
}
on_both_backends!(
    operator_endpoints_need_a_valid_key,
    operator_endpoints_need_a_valid_key
);

/// Each bad request is refused with the right status and a problem document
/// naming the field; nothing is a 500, and nothing changes.
async fn bad_input_is_refused_with_the_field_and_the_rule(app: &TestApp) {
    let pair_id = id(&app.active_pair("bad input").await);
    let rounds = format!("/v1/seed-pairs/{pair_id}/rounds");
    let client_seed = format!("/v1/seed-pairs/{pair_id}/client-seed");
    let raw = |method: Method, path: &str, content_type: &str, body: Vec<u8>| {
        app.http
            .request(method, format!("{}{path}", app.base))
            .bearer_auth(&app.key)
            .header("content-type", content_type)
            .body(body)
    };
    let json_ct = "application/json";
    let cases: Vec<(reqwest::RequestBuilder, StatusCode, Option<&str>)> = vec![
        (
            raw(Method::POST, &rounds, json_ct, b"{\"game\":".to_vec()),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(Method::POST, &rounds, json_ct, b"".to_vec()),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(Method::POST, &rounds, json_ct, b"[1,2]".to_vec()),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"deck"},"extra":1}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("extra"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"deck","colour":"red"}}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("game.colour"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"poker"}}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("game.type"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"holdem","players":23}}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("game.players"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"holdem","players":-1}}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("game.players"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"holdem","players":"six"}}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("game.players"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"holdem","players":99999999999}}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("game.players"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"omaha"}}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("game.players"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"deck","decks":9}}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("game.decks"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"hands","players":5,"cards":11}}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("game.cards"),
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                b"{\"game\":{\"type\":\"d\xffck\"}}".to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(
                Method::POST,
                &rounds,
                "text/plain",
                br#"{"game":{"type":"deck"}}"#.to_vec(),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
        ),
        (
            raw(Method::POST, &rounds, json_ct, vec![b' '; 20_000]),
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
        ),
        (
            raw(
                Method::POST,
                &rounds,
                json_ct,
                br#"{"game":{"type":"deck"}}"#.to_vec(),
            )
            .header("Idempotency-Key", "has space"),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Idempotency-Key"),
        ),
        (
            raw(
                Method::PUT,
                &client_seed,
                json_ct,
                format!(r#"{{"client_seed":"{}"}}"#, "x".repeat(65)).into_bytes(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("client_seed"),
        ),
        (
            raw(
                Method::PUT,
                &client_seed,
                json_ct,
                br#"{"client_seed":""}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("client_seed"),
        ),
        (
            raw(
                Method::PUT,
                &client_seed,
                json_ct,
                br#"{"client_seed":"a\u0000b"}"#.to_vec(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("client_seed"),
        ),
        (
            raw(
                Method::PUT,
                &client_seed,
                json_ct,
                br#"{"client_seed":7}"#.to_vec(),
            ),
            StatusCode::BAD_REQUEST,
            Some("client_seed"),
        ),
        (
            raw(
                Method::POST,
                "/v1/seed-pairs/no-such-pair/rounds",
                json_ct,
                br#"{"game":{"type":"deck"}}"#.to_vec(),
            ),
            StatusCode::NOT_FOUND,
            None,
        ),
        (
            raw(Method::GET, "/v1/rounds/no-such-round", json_ct, Vec::new()),
            StatusCode::NOT_FOUND,
            None,
        ),
        (
            raw(
                Method::GET,
                "/v1/seed-pairs/no-such-pair",
                json_ct,
                Vec::new(),
            ),
            StatusCode::NOT_FOUND,
            None,
        ),
        (
            raw(
                Method::POST,
                "/v1/rounds/no-such-round/close",
                json_ct,
                Vec::new(),
            ),
            StatusCode::NOT_FOUND,
            None,
        ),
        (
            raw(
                Method::GET,
                &format!("{rounds}?limit=0"),
                json_ct,
                Vec::new(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("limit"),
        ),
        (
            raw(
                Method::GET,
                &format!("{rounds}?limit=abc"),
                json_ct,
                Vec::new(),
            ),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(
                Method::GET,
                &format!("{rounds}?after=-3"),
                json_ct,
                Vec::new(),
            ),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(
                Method::GET,
                &format!("{rounds}?colour=red"),
                json_ct,
                Vec::new(),
            ),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            raw(Method::DELETE, &rounds, json_ct, Vec::new()),
            StatusCode::METHOD_NOT_ALLOWED,
            None,
        ),
        (
            raw(Method::GET, "/v2/nothing", json_ct, Vec::new()),
            StatusCode::NOT_FOUND,
            None,
        ),
    ];
    for (i, (request, status, field)) in cases.into_iter().enumerate() {
        let reply = TestApp::reply(request.send().await.expect("sent")).await;
        assert_eq!(reply.status, status, "case {i}: {}", reply.text);
        assert_eq!(reply.content_type(), "application/problem+json", "case {i}");
        assert_eq!(reply.json["status"], status.as_u16(), "case {i}");
        assert!(
            reply.json["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "case {i}"
        );
        if let Some(field) = field {
            assert_eq!(reply.json["field"], field, "case {i}: {}", reply.text);
            assert!(
                reply.json["detail"]
                    .as_str()
                    .is_some_and(|d| d.starts_with(field)),
                "case {i}: {}",
                reply.text
            );
        }
    }
    let pair = app.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], 0, "no bad request spent a nonce");
    assert_eq!(
        pair.json["client_seed"], "bad input",
        "no bad request changed the seed"
    );
}
on_both_backends!(
    bad_input_is_refused_with_the_field_and_the_rule,
    bad_input_is_refused_with_the_field_and_the_rule
);

async fn stateless_verify_recomputes_a_published_vector(app: &TestApp) {
    let body = json!({
        "server_seed": "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c",
        "client_seed": "🂡 lucky",
        "nonce": 41,
        "game": {"type": "holdem", "players": 6}
    });
    for nonce in [json!(41), json!("41")] {
        let mut body = body.clone();
        body["nonce"] = nonce;
        let reply = app
            .request(Method::POST, "/v1/verify", false, Some(&body))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
        assert_eq!(
            reply.json["server_seed_hash"],
            "b034e2041764d657468f5d1371c83fb8dc69fe688a324145b6043894cf1b0c29"
        );
        assert_eq!(
            reply.json["deal"]["board"],
            json!(["Ad", "7s", "Qs", "Jd", "3s"])
        );
        assert_eq!(reply.json["deal"]["hands"][0], json!(["Qc", "6c"]));
    }
    let mut bad = body.clone();
    bad["server_seed"] = json!("d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801");
    let reply = app
        .request(Method::POST, "/v1/verify", false, Some(&bad))
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reply.json["field"], "server_seed");
    assert!(!reply.text.contains("d4905855"), "the seed is not echoed");
    for nonce in [
        json!(-1),
        json!("1e3"),
        json!(1.5),
        json!("18446744073709551616"),
    ] {
        let mut bad = body.clone();
        bad["nonce"] = nonce.clone();
        let reply = app
            .request(Method::POST, "/v1/verify", false, Some(&bad))
            .await;
        assert!(reply.status.is_client_error(), "{nonce}: {}", reply.text);
        assert_eq!(reply.json["field"], "nonce", "{nonce}: {}", reply.text);
    }
}
on_both_backends!(
    stateless_verify_recomputes_a_published_vector,
    stateless_verify_recomputes_a_published_vector
);

async fn health_readiness_and_metrics_answer(app: &TestApp) {
    assert_eq!(app.get("/healthz").await.status, StatusCode::OK);
    assert_eq!(app.get("/readyz").await.status, StatusCode::OK);
    let pair_id = id(&app.active_pair("metrics").await);
    app.deal(&pair_id, json!({"type": "omaha", "players": 4}))
        .await;
    app.deal(&pair_id, json!({"type": "omaha", "players": 4}))
        .await;
    app.deal(&pair_id, json!({"type": "holdem", "players": 40}))
        .await;
    let metrics = app.get("/metrics").await;
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
on_both_backends!(
    health_readiness_and_metrics_answer,
    health_readiness_and_metrics_answer
);

#[test]
fn openapi_yaml_is_generated_from_the_code() {
    let generated = fairdeal::service::http::openapi_yaml();
    support::snapshot::assert_file_current(
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
    ] {
        assert!(
            generated.contains(&format!("  {path}\n")),
            "openapi.yaml lacks {path}"
        );
    }
}

async fn the_export_lists_revealed_pairs_only_and_resumes_from_a_cursor(app: &TestApp) {
    let pair_a = id(&app.active_pair("export a").await);
    for _ in 0..3 {
        let round = app
            .deal(&pair_a, json!({"type": "holdem", "players": 5}))
            .await;
        close(app, &id(&round.json)).await;
    }
    let rotated = app
        .post(
            &format!("/v1/seed-pairs/{pair_a}/rotate"),
            Some(&json!({"client_seed": "b"})),
        )
        .await;
    let pair_b = id(&rotated.json["current"]);
    let in_play = app.deal(&pair_b, json!({"type": "deck"})).await;
    let pair_c = id(&app.active_pair("export c").await);
    for _ in 0..2 {
        let round = app
            .deal(&pair_c, json!({"type": "hands", "players": 2, "cards": 3}))
            .await;
        close(app, &id(&round.json)).await;
    }
    app.post(
        &format!("/v1/seed-pairs/{pair_c}/rotate"),
        Some(&json!({"client_seed": "d"})),
    )
    .await;

    let export = app.get("/v1/export").await;
    assert_eq!(export.status, StatusCode::OK);
    assert_eq!(export.content_type(), "application/x-ndjson");
    let lines: Vec<Value> = export
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let shape: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            let kind = l["type"].as_str().unwrap_or("").to_owned();
            let owner = l["seed_pair_id"]
                .as_str()
                .or(l["id"].as_str())
                .unwrap_or("")
                .to_owned();
            (kind, owner)
        })
        .collect();
    let pair = |id: &str| ("seed_pair".to_owned(), id.to_owned());
    let round = |id: &str| ("round".to_owned(), id.to_owned());
    assert_eq!(
        shape,
        vec![
            pair(&pair_a),
            round(&pair_a),
            round(&pair_a),
            round(&pair_a),
            pair(&pair_c),
            round(&pair_c),
            round(&pair_c),
            ("end".to_owned(), String::new()),
        ]
    );
    assert!(
        !export.text.contains(&pair_b),
        "an unrevealed pair never appears"
    );
    assert!(!export.text.contains(&id(&in_play.json)));
    let report = fairdeal::audit::audit(export.text.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.rounds, 5);

    // Resume after pair A.
    let cursor = lines[0]["cursor"].as_str().expect("cursor");
    let resumed = app.get(&format!("/v1/export?after={cursor}")).await;
    let first: Value =
        serde_json::from_str(resumed.text.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["id"], pair_c.as_str());
    assert_eq!(resumed.text.lines().count(), 4);
    let bad = app.get("/v1/export?after=yesterday").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.json["field"], "after");

    // The command line writes the same bytes straight from the database.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["export", "--database-url", &app.database_url, "--data-dir"])
        .arg(app.dir.path())
        .output()
        .expect("export runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), export.text);

    // And the auditor can read a running service directly.
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["audit", &app.base, "--quiet"])
        .output()
        .await
        .expect("audit runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("5 rounds verified"), "{text}");
}
on_both_backends!(
    the_export_lists_revealed_pairs_only_and_resumes_from_a_cursor,
    the_export_lists_revealed_pairs_only_and_resumes_from_a_cursor
);
