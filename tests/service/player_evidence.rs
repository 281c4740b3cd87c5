//! What a player's verifier reads from the log rather than from the
//! operator's API (docs/THREAT-MODEL.md): a round's link names its log
//! entry, any entry is served with its proof, a pair's client seed entry
//! has a receipt, and `same-client-seed` states the hash the log holds.
//! Then the page itself in Chromium (web/tests/e2e-player.mjs), against a
//! dishonest operator who edits the database with the master key in hand.

use fairdeal::service::store::Store;
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::statement::Statement;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::harness::{Backend, TestApp, on_both_backends, run_monitor, spawn_app_monitored};

/// Waits until `path` (a receipt) answers 200: its entry is in a checkpoint.
async fn proven(app: &TestApp, path: &str) -> Value {
    for _ in 0..400 {
        let reply = app.public.get(path).await;
        if reply.status == StatusCode::OK {
            return reply.json;
        }
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{path}: {}", reply.text);
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{path} was never proven");
}

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The deal's answer and every later view carry the round's link with its
/// log index; the log serves that entry, signed and proven, to anyone, and
/// still does once the round is gone from the database.
async fn a_rounds_link_names_its_log_entry_and_the_log_serves_it(app: &TestApp) {
    let pair = app.operator.active_pair("linked player").await;
    let dealt = app
        .operator
        .deal(&pair, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    let round = dealt.id();
    let index = dealt.json["receipt"]["log_index"]
        .as_u64()
        .expect("a receipt");
    let link = format!("/verify?round={round}&log={index}");
    assert_eq!(dealt.json["verify_url"], link, "{}", dealt.text);
    let viewed = app.public.get(&format!("/v1/rounds/{round}")).await;
    assert_eq!(viewed.json["verify_url"], link, "{}", viewed.text);

    let receipt = proven(app, &format!("/v1/rounds/{round}/receipt")).await;
    let entry = proven(app, &format!("/v1/log/entries/{index}")).await;
    assert_eq!(entry["log_index"], index);
    assert_eq!(entry["entry"], receipt["entry"]);
    assert_eq!(entry["signature"], receipt["signature"]);
    assert!(
        entry["proof"]
            .as_str()
            .is_some_and(|p| p.starts_with(&format!("c2sp.org/tlog-proof@v1\nindex {index}\n"))),
        "{entry:#}"
    );
    let said: Value = serde_json::from_str(entry["entry"].as_str().expect("entry")).expect("JSON");
    assert_eq!(said["type"], "round");
    assert_eq!(said["round"], round);

    // The round removed behind the service's back: the API forgets it, the
    // log does not.
    assert_eq!(
        app.tamper("DELETE FROM rounds WHERE id = $1", round.clone())
            .await,
        1
    );
    assert_eq!(
        app.public.get(&format!("/v1/rounds/{round}")).await.status,
        StatusCode::NOT_FOUND
    );
    let still = app.public.get(&format!("/v1/log/entries/{index}")).await;
    assert_eq!(still.status, StatusCode::OK, "{}", still.text);
    assert_eq!(still.json["entry"], receipt["entry"]);

    // Beyond the log, and indexes that are not indexes.
    let size = app.number("SELECT next_index FROM log_state").await;
    let beyond = app.public.get(&format!("/v1/log/entries/{size}")).await;
    assert_eq!(beyond.status, StatusCode::NOT_FOUND, "{}", beyond.text);
    assert!(beyond.text.contains("no entry"), "{}", beyond.text);
    for bad in [
        "abc",
        "-1",
        "%2B1",
        "1.0",
        "9223372036854775808",
        "99999999999999999999",
    ] {
        let reply = app.public.get(&format!("/v1/log/entries/{bad}")).await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bad}: {}",
            reply.text
        );
        assert_eq!(reply.json["field"], "index", "{bad}: {}", reply.text);
        assert!(reply.text.contains("whole number"), "{bad}: {}", reply.text);
    }
}
on_both_backends!(a_rounds_link_names_its_log_entry_and_the_log_serves_it);

