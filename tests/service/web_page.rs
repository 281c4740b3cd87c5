//! The verification page in a real headless Chromium: the real server, real
//! rounds, a rotation, and records tampered with in the database. The browser
//! part is web/tests/e2e.mjs (playwright-core driving Debian's Chromium).

use std::path::Path;
use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Backend, Client, Deployment, Server, TestDatabase, log_reaches};
use crate::witness_process::WitnessProcess;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Rounds of the pair the page checks in bulk, and the one altered.
const BULK_ROUNDS: usize = 300;
const BULK_TAMPERED: usize = 123;

/// Deals `game`, checking that it was dealt: the round.
async fn deal(api: &Client, pair: &str, game: Value) -> Value {
    api.deal(pair, game).await.success()
}

/// Closes the rounds and rotates; returns the successor pair's id.
async fn close_and_rotate(api: &Client, pair: &str, rounds: &[&Value]) -> String {
    for round in rounds {
        api.close(round["id"].as_str().expect("id")).await;
    }
    let rotation = api
        .rotate(pair, &format!("next after {pair}"))
        .await
        .success();
    rotation["current"]["id"].as_str().expect("id").to_owned()
}

/// A table pair whose every seat has committed and revealed (each seat's
/// contribution is `"{label} secret"`): its id.
async fn complete_table(api: &Client, seats: &[&str]) -> String {
    let created = api
        .post_json(
            "/v1/seed-pairs",
            &json!({"seats": seats, "label": "page-table"}),
        )
        .await
        .success();
    let id = created["id"].as_str().expect("id").to_owned();
    for (what, key) in [
        ("commitment", "commitment"),
        ("contribution", "contribution"),
    ] {
        for (i, seat) in seats.iter().enumerate() {
            let secret = format!("{seat} secret");
            let value = if what == "commitment" {
                hex::encode(<sha2::Sha256 as sha2::Digest>::digest(secret.as_bytes()))
            } else {
                secret
            };
            api.put_json(
                &format!(
                    "/v1/seed-pairs/{id}/seats/{}/{what}",
                    seat_segment(i, seats)
                ),
                &json!({ key: value }),
            )
            .await
            .success();
        }
    }
    id
}

/// The path segment of seat `i` (labels here are ASCII letters and spaces).
fn seat_segment(i: usize, seats: &[&str]) -> String {
    seats[i].replace(' ', "%20")
}

/// A fairdeal-chain-v1 pair of `length` with `client_seed` set: its id.
async fn chain_pair(api: &Client, length: u64, client_seed: &str) -> String {
    let created = api
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": length}),
        )
        .await
        .success();
    let id = created["id"].as_str().expect("id").to_owned();
    api.put_json(
        &format!("/v1/seed-pairs/{id}/client-seed"),
        &json!({ "client_seed": client_seed }),
    )
    .await
    .success();
    id
}

/// Deals `count` two-player hold'em rounds on `pair`: their ids.
async fn deal_ids(api: &Client, pair: &str, count: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..count {
        let round = deal(api, pair, json!({"type": "holdem", "players": 2})).await;
        ids.push(round["id"].as_str().expect("id").to_owned());
    }
    ids
}

