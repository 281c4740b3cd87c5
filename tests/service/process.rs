//! The service as an operator runs it: the real binary, its logs, its
//! database files, SIGTERM, SIGKILL, and two processes on one PostgreSQL.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use fairdeal::service::sealing::{MasterKey, Slot};
use fairdeal::service::store::Store;
use fairdeal_core::{ClientSeed, Commitment, Deal, Game, ServerSeed, verify};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{
    Backend, Client, Deployment, Server, TestDatabase, log_reaches, random_master_key_hex,
    run_monitor,
};

/// Everything stored, as text, to scan for secrets: the SQLite files' bytes,
/// or every PostgreSQL row as JSON (bytea shows as hex).
async fn database_contents(db: &TestDatabase) -> Vec<u8> {
    match db.backend {
        Backend::Sqlite => {
            let mut bytes = Vec::new();
            for name in ["fairdeal.db", "fairdeal.db-wal", "fairdeal.db-shm"] {
                bytes.extend(std::fs::read(db.dir.path().join(name)).unwrap_or_default());
            }
            bytes
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&db.url).await.expect("connect");
            let mut text = String::new();
            for table in ["seed_pairs", "rounds", "api_keys", "settings"] {
                let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT row_to_json(t)::text FROM {table} t"
                )))
                .fetch_all(&pool)
                .await
                .expect("dump");
                for (row,) in rows {
                    text.push_str(&row);
                }
            }
            pool.close().await;
            text.into_bytes()
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The pair's unrevealed seeds, opened with the master key (as only the
/// service can).
async fn unrevealed_seeds(store: &Store, key_hex: &str, pair_id: &str) -> Vec<ServerSeed> {
    let key = MasterKey::from_hex(key_hex).expect("key");
    let pair = store
        .pair(pair_id)
        .await
        .expect("read")
        .expect("pair exists");
    vec![
        key.open(
            pair.server_seed_sealed.as_deref().expect("sealed"),
            pair_id,
            Slot::Current,
        )
        .expect("opens"),
        key.open(
            pair.next_server_seed_sealed.as_deref().expect("sealed"),
            pair_id,
            Slot::Next,
        )
        .expect("opens"),
    ]
}