/// The client seed's receipt states the hash of the seed the player set, and
/// `same-client-seed` states the log's hash, not the stored seed's: a seed
/// changed in the database after it was set shows as a difference.
async fn the_client_seed_is_read_from_the_log(app: &TestApp) {
    let created = app.operator.post("/v1/seed-pairs").await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let pair = created.id();
    let before = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}/receipt?entry=client_seed"))
        .await;
    assert_eq!(before.status, StatusCode::NOT_FOUND, "{}", before.text);
    assert!(before.text.contains("client seed"), "{}", before.text);

    let seed = "the player's own 7f3a9c";
    app.operator
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &json!({"client_seed": seed}),
        )
        .await
        .success();
    let receipt = proven(
        app,
        &format!("/v1/seed-pairs/{pair}/receipt?entry=client_seed"),
    )
    .await;
    let entry: Value =
        serde_json::from_str(receipt["entry"].as_str().expect("entry")).expect("JSON");
    assert_eq!(entry["type"], "client_seed");
    assert_eq!(entry["seed_pair"], pair);
    assert_eq!(entry["client_seed_sha256"], sha256_hex(seed));
    let commit = proven(app, &format!("/v1/seed-pairs/{pair}/receipt")).await;
    assert!(
        commit["log_index"].as_u64() < receipt["log_index"].as_u64(),
        "the commitment is logged before the client seed"
    );

    // Two characters of the seed changed in the database.
    let changed = app
        .tamper(
            "UPDATE seed_pairs SET client_seed = $1 WHERE client_seed = 'the player''s own 7f3a9c'",
            "the player's own 7f3a9d".to_owned(),
        )
        .await;
    assert_eq!(changed, 1);
    let shown = app.public.get(&format!("/v1/seed-pairs/{pair}")).await;
    assert_eq!(shown.json["client_seed"], "the player's own 7f3a9d");
    let same = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}/same-client-seed"))
        .await;
    assert_eq!(same.status, StatusCode::OK, "{}", same.text);
    assert_eq!(
        same.json["client_seed_sha256"],
        sha256_hex(seed),
        "the log's hash, not the changed seed's: {}",
        same.text
    );
    assert_eq!(
        same.json["client_seed_lookalike_sha256"],
        entry["client_seed_lookalike_sha256"]
    );
    let again = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}/receipt?entry=client_seed"))
        .await;
    assert_eq!(again.json["entry"], receipt["entry"]);
}
on_both_backends!(the_client_seed_is_read_from_the_log);

/// A monitor's statement key, written where `fairdeal monitor
/// --statement-key` reads it: (the key, its file, the directory that holds
/// it).
fn monitor_key(name: &str) -> (LogKey, std::path::PathBuf, tempfile::TempDir) {
    let key = LogKey::generate(name).expect("key");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("monitor.key");
    std::fs::write(&path, hex::encode(*key.seed())).expect("write the key");
    (key, path, dir)
}