/// Waits until `path` (a receipt) answers 200: its entry is in a checkpoint.
async fn wait_proven(api: &Client, path: &str) {
    for _ in 0..400 {
        if api.get(path).await.status == StatusCode::OK {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{path} was never proven");
}

/// Runs the browser part `script` (a file of web/tests) with `config` in
/// `FAIRDEAL_E2E`; asserts it succeeded and printed `done`: its output.
pub(crate) fn run_page_script(script: &str, config: &Value, done: &str) -> String {
    let out = Command::new("node")
        .arg(format!("{ROOT}/web/tests/{script}"))
        .env("FAIRDEAL_E2E", config.to_string())
        .current_dir(format!("{ROOT}/web"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(done), "{stdout}");
    stdout
}

/// `fairdeal serve` on a new SQLite database, and an operator's client.
async fn sqlite_service() -> (TestDatabase, Server, Client) {
    let db = TestDatabase::create(Backend::Sqlite)
        .await
        .expect("SQLite always runs");
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let server = deployment.serve(&db.dir.path().join("serve.log"), &[]);
    let api = Client::new(&server.base).with_key(&key);
    (db, server, api)
}

/// The released single file, built into `dir` as the release job builds
/// it (web/release/build.mjs): its path.
fn build_release(dir: &Path) -> std::path::PathBuf {
    let built = Command::new("node")
        .arg(format!("{ROOT}/web/release/build.mjs"))
        .arg(dir)
        .current_dir(format!("{ROOT}/web"))
        .output()
        .expect("node runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    dir.join("fairdeal-verifier.html")
}

/// Whether the browser tests can run here; if not, says so (CI must run
/// them).
fn browser_or_skip() -> bool {
    let Err(missing) = browser_tools() else {
        return true;
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run the browser test: {missing}"
    );
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED: browser test ({missing})");
    false
}

/// Chromium and playwright-core, or why they are missing.
pub(crate) fn browser_tools() -> Result<(), String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    if !Path::new(&chromium).exists() {
        return Err(format!(
            "no Chromium at {chromium} (apt-get install chromium)"
        ));
    }
    if !Path::new(ROOT)
        .join("web/node_modules/playwright-core")
        .exists()
    {
        return Err("playwright-core is not installed (npm ci --prefix web)".to_owned());
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_verifies_real_rounds_and_catches_tampered_ones_in_chromium() {
    if !browser_or_skip() {
        return;
    }
    let (db, server, api) = sqlite_service().await;

    // A revealed pair with three rounds, one of them a 6-deck shoe.
    let revealed_pair = api.active_pair("my own seed <b>not html</b>").await;
    // An early checkpoint (the first pair's two entries), which every later
    // one must extend: what a browser that visited then would remember.
    log_reaches(&server.base, 2).await;
    let early = api.without_key().get("/log/checkpoint").await.text;
    let early: Vec<&str> = early.lines().collect();
    let (early_size, early_root) = (early[1].parse::<u64>().expect("size"), early[2].to_owned());
    let holdem = deal(
        &api,
        &revealed_pair,
        json!({"type": "holdem", "players": 6}),
    )
    .await;
    let omaha = deal(&api, &revealed_pair, json!({"type": "omaha", "players": 3})).await;
    let shoe = deal(&api, &revealed_pair, json!({"type": "deck", "decks": 6})).await;
    let current = close_and_rotate(&api, &revealed_pair, &[&holdem, &omaha, &shoe]).await;
    // A round still in play on the successor: its pair is not revealed.
    let unrevealed = deal(&api, &current, json!({"type": "holdem", "players": 4})).await;
    let current_pair = api
        .get(&format!("/v1/seed-pairs/{current}"))
        .await
        .success();

    // Two pairs given one client seed while both are live: deal-shopping.
    let shopped_pair = api.active_pair("shopped seed").await;
    let shopped_twin = api.reusing_pair("shopped seed").await;

    // Two pairs whose records are then altered behind the service's back.
    let swapped_pair = api.active_pair("swap").await;
    let swapped = deal(&api, &swapped_pair, json!({"type": "holdem", "players": 4})).await;
    close_and_rotate(&api, &swapped_pair, &[&swapped]).await;
    let wrong_seed_pair = api.active_pair("wrong seed").await;
    let wrong = deal(
        &api,
        &wrong_seed_pair,
        json!({"type": "hands", "players": 3, "cards": 5}),
    )
    .await;
    close_and_rotate(&api, &wrong_seed_pair, &[&wrong]).await;

    // A pair of many rounds, another pair's rounds between them in the log,
    // checked in bulk; one of its rounds is then altered in the database.
    let bulk_pair = api.active_pair("many rounds").await;
    let bulk_other = api.active_pair("between them").await;
    let mut bulk_rounds = Vec::new();
    for i in 0..BULK_ROUNDS {
        let round = deal(&api, &bulk_pair, json!({"type": "holdem", "players": 4})).await;
        if i % 4 == 0 {
            let other = deal(&api, &bulk_other, json!({"type": "deck"})).await;
            api.close(other["id"].as_str().expect("id")).await;
        }
        bulk_rounds.push(round);
    }
    let bulk_refs: Vec<&Value> = bulk_rounds.iter().collect();
    close_and_rotate(&api, &bulk_pair, &bulk_refs).await;
    let bulk_tampered = &bulk_rounds[BULK_TAMPERED];

    let sqlite = sqlx::SqlitePool::connect(&db.url)
        .await
        .expect("open the database");
    let mut altered = bulk_tampered["deal"].clone();
    let (a, b) = (altered["hands"][0][1].clone(), altered["board"][2].clone());
    altered["hands"][0][1] = b;
    altered["board"][2] = a;
    sqlx::query("UPDATE rounds SET deal = $1 WHERE id = $2")
        .bind(altered.to_string())
        .bind(bulk_tampered["id"].as_str())
        .execute(&sqlite)
        .await
        .expect("alter one round of many");
    let mut deal = swapped["deal"].clone();
    let (a, b) = (deal["hands"][0][0].clone(), deal["hands"][1][0].clone());
    deal["hands"][0][0] = b;
    deal["hands"][1][0] = a;
    sqlx::query("UPDATE rounds SET deal = $1 WHERE id = $2")
        .bind(deal.to_string())
        .bind(swapped["id"].as_str())
        .execute(&sqlite)
        .await
        .expect("swap two cards");
    sqlx::query("UPDATE seed_pairs SET server_seed = $1 WHERE id = $2")
        .bind("ab".repeat(32))
        .bind(&wrong_seed_pair)
        .execute(&sqlite)
        .await
        .expect("replace the revealed seed");
    sqlite.close().await;

    // Every round's log entry in a checkpoint, so the page can prove it.
    let last = wrong["id"].as_str().expect("id").to_owned();
    let mut proven = false;
    for _ in 0..400 {
        if api.get(&format!("/v1/rounds/{last}/receipt")).await.status == StatusCode::OK {
            proven = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(proven, "the log integrates the rounds");

    // A drawn raffle, and the player's copies of its list: the real one and
    // one with a byte changed.
    let entries: String = (0..300).map(|i| format!("entrant-{i:03} 🂡\n")).collect();
    let entries_file = db.dir.path().join("entrants.txt");
    std::fs::write(&entries_file, &entries).expect("write the list");
    let tampered_file = db.dir.path().join("entrants-tampered.txt");
    std::fs::write(
        &tampered_file,
        entries.replacen("entrant-007", "entrant-00X", 1),
    )
    .expect("write the tampered list");
    let created = api
        .send(
            api.request(
                reqwest::Method::POST,
                "/v1/draws?winners=3&client_seed_source=the%20chat",
            )
            .header("content-type", "text/plain")
            .body(entries.clone()),
        )
        .await
        .success();
    let draw_id = created["id"].as_str().expect("id").to_owned();
    api.put_json(
        &format!("/v1/draws/{draw_id}/client-seed"),
        &json!({"client_seed": "chat says 42"}),
    )
    .await
    .success();
    let drawn = api
        .post(&format!("/v1/draws/{draw_id}/run"))
        .await
        .success();

    // Tables: one dealt and revealed, one with a contribution altered behind
    // the service's back, and one voided by its stalled seats.
    let table_seats = ["ana", "ben b", "chloe"];
    let table_pair = complete_table(&api, &table_seats).await;
    let table_round =
        super::web_page::deal(&api, &table_pair, json!({"type": "holdem", "players": 3})).await;
    api.close(table_round["id"].as_str().expect("id")).await;
    api.post(&format!("/v1/seed-pairs/{table_pair}/rotate"))
        .await
        .success();
    let tampered_table = complete_table(&api, &table_seats).await;
    let void_pair = api
        .post_json(
            "/v1/seed-pairs",
            &json!({"seats": table_seats, "label": "page-table"}),
        )
        .await
        .success()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    api.put_json(
        &format!("/v1/seed-pairs/{void_pair}/seats/ana/commitment"),
        &json!({"commitment": "ab".repeat(32)}),
    )
    .await
    .success();
    let sqlite = sqlx::SqlitePool::connect(&db.url)
        .await
        .expect("open the database");
    sqlx::query(
        "UPDATE table_seats SET contribution = 'forged' WHERE seed_pair_id = $1 AND position = 1",
    )
    .bind(&tampered_table)
    .execute(&sqlite)
    .await
    .expect("alter a contribution");
    // Time runs out for the void pair's seats; the server's sweep voids it.
    sqlx::query("UPDATE seed_pairs SET phase_deadline = 1 WHERE id = $1")
        .bind(&void_pair)
        .execute(&sqlite)
        .await
        .expect("end the phase");
    sqlite.close().await;
    let mut voided = false;
    for _ in 0..100 {
        let pair = api
            .get(&format!("/v1/seed-pairs/{void_pair}"))
            .await
            .success();
        if pair["status"] == "void" {
            voided = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(voided, "the server voids a stalled table");
    wait_proven(
        &api,
        &format!(
            "/v1/rounds/{}/receipt",
            table_round["id"].as_str().expect("id")
        ),
    )
    .await;
    wait_proven(&api, &format!("/v1/seed-pairs/{void_pair}/receipt")).await;

    // fairdeal-chain-v1, never rotated: rounds 0 to 2 closed (round 2's seed
    // then altered in the database), round 3 in play, round 4 closed but
    // held back by round 3. A second chain with its last round in play, and
    // a third closed and rotated (its tip revealed).
    let chain = chain_pair(&api, 50, "chain player").await;
    let chain_rounds = deal_ids(&api, &chain, 5).await;
    for i in [0, 1, 2, 4] {
        api.close(&chain_rounds[i]).await;
    }
    let chain_view = api
        .without_key()
        .get(&format!("/v1/seed-pairs/{chain}"))
        .await
        .success();
    assert_eq!(chain_view["chain"]["published_rounds"], 3, "{chain_view}");
    let open_chain = chain_pair(&api, 10, "open chain").await;
    let open_rounds = deal_ids(&api, &open_chain, 3).await;
    for id in &open_rounds[..2] {
        api.close(id).await;
    }
    let revealed_chain = chain_pair(&api, 1000, "revealed chain").await;
    let revealed_rounds = deal_ids(&api, &revealed_chain, 2).await;
    for id in &revealed_rounds {
        api.close(id).await;
    }
    api.rotate(&revealed_chain, "after the chain")
        .await
        .success();
    let sqlite = sqlx::SqlitePool::connect(&db.url)
        .await
        .expect("open the database");
    sqlx::query("UPDATE rounds SET server_seed = $1 WHERE id = $2")
        .bind("cd".repeat(32))
        .bind(&chain_rounds[2])
        .execute(&sqlite)
        .await
        .expect("alter a chain round's seed");
    sqlite.close().await;
    wait_proven(
        &api,
        &format!("/v1/rounds/{}/seed-receipt", revealed_rounds[1]),
    )
    .await;
    wait_proven(&api, &format!("/v1/seed-pairs/{revealed_chain}/receipt")).await;

    let screenshot = std::env::var("FAIRDEAL_SCREENSHOT")
        .unwrap_or_else(|_| db.dir.path().join("verify.png").display().to_string());
    let config = json!({
        "base": server.base,
        "revealed_round": holdem["id"],
        "revealed_round_players": 6,
        "revealed_round_seat1": holdem["deal"]["hands"][0],
        "revealed_pair": revealed_pair,
        "revealed_pair_rounds": 3,
        "unrevealed_round": unrevealed["id"],
        "unrevealed_commitment": current_pair["server_seed_hash"],
        "swapped_round": swapped["id"],
        "swapped_slot": "hands[0][0]",
        "wrong_seed_pair": wrong_seed_pair,
        "shopped_pair": shopped_pair,
        "shopped_twin": shopped_twin,
        "early_checkpoint": {
            "size": early_size,
            "root": early_root,
        },
        "offline_file": build_release(&db.dir.path().join("release")),
        "draw": {
            "id": draw_id,
            "entries_file": entries_file,
            "tampered_file": tampered_file,
            "own_entry": "entrant-150 🂡",
            "winner_line": drawn["result"][0]["text"],
        },
        "screenshot": screenshot,
        "table_pair": table_pair,
        "table_seats": table_seats,
        "table_contribution": "ben b secret",
        "table_contribution_seat": 1,
        "table_round": table_round["id"],
        "tampered_table_pair": tampered_table,
        "void_pair": void_pair,
        "void_stalled_seat": "ben b",
        "chain": {
            "pair": chain,
            "rounds": chain_rounds,
            "tampered_nonce": 2,
            "in_play_nonce": 3,
            "open_pair": open_chain,
            "open_in_play_nonce": 2,
            "revealed_pair": revealed_chain,
            "revealed_length": 1000,
            "screenshot": std::env::var("FAIRDEAL_CHAIN_SCREENSHOT")
                .unwrap_or_else(|_| db.dir.path().join("chain").display().to_string()),
        },
        "bulk": {
            "pair": bulk_pair,
            "rounds": BULK_ROUNDS,
            "tampered_nonce": BULK_TAMPERED,
            "tampered_round": bulk_tampered["id"],
            "tampered_slot": "hands[0][1]",
        },
    });
    let stdout = run_page_script("e2e.mjs", &config, "e2e: all checks passed");
    for line in stdout
        .lines()
        .filter(|line| line.starts_with("# measured:") || line.starts_with("# screenshot"))
    {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    assert!(
        stdout.contains("# a chain pair: the published prefix checked"),
        "the chain steps ran: {stdout}"
    );
    // The phone's first screens were compared with their references
    // (web/tests/screenshots/): a pair, a round and a chain round.
    assert_eq!(
        stdout.matches("# screenshot phone-390-").count(),
        3,
        "{stdout}"
    );
    assert!(Path::new(&screenshot).exists(), "a screenshot was taken");

    // The page itself is served with a strict policy.
    let page = api.without_key().get("/verify").await;
    assert_eq!(page.status, StatusCode::OK);
    let csp = page.header("content-security-policy").expect("a CSP");
    assert!(
        csp.starts_with("default-src 'none'; script-src 'self'; style-src 'sha256-"),
        "{csp}"
    );
    let main = api.without_key().get("/verify/modules/page/main.js").await;
    assert_eq!(main.status, StatusCode::OK);
    assert!(main.content_type().starts_with("text/javascript"));
    let unknown = api
        .without_key()
        .get("/verify/modules/page/nothing.js")
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(!csp.contains("unsafe") && !csp.contains("http"), "{csp}");
    drop(server);
}

/// Waits until `/log/checkpoint` covers `size` entries and carries a valid
/// cosignature by each of `by`.
async fn cosigned_by(
    api: &Client,
    size: u64,
    by: &[&fairdeal::tlog::cosignature::CosignatureVerifier],
) {
    for _ in 0..400 {
        let note = api.get("/log/checkpoint").await.text;
        let big_enough = note
            .lines()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n >= size);
        if big_enough && by.iter().all(|v| v.verify_note(&note).is_some()) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("no checkpoint of {size} entries is cosigned by every witness asked for");
}

/// A revealed pair with one round: the pair's and the round's ids, once the
/// round's receipt is proven.
async fn revealed_round(api: &Client, seed: &str) -> (String, String) {
    let pair = api.active_pair(seed).await;
    let round = deal(api, &pair, json!({"type": "holdem", "players": 2})).await;
    close_and_rotate(api, &pair, &[&round]).await;
    let id = round["id"].as_str().expect("id").to_owned();
    wait_proven(api, &format!("/v1/rounds/{id}/receipt")).await;
    (pair, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_page_requires_the_witnesses_a_player_trusts_in_chromium() {
    if !browser_or_skip() {
        return;
    }
    let db = TestDatabase::create(Backend::Sqlite)
        .await
        .expect("SQLite always runs");
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    // The log's key is given, so that the witnesses know it before the
    // service starts.
    let origin = "fairdeal.example/witnessed-page";
    let log = fairdeal::tlog::key::LogKey::generate(origin).expect("log key");
    let one = WitnessProcess::start(
        &db.dir.path().join("witness-one"),
        "127.0.0.1:0",
        "witness.example/one",
        origin,
        &log.vkey(),
        &[],
    );
    let two = WitnessProcess::start(
        &db.dir.path().join("witness-two"),
        "127.0.0.1:0",
        "witness.example/two",
        origin,
        &log.vkey(),
        &[],
    );
    let (one_v, two_v) = (one.verifier(), two.verifier());
    let witnesses = format!("{}@{} {}@{}", one.vkey, one.url, two.vkey, two.url);
    let seed_hex = hex::encode(*log.seed());
    let server = deployment.serve(
        &db.dir.path().join("serve.log"),
        &[
            ("FAIRDEAL_LOG_KEY", seed_hex.as_str()),
            ("FAIRDEAL_LOG_ORIGIN", origin),
            ("FAIRDEAL_WITNESSES", witnesses.as_str()),
        ],
    );
    let api = Client::new(&server.base).with_key(&key);

    // A round in a checkpoint both witnesses cosigned.
    let (both_pair, both_round) = revealed_round(&api, "witnessed by both").await;
    let size = api
        .get("/log/checkpoint")
        .await
        .text
        .lines()
        .nth(1)
        .expect("size")
        .parse::<u64>()
        .expect("size");
    cosigned_by(&api, size, &[&one_v, &two_v]).await;

    // Witness two goes away: later checkpoints carry witness one's
    // cosignature only, and the quorum's (both) is the older one.
    drop(two);
    let (one_pair, one_round) = revealed_round(&api, "witnessed by one").await;
    let later = api
        .get("/log/checkpoint")
        .await
        .text
        .lines()
        .nth(1)
        .expect("size")
        .parse::<u64>()
        .expect("size");
    assert!(later > size);
    cosigned_by(&api, later, &[&one_v]).await;
    let witnessed = api.without_key().get("/v1/log/witnessed-checkpoint").await;
    assert_eq!(witnessed.status, StatusCode::OK, "{}", witnessed.text);
    assert!(two_v.verify_note(&witnessed.text).is_some());

    let stranger = fairdeal::tlog::cosignature::Cosigner::generate("witness.example/stranger")
        .expect("key")
        .vkey();
    // The operator's own witness, named as the player's witness two.
    let impostor = fairdeal::tlog::cosignature::Cosigner::generate("witness.example/two")
        .expect("key")
        .vkey();
    let config = json!({
        "base": server.base,
        "one": one.vkey,
        "two": two_v.vkey(),
        "stranger": stranger,
        "impostor": impostor,
        "witnessed_size": witnessed.text.lines().nth(1).expect("size").parse::<u64>().expect("size"),
        "both_round": both_round,
        "both_pair": both_pair,
        "one_round": one_round,
        "one_pair": one_pair,
        "screenshot": std::env::var("FAIRDEAL_WITNESS_SCREENSHOT").ok(),
    });
    run_page_script(
        "e2e-witnesses.mjs",
        &config,
        "e2e witnesses: all checks passed",
    );
    drop(server);
    drop(one);
}

/// The released single file (web/release/build.mjs), from a static host on
/// another origin and from `file://`: it reads the service the link names
/// (the service answers public reads from any origin), refuses a log key
/// the player has not trusted, passes once the player trusts it (a round,
/// and a whole pair through the worker the file carries), and passes
/// nothing from a second service with a log key of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_released_verifier_checks_a_service_from_elsewhere_in_chromium() {
    if !browser_or_skip() {
        return;
    }
    let mut services = Vec::new();
    for seed in ["checked from elsewhere", "a service of its own"] {
        let (db, server, api) = sqlite_service().await;
        let (pair, round) = revealed_round(&api, seed).await;
        services.push((db, server, api, pair, round));
    }
    let (db, server, api, pair, round) = &services[0];
    let (_, fake, _, _, fake_round) = &services[1];

    // Public reads answer any origin; operations stay same-origin.
    let read = api.without_key().get(&format!("/v1/rounds/{round}")).await;
    assert_eq!(read.header("access-control-allow-origin"), Some("*"));
    let log = api.without_key().get("/log/checkpoint").await;
    assert_eq!(log.header("access-control-allow-origin"), Some("*"));
    for same_origin in ["/metrics", "/readyz", "/verify"] {
        let answer = api.without_key().get(same_origin).await;
        assert_eq!(
            answer.header("access-control-allow-origin"),
            None,
            "{same_origin}"
        );
    }

    let release = build_release(&db.dir.path().join("release"));
    let config = json!({
        "base": server.base,
        "round": round,
        "pair": pair,
        "fake_base": fake.base,
        "fake_round": fake_round,
        "release": release,
    });
    run_page_script(
        "e2e-released.mjs",
        &config,
        "e2e-released: all checks passed",
    );
}

/// `fairdeal-verify` (web/cli/): the released page's own checks from the
/// command line, with its verdict as the exit status, for a round, a pair
/// and a draw; a log key is trusted only when given.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_command_line_verifier_gives_the_pages_verdicts() {
    if !Path::new(&format!("{ROOT}/web/node_modules/linkedom")).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the command line verifier: npm ci in web/"
        );
        return;
    }
    let (db, server, api) = sqlite_service().await;
    let (pair, round) = revealed_round(&api, "checked from a terminal").await;
    let entries: String = (0..40).map(|i| format!("entrant-{i:02}\n")).collect();
    let list = db.dir.path().join("entrants.txt");
    std::fs::write(&list, &entries).expect("write the list");
    let tampered = db.dir.path().join("tampered.txt");
    std::fs::write(&tampered, entries.replacen("entrant-07", "entrant-0X", 1)).expect("write");
    let created = api
        .send(
            api.request(
                reqwest::Method::POST,
                "/v1/draws?winners=2&client_seed_source=the%20stream",
            )
            .header("content-type", "text/plain")
            .body(entries),
        )
        .await
        .success();
    let draw = created["id"].as_str().expect("id").to_owned();
    api.put_json(
        &format!("/v1/draws/{draw}/client-seed"),
        &json!({"client_seed": "from the stream"}),
    )
    .await
    .success();
    api.post(&format!("/v1/draws/{draw}/run")).await.success();
    let vkey = api
        .without_key()
        .get("/log/key")
        .await
        .text
        .trim()
        .to_owned();
    let other_key = fairdeal::tlog::key::LogKey::generate("fairdeal.example/other")
        .expect("a key")
        .vkey();

    let verify = |args: &[&str]| {
        let out = Command::new("node")
            .arg(format!("{ROOT}/web/cli/fairdeal-verify.mjs"))
            .args(args)
            .output()
            .expect("node runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let said = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        (out.status.code(), stdout, said)
    };
    let base = server.base.as_str();
    let check_draw = |with: &Path| {
        let with = with.to_str().expect("path");
        verify(&["draw", base, &draw, "--log-key", &vkey, "--list", with])
    };
    // The draw's entries may wait for their checkpoint: not yet verifiable
    // (3) until then.
    let mut drawn = check_draw(&list);
    for _ in 0..40 {
        if drawn.0 != Some(3) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        drawn = check_draw(&list);
    }
    assert_eq!(drawn.0, Some(0), "{}", drawn.2);
    assert!(drawn.1.starts_with("PASS"), "{}", drawn.2);
    let changed = check_draw(&tampered);
    assert_eq!(changed.0, Some(1), "{}", changed.2);

    let passed = verify(&["round", base, &round, "--log-key", &vkey]);
    assert_eq!(passed.0, Some(0), "{}", passed.2);
    assert!(
        passed.1.starts_with("PASS") && passed.1.contains("pass  deal"),
        "{}",
        passed.2
    );
    let json = verify(&["pair", base, &pair, "--log-key", &vkey, "--json"]);
    assert_eq!(json.0, Some(0), "{}", json.2);
    let answer: Value = serde_json::from_str(&json.1).expect("JSON");
    assert_eq!(answer["verdict"], "pass", "{answer}");
    // Pins in the page's own format serve as well.
    let pins = db.dir.path().join("pins.json");
    let pin =
        json!({"vkey": vkey, "name": vkey.split('+').next(), "since": "2026-01-01T00:00:00Z"});
    std::fs::write(
        &pins,
        json!({"services": {base: pin}, "logs": {}}).to_string(),
    )
    .expect("pins");
    let pinned = verify(&[
        "round",
        base,
        &round,
        "--pins",
        pins.to_str().expect("path"),
    ]);
    assert_eq!(pinned.0, Some(0), "{}", pinned.2);

    // No key given, or another log's: the log's checks fail, and so does the verdict.
    for trusted in [vec![], vec!["--log-key", other_key.as_str()]] {
        let mut args = vec!["round", base, &round];
        args.extend(trusted);
        let refused = verify(&args);
        assert_eq!(refused.0, Some(1), "{}", refused.2);
        assert!(
            refused.1.starts_with("FAIL") && refused.1.contains("fail  log"),
            "{}",
            refused.2
        );
        // Each failed check says why, in the page's words, not only its name.
        let failed: Vec<&str> = refused
            .1
            .lines()
            .filter(|l| l.starts_with("  fail  "))
            .collect();
        assert!(
            !failed.is_empty()
                && failed.iter().all(|line| line
                    .split_once(": ")
                    .is_some_and(|(_, why)| why.len() > 10 && !why.contains("FAIL"))),
            "{}",
            refused.2
        );
    }
    // What the page keeps between visits (--state): the checkpoint seen.
    // The log cannot have grown from one of its own size with another
    // root: a fork, FAIL; the state as the last run wrote it passes.
    let state = db.dir.path().join("state.json");
    let state_arg = state.to_str().expect("path");
    let kept = verify(&[
        "round",
        base,
        &round,
        "--log-key",
        &vkey,
        "--state",
        state_arg,
    ]);
    assert_eq!(kept.0, Some(0), "{}", kept.2);
    let saved: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state written"))
            .expect("JSON");
    let (seen_key, seen) = saved
        .iter()
        .find(|(key, _)| key.starts_with("fairdeal-checkpoint:"))
        .expect("the checkpoint seen is kept");
    let seen: Value = serde_json::from_str(seen.as_str().expect("a string")).expect("JSON");
    assert!(seen["size"].as_u64().expect("size") > 0, "{seen}");
    let again = verify(&[
        "round",
        base,
        &round,
        "--log-key",
        &vkey,
        "--state",
        state_arg,
    ]);
    assert_eq!(again.0, Some(0), "{}", again.2);
    let mut forked = saved.clone();
    forked.insert(
        seen_key.clone(),
        json!(json!({"size": seen["size"], "root": format!("{}=", "A".repeat(43))}).to_string()),
    );
    std::fs::write(&state, Value::Object(forked).to_string()).expect("write");
    let fork = verify(&[
        "round",
        base,
        &round,
        "--log-key",
        &vkey,
        "--state",
        state_arg,
    ]);
    assert_eq!(fork.0, Some(1), "{}", fork.2);
    assert!(fork.1.starts_with("FAIL"), "{}", fork.2);

    // Witnesses the player trusts, none of whom cosigned: not yet trusted
    // (3), and the words of the page that it looks again are not a
    // command's. A monitor kept that has no statement: a warning (0).
    let witness = fairdeal::tlog::cosignature::Cosigner::generate("witness.example/w1")
        .expect("a key")
        .vkey();
    let unwitnessed = verify(&[
        "round",
        base,
        &round,
        "--log-key",
        &vkey,
        "--witness",
        &witness,
        "--quorum",
        "1",
        "--wait",
        "0",
    ]);
    assert_eq!(unwitnessed.0, Some(3), "{}", unwitnessed.2);
    assert!(
        unwitnessed.1.starts_with("PENDING") && unwitnessed.1.contains("NOT YET TRUSTED"),
        "{}",
        unwitnessed.2
    );
    assert!(
        unwitnessed.1.contains("Run this command again later"),
        "{}",
        unwitnessed.2
    );
    let monitor = fairdeal::tlog::key::LogKey::generate("monitor.example/m1")
        .expect("a key")
        .vkey();
    let watched = verify(&[
        "round",
        base,
        &round,
        "--log-key",
        &vkey,
        "--monitor",
        &monitor,
    ]);
    assert_eq!(watched.0, Some(0), "{}", watched.2);
    assert!(watched.1.starts_with("WARNING"), "{}", watched.2);
    for (args, said) in [
        (
            vec!["--witness", witness.as_str(), "--quorum", "2"],
            "from 1 to 1",
        ),
        (vec!["--quorum", "1"], "give witnesses too"),
        (
            vec!["--witness", "witness.example/x+00000000+AQ=="],
            "witnesses:",
        ),
        (vec!["--monitor", "not a key"], "monitors:"),
        (vec!["--wait", "soon"], "--wait"),
    ] {
        let mut all = vec!["round", base, &round, "--log-key", &vkey];
        all.extend(args);
        let refused = verify(&all);
        assert_eq!(refused.0, Some(2), "{}", refused.2);
        assert!(refused.2.contains(said), "{said}: {}", refused.2);
    }

    let bad = verify(&["hand", base, &round]);
    assert_eq!(bad.0, Some(2), "{}", bad.2);
    assert!(bad.2.contains("round, pair or draw"), "{}", bad.2);
    let nowhere = verify(&["round", "ftp://x", &round, "--log-key", &vkey]);
    assert_eq!(nowhere.0, Some(2), "{}", nowhere.2);
    assert!(
        nowhere.2.contains("must start with https://"),
        "{}",
        nowhere.2
    );
}
