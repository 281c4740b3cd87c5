//! fairdeal-chain-v1 pairs: each round's seed published the moment it and
//! every earlier round ended, checkable on its own with fairdeal-v1.

use fairdeal_core::{
    ClientSeed, Commitment, DealCheck, Game, ServerSeed, chain_commitment, chain_links,
    check_chain_prefix,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{TestApp, on_both_backends, run_audit_log};

const HOLDEM: fn() -> Value = || json!({"type": "holdem", "players": 2});

/// A chain pair of `length` with `client_seed`: its view.
async fn chain_pair(app: &TestApp, length: u64, client_seed: &str) -> Value {
    let created = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": length}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.json["protocol"], "fairdeal-chain-v1");
    assert_eq!(created.json["chain"]["length"], length);
    assert_eq!(created.json["chain"]["published_rounds"], 0);
    let id = created.id();
    let set = app
        .operator
        .put_json(
            &format!("/v1/seed-pairs/{id}/client-seed"),
            &json!({ "client_seed": client_seed }),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.text);
    set.json
}

fn hex_seed(value: &Value) -> ServerSeed {
    ServerSeed::from_hex(value.as_str().expect("a seed")).expect("hex seed")
}

fn commitment(value: &Value) -> Commitment {
    Commitment::from_hex(value.as_str().expect("a commitment")).expect("hex commitment")
}

/// Checks a published chain round on its own, as a fairdeal-v1 verifier
/// would: its seed against `previous` (the pair's commitment or the
/// previous round's seed) and its cards.
fn check_round(round: &Value, previous: &Commitment, client_seed: &str) {
    let seed = hex_seed(&round["server_seed"]);
    assert!(chain_links(&seed, previous), "the seed links: {round}");
    // The round says its own fairdeal-v1 commitment: the same value.
    assert_eq!(
        round["chain"]["round_commitment"],
        previous.to_string(),
        "{round}"
    );
    let game: Game = serde_json::from_value(round["game"].clone()).expect("game");
    let deal = serde_json::from_value(round["deal"].clone()).expect("a public deal");
    let report = fairdeal_core::verify(
        &seed,
        previous,
        &ClientSeed::new(client_seed).expect("client seed"),
        round["nonce"].as_u64().expect("nonce"),
        game,
        &deal,
    );
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.deal, DealCheck::Match);
}

/// Every round of `pair_id` as the public reads it, a page at a time.
async fn public_rounds(app: &TestApp, pair_id: &str) -> Vec<Value> {
    let mut rounds = Vec::new();
    let mut after: Option<u64> = None;
    loop {
        let query = after.map_or("?limit=100".to_owned(), |a| format!("?limit=100&after={a}"));
        let page = app
            .public
            .get(&format!("/v1/seed-pairs/{pair_id}/rounds{query}"))
            .await;
        rounds.extend(
            page.json["rounds"]
                .as_array()
                .expect("rounds")
                .iter()
                .cloned(),
        );
        match page.json["next_after"].as_u64() {
            Some(next) => after = Some(next),
            None => return rounds,
        }
    }
}

/// A round as the public reads it.
async fn public(app: &TestApp, id: &str) -> crate::harness::Reply {
    app.public.get(&format!("/v1/rounds/{id}")).await
}

