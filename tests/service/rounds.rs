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

/// Ids are UUIDv7s, ascending in the order they were made, so that the
/// rows of a batch (and of batches that follow) land side by side in the id
/// indexes instead of one random leaf a row.
async fn ids_ascend_in_the_order_they_are_made(app: &TestApp) {
    let first = app.operator.active_pair("table one").await;
    let second = app.operator.active_pair("table two").await;
    let mut ids = vec![first.clone(), second.clone()];
    for k in 0..6 {
        let pair = if k % 2 == 0 { &first } else { &second };
        let reply = app.operator.deal(pair, json!({"type": "deck"})).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        ids.push(reply.json["id"].as_str().expect("id").to_owned());
    }
    for id in &ids {
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(&id[14..15], "7", "a version 7 UUID: {id}");
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, ids, "in the order they were made");
}
on_both_backends!(ids_ascend_in_the_order_they_are_made);

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

/// Each outcome of a batch in words: `row` for a dealt round.
fn summarize(
    results: &[fairdeal::service::store::BatchedRound],
    row: impl Fn(&fairdeal::service::store::RoundRow) -> String,
) -> Vec<String> {
    results
        .iter()
        .map(|r| match r {
            Ok(Some(dealt)) => row(dealt),
            Ok(None) => "no round".to_owned(),
            Err(err) => format!("failed: {err}"),
        })
        .collect()
}

