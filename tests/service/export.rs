//! `GET /v1/export`, `fairdeal export` and `fairdeal audit URL`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{TestApp, id, on_both_backends};

async fn the_export_lists_revealed_pairs_only_and_resumes_from_a_cursor(app: &TestApp) {
    let api = &app.operator;
    let pair_a = api.active_pair("export a").await;
    for _ in 0..3 {
        let round = api
            .deal(&pair_a, json!({"type": "holdem", "players": 5}))
            .await;
        api.close(&round.id()).await;
    }
    let rotated = api.rotate(&pair_a, "b").await;
    let pair_b = id(&rotated.json["current"]);
    let in_play = api.deal(&pair_b, json!({"type": "deck"})).await;
    let pair_c = api.active_pair("export c").await;
    for _ in 0..2 {
        let round = api
            .deal(&pair_c, json!({"type": "hands", "players": 2, "cards": 3}))
            .await;
        api.close(&round.id()).await;
    }
    api.rotate(&pair_c, "d").await;

    let export = app.public.get("/v1/export").await;
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
    assert!(!export.text.contains(&in_play.id()));
    let report = fairdeal::audit::audit(export.text.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.rounds, 5);

    // Resume after pair A.
    let cursor = lines[0]["cursor"].as_str().expect("cursor");
    let resumed = app.public.get(&format!("/v1/export?after={cursor}")).await;
    let first: Value =
        serde_json::from_str(resumed.text.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["id"], pair_c.as_str());
    assert_eq!(resumed.text.lines().count(), 4);
    let bad = app.public.get("/v1/export?after=yesterday").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.json["field"], "after");

    // The command line writes the same bytes straight from the database.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["export", "--database-url", &app.db.url, "--data-dir"])
        .arg(app.db.dir.path())
        .output()
        .expect("export runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), export.text);
    // A reader that stops early (`| head`) ends it quietly, as a filter.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["export", "--database-url", &app.db.url, "--data-dir"])
        .arg(app.db.dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("export runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("export ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");

    // And the auditor can read a running service directly.
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["audit", app.public.base(), "--quiet"])
        .output()
        .await
        .expect("audit runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("5 rounds verified"), "{text}");
}
on_both_backends!(the_export_lists_revealed_pairs_only_and_resumes_from_a_cursor);