/// Runs a whole session through the real binary with debug logging, then
/// looks for every seed that was secret at each moment in every response,
/// log line, metric and database byte produced while it was secret.
async fn no_unrevealed_seed_appears_in_responses_logs_metrics_or_the_database(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let log_path = db.dir.path().join("serve.log");
    let server = deployment.serve(&log_path, &[("RUST_LOG", "debug")]);
    assert!(server.printed[0].starts_with("fairdeal listening on http://127.0.0.1:"));
    assert!(
        server
            .printed
            .iter()
            .any(|l| l.contains("keys create --name NAME --data-dir")),
        "the hint names the data directory the server was started with: {:?}",
        server.printed
    );
    let client = Client::new(&server.base).with_key(&key).recording();

    let pair_a = client.active_pair("secrecy").await;
    let mut rounds = Vec::new();
    // The cards in play, as their stored JSON would spell them.
    let mut cards_in_play = Vec::new();
    for (game, list) in [
        (json!({"type": "holdem", "players": 6}), "board"),
        (json!({"type": "deck", "decks": 2}), "deck"),
    ] {
        let round = client.deal(&pair_a, game).await;
        assert_eq!(round.status, StatusCode::CREATED);
        rounds.push(round.id());
        let cards = round.json["deal"][list].to_string();
        assert!(cards.len() > 10, "{cards}");
        cards_in_play.push(cards);
    }
    client.get(&format!("/v1/seed-pairs/{pair_a}")).await;
    client.get(&format!("/v1/seed-pairs/{pair_a}/rounds")).await;
    client.rotate(&pair_a, "early").await;
    client
        .post_json(
            "/v1/verify",
            &json!({"server_seed": "zz", "client_seed": "x", "nonce": 1, "game": {"type": "deck"}}),
        )
        .await;
    client.get("/metrics").await;

    let store = db.store(2).await;
    let seeds_of_a = unrevealed_seeds(&store, &deployment.master_key_hex, &pair_a).await;
    let database_before_reveal = database_contents(&db).await;
    let responses_before_reveal = client.transcript().len();
    let log_before_reveal = std::fs::read(&log_path).expect("log").len();

    for round in &rounds {
        client.close(round).await;
    }
    let rotation = client.rotate(&pair_a, "second").await;
    assert_eq!(rotation.status, StatusCode::OK);
    assert_eq!(
        rotation.json["revealed"]["server_seed"],
        seeds_of_a[0].reveal_hex()
    );
    let pair_b = rotation.json["current"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    client
        .deal(&pair_b, json!({"type": "omaha", "players": 5}))
        .await;
    client.get(&format!("/v1/seed-pairs/{pair_b}")).await;
    // A draw with its client seed, never run: its seed stays secret too.
    let draw = client
        .send(
            client
                .request(
                    reqwest::Method::POST,
                    "/v1/draws?winners=2&client_seed_source=secrecy",
                )
                .header("content-type", "text/plain")
                .body("ann\nbo\ncy\n"),
        )
        .await
        .id();
    client
        .put_json(
            &format!("/v1/draws/{draw}/client-seed"),
            &json!({"client_seed": "chat"}),
        )
        .await;
    client.get(&format!("/v1/draws/{draw}")).await;
    client.get(&format!("/v1/draws/{draw}/entries")).await;
    // A chain pair of 6: rounds 0 and 1 ended (their seeds s_1, s_2
    // published), round 2 in play: s_3 to the tip s_6 stay secret.
    let chain = client
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 6}),
        )
        .await
        .id();
    client
        .put_json(
            &format!("/v1/seed-pairs/{chain}/client-seed"),
            &json!({"client_seed": "secret chain"}),
        )
        .await;
    let mut chain_rounds = Vec::new();
    for _ in 0..3 {
        let dealt = client.deal(&chain, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        chain_rounds.push(dealt.id());
    }
    client.close(&chain_rounds[1]).await;
    client.close(&chain_rounds[0]).await;
    for id in &chain_rounds {
        client.get(&format!("/v1/rounds/{id}")).await;
    }
    client.get(&format!("/v1/seed-pairs/{chain}/rounds")).await;
    client.get("/metrics").await;

    // SIGTERM: a graceful stop with exit status 0.
    let status = server.terminate();
    assert!(status.success(), "{status:?}");

    let seeds_of_b = unrevealed_seeds(&store, &deployment.master_key_hex, &pair_b).await;
    assert_eq!(
        seeds_of_b[0].reveal_hex(),
        seeds_of_a[1].reveal_hex(),
        "B deals with A's promised next seed"
    );
    let chain_seeds = unrevealed_seeds(&store, &deployment.master_key_hex, &chain).await;
    let chain_tip = &chain_seeds[0];
    let chain_secret: Vec<ServerSeed> = (3..=6)
        .map(|i| fairdeal_core::chain_seed_at(chain_tip, 6, i).expect("in the chain"))
        .chain([chain_seeds[1].clone()])
        .collect();
    let chain_published: Vec<ServerSeed> = (1..=2)
        .map(|i| fairdeal_core::chain_seed_at(chain_tip, 6, i).expect("in the chain"))
        .collect();
    let draw_row = store.draw(&draw).await.expect("read").expect("the draw");
    let draw_seed = MasterKey::from_hex(&deployment.master_key_hex)
        .expect("key")
        .open_draw_seed(
            draw_row.server_seed_sealed.as_deref().expect("sealed"),
            &draw,
        )
        .expect("opens");
    store.close().await;
    let log = std::fs::read(&log_path).expect("log");
    assert!(log.len() > 1000, "debug logging produced output");
    let transcript = client.transcript();
    let database_after = database_contents(&db).await;

    // Secret until the end: B's current and next seeds, and the master key.
    let mut always_secret: Vec<String> = seeds_of_b
        .iter()
        .chain(&chain_secret)
        .map(ServerSeed::reveal_hex)
        .collect();
    always_secret.push(deployment.master_key_hex.clone());
    always_secret.push(draw_seed.reveal_hex());
    for secret in &always_secret {
        let upper = secret.to_uppercase();
        for (i, response) in transcript.iter().enumerate() {
            assert!(
                !response.contains(secret.as_str()) && !response.contains(&upper),
                "response {i} leaks a secret"
            );
        }
        assert!(!contains(&log, secret.as_bytes()), "the log leaks a secret");
        assert!(
            !contains(&database_after, secret.as_bytes()),
            "the database holds a secret in hex"
        );
    }
    // The chain's published seeds are public, in the clear.
    for seed in &chain_published {
        assert!(contains(&database_after, seed.reveal_hex().as_bytes()));
    }
    for seed in seeds_of_b.iter().chain([&draw_seed]).chain(&chain_secret) {
        assert!(
            !contains(&database_after, seed.as_bytes()),
            "the database holds a raw secret seed"
        );
    }
    // Secret until the rotation: A's seed.
    let seed_a = seeds_of_a[0].reveal_hex();
    for (i, response) in transcript[..responses_before_reveal].iter().enumerate() {
        assert!(
            !response.contains(&seed_a),
            "response {i} leaks A's seed before its reveal"
        );
    }
    assert!(!contains(&log[..log_before_reveal], seed_a.as_bytes()));
    assert!(!contains(&database_before_reveal, seed_a.as_bytes()));
    // A copy of the database taken mid-hand shows no card in play; after the
    // reveal the deals are stored in the clear (so the search can find them).
    // (PostgreSQL's dump is JSON, where the stored text's quotes are escaped.)
    for cards in &cards_in_play {
        let spellings = [cards.clone(), cards.replace('"', "\\\"")];
        assert!(
            !spellings
                .iter()
                .any(|needle| contains(&database_before_reveal, needle.as_bytes())),
            "the database holds a deal in play: {cards}"
        );
        assert!(
            spellings
                .iter()
                .any(|needle| contains(&database_after, needle.as_bytes())),
            "{cards}"
        );
    }
    assert!(!contains(&database_before_reveal, seeds_of_a[0].as_bytes()));
    // Once revealed it is public and stored in the clear.
    assert!(contains(&database_after, seed_a.as_bytes()));
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_unrevealed_seed_leaks_on_sqlite() {
    no_unrevealed_seed_appears_in_responses_logs_metrics_or_the_database(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_unrevealed_seed_leaks_on_postgres() {
    no_unrevealed_seed_appears_in_responses_logs_metrics_or_the_database(Backend::Postgres).await;
}

/// Deals from 8 concurrent clients, kills the server with SIGKILL mid-stream,
/// restarts it, and checks that every round a client was told about is there
/// with the same nonce and cards, that nonces still run 0, 1, 2, … without gap
/// or repeat, and that dealing resumes at the next nonce.
async fn a_crash_never_loses_an_acknowledged_round_or_deals_a_nonce_twice(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let server = deployment.serve(&db.dir.path().join("first.log"), &[]);
    let client = Client::new(&server.base).with_key(&key);
    let pair = client.active_pair("crash").await;
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (client, pair, stop, acknowledged) = (
                client.clone(),
                pair.clone(),
                stop.clone(),
                acknowledged.clone(),
            );
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let request = client
                        .request(Method::POST, &format!("/v1/seed-pairs/{pair}/rounds"))
                        .json(&json!({"game": {"type": "holdem", "players": 6}}));
                    let Ok(reply) = client.try_send(request).await else {
                        break;
                    };
                    if reply.status != StatusCode::CREATED {
                        break;
                    }
                    let Ok(round) = serde_json::from_str::<Value>(&reply.text) else {
                        break;
                    };
                    acknowledged.lock().expect("lock").push(round);
                }
            })
        })
        .collect();
    // Let rounds flow, then crash while requests are in flight.
    while acknowledged.lock().expect("lock").len() < 150 {
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    server.crash();
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = worker.await;
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();

    let server = deployment.serve(&db.dir.path().join("second.log"), &[]);
    let client = client.at(&server.base);
    let mut recorded = BTreeMap::new();
    let mut after: Option<u64> = None;
    loop {
        let query = after.map_or("?limit=1000".to_owned(), |a| {
            format!("?limit=1000&after={a}")
        });
        let page = client
            .get(&format!("/v1/seed-pairs/{pair}/rounds{query}"))
            .await;
        assert_eq!(page.status, StatusCode::OK);
        for round in page.json["rounds"].as_array().expect("rounds") {
            let nonce = round["nonce"].as_u64().expect("nonce");
            assert!(
                recorded.insert(nonce, round.clone()).is_none(),
                "nonce {nonce} listed twice"
            );
        }
        match page.json["next_after"].as_u64() {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let n = recorded.len() as u64;
    assert!(n >= acknowledged.len() as u64);
    assert_eq!(
        recorded.keys().copied().collect::<Vec<_>>(),
        (0..n).collect::<Vec<_>>(),
        "no gap"
    );
    for round in &acknowledged {
        let nonce = round["nonce"].as_u64().expect("nonce");
        let stored = &recorded[&nonce];
        assert_eq!(
            stored["id"], round["id"],
            "nonce {nonce} belongs to the acknowledged round"
        );
        assert_eq!(
            stored["deal"], round["deal"],
            "nonce {nonce} keeps its cards"
        );
    }
    let next = client.deal(&pair, json!({"type": "deck"})).await;
    assert_eq!(next.status, StatusCode::CREATED);
    assert_eq!(next.json["nonce"], n, "dealing resumes at the next nonce");

    // Reveal and verify every round with the library.
    let store = db.store(2).await;
    store
        .close_stale_rounds(i64::MAX, 0, |_| anyhow::bail!("no chain pair here"))
        .await
        .expect("close all");
    store.close().await;
    let rotation = client.rotate(&pair, "after").await;
    assert_eq!(rotation.status, StatusCode::OK, "{}", rotation.json);
    let revealed = &rotation.json["revealed"];
    let seed = ServerSeed::from_hex(revealed["server_seed"].as_str().expect("seed")).expect("hex");
    let commitment =
        Commitment::from_hex(revealed["server_seed_hash"].as_str().expect("hash")).expect("hex");
    let client_seed = ClientSeed::new("crash").expect("valid");
    let game = Game::holdem(6).expect("valid");
    for (nonce, round) in &recorded {
        let deal: Deal = serde_json::from_value(round["deal"].clone()).expect("deal");
        assert!(
            verify(&seed, &commitment, &client_seed, *nonce, game, &deal).is_ok(),
            "nonce {nonce}"
        );
    }
    // The log holds every round dealt before and after the crash, in order,
    // and its checkpoints are consistent: the monitor checks all of it.
    let dealt = revealed["next_nonce"].as_u64().expect("next nonce");
    log_reaches(&server.base, 2 + dealt + 3).await;
    let (out, report) = run_monitor(&server.base, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["rounds"].as_u64(), Some(dealt));
    drop(server);
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crash_loses_nothing_on_sqlite() {
    a_crash_never_loses_an_acknowledged_round_or_deals_a_nonce_twice(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crash_loses_nothing_on_postgres() {
    a_crash_never_loses_an_acknowledged_round_or_deals_a_nonce_twice(Backend::Postgres).await;
}

/// Two server processes on one PostgreSQL database (none without one): the
/// database, the deployment, both servers, and a client of each with one
/// operator key.
async fn two_servers() -> Option<(TestDatabase, Deployment, [Server; 2], [Client; 2])> {
    let db = TestDatabase::create(Backend::Postgres).await?;
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let first = deployment.serve(&db.dir.path().join("a.log"), &[]);
    let second = deployment.serve(&db.dir.path().join("b.log"), &[]);
    let to_first = Client::new(&first.base).with_key(&key);
    let to_second = to_first.at(&second.base);
    Some((db, deployment, [first, second], [to_first, to_second]))
}

/// Two server processes on one PostgreSQL database deal on the same pair at
/// once: nonces still run 0, 1, 2, … with no gap or repeat.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_on_one_postgres_deal_distinct_consecutive_nonces() {
    let Some((db, deployment, [first, second], [to_first, to_second])) = two_servers().await else {
        return;
    };
    let pair = to_first.active_pair("two servers").await;
    let n = 120;
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let client = if i % 2 == 0 {
                to_first.clone()
            } else {
                to_second.clone()
            };
            let pair = pair.clone();
            tokio::spawn(async move {
                client
                    .deal(&pair, json!({"type": "omaha", "players": 6}))
                    .await
            })
        })
        .collect();
    let mut nonces = Vec::new();
    for task in tasks {
        let round = task.await.expect("task");
        assert_eq!(round.status, StatusCode::CREATED, "{}", round.json);
        nonces.push(round.json["nonce"].as_u64().expect("nonce"));
    }
    nonces.sort_unstable();
    assert_eq!(nonces, (0..n).collect::<Vec<u64>>());
    let pair_now = to_second.get(&format!("/v1/seed-pairs/{pair}")).await;
    assert_eq!(pair_now.json["next_nonce"], n);

    // One log, written by both: every round in it, in order, consistent.
    log_reaches(&first.base, 2 + n).await;
    for base in [&first.base, &second.base] {
        let (out, report) = run_monitor(base, &[]).await;
        assert_eq!(out.status.code(), Some(0), "{report:#}");
        assert_eq!(report["rounds"].as_u64(), Some(n));
    }

    // A key revoked through one process (here the CLI) is refused by both
    // servers within a second, though each had just used it.
    let revoked = deployment.run(&["keys", "revoke", "backend"]);
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for client in [&to_first, &to_second] {
        let refused = client.get("/v1/seed-pairs").await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    }

    // A third process with another master key refuses to start.
    let (status, stderr) = deployment.serve_refused(&random_master_key_hex());
    assert!(!status.success());
    assert!(stderr.contains("different master key"), "{stderr}");
    drop((first, second));
    db.remove().await;
}

/// Two server processes on one PostgreSQL database give one client seed (or
/// lookalikes of it) to two of a tenant's pairs, or two draws of one list,
/// at the same instant, again and again: exactly one of each two is set,
/// the other refused as `client-seed-in-use`, whichever process answers.
/// The rule runs in the write transaction that sets the seed, so the two
/// cannot both read "no holder" and both commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_never_both_give_out_a_lookalike_client_seed() {
    let Some((db, _deployment, [first, second], [to_first, to_second])) = two_servers().await
    else {
        return;
    };
    let in_use = |reply: &crate::harness::Reply| {
        reply.status == StatusCode::CONFLICT
            && reply.json["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("/client-seed-in-use"))
    };
    let one_of_two = |what: &str, a: &crate::harness::Reply, b: &crate::harness::Reply| {
        let set = [a, b].iter().filter(|r| r.status == StatusCode::OK).count();
        let refused = [a, b].iter().filter(|r| in_use(r)).count();
        assert!(
            set == 1 && refused == 1,
            "{what}: one seed given twice at once must be set once and refused once; got {} {} and {} {}",
            a.status,
            a.text,
            b.status,
            b.text
        );
    };
    // Two pairs awaiting their client seed, one lookalike seed each.
    for trial in 0..40 {
        let [a, b] = [
            to_first.post("/v1/seed-pairs").await.id(),
            to_first.post("/v1/seed-pairs").await.id(),
        ];
        let seed = format!("race-{trial}-player");
        let lookalike = if trial % 2 == 0 {
            seed.to_uppercase()
        } else {
            seed.clone()
        };
        let (path_a, path_b) = (
            format!("/v1/seed-pairs/{a}/client-seed"),
            format!("/v1/seed-pairs/{b}/client-seed"),
        );
        let (seed_a, seed_b) = (
            json!({ "client_seed": seed }),
            json!({ "client_seed": lookalike }),
        );
        let (x, y) = tokio::join!(
            to_first.put_json(&path_a, &seed_a),
            to_second.put_json(&path_b, &seed_b),
        );
        one_of_two(&format!("pairs, trial {trial}"), &x, &y);
    }
    // A rotation giving its successor the seed while another pair takes it.
    for trial in 0..15 {
        let rotated = to_first.active_pair(&format!("rotating-{trial}")).await;
        let awaiting = to_first.post("/v1/seed-pairs").await.id();
        let seed = format!("rotation-race-{trial}");
        let (path, body) = (
            format!("/v1/seed-pairs/{awaiting}/client-seed"),
            json!({ "client_seed": seed }),
        );
        let (x, y) = tokio::join!(
            to_first.rotate(&rotated, &seed),
            to_second.put_json(&path, &body)
        );
        one_of_two(&format!("a rotation, trial {trial}"), &x, &y);
    }
    // Two draws of one list.
    let list: String = (0..10).map(|i| format!("entrant {i}\n")).collect();
    for trial in 0..15 {
        let mut draws = Vec::new();
        for _ in 0..2 {
            let created = to_first
                .send(
                    to_first
                        .request(
                            Method::POST,
                            "/v1/draws?winners=1&client_seed_source=a%20stream",
                        )
                        .header("content-type", "text/plain")
                        .body(list.clone()),
                )
                .await
                .success();
            draws.push(created["id"].as_str().expect("id").to_owned());
        }
        let seed = json!({ "client_seed": format!("draw-race-{trial}") });
        let paths = draws
            .iter()
            .map(|d| format!("/v1/draws/{d}/client-seed"))
            .collect::<Vec<_>>();
        let (x, y) = tokio::join!(
            to_first.put_json(&paths[0], &seed),
            to_second.put_json(&paths[1], &seed)
        );
        one_of_two(&format!("draws, trial {trial}"), &x, &y);
    }
    drop((first, second));
    db.remove().await;
}

/// `fairdeal healthcheck`, as a container's HEALTHCHECK runs it: the
/// address from FAIRDEAL_LISTEN (an unspecified one asked on the loopback),
/// exit 0 while the server is ready, 1 (naming the address) once it is
/// gone; a bad timeout is an input error (2).
#[test]
fn the_healthcheck_command_answers_for_a_running_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = Deployment {
        data_dir: dir.path().to_owned(),
        database_url: format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
        master_key_hex: random_master_key_hex(),
    };
    let server = deployment.serve(&dir.path().join("serve.log"), &[]);
    let healthcheck = |args: &[&str], listen: &str| {
        std::process::Command::new(fairdeal_test_support::fairdeal_bin())
            .args(args)
            .env("FAIRDEAL_LISTEN", listen)
            .output()
            .expect("fairdeal runs")
    };
    let addr = server.base.trim_start_matches("http://").to_owned();
    let port = addr.rsplit_once(':').expect("a port").1.to_owned();
    for (listen, args) in [
        (addr.as_str(), vec!["healthcheck"]),
        (&*format!("0.0.0.0:{port}"), vec!["healthcheck"]),
        (addr.as_str(), vec!["healthcheck", "--live"]),
    ] {
        let out = healthcheck(&args, listen);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{listen} {args:?}: {stdout}");
        assert!(
            stdout.contains(&format!("127.0.0.1:{port}/")) && stdout.contains("200"),
            "{stdout}"
        );
    }
    let bad = deployment.run_with_env(
        &["healthcheck", "--timeout", "0"],
        &[("FAIRDEAL_LISTEN", &addr)],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--timeout"));
    assert!(server.terminate().success());
    let gone = healthcheck(&["healthcheck"], &addr);
    assert_eq!(gone.status.code(), Some(1));
    let said = String::from_utf8_lossy(&gone.stderr);
    assert!(
        said.contains(&format!("http://{addr}/readyz")) && said.contains("no answer"),
        "{said}"
    );
}

/// `serve --rate-limit` and `--rate-limit-burst` (here through their
/// environment variables) reach the service: a burst of 3, then 429 with
/// Retry-After and the policy stated; and `serve --help` states the
/// default, 100 a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_binary_takes_its_rate_limit_from_its_flags() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = Deployment {
        data_dir: dir.path().to_owned(),
        database_url: format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
        master_key_hex: random_master_key_hex(),
    };
    let key = deployment.create_key("limited");
    let server = deployment.serve(
        &dir.path().join("serve.log"),
        &[
            ("FAIRDEAL_RATE_LIMIT", "2"),
            ("FAIRDEAL_RATE_LIMIT_BURST", "3"),
        ],
    );
    let api = Client::new(&server.base).with_key(&key);
    for _ in 0..3 {
        let made = api.post("/v1/seed-pairs").await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
        assert_eq!(made.header("ratelimit-policy"), Some("\"per-key\";q=3;w=2"));
    }
    let refused = api.post("/v1/seed-pairs").await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.text
    );
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert!(server.terminate().success());
    let help = deployment.run(&["serve", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--rate-limit <PER_SECOND>") && help.contains("[default: 100]"),
        "{help}"
    );
}