/// Runs the real monitor, signing and posting its statement: its report.
async fn monitor_publishing(app: &TestApp, key_file: &std::path::Path, name: &str) -> Value {
    let args = [
        "--statement-key".to_owned(),
        key_file.display().to_string(),
        "--statement-name".to_owned(),
        name.to_owned(),
        "--publish".to_owned(),
    ];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

/// Waits until every log entry is in a checkpoint.
async fn integrated(app: &TestApp) {
    let size = app.number("SELECT next_index FROM log_state").await;
    for _ in 0..400 {
        if app.number("SELECT integrated_size FROM log_state").await >= size {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the log did not integrate {size} entries");
}

/// A monitor's signed statement, posted by the real `fairdeal monitor
/// --publish`, is kept and served; anything else is refused naming the
/// rule, and an older statement does not replace a newer one. A nonce
/// dealt twice shows in the statement at the second entry's index.
async fn monitor_statements_are_checked_kept_and_served(backend: Backend) {
    let name = "monitor.example/one";
    let (key, key_file, _dir) = monitor_key(name);
    let Some(app) = spawn_app_monitored(backend, &[key.vkey()]).await else {
        return;
    };
    let pair = app.operator.active_pair("monitored player").await;
    let first = deal(&app, &pair, json!({"type": "deck"})).await;
    integrated(&app).await;
    let report = monitor_publishing(&app, &key_file, name).await;
    assert_eq!(report["verdict"], "pass", "{report:#}");
    let served = app.public.get("/v1/log/monitor-statements").await;
    assert_eq!(served.status, StatusCode::OK, "{}", served.text);
    let statements = served.json["statements"].as_array().expect("statements");
    assert_eq!(statements.len(), 1, "{}", served.text);
    assert_eq!(statements[0]["monitor"], key.vkey());
    let note = statements[0]["note"].as_str().expect("note");
    let said = Statement::verify(note, &key.vkey()).expect("the monitor's signature");
    assert_eq!(said.origin, app.log.origin());
    assert_eq!(said.size, report["size"].as_u64().expect("size"));
    assert_eq!(said.findings, []);
    let older = note.to_owned();

    // The nonce dealt again after its round was deleted: the next statement names it.
    let again = deal_again(&app, &pair, &first, json!({"type": "deck"})).await;
    let again_index = again["receipt"]["log_index"].as_u64().expect("index");
    integrated(&app).await;
    let report = monitor_publishing(&app, &key_file, name).await;
    assert_eq!(report["verdict"], "fail", "{report:#}");
    let served = app.public.get("/v1/log/monitor-statements").await;
    let note = served.json["statements"][0]["note"]
        .as_str()
        .expect("note")
        .to_owned();
    let said = Statement::verify(&note, &key.vkey()).expect("verifies");
    let repeat = said
        .findings
        .iter()
        .find(|f| f.index == Some(again_index))
        .unwrap_or_else(|| panic!("the repeat is named at {again_index}: {note}"));
    assert_eq!(repeat.kind, "order");
    assert!(repeat.detail.contains(&pair), "{}", repeat.detail);

    // The older statement again: checked, not kept.
    let post = |body: String, content_type: &'static str| {
        let request = app
            .public
            .request(reqwest::Method::POST, "/v1/log/monitor-statements")
            .header("content-type", content_type)
            .body(body);
        app.public.send(request)
    };
    let stale = post(older.clone(), "text/plain; charset=utf-8").await;
    assert_eq!(stale.status, StatusCode::OK, "{}", stale.text);
    assert_eq!(stale.json["kept"], false);
    let kept = app.public.get("/v1/log/monitor-statements").await;
    assert_eq!(kept.json["statements"][0]["note"], note.as_str());
    // The kept one posted again (a replay) is not newer: not kept anew.
    let replay = post(note.clone(), "text/plain").await;
    assert_eq!(replay.json["kept"], false, "{}", replay.text);

    // What is refused, each naming the rule.
    let checkpoint = app
        .dealer
        .store()
        .log_checkpoint()
        .await
        .expect("read")
        .expect("one");
    let root = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &checkpoint.root);
    let stranger = LogKey::generate(name).expect("key");
    let statement =
        |origin: &str, size: u64, root: &str| Statement::new(origin, size, root, 1, 0, []);
    for (note, says) in [
        (
            statement(app.log.origin(), checkpoint.size, &root)
                .sign(&stranger)
                .expect("signed"),
            "not a statement signed by a monitor this service publishes",
        ),
        (
            statement("another.example/log", checkpoint.size, &root)
                .sign(&key)
                .expect("signed"),
            "is about the log",
        ),
        (
            statement(app.log.origin(), checkpoint.size + 1000, &root)
                .sign(&key)
                .expect("signed"),
            "never signed",
        ),
        (
            statement(app.log.origin(), checkpoint.size, BASE64_ZERO)
                .sign(&key)
                .expect("signed"),
            "not this log's",
        ),
        ("not a note at all".to_owned(), "not a statement"),
    ] {
        let refused = post(note, "text/plain").await;
        assert_eq!(
            refused.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{says}: {}",
            refused.text
        );
        assert_eq!(refused.json["field"], "statement", "{}", refused.text);
        assert!(refused.text.contains(says), "{says}: {}", refused.text);
    }
    let json = post(older.clone(), "application/json").await;
    assert_eq!(
        json.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        json.text
    );
    let huge = post("x".repeat((1 << 20) + 1), "text/plain").await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", huge.text);
    let kept = app.public.get("/v1/log/monitor-statements").await;
    assert_eq!(kept.json["statements"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        kept.json["statements"][0]["note"],
        note.as_str(),
        "nothing refused replaced it"
    );
    app.stop().await;
}

const BASE64_ZERO: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn monitor_statements_sqlite() {
    monitor_statements_are_checked_kept_and_served(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn monitor_statements_postgres() {
    monitor_statements_are_checked_kept_and_served(Backend::Postgres).await;
}

/// Runs `sql` with two bound values on a SQLite app's database.
async fn tamper2(app: &TestApp, sql: &'static str, a: &str, b: &str) -> u64 {
    let Store::Sqlite(pool, ..) = app.dealer.store() else {
        panic!("the page's scenario runs on SQLite");
    };
    sqlx::query(sql)
        .bind(a)
        .bind(b)
        .execute(pool)
        .await
        .expect("the statement runs")
        .rows_affected()
}

/// The dishonest operator's rewrite of a revealed pair's history: the log
/// cannot be changed, so it appends a second history for the pair — a
/// commit of `donor`'s seed (chosen after the client seed was known), the
/// same client seed, the round again and the reveal — and points the
/// database at it, the round's cards with the donor's. Every entry the API
/// now names is signed and in order; only the first entries, and the
/// player's link to the round, tell. Returns the new round entry's index.
async fn relog(
    app: &TestApp,
    victim: &str,
    round: &Value,
    donor: &str,
    donor_round: &Value,
) -> i64 {
    let Store::Sqlite(pool, ..) = app.dealer.store() else {
        panic!("the page's scenario runs on SQLite");
    };
    let entry_at = |index: i64| async move {
        let (bytes,): (Vec<u8>,) = sqlx::query_as("SELECT entry FROM log_entries WHERE idx = $1")
            .bind(index)
            .fetch_one(pool)
            .await
            .expect("entry");
        serde_json::from_slice::<Value>(&bytes).expect("JSON")
    };
    let index_of = |sql: &'static str, id: String| async move {
        let (index,): (i64,) = sqlx::query_as(sql)
            .bind(id)
            .fetch_one(pool)
            .await
            .expect("index");
        index
    };
    const COMMIT: &str = "SELECT commit_log_index FROM seed_pairs WHERE id = $1";
    const CLIENT_SEED: &str = "SELECT client_seed_log_index FROM seed_pairs WHERE id = $1";
    const REVEAL: &str = "SELECT reveal_log_index FROM seed_pairs WHERE id = $1";
    const ROUND: &str = "SELECT log_index FROM rounds WHERE id = $1";
    let (donor_seed, donor_hash): (String, String) =
        sqlx::query_as("SELECT server_seed, server_seed_hash FROM seed_pairs WHERE id = $1")
            .bind(donor)
            .fetch_one(pool)
            .await
            .expect("donor");
    let mut commit = entry_at(index_of(COMMIT, victim.to_owned()).await).await;
    commit["server_seed_hash"] = json!(donor_hash);
    let client_seed = entry_at(index_of(CLIENT_SEED, victim.to_owned()).await).await;
    let dealt = entry_at(index_of(ROUND, id(round)).await).await;
    let mut reveal = entry_at(index_of(REVEAL, victim.to_owned()).await).await;
    reveal["server_seed"] = json!(donor_seed);
    let mut tx = pool.begin().await.expect("begin");
    let (next,): (i64,) = sqlx::query_as("SELECT next_index FROM log_state")
        .fetch_one(&mut *tx)
        .await
        .expect("next");
    for (k, entry) in [&commit, &client_seed, &dealt, &reveal]
        .into_iter()
        .enumerate()
    {
        sqlx::query("INSERT INTO log_entries (idx, entry) VALUES ($1, $2)")
            .bind(next + k as i64)
            .bind(entry.to_string().into_bytes())
            .execute(&mut *tx)
            .await
            .expect("append");
    }
    sqlx::query("UPDATE log_state SET next_index = $1")
        .bind(next + 4)
        .execute(&mut *tx)
        .await
        .expect("next index");
    sqlx::query(
        "UPDATE seed_pairs SET server_seed = $1, server_seed_hash = $2, commit_log_index = $3, \
         client_seed_log_index = $4, reveal_log_index = $5 WHERE id = $6",
    )
    .bind(&donor_seed)
    .bind(&donor_hash)
    .bind(next)
    .bind(next + 1)
    .bind(next + 3)
    .bind(victim)
    .execute(&mut *tx)
    .await
    .expect("point the pair at the new history");
    sqlx::query(
        "UPDATE rounds SET log_index = $1, deal = (SELECT deal FROM rounds WHERE id = $2) WHERE id = $3",
    )
    .bind(next + 2)
    .bind(id(donor_round))
    .bind(id(round))
    .execute(&mut *tx)
    .await
    .expect("point the round at it");
    tx.commit().await.expect("commit");
    next + 2
}

/// The dishonest operator deals a nonce again: `round` (the pair's last)
/// deleted, the pair's next nonce put back, and `game` dealt: the new
/// round's JSON.
async fn deal_again(app: &TestApp, pair: &str, round: &Value, game: Value) -> Value {
    assert_eq!(
        app.tamper("DELETE FROM rounds WHERE id = $1", id(round))
            .await,
        1
    );
    assert_eq!(
        app.tamper(
            "UPDATE seed_pairs SET next_nonce = next_nonce - 1 WHERE id = $1",
            pair.to_owned()
        )
        .await,
        1
    );
    deal(app, pair, game).await
}

/// A draw of `list` (two winners) given `client_seed` (`reuse`: as
/// another draw of the list already was): its id.
async fn seeded_draw(app: &TestApp, list: &str, client_seed: &str, reuse: bool) -> String {
    let created = app
        .operator
        .send(
            app.operator
                .request(
                    reqwest::Method::POST,
                    "/v1/draws?winners=2&client_seed_source=the%20chat",
                )
                .header("content-type", "text/plain")
                .body(list.to_owned()),
        )
        .await
        .success();
    let draw = id(&created);
    app.operator
        .put_json(
            &format!("/v1/draws/{draw}/client-seed"),
            &json!({"client_seed": client_seed, "allow_reuse": reuse}),
        )
        .await
        .success();
    draw
}

/// Deals `game` on `pair`: the round's JSON.
async fn deal(app: &TestApp, pair: &str, game: Value) -> Value {
    let dealt = app.operator.deal(pair, game).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    dealt.json
}

/// Closes `round` and rotates `pair`.
async fn close_and_rotate(app: &TestApp, pair: &str, rounds: &[&Value]) {
    for round in rounds {
        app.operator.close(round["id"].as_str().expect("id")).await;
    }
    let next = format!("next of {pair}");
    let rotated = app.operator.rotate(pair, &next).await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
}

fn id(value: &Value) -> String {
    value["id"].as_str().expect("id").to_owned()
}

fn link(round: &Value) -> String {
    round["verify_url"].as_str().expect("verify_url").to_owned()
}

/// The page against the attacks of issue 35, each with an honest control:
/// a changed client seed, a swapped commitment (with and without its log
/// reference), a deleted round whose nonce is dealt again, a new log key at
/// the same site, and the player's seed live at a second tenant.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_answers_to_the_log_not_to_the_operator_in_chromium() {
    if let Err(missing) = crate::web_page::browser_tools() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the browser test: {missing}"
        );
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "SKIPPED: browser test ({missing})");
        return;
    }
    let monitor_name = "monitor.example/player";
    let (monitor, monitor_file, _dir) = monitor_key(monitor_name);
    let app = spawn_app_monitored(Backend::Sqlite, &[monitor.vkey()])
        .await
        .expect("SQLite always runs");
    let holdem = json!({"type": "holdem", "players": 2});

    // Honest: a revealed fairdeal-v1 round, opened by the link the deal gave.
    let honest_pair = app.operator.active_pair("honest player seed 1").await;
    let honest = deal(&app, &honest_pair, holdem.clone()).await;
    close_and_rotate(&app, &honest_pair, &[&honest]).await;

    // A chain pair whose client seed the operator changed (two hex
    // characters) after the player set it, then dealt from: every record is
    // consistent with the changed seed; only the log's entry is not.
    let chain = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 4}),
        )
        .await;
    assert_eq!(chain.status, StatusCode::CREATED, "{}", chain.text);
    let chain_pair = chain.id();
    let player_seed = "c0ffee11c0ffee11";
    app.operator
        .put_json(
            &format!("/v1/seed-pairs/{chain_pair}/client-seed"),
            &json!({"client_seed": player_seed}),
        )
        .await
        .success();
    assert_eq!(
        tamper2(
            &app,
            "UPDATE seed_pairs SET client_seed = $1 WHERE id = $2",
            "c0ffee11c0ffee22",
            &chain_pair
        )
        .await,
        1
    );
    let chain_round = deal(&app, &chain_pair, json!({"type": "deck"})).await;
    app.operator.close(&id(&chain_round)).await;
    // An honest chain pair, the control.
    let honest_chain = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 4}),
        )
        .await
        .id();
    app.operator
        .put_json(
            &format!("/v1/seed-pairs/{honest_chain}/client-seed"),
            &json!({"client_seed": "honest chain seed"}),
        )
        .await
        .success();
    let honest_chain_round = deal(&app, &honest_chain, json!({"type": "deck"})).await;
    app.operator.close(&id(&honest_chain_round)).await;

    // A revealed fairdeal-v1 pair whose seed and commitment the operator
    // swapped for another pair's (dealt with the same client seed, nonce
    // and game after the first was revealed), its round's cards with them:
    // a record consistent in itself, bound to another commitment than the
    // one logged before the client seed existed.
    let swapped_pair = app.operator.active_pair("swap victim seed").await;
    let swapped = deal(&app, &swapped_pair, holdem.clone()).await;
    close_and_rotate(&app, &swapped_pair, &[&swapped]).await;
    let donor_pair = app.operator.active_pair("swap victim seed").await;
    let donor = deal(&app, &donor_pair, holdem.clone()).await;
    close_and_rotate(&app, &donor_pair, &[&donor]).await;
    // The same, with the pair's log reference cleared too.
    let cleared_pair = app.operator.active_pair("clear victim seed").await;
    let cleared = deal(&app, &cleared_pair, holdem.clone()).await;
    close_and_rotate(&app, &cleared_pair, &[&cleared]).await;
    let cleared_donor_pair = app.operator.active_pair("clear victim seed").await;
    let cleared_donor = deal(&app, &cleared_donor_pair, holdem.clone()).await;
    close_and_rotate(&app, &cleared_donor_pair, &[&cleared_donor]).await;
    for (victim, victim_round, donor_pair, donor_round) in [
        (&swapped_pair, &swapped, &donor_pair, &donor),
        (&cleared_pair, &cleared, &cleared_donor_pair, &cleared_donor),
    ] {
        for column in ["server_seed", "server_seed_hash"] {
            let sql: &'static str = match column {
                "server_seed" => {
                    "UPDATE seed_pairs SET server_seed = (SELECT server_seed FROM seed_pairs WHERE id = $1) WHERE id = $2"
                }
                _ => {
                    "UPDATE seed_pairs SET server_seed_hash = (SELECT server_seed_hash FROM seed_pairs WHERE id = $1) WHERE id = $2"
                }
            };
            assert_eq!(tamper2(&app, sql, donor_pair, victim).await, 1);
        }
        assert_eq!(
            tamper2(
                &app,
                "UPDATE rounds SET deal = (SELECT deal FROM rounds WHERE id = $1) WHERE id = $2",
                &id(donor_round),
                &id(victim_round)
            )
            .await,
            1
        );
    }
    assert_eq!(
        app.tamper(
            "UPDATE seed_pairs SET commit_log_index = NULL WHERE id = $1",
            cleared_pair.clone()
        )
        .await,
        1
    );

    // A round in play deleted, the nonce put back and dealt again as
    // another game: the first link must still say what was dealt.
    let redealt_pair = app.operator.active_pair("redealt player seed").await;
    let first = deal(&app, &redealt_pair, holdem.clone()).await;
    let second = deal_again(&app, &redealt_pair, &first, json!({"type": "deck"})).await;
    assert_eq!(second["nonce"], first["nonce"], "the nonce was dealt again");

    // A revealed pair whose whole history the operator logged again with
    // another seed, after the round was dealt.
    let relogged_pair = app.operator.active_pair("relog victim seed").await;
    let relogged = deal(&app, &relogged_pair, holdem.clone()).await;
    close_and_rotate(&app, &relogged_pair, &[&relogged]).await;
    let relog_donor_pair = app.operator.active_pair("relog victim seed").await;
    let relog_donor = deal(&app, &relog_donor_pair, holdem.clone()).await;
    close_and_rotate(&app, &relog_donor_pair, &[&relog_donor]).await;
    integrated(&app).await;
    let relogged_at = relog(
        &app,
        &relogged_pair,
        &relogged,
        &relog_donor_pair,
        &relog_donor,
    )
    .await;

    // The player's exact seed live on a pair of a second tenant.
    let player = "my very own seed 8c1f";
    let shared_pair = app.operator.active_pair(player).await;
    let shared_round = deal(&app, &shared_pair, holdem.clone()).await;
    let shadow = crate::tenants::operator_of(&app, "shadow-backend", "shadow-brand").await;
    let shadow_pair = shadow.active_pair(player).await;
    assert_ne!(shadow_pair, shared_pair);
    close_and_rotate(&app, &shared_pair, &[&shared_round]).await;
    // The operator then makes the overlap disappear from the service's
    // answer: the pair's reveal moved before the shadow pair got the seed.
    assert_eq!(
        app.tamper(
            "UPDATE seed_pairs SET reveal_log_index = client_seed_log_index + 1 WHERE id = $1",
            shared_pair.clone()
        )
        .await,
        1
    );
    // Deal-shopping at one tenant, hidden by a database edit of the twin's
    // interval (said to start after the pair's reveal).
    let twinned_pair = app.operator.active_pair("twinned seed 5d2e").await;
    let twin = app.operator.reusing_pair("twinned seed 5d2e").await;
    let twinned = deal(&app, &twinned_pair, holdem.clone()).await;
    close_and_rotate(&app, &twinned_pair, &[&twinned]).await;
    assert_eq!(
        app.tamper(
            "UPDATE seed_pairs SET client_seed_log_index = 999999 WHERE id = $1",
            twin.clone()
        )
        .await,
        1
    );

    // Draws: an honest one; one whose client seed the operator changed in
    // the database after it was set, then ran (the winners follow the
    // changed seed, and the record is consistent with it); and one given
    // another draw's commitment, seed and winners after both were drawn
    // with the same list and client seed (a record consistent in itself,
    // bound to a commitment the log never held for it).
    let entrants: String = (0..30).map(|i| format!("entrant-{i:02}\n")).collect();
    let lists = tempfile::tempdir().expect("temp dir");
    let list_file = lists.path().join("entrants.txt");
    std::fs::write(&list_file, &entrants).expect("write the list");
    let honest_draw = seeded_draw(&app, &entrants, "the chat said 41", false).await;
    app.operator
        .post(&format!("/v1/draws/{honest_draw}/run"))
        .await
        .success();
    let reseeded_draw = seeded_draw(&app, &entrants, "the chat said 42", false).await;
    assert_eq!(
        app.tamper(
            "UPDATE draws SET client_seed = 'the operator''s choice' WHERE id = $1",
            reseeded_draw.clone()
        )
        .await,
        1
    );
    app.operator
        .post(&format!("/v1/draws/{reseeded_draw}/run"))
        .await
        .success();
    let swapped_draw = seeded_draw(&app, &entrants, "the chat said 43", false).await;
    app.operator
        .post(&format!("/v1/draws/{swapped_draw}/run"))
        .await
        .success();
    let donor_draw = seeded_draw(&app, &entrants, "the chat said 43", true).await;
    app.operator
        .post(&format!("/v1/draws/{donor_draw}/run"))
        .await
        .success();
    assert_eq!(
        tamper2(
            &app,
            "UPDATE draws SET (server_seed_hash, server_seed, result) = \
             (SELECT server_seed_hash, server_seed, result FROM draws WHERE id = $1) WHERE id = $2",
            &donor_draw,
            &swapped_draw
        )
        .await,
        1
    );

    // Every entry in a checkpoint; a monitor's statement of the whole log
    // (it names the nonce dealt twice).
    proven(&app, &format!("/v1/rounds/{}/receipt", id(&second))).await;
    integrated(&app).await;
    let report = monitor_publishing(&app, &monitor_file, monitor_name).await;
    let second_index = second["receipt"]["log_index"].as_u64().expect("index");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["index"] == second_index),
        "{report:#}"
    );

    let config = json!({
        "base": app.public.base(),
        "honest": {"link": link(&honest), "pair": honest_pair},
        "changed_seed": {"link": link(&chain_round), "pair": chain_pair,
            "logged": sha256_hex(player_seed), "shown": sha256_hex("c0ffee11c0ffee22")},
        "honest_chain": {"link": link(&honest_chain_round), "pair": honest_chain},
        "swapped": {"link": link(&swapped), "pair": swapped_pair},
        "cleared": {"link": link(&cleared), "pair": cleared_pair},
        "redealt": {"first": link(&first), "first_id": id(&first), "second": link(&second),
            "pair": redealt_pair, "nonce": first["nonce"]},
        "shared": {"link": link(&shared_round), "pair": shared_pair},
        "monitor": {"vkey": monitor.vkey(), "name": monitor_name, "seed": hex::encode(*monitor.seed())},
        "relogged": {"link": link(&relogged), "pair": relogged_pair, "index": relogged_at},
        "twinned": {"link": link(&twinned), "pair": twinned_pair},
        "draws": {"list": list_file, "honest": honest_draw, "reseeded": reseeded_draw,
            "reseeded_logged": sha256_hex("the chat said 42"),
            "swapped": swapped_draw, "donor": donor_draw},
    });
    let stdout = crate::web_page::run_page_script(
        "e2e-player.mjs",
        &config,
        "e2e player: all checks passed",
    );
    // Every step ran (a step skipped by mistake would pass silently).
    let steps = stdout.lines().filter(|line| line.starts_with("# ")).count();
    assert_eq!(steps, 23, "{stdout}");

    // The command line verifier gives the page's verdicts on the same draws.
    let vkey = app.public.get("/log/key").await.text.trim().to_owned();
    for (draw, code, said) in [
        (&honest_draw, 0, "PASS"),
        (&reseeded_draw, 1, "the client seed's SHA-256"),
        (&swapped_draw, 1, "the server seed commitment"),
    ] {
        let out = std::process::Command::new("node")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/web/cli/fairdeal-verify.mjs"
            ))
            .args([
                "draw",
                app.public.base(),
                draw.as_str(),
                "--log-key",
                &vkey,
                "--list",
            ])
            .arg(&list_file)
            .output()
            .expect("node runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(said), "{stdout}");
    }
    app.stop().await;
}

/// A checkpoint interval longer than players' pages wait for an entry's
/// checkpoint is refused before anything starts, naming the flag and why;
/// so is a monitor key that is not one.
#[test]
fn serve_refuses_what_would_make_honest_rounds_fail_on_the_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = crate::harness::Deployment {
        data_dir: dir.path().to_owned(),
        database_url: format!("sqlite://{}/fairdeal.db", dir.path().display()),
        master_key_hex: crate::harness::random_master_key_hex(),
    };
    for (args, says) in [
        (
            ["--log-interval", "61"],
            "at most 60 (players' pages fail an entry",
        ),
        (["--monitor", "monitor.example+00000000+AQ=="], "--monitor"),
    ] {
        let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
        all.extend(args);
        let out = deployment.run(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
}