async fn a_round_seed_is_published_once_it_and_every_earlier_round_ended(app: &TestApp) {
    let pair = chain_pair(app, 5, "chain player").await;
    let pair_id = pair["id"].as_str().expect("id").to_owned();
    let s0 = commitment(&pair["server_seed_hash"]);
    let mut rounds = Vec::new();
    for nonce in 0..3u64 {
        let dealt = app.operator.deal(&pair_id, HOLDEM()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        assert_eq!(dealt.json["nonce"], nonce);
        assert_eq!(dealt.json["protocol"], "fairdeal-chain-v1");
        assert_eq!(dealt.json["chain"]["position"], nonce + 1);
        assert!(dealt.json.get("server_seed").is_none(), "{}", dealt.text);
        rounds.push(dealt.id());
    }
    // Round 1 ends first: its seed would open round 0's, still in play.
    app.operator.close(&rounds[1]).await;
    for id in &rounds {
        let view = public(app, id).await;
        assert!(view.json.get("server_seed").is_none(), "{}", view.text);
        assert!(view.json.get("deal").is_none(), "{}", view.text);
    }
    // Round 0 ends: both seeds are published, round 2's is not.
    let closed = app
        .operator
        .post(&format!("/v1/rounds/{}/close", rounds[0]))
        .await;
    assert_eq!(closed.status, StatusCode::OK, "{}", closed.text);
    assert!(closed.json["server_seed"].is_string(), "{}", closed.text);
    let zero = public(app, &rounds[0]).await.json;
    let one = public(app, &rounds[1]).await.json;
    check_round(&zero, &s0, "chain player");
    check_round(&one, &commitment(&zero["server_seed"]), "chain player");
    let two = public(app, &rounds[2]).await;
    assert!(two.json.get("server_seed").is_none(), "{}", two.text);
    assert!(two.json.get("deal").is_none(), "{}", two.text);
    let view = app.public.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(view.json["chain"]["published_rounds"], 2, "{}", view.text);
    assert!(view.json.get("server_seed").is_none(), "{}", view.text);

    // The chain is used up after its fifth round.
    for _ in 3..5 {
        let dealt = app.operator.deal(&pair_id, HOLDEM()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        rounds.push(dealt.id());
    }
    let refused = app.operator.deal(&pair_id, HOLDEM()).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["type"], "/problems/pair-exhausted");
    assert!(
        refused.json["detail"]
            .as_str()
            .is_some_and(|d| d.contains("all 5 rounds of its chain")),
        "{}",
        refused.text
    );
    for id in &rounds[2..] {
        app.operator.close(id).await;
    }
    let mut seeds = Vec::new();
    for id in &rounds {
        seeds.push(hex_seed(&public(app, id).await.json["server_seed"]));
    }
    assert_eq!(check_chain_prefix(&s0, &seeds), Ok(()));

    // Rotation reveals the tip; the successor is the chain promised.
    let rotated = app.operator.rotate(&pair_id, "next chain player").await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let tip = hex_seed(&rotated.json["revealed"]["server_seed"]);
    assert_eq!(chain_commitment(&tip, 5).expect("length"), s0);
    assert_eq!(
        seeds[4].as_bytes(),
        tip.as_bytes(),
        "round 4 dealt from the tip"
    );
    let current = &rotated.json["current"];
    assert_eq!(current["protocol"], "fairdeal-chain-v1");
    assert_eq!(current["chain"]["length"], 5);
    assert_eq!(current["server_seed_hash"], pair["next_server_seed_hash"]);
    let next_id = current["id"].as_str().expect("id");
    let dealt = app.operator.deal(next_id, HOLDEM()).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    app.operator.close(&dealt.id()).await;
    let first = public(app, &dealt.id()).await.json;
    check_round(
        &first,
        &commitment(&current["server_seed_hash"]),
        "next chain player",
    );
    // Nothing sealed of the revealed chain is kept.
    assert_eq!(
        app.number("SELECT COUNT(*) FROM chain_anchors WHERE seed_pair_id IN (SELECT id FROM seed_pairs WHERE status = 'revealed')")
            .await,
        0
    );
}
on_both_backends!(a_round_seed_is_published_once_it_and_every_earlier_round_ended);

/// Rounds closed by the timeout publish their seeds as closed ones do; a
/// chain of one round is dealt from its tip.
async fn rounds_closed_by_the_timeout_publish_their_seeds(app: &TestApp) {
    let pair = chain_pair(app, 300, "timed out").await;
    let pair_id = pair["id"].as_str().expect("id");
    let mut rounds = Vec::new();
    // Past the first sealed seed (every 128 positions).
    for _ in 0..130 {
        let dealt = app.operator.deal(pair_id, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        rounds.push(dealt.id());
    }
    let closed = app
        .dealer
        .close_stale_rounds(0, i64::MAX)
        .await
        .expect("close");
    assert_eq!(closed, 130);
    let mut previous = commitment(&pair["server_seed_hash"]);
    let rounds = public_rounds(app, pair_id).await;
    for round in &rounds {
        check_round(round, &previous, "timed out");
        previous = commitment(&round["server_seed"]);
    }
    assert_eq!(rounds.len(), 130);
    // The sealed seeds below the published ones are gone; those above stay.
    assert_eq!(
        app.number("SELECT COUNT(*) FROM chain_anchors WHERE position <= 130")
            .await,
        0
    );

    let one = chain_pair(app, 1, "one round").await;
    let one_id = one["id"].as_str().expect("id");
    let dealt = app.operator.deal(one_id, HOLDEM()).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    app.operator.close(&dealt.id()).await;
    let round = app
        .public
        .get(&format!("/v1/rounds/{}", dealt.id()))
        .await
        .json;
    check_round(&round, &commitment(&one["server_seed_hash"]), "one round");
    let refused = app.operator.deal(one_id, HOLDEM()).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
}
on_both_backends!(rounds_closed_by_the_timeout_publish_their_seeds);

/// A chain pair asked for wrongly is refused naming the field and the rule.
async fn a_chain_pair_is_refused_clearly(app: &TestApp) {
    for (body, rule) in [
        (
            json!({"chain_length": 10}),
            "only for a \"fairdeal-chain-v1\" pair",
        ),
        (json!({"protocol": "fairdeal-chain-v1"}), "is required"),
        (
            json!({"protocol": "fairdeal-chain-v1", "chain_length": 0}),
            "must be a whole number of rounds from 1 to 1000000; got 0",
        ),
        (
            json!({"protocol": "fairdeal-chain-v1", "chain_length": 1_000_001}),
            "must be a whole number of rounds from 1 to 1000000; got 1000001",
        ),
    ] {
        let refused = app.operator.post_json("/v1/seed-pairs", &body).await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(refused.json["field"], "chain_length", "{}", refused.text);
        let detail = refused.json["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(rule), "{body}: {detail} lacks {rule}");
    }
    // An unknown name, or a value of another type, is answered with the
    // names the field takes (not a parser's position).
    for protocol in [json!("fairdeal-v2"), json!(1), json!(true), json!({"v": 1})] {
        let unknown = app
            .operator
            .post_json("/v1/seed-pairs", &json!({ "protocol": protocol }))
            .await;
        assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{}", unknown.text);
        assert_eq!(unknown.json["field"], "protocol", "{}", unknown.text);
        let detail = unknown.json["detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with("protocol: must be \"fairdeal-v1\" or \"fairdeal-chain-v1\"")
                && detail.ends_with(&format!("got {protocol}"))
                && !detail.contains("line 1"),
            "{detail}"
        );
    }
    // JSON Schema counts 3.0 as the integer 3; a fraction is refused.
    let whole = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 3.0}),
        )
        .await;
    assert_eq!(whole.status, StatusCode::CREATED, "{}", whole.text);
    assert_eq!(whole.json["chain"]["length"], 3);
    let fraction = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 2.5}),
        )
        .await;
    // Refused with the rule, as any value out of it.
    assert_eq!(
        fraction.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        fraction.text
    );
    assert_eq!(fraction.json["field"], "chain_length", "{}", fraction.text);
    assert!(
        fraction.text.contains("from 1 to 1000000; got 2.5"),
        "{}",
        fraction.text
    );
    // A plain pair says its protocol.
    let plain = app.operator.post("/v1/seed-pairs").await;
    assert_eq!(plain.json["protocol"], "fairdeal-v1");
    assert!(plain.json.get("chain").is_none(), "{}", plain.text);
}
on_both_backends!(a_chain_pair_is_refused_clearly);