/// `fairdeal master-key --out FILE`: a new key, 64 hex characters readable
/// by its owner only, its fingerprint printed and never the key; an
/// existing file is never overwritten (exit 2, the file as it was); and a
/// server started with the file takes it.
#[test]
fn a_master_key_file_is_made_once_and_served_with() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("master.key");
    let make = || {
        std::process::Command::new(fairdeal_test_support::fairdeal_bin())
            .args(["master-key", "--out"])
            .arg(&file)
            .output()
            .expect("fairdeal runs")
    };
    let made = make();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("the key file");
    let key = MasterKey::from_hex(&text).expect("64 hex characters");
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(
        said.contains(&key.fingerprint()) && !said.contains(text.trim()),
        "{said}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let again = make();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--out"));
    assert_eq!(std::fs::read_to_string(&file).expect("the key file"), text);
    // A server given the file seals under it: the database records its
    // fingerprint.
    let data = dir.path().join("data");
    let mut serve = std::process::Command::new(fairdeal_test_support::fairdeal_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .arg("--master-key-file")
        .arg(&file)
        .env_remove("DATABASE_URL")
        .env_remove("FAIRDEAL_MASTER_KEY")
        .env_remove("FAIRDEAL_MASTER_KEY_FILE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut stdout = std::io::BufReader::new(serve.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("a line");
    assert!(first.starts_with("fairdeal listening on "), "{first}");
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(
        !data.join("master.key").exists(),
        "no key of its own was made"
    );
}

/// `command` started, once it says where it listens (its first line,
/// after `prefix`): the child, that address, and its standard output, kept
/// open while it runs (a process whose next line meets a closed pipe would
/// stop).
fn listening(
    command: &mut std::process::Command,
    prefix: &str,
    line: &str,
) -> (
    std::process::Child,
    String,
    std::io::BufReader<std::process::ChildStdout>,
) {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("a line");
    let address = first
        .trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{line}: {first:?}"))
        .to_owned();
    (child, address, stdout)
}

/// docs/OPERATIONS.md's "Several processes" recipe, run line by line as
/// written (its host, role, database, paths and address replaced by the
/// test's): a role and a database made, a master key made, two `serve`
/// processes on it, a key created, a witness started and added while they
/// run; then a pair made through one process deals through the other, and
/// the witness cosigns what they sign.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_several_processes_recipe_runs_as_written() {
    let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this: set TEST_DATABASE_URL"
        );
        return;
    };
    let operations = std::fs::read_to_string(
        fairdeal_test_support::repository_root().join("docs/OPERATIONS.md"),
    )
    .expect("OPERATIONS");
    let recipe = operations
        .split("## Several processes")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the recipe");
    let (admin_user, rest) = admin_url
        .strip_prefix("postgres://")
        .and_then(|rest| rest.split_once('@'))
        .expect("TEST_DATABASE_URL is postgres://USER@HOST:PORT/DB");
    let host_port = rest.split('/').next().expect("a host");
    let (host, port) = host_port.split_once(':').unwrap_or((host_port, "5432"));
    let unique = uuid::Uuid::new_v4().simple().to_string();
    let (role, database) = (format!("dealer_{unique}"), format!("deals_{unique}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let key_file = dir.path().join("etc-master.key");
    let mirror = dir.path().join("shared-log-mirror");
    let witness_home = dir.path().join("var-lib-fairdeal-witness");
    let mut servers = Vec::new();
    let mut operator_key = String::new();
    let mut witness = None;
    let mut witness_vkey = String::new();
    let substitute = |token: &str| -> String {
        match token {
            "dealer" => role.clone(),
            "deals" => database.clone(),
            "db.example" => host.to_owned(),
            "postgres" => admin_user.to_owned(),
            "/etc/fairdeal/master.key" => key_file.display().to_string(),
            "/shared/fairdeal-log-mirror" => mirror.display().to_string(),
            "0.0.0.0:8080" | "0.0.0.0:8090" => "127.0.0.1:0".to_owned(),
            "/var/lib/fairdeal-witness" => witness_home.display().to_string(),
            "fairdeal" => fairdeal_test_support::fairdeal_bin().display().to_string(),
            url if url.starts_with("DATABASE_URL=") => url
                .replace("dealer@", &format!("{role}@"))
                .replace("db.example/deals", &format!("{host}:{port}/{database}")),
            other => other.to_owned(),
        }
    };
    for (n, line) in recipe.lines().enumerate() {
        let line = line.split(" #").next().unwrap_or_default().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut tokens: Vec<String> = line.split_whitespace().map(substitute).collect();
        // What only this run knows: the first process's address, and the
        // witness's key and address.
        for token in &mut tokens {
            if token == "http://dealer.example:8080" {
                *token = servers
                    .first()
                    .map(|(_, base, _): &(_, String, _)| base.clone())
                    .expect("the recipe starts serve before the witness");
            } else if token == "VKEY@http://witness.example:8090" {
                let (_, url, _) = witness.as_ref().expect("the witness runs");
                *token = format!("{witness_vkey}@{url}");
            }
        }
        let mut env = Vec::new();
        while tokens
            .first()
            .is_some_and(|t| t.contains('=') && !t.starts_with('-'))
        {
            let assignment = tokens.remove(0);
            let (name, value) = assignment.split_once('=').expect("NAME=value");
            env.push((name.to_owned(), value.to_owned()));
        }
        let machine = dir.path().join(format!("machine-{n}"));
        std::fs::create_dir_all(&machine).expect("a directory");
        let mut command = std::process::Command::new(&tokens[0]);
        command
            .args(&tokens[1..])
            .current_dir(&machine)
            .env("PGPORT", port)
            .env_remove("DATABASE_URL")
            .env_remove("FAIRDEAL_MASTER_KEY")
            .env_remove("FAIRDEAL_MASTER_KEY_FILE")
            .env_remove("FAIRDEAL_LISTEN")
            .envs(env);
        if tokens.get(1).map(String::as_str) == Some("serve") {
            // "on each machine": two processes.
            for _ in 0..2 {
                servers.push(listening(&mut command, "fairdeal listening on ", line));
            }
            continue;
        }
        if tokens.get(1).map(String::as_str) == Some("witness")
            && !tokens.iter().any(|t| t == "--print-vkey")
        {
            witness = Some(listening(
                &mut command,
                "fairdeal witness listening on ",
                line,
            ));
            continue;
        }
        let out = command.output().unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        match tokens.get(1).map(String::as_str) {
            Some("keys") => operator_key = String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            Some("witness") => {
                witness_vkey = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            }
            _ => {}
        }
    }
    assert_eq!(servers.len(), 2, "the recipe starts serve");
    assert!(operator_key.starts_with("fdk_"), "the recipe creates a key");
    let first = Client::new(&servers[0].1).with_key(&operator_key);
    let pair = first.active_pair("the recipe's player").await;
    let dealt = first
        .at(&servers[1].1)
        .deal(&pair, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    // The witness, added while both ran, cosigns what they sign.
    let verifier = fairdeal::tlog::cosignature::CosignatureVerifier::from_vkey(&witness_vkey)
        .expect("the witness printed its key");
    let mut cosigned = false;
    for _ in 0..200 {
        let reply = first.get("/v1/log/witnessed-checkpoint").await;
        if reply.status == StatusCode::OK && verifier.verify_note(&reply.text).is_some() {
            cosigned = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(cosigned, "{}", first.get("/readyz").await.text);
    let (mut child, _, _) = witness.expect("the recipe starts a witness");
    let _ = child.kill();
    let _ = child.wait();
    for (mut child, _, _) in servers {
        let _ = child.kill();
        let _ = child.wait();
    }
    if let Ok(admin) = sqlx::PgPool::connect(&admin_url).await {
        for sql in [
            format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
            format!("DROP ROLE IF EXISTS {role}"),
        ] {
            let _ = sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&admin).await;
        }
        admin.close().await;
    }
}

/// SIGTERM while deals are in flight: every request either completes with its
/// round (and the round is durable) or is refused at the connection; none is
/// answered with an error or cut off, and the process exits with status 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_lets_requests_in_flight_finish() {
    let Some(db) = TestDatabase::create(Backend::Sqlite).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let server = deployment.serve(&db.dir.path().join("serve.log"), &[]);
    let client = Client::new(&server.base).with_key(&key);
    let pair = client.active_pair("shutdown").await;
    let path = format!("/v1/seed-pairs/{pair}/rounds");
    let started = Arc::new(tokio::sync::Barrier::new(41));
    let tasks: Vec<_> = (0..40)
        .map(|_| {
            // A fresh connection per request, so none is an idle pooled one.
            let client = client.clone().without_connection_reuse();
            let (path, started) = (path.clone(), started.clone());
            tokio::spawn(async move {
                let request = client
                    .request(Method::POST, &path)
                    .json(&json!({"game": {"type": "deck", "decks": 8}}));
                started.wait().await;
                match client.try_send(request).await {
                    Ok(reply) => Some(reply),
                    Err(err) => {
                        assert!(
                            err.is_connect() || err.is_request(),
                            "unexpected failure: {err}"
                        );
                        None
                    }
                }
            })
        })
        .collect();
    started.wait().await;
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    let mut completed = Vec::new();
    for task in tasks {
        if let Some(reply) = task.await.expect("task") {
            assert_eq!(
                reply.status,
                StatusCode::CREATED,
                "an in-flight request failed"
            );
            let round: Value = serde_json::from_str(&reply.text).expect("a whole JSON round");
            completed.push(round["id"].as_str().expect("id").to_owned());
        }
    }
    let store = db.store(2).await;
    for id in &completed {
        assert!(
            store.round(id).await.expect("read").is_some(),
            "round {id} was answered but not stored"
        );
    }
    store.close().await;
    db.remove().await;
}

/// A command that reads what the service keeps, pointed at a data directory
/// the service never used, says so (exit 2) instead of making an empty
/// database there and reporting it as no data.
#[test]
fn reading_commands_refuse_a_data_directory_without_a_database() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data_dir = dir.path().join("mistyped");
    for args in [
        &["export"][..],
        &["keys", "list"][..],
        &["keys", "revoke", "backend"][..],
        &["pairs", "list", "--tenant", "default"][..],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args(args)
            .arg("--data-dir")
            .arg(&data_dir)
            .env_remove("DATABASE_URL")
            .env_remove("FAIRDEAL_DATA_DIR")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("there is no database at") && stderr.contains("--data-dir"),
            "{args:?}: {stderr}"
        );
        assert!(!data_dir.join("fairdeal.db").exists(), "{args:?} made one");
    }
    // A tenant no key could have is a usage error, as for `keys create`.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["pairs", "list", "--tenant", "bad t", "--data-dir"])
        .arg(&data_dir)
        .env_remove("DATABASE_URL")
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid --tenant"));
}