/// Group commit: one transaction deals a batch, each request in a savepoint
/// of its own. A request that fails (here, its dealing step) or whose pair
/// takes no round is rolled back alone; the others commit, two on one pair
/// with consecutive nonces, and the log holds exactly the committed ones.
async fn one_failing_deal_does_not_fail_its_batch(app: &TestApp) {
    use fairdeal::service::store::{NewRound, RoundRequest};

    let first = app.operator.active_pair("batch one").await;
    let second = app.operator.active_pair("batch two").await;
    let waiting = app.operator.post("/v1/seed-pairs").await.success();
    let waiting = waiting["id"].as_str().expect("id").to_owned();
    let request = |pair: &str, key: Option<&str>| RoundRequest {
        pair_id: pair.to_owned(),
        idempotency_key: key.map(str::to_owned),
    };
    let requests = [
        request(&first, Some("a")),
        request(&waiting, None),
        request(&second, None),
        request(&first, Some("b")),
        request(&first, None),
    ];
    let store = app.dealer.store();
    let log_before = app.public.get("/log/checkpoint").await;
    assert_eq!(log_before.status, StatusCode::OK);
    let dealing = |i: usize, ctx: &fairdeal::service::store::DealContext<'_>| {
        anyhow::ensure!(i != 2, "the dealing step of request 2 fails");
        let id = format!("batch-round-{i}");
        Ok(NewRound {
            log_entry: format!(
                "{{\"type\":\"round\",\"round\":\"{id}\",\"nonce\":{}}}",
                ctx.nonce
            )
            .into_bytes(),
            id,
            game: "{\"type\":\"deck\",\"decks\":1}".to_owned(),
            deal_sealed: vec![1, 2, 3],
            created_at: 1,
        })
    };
    // Without savepoints, the failing request fails the whole batch and
    // nothing is committed.
    let whole = store.insert_rounds(&requests, false, dealing).await;
    assert!(
        whole.is_err_and(|e| e.to_string().contains("request 2")),
        "the batch fails as a whole"
    );
    let pair = app.public.get(&format!("/v1/seed-pairs/{first}")).await;
    assert_eq!(pair.json["next_nonce"], 0, "nothing of it committed");
    let results = store
        .insert_rounds(&requests, true, dealing)
        .await
        .expect("the batch commits");
    let summary = summarize(&results, |row| {
        format!("dealt {} nonce {}", row.seed_pair_id, row.nonce)
    });
    assert_eq!(
        summary,
        [
            format!("dealt {first} nonce 0"),
            "no round".to_owned(),
            "failed: the dealing step of request 2 fails".to_owned(),
            format!("dealt {first} nonce 1"),
            format!("dealt {first} nonce 2"),
        ]
    );
    // The failed request spent no nonce on its pair, and its rounds and log
    // entries were rolled back with it.
    let pair = app.public.get(&format!("/v1/seed-pairs/{second}")).await;
    assert_eq!(pair.json["next_nonce"], 0);
    let pair = app.public.get(&format!("/v1/seed-pairs/{first}")).await;
    assert_eq!(pair.json["next_nonce"], 3);
    let rounds = app
        .public
        .get(&format!("/v1/seed-pairs/{first}/rounds"))
        .await;
    assert_eq!(rounds.json["rounds"].as_array().map(Vec::len), Some(3));
    // Count the batch's log entries (an update that changes nothing
    // reports the rows it matched).
    let entries = app
        .tamper(
            "UPDATE log_entries SET entry = entry WHERE idx >= $1 AND entry LIKE '%batch-round-%'",
            0i64,
        )
        .await;
    assert_eq!(entries, 3, "three round entries, none of request 2");

    // Without savepoints and without a failure: the batch's statements
    // together, rows matched to their requests, a pair's deals in order.
    let together = [
        request(&second, None),
        request(&waiting, None),
        request(&first, Some("c")),
        request(&first, None),
    ];
    let results = store
        .insert_rounds(&together, false, |i, ctx| dealing(i + 10, ctx))
        .await
        .expect("the batch commits");
    let summary = summarize(&results, |row| {
        format!("{} {} {}", row.seed_pair_id, row.nonce, row.id)
    });
    assert_eq!(
        summary,
        [
            format!("{second} 0 batch-round-10"),
            "no round".to_owned(),
            format!("{first} 3 batch-round-12"),
            format!("{first} 4 batch-round-13"),
        ]
    );
    // A batch's rows are built from what it bound, not read back: they are
    // the rows as stored.
    for result in &results {
        if let Ok(Some(row)) = result {
            let mut built = row.clone();
            built.log_entry = None;
            let stored = store.round(&row.id).await.expect("read").expect("stored");
            assert_eq!(format!("{built:?}"), format!("{stored:?}"));
        }
    }
    let with_key = store
        .replayed(&request(&first, Some("c")))
        .await
        .expect("read");
    assert_eq!(with_key.map(|row| row.nonce), Some(3));
    // Each dealt row brings its log entry's bytes (the receipt is signed
    // from them); a row read back does not.
    let brought: Vec<Option<String>> = results
        .iter()
        .map(|r| match r {
            Ok(Some(row)) => row
                .log_entry
                .as_ref()
                .map(|e| String::from_utf8_lossy(e).into_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(
        brought[2].as_deref(),
        Some("{\"type\":\"round\",\"round\":\"batch-round-12\",\"nonce\":3}")
    );
    assert!(brought[1].is_none());

    // A pair with one nonce left and two deals in the batch: the batch's
    // one statement leaves it out, and its deals are taken one by one, so
    // the first gets the last nonce and the second finds it exhausted.
    let last = 9_007_199_254_740_990i64;
    let changed = app
        .tamper(
            "UPDATE seed_pairs SET next_nonce = $1 WHERE next_nonce = 1",
            last,
        )
        .await;
    assert_eq!(changed, 1, "the second pair alone had dealt one round");
    let near_end = [
        request(&first, None),
        request(&second, None),
        request(&second, None),
    ];
    let results = store
        .insert_rounds(&near_end, false, |i, ctx| dealing(i + 20, ctx))
        .await
        .expect("the batch commits");
    let summary = summarize(&results, |row| {
        format!("{} {}", row.seed_pair_id, row.nonce)
    });
    assert_eq!(
        summary,
        [
            format!("{first} 5"),
            format!("{second} {last}"),
            "no round".to_owned(),
        ]
    );
}
on_both_backends!(one_failing_deal_does_not_fail_its_batch);

/// The deal path keeps a copy of each pair it last read while active, to
/// answer without reading it again. The copy never decides: another
/// tenant's pair is still a 404 after its owner has dealt on it, and a pair
/// revealed behind this process's back (as another process would) is
/// refused by the database, named as revealed, and deals nothing.
async fn a_pair_read_while_active_decides_nothing(app: &TestApp) {
    let pair_id = app.operator.active_pair("copied").await;
    let holdem = json!({"type": "holdem", "players": 6});
    let first = app.operator.deal(&pair_id, holdem.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let other = crate::tenants::operator_of(app, "other-backend", "other-tenant").await;
    let refused = other.deal(&pair_id, holdem.clone()).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.text);
    // Revealed by "another process": only the database knows.
    let changed = app
        .tamper(
            "UPDATE seed_pairs SET status = 'revealed', server_seed = server_seed_hash, \
             server_seed_sealed = NULL WHERE next_nonce = $1",
            1i64,
        )
        .await;
    assert_eq!(changed, 1);
    for _ in 0..2 {
        let late = app.operator.deal(&pair_id, holdem.clone()).await;
        assert_eq!(late.status, StatusCode::CONFLICT, "{}", late.text);
        assert!(late.text.contains("revealed"), "{}", late.text);
    }
    let rounds = app
        .public
        .get(&format!("/v1/seed-pairs/{pair_id}/rounds"))
        .await;
    assert_eq!(rounds.json["rounds"].as_array().map(Vec::len), Some(1));
}
on_both_backends!(a_pair_read_while_active_decides_nothing);