/// A chain pair's log, export and audit: the monitor accepts its seeds
/// published in order while a later round is in play, the audit and the
/// log cross-check pass it, and a round's seed changed in the database
/// fails the audit naming that round.
async fn a_chain_pair_passes_the_monitor_and_the_audit_and_a_changed_seed_does_not(app: &TestApp) {
    let pair = chain_pair(app, 6, "audited").await;
    let pair_id = pair["id"].as_str().expect("id");
    let mut rounds = Vec::new();
    for _ in 0..4 {
        let dealt = app.operator.deal(pair_id, HOLDEM()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        rounds.push(dealt.id());
    }
    for k in [1, 0, 2] {
        app.operator.close(&rounds[k]).await;
    }
    crate::monitor::integrated(app).await;
    let (out, report) = crate::harness::run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(crate::monitor::kinds(&report), Vec::<String>::new());

    app.operator.close(&rounds[3]).await;
    app.operator
        .rotate(pair_id, "after the chain")
        .await
        .success();
    crate::monitor::integrated(app).await;
    let (out, report) = crate::harness::run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let export = app.public.get("/v1/export").await.text;
    assert!(export.contains(r#""chain_length":6"#), "{export}");
    let report = fairdeal::audit::audit(export.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.rounds_verified, 4);
    let (code, report) = run_audit_log(app.public.base(), &export, &[]).await;
    assert_eq!(code, Some(0), "{report:#}");

    // Round 2's seed replaced by round 3's: its cards no longer follow,
    // nor does its link to round 1.
    let seed_of_3 = public(app, &rounds[3]).await.json["server_seed"]
        .as_str()
        .expect("seed")
        .to_owned();
    let changed = app
        .tamper(
            "UPDATE rounds SET server_seed = $1 WHERE nonce = 2",
            seed_of_3,
        )
        .await;
    assert_eq!(changed, 1);
    let export = app.public.get("/v1/export").await.text;
    let report = fairdeal::audit::audit(export.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(!report.passed());
    let named: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.detail.contains(&rounds[2]))
        .map(|f| f.kind)
        .collect();
    assert!(named.contains(&"commitment"), "{:?}", report.findings);
    assert!(named.contains(&"card"), "{:?}", report.findings);
    // Held against the log, the export's seed is not the one published.
    let (code, report) = run_audit_log(app.public.base(), &export, &[]).await;
    assert_eq!(code, Some(1), "{report:#}");
    assert!(
        report["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| {
                f["kind"] == "log"
                    && f["detail"].as_str().is_some_and(|d| {
                        d.contains(
                            "nonce 2: the export's round seed is not the one the log published",
                        )
                    })
            })),
        "{report:#}"
    );
}
on_both_backends!(a_chain_pair_passes_the_monitor_and_the_audit_and_a_changed_seed_does_not);

/// Deals on chain pairs in batches, across sealed seeds 128 apart, and
/// past a chain's end: every nonce once, every seed the chain's, and the
/// deals beyond the end refused.
async fn concurrent_chain_deals_take_every_nonce_once_and_stop_at_the_end(app: &TestApp) {
    let long = chain_pair(app, 1000, "busy chain").await;
    let short = chain_pair(app, 40, "short chain").await;
    let (long_id, short_id) = (
        long["id"].as_str().expect("id").to_owned(),
        short["id"].as_str().expect("id").to_owned(),
    );
    let tasks: Vec<_> = (0..300)
        .map(|k| {
            let api = app.operator.clone();
            let pair = if k % 3 == 0 {
                short_id.clone()
            } else {
                long_id.clone()
            };
            tokio::spawn(
                async move { (k % 3 == 0, api.deal(&pair, json!({"type": "deck"})).await) },
            )
        })
        .collect();
    let (mut long_rounds, mut short_dealt, mut short_refused) = (Vec::new(), 0, 0);
    for task in tasks {
        let (is_short, reply) = task.await.expect("task");
        match (is_short, reply.status) {
            (false, StatusCode::CREATED) => long_rounds.push(reply.id()),
            (true, StatusCode::CREATED) => short_dealt += 1,
            (true, StatusCode::CONFLICT) => short_refused += 1,
            (_, status) => panic!("{status}: {}", reply.text),
        }
    }
    assert_eq!(long_rounds.len(), 200);
    assert_eq!((short_dealt, short_refused), (40, 60));
    let closed = app
        .dealer
        .close_stale_rounds(0, i64::MAX)
        .await
        .expect("close");
    assert_eq!(closed, 240);
    for (pair, client_seed, count) in [(&long, "busy chain", 200), (&short, "short chain", 40)] {
        let id = pair["id"].as_str().expect("id");
        let mut previous = commitment(&pair["server_seed_hash"]);
        let mut nonces = Vec::new();
        for round in public_rounds(app, id).await {
            check_round(&round, &previous, client_seed);
            previous = commitment(&round["server_seed"]);
            nonces.push(round["nonce"].as_u64().expect("nonce"));
        }
        assert_eq!(nonces, (0..count).collect::<Vec<u64>>(), "{id}");
    }
}
on_both_backends!(concurrent_chain_deals_take_every_nonce_once_and_stop_at_the_end);
