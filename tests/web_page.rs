//! The verification page in a real headless Chromium: the real server, real
//! rounds, a rotation, and records tampered with in the database. The browser
//! part is web/tests/e2e.mjs (playwright-core driving Debian's Chromium).

mod support;

use std::path::Path;
use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::app::random_master_key_hex;
use support::process::Deployment;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Api {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        response.json().await.expect("JSON")
    }

    async fn pair(&self, client_seed: &str) -> String {
        let pair = self
            .call(reqwest::Method::POST, "/v1/seed-pairs", None)
            .await;
        let id = pair["id"].as_str().expect("id").to_owned();
        self.call(
            reqwest::Method::PUT,
            &format!("/v1/seed-pairs/{id}/client-seed"),
            Some(json!({"client_seed": client_seed})),
        )
        .await;
        id
    }

    async fn deal(&self, pair: &str, game: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            &format!("/v1/seed-pairs/{pair}/rounds"),
            Some(json!({"game": game})),
        )
        .await
    }

    /// Closes the rounds and rotates; returns the successor pair's id.
    async fn close_and_rotate(&self, pair: &str, rounds: &[&Value]) -> String {
        for round in rounds {
            let id = round["id"].as_str().expect("id");
            self.call(
                reqwest::Method::POST,
                &format!("/v1/rounds/{id}/close"),
                None,
            )
            .await;
        }
        let rotation = self
            .call(
                reqwest::Method::POST,
                &format!("/v1/seed-pairs/{pair}/rotate"),
                Some(json!({"client_seed": "next"})),
            )
            .await;
        rotation["current"]["id"].as_str().expect("id").to_owned()
    }
}

/// Chromium and playwright-core, or why they are missing.
fn browser_tools() -> Result<(), String> {
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
    if let Err(missing) = browser_tools() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the browser test: {missing}"
        );
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "SKIPPED: browser test ({missing})");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let deployment = Deployment {
        data_dir: dir.path().to_owned(),
        database_url: format!("sqlite://{}", dir.path().join("fairdeal.db").display()),
        master_key_hex: random_master_key_hex(),
    };
    let key = deployment.create_key("backend");
    let server = deployment.serve(&dir.path().join("serve.log"), &[]);
    let api = Api {
        http: reqwest::Client::new(),
        base: server.base.clone(),
        key,
    };

    // A revealed pair with three rounds, one of them a 6-deck shoe.
    let revealed_pair = api.pair("my own seed <b>not html</b>").await;
    let holdem = api
        .deal(&revealed_pair, json!({"type": "holdem", "players": 6}))
        .await;
    let omaha = api
        .deal(&revealed_pair, json!({"type": "omaha", "players": 3}))
        .await;
    let shoe = api
        .deal(&revealed_pair, json!({"type": "deck", "decks": 6}))
        .await;
    let current = api
        .close_and_rotate(&revealed_pair, &[&holdem, &omaha, &shoe])
        .await;
    // A round still in play on the successor: its pair is not revealed.
    let unrevealed = api
        .deal(&current, json!({"type": "holdem", "players": 4}))
        .await;
    let current_pair = api
        .call(
            reqwest::Method::GET,
            &format!("/v1/seed-pairs/{current}"),
            None,
        )
        .await;

    // Two pairs whose records are then altered behind the service's back.
    let swapped_pair = api.pair("swap").await;
    let swapped = api
        .deal(&swapped_pair, json!({"type": "holdem", "players": 4}))
        .await;
    api.close_and_rotate(&swapped_pair, &[&swapped]).await;
    let wrong_seed_pair = api.pair("wrong seed").await;
    let wrong = api
        .deal(
            &wrong_seed_pair,
            json!({"type": "hands", "players": 3, "cards": 5}),
        )
        .await;
    api.close_and_rotate(&wrong_seed_pair, &[&wrong]).await;

    let db = sqlx::SqlitePool::connect(&deployment.database_url)
        .await
        .expect("open the database");
    let mut deal = swapped["deal"].clone();
    let (a, b) = (deal["hands"][0][0].clone(), deal["hands"][1][0].clone());
    deal["hands"][0][0] = b;
    deal["hands"][1][0] = a;
    sqlx::query("UPDATE rounds SET deal = $1 WHERE id = $2")
        .bind(deal.to_string())
        .bind(swapped["id"].as_str())
        .execute(&db)
        .await
        .expect("swap two cards");
    sqlx::query("UPDATE seed_pairs SET server_seed = $1 WHERE id = $2")
        .bind("ab".repeat(32))
        .bind(&wrong_seed_pair)
        .execute(&db)
        .await
        .expect("replace the revealed seed");
    db.close().await;

    let screenshot = std::env::var("FAIRDEAL_SCREENSHOT")
        .unwrap_or_else(|_| dir.path().join("verify.png").display().to_string());
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
        "offline_file": dir.path().join("saved-verify.html"),
        "screenshot": screenshot,
    });
    let out = Command::new("node")
        .arg(format!("{ROOT}/web/tests/e2e.mjs"))
        .env("FAIRDEAL_E2E", config.to_string())
        .current_dir(format!("{ROOT}/web"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
    assert!(Path::new(&screenshot).exists(), "a screenshot was taken");

    // The page itself is served with a strict policy.
    let response = reqwest::get(format!("{}/verify", server.base))
        .await
        .expect("page");
    assert_eq!(response.status(), StatusCode::OK);
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        csp.starts_with("default-src 'none'; script-src 'sha256-"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe") && !csp.contains("http"), "{csp}");
    drop(server);
}
