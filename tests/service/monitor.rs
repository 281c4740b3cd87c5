//! `fairdeal monitor`, the real binary against a real log: a clean log
//! passes (a player keeping a client seed across rotations included) and a
//! later run proves consistency through its state file; a client seed given
//! to two live pairs, an entry changed in the database after it was logged,
//! and a state file the log does not extend are each named, exit 1.

use std::path::Path;
use std::process::Output;

use fairdeal::service::store::Store;
use serde_json::{Value, json};

use crate::harness::{TestApp, on_both_backends, run_audit_log, run_monitor};
use crate::log::checkpoint_of;

/// Runs `fairdeal monitor URL --json [--state FILE]` against `app`.
async fn monitor(app: &TestApp, state: Option<&Path>) -> (Output, Value) {
    let args: Vec<String> = state
        .map(|state| vec!["--state".to_owned(), state.display().to_string()])
        .unwrap_or_default();
    run_monitor(app.public.base(), &args).await
}

/// Waits until every entry appended so far is in a checkpoint.
pub(crate) async fn integrated(app: &TestApp) {
    let next = app.number("SELECT next_index FROM log_state").await;
    checkpoint_of(app, next as u64).await;
}

/// The kinds of a monitor report's findings, in order.
pub(crate) fn kinds(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| x["kind"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn a_clean_log_passes_and_a_later_run_proves_it_was_extended(app: &TestApp) {
    let operator = &app.operator;
    let pair = operator.active_pair("kept across rotations").await;
    for _ in 0..2 {
        let round = operator.deal(&pair, json!({"type": "deck"})).await.id();
        operator.close(&round).await;
    }
    // The player keeps the same client seed: normal, never flagged.
    let rotated = operator
        .rotate(&pair, "kept across rotations")
        .await
        .success();
    let successor = rotated["current"]["id"].as_str().expect("id").to_owned();
    operator
        .deal(&successor, json!({"type": "holdem", "players": 3}))
        .await;
    operator.post("/v1/seed-pairs").await; // committed, never used
    integrated(app).await;

    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("monitor.json");
    let (out, report) = monitor(app, Some(&state)).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report:#}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(report["verdict"], "pass");
    assert_eq!(
        (report["pairs"].as_u64(), report["rounds"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(report["unrevealed"], 2);
    assert_eq!(
        report["unused_commitments"].as_array().map(Vec::len),
        Some(1)
    );
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("JSON");
    assert_eq!(kept["size"], report["size"]);

    assert_eq!(report["resumed_from"], Value::Null);

    // The log grows; the next run reads only the new entries (resuming from
    // the snapshot beside the state file) and checks the new checkpoint
    // extends the old: it says what a full run says.
    operator.deal(&successor, json!({"type": "deck"})).await;
    integrated(app).await;
    let (out, report) = monitor(app, Some(&state)).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["resumed_from"], kept["size"]);
    let (_, full) = monitor(app, None).await;
    for field in [
        "size",
        "pairs",
        "rounds",
        "unrevealed",
        "unused_commitments",
    ] {
        assert_eq!(report[field], full[field], "{field}");
    }
    assert_eq!(report["rounds"], 4);

    // A state file the log does not extend: a fork, named with both.
    let mut forged = kept.clone();
    forged["root"] = json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    std::fs::write(&state, forged.to_string()).expect("write");
    let (out, report) = monitor(app, Some(&state)).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["fork"]);
    let detail = report["findings"][0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains("AAAAAAAA") && detail.contains(&kept["size"].to_string()),
        "{detail}"
    );
}
on_both_backends!(a_clean_log_passes_and_a_later_run_proves_it_was_extended);

async fn a_client_seed_on_two_live_pairs_is_named(app: &TestApp) {
    let first = app.operator.active_pair("shopped").await;
    // The service refuses the seed while the first pair is live, unless
    // the operator insists; either way the monitor names it.
    let second = app.operator.reusing_pair("shopped").await;
    integrated(app).await;
    let (out, report) = monitor(app, None).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["client_seed_reuse"]);
    let detail = report["findings"][0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains(&first) && detail.contains(&second),
        "{detail}"
    );
}
on_both_backends!(a_client_seed_on_two_live_pairs_is_named);

async fn an_entry_changed_after_it_was_logged_is_caught(app: &TestApp) {
    let pair = app.operator.active_pair("tampered").await;
    app.operator.deal(&pair, json!({"type": "deck"})).await;
    integrated(app).await;
    // The operator edits history: the round's entry now says nonce 5.
    let sql =
        "UPDATE log_entries SET entry = REPLACE(entry, '\"nonce\":0', '\"nonce\":5') WHERE idx = 2";
    let changed = match app.dealer.store() {
        Store::Sqlite(pool, ..) => sqlx::query(sql).execute(pool).await.map(|r| r.rows_affected()),
        Store::Postgres(pool, _) => sqlx::query(
            "UPDATE log_entries SET entry = convert_to(replace(convert_from(entry, 'UTF8'), '\"nonce\":0', '\"nonce\":5'), 'UTF8') WHERE idx = 2",
        )
        .execute(pool)
        .await
        .map(|r| r.rows_affected()),
    }
    .expect("tamper");
    assert_eq!(changed, 1);
    let (out, report) = monitor(app, None).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let found = kinds(&report);
    assert!(found.contains(&"tree".to_owned()), "{found:?}");
}
on_both_backends!(an_entry_changed_after_it_was_logged_is_caught);

async fn a_round_deleted_after_it_was_logged_is_named_with_check_api(app: &TestApp) {
    let pair = app.operator.active_pair("deleted").await;
    let round = app.operator.deal(&pair, json!({"type": "deck"})).await.id();
    app.operator.deal(&pair, json!({"type": "deck"})).await;
    integrated(app).await;
    let args = ["--check-api".to_owned()];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let deleted = app
        .tamper("DELETE FROM rounds WHERE id = $1", round.clone())
        .await;
    assert_eq!(deleted, 1);
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["api"]);
    assert!(
        report["findings"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&round))
    );
}
on_both_backends!(a_round_deleted_after_it_was_logged_is_named_with_check_api);

/// `fairdeal audit EXPORT --log URL`: the export and the log agree on every
/// round of every revealed pair; a round left out of the export is named.
async fn an_export_is_cross_checked_against_the_log(app: &TestApp) {
    let operator = &app.operator;
    let pair = operator.active_pair("exported").await;
    for _ in 0..3 {
        let round = operator.deal(&pair, json!({"type": "deck"})).await.id();
        operator.close(&round).await;
    }
    operator.rotate(&pair, "next").await.success();
    integrated(app).await;
    let export = app.public.get("/v1/export").await.text;
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = |text: String, name: &'static str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let base = app.public.base().to_owned();
        async move {
            tokio::task::spawn_blocking(move || {
                std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
                    .args([
                        "audit",
                        &path.display().to_string(),
                        "--log",
                        &base,
                        "--format",
                        "json",
                        "--quiet",
                    ])
                    .output()
                    .expect("the binary runs")
            })
            .await
            .expect("joined")
        }
    };
    let out = audit(export.clone(), "whole.ndjson").await;
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    // Leave out the last round: the log names it.
    let lines: Vec<&str> = export.lines().collect();
    let last_round = lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"round\""))
        .expect("a round");
    let cut: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != last_round)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let out = audit(cut.clone(), "cut.ndjson").await;
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let named = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .any(|f| {
            f["kind"] == "log"
                && f["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains("nonce 2 is in the log but not in the export"))
        });
    assert!(named, "{report:#}");
    // From standard input (read once): the pair is named, and how to have
    // each difference named.
    let base = app.public.base().to_owned();
    let piped = tokio::task::spawn_blocking(move || {
        use std::io::Write as _;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args(["audit", "-", "--log", &base, "--format", "json", "--quiet"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(cut.as_bytes())
            .expect("written");
        child.wait_with_output().expect("output")
    })
    .await
    .expect("joined");
    let report: Value = serde_json::from_slice(&piped.stdout).unwrap_or(Value::Null);
    assert_eq!(piped.status.code(), Some(1), "{report:#}");
    let detail =
        format!("pair {pair}: the export's rounds or seeds are not the ones the log holds");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["detail"].as_str().is_some_and(|d| d.contains(&detail))),
        "{report:#}"
    );

    // An export made over: another seed (and its commitment) with every
    // deal dealt again from it, round ids changed. On its own it verifies;
    // against the log its commitment, seed and ids are not the ones logged.
    let other = fairdeal_core::ServerSeed::from_hex(&"5e".repeat(32)).expect("hex");
    let forged: String = export
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("JSON");
            if record["type"] == "seed_pair" || record["type"] == "round" {
                record["server_seed"] = other.reveal_hex().into();
                record["server_seed_hash"] = other.commitment().to_string().into();
            }
            if record["type"] == "round" {
                let client = fairdeal_core::ClientSeed::new(
                    record["client_seed"].as_str().expect("client seed"),
                )
                .expect("valid");
                let game: fairdeal_core::Game =
                    serde_json::from_value(record["game"].clone()).expect("game");
                let nonce = record["nonce"].as_u64().expect("nonce");
                let deal = fairdeal_core::deal(&other, &client, nonce, game);
                record["deal"] = serde_json::to_value(&deal).expect("deal JSON");
                record["id"] = format!("forged-{nonce}").into();
            }
            format!("{record}\n")
        })
        .collect();
    let report = fairdeal::audit::audit(forged.as_bytes(), &mut |_, _| {}).expect("in memory");
    assert!(report.passed(), "on its own: {:?}", report.findings);
    let out = audit(forged, "forged.ndjson").await;
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let details: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "log")
        .filter_map(|f| f["detail"].as_str())
        .collect();
    for words in [
        "the export's commitment is not the one the log holds",
        "the export's revealed server seed is not the one the log holds",
        "nonce 0: the export's round id differs from the log's",
    ] {
        assert!(
            details.iter().any(|d| d.contains(words)),
            "{words}: {details:#?}"
        );
    }
    assert!(
        !details.iter().any(|d| d.contains("client seed")),
        "the client seed was kept: {details:#?}"
    );
}
on_both_backends!(an_export_is_cross_checked_against_the_log);

/// Two seconds from now, as `--as-of` takes it.
fn two_seconds_on() -> String {
    fairdeal::time::timestamp(fairdeal::time::now_ms() + 2_000)
}

/// A commitment older than `--reveal-within` and still secret is named: the
/// trace of an operator that keeps commitments it did not like unrevealed.
async fn an_old_unrevealed_commitment_is_named(app: &TestApp) {
    let pair = app.operator.active_pair("kept secret").await;
    integrated(app).await;
    // 1e-5 days is 0.864 s: judged as of two seconds from now, no waiting.
    let args = [
        "--reveal-within".to_owned(),
        "0.00001".to_owned(),
        "--as-of".to_owned(),
        two_seconds_on(),
    ];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["stale_commitment"]);
    assert!(
        report["findings"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&pair)),
        "{report:#}"
    );
    assert_eq!(report["unrevealed"], 1);
    // As of a minute ago the commitment was not yet made, so not overdue;
    // a time in another form is refused naming the flag.
    let before = fairdeal::time::timestamp(fairdeal::time::now_ms() - 60_000);
    let args = ["--reveal-within", "0.00001", "--as-of", &before].map(str::to_owned);
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let args = ["--as-of", "2026-11-28 09:30"].map(str::to_owned);
    let (out, _) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--as-of") && said.contains("RFC 3339"),
        "{said}"
    );
    // Within the default policy (7 days) the same log passes.
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
}
on_both_backends!(an_old_unrevealed_commitment_is_named);

/// A hash tile that does not match the entries (a stored hash changed
/// behind the log's back) is named with the tile.
async fn a_tampered_hash_tile_is_named(app: &TestApp) {
    let pair = app.operator.active_pair("tile").await;
    app.operator.deal(&pair, json!({"type": "deck"})).await;
    integrated(app).await;
    let (out, report) = monitor(app, None).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let changed = app
        .tamper(
            "UPDATE log_hashes SET hash = $1 WHERE idx = 0",
            vec![0u8; 32],
        )
        .await;
    assert_eq!(changed, 1);
    let (out, report) = monitor(app, None).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["tile"]);
    assert!(
        report["findings"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("hash tile 0/0")),
        "{report:#}"
    );
}
on_both_backends!(a_tampered_hash_tile_is_named);

/// Draws in the log: a drawn draw passes (its result opens its commitment,
/// and with `--check-api` its winners are recomputed from the seeds the API
/// shows); a draw given its client seed and never run is named once it is
/// older than the policy, because its operator could see the winners
/// coming; two draws of one list with one client seed are named together.
async fn a_draw_left_unrun_after_its_client_seed_is_named(app: &TestApp) {
    let create = |winners: u32| {
        app.operator
            .request(
                reqwest::Method::POST,
                &format!("/v1/draws?winners={winners}&client_seed_source=chat"),
            )
            .header("content-type", "text/plain")
            .body("ann\nbo\ncy\n")
    };
    let seed = |id: String, client_seed: &'static str| async move {
        app.operator
            .put_json(
                &format!("/v1/draws/{id}/client-seed"),
                &json!({ "client_seed": client_seed, "allow_reuse": true }),
            )
            .await
            .success();
        id
    };
    let drawn = seed(app.operator.send(create(2)).await.id(), "typed in chat").await;
    let unrun = seed(app.operator.send(create(1)).await.id(), "typed later").await;
    let unseeded = app.operator.send(create(1)).await.id();
    app.operator
        .post(&format!("/v1/draws/{drawn}/run"))
        .await
        .success();
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(
        (report["draws"].as_u64(), report["draws_drawn"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(report["unseeded_draws"], json!([unseeded]));
    let args = [
        "--reveal-within".to_owned(),
        "0.00001".to_owned(),
        "--as-of".to_owned(),
        two_seconds_on(),
    ];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["draw_not_run"]);
    let detail = report["findings"][0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&unrun) && !detail.contains(&drawn),
        "{detail}"
    );

    // The same list and client seed again: the operator could publish the
    // draw whose winners it liked.
    let twin = seed(app.operator.send(create(2)).await.id(), "typed in chat").await;
    app.operator
        .post(&format!("/v1/draws/{twin}/run"))
        .await
        .success();
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["draw_reuse"]);
    let detail = report["findings"][0]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&drawn) && detail.contains(&twin),
        "{detail}"
    );

    // Winners rewritten in the database after the fact: the API no longer
    // says what the log does.
    let changed = app
        .tamper(
            "UPDATE draws SET result = '[0, 0]' WHERE id = $1",
            twin.clone(),
        )
        .await;
    assert_eq!(changed, 1);
    let (out, report) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert!(kinds(&report).contains(&"api".to_owned()), "{report:#}");
}
on_both_backends!(a_draw_left_unrun_after_its_client_seed_is_named);

/// A pair with `rounds` deck rounds dealt, closed and revealed by
/// rotation; its id.
async fn revealed_pair(app: &TestApp, client_seed: &str, rounds: usize) -> String {
    let operator = &app.operator;
    let pair = operator.active_pair(client_seed).await;
    for _ in 0..rounds {
        let round = operator.deal(&pair, json!({"type": "deck"})).await.id();
        operator.close(&round).await;
    }
    operator.rotate(&pair, client_seed).await.success();
    pair
}

/// `export` without the lines of `pair` (its pair line and rounds), the
/// end line's counts made to agree: an export that left the pair out.
fn without_pair(export: &str, pair: &str) -> String {
    let mut kept = Vec::new();
    let (mut pairs, mut rounds) = (0u64, 0u64);
    for line in export.lines() {
        let mut record: Value = serde_json::from_str(line).expect("JSON");
        match record["type"].as_str() {
            Some("seed_pair") if record["id"] == pair => continue,
            Some("round") if record["seed_pair_id"] == pair => continue,
            Some("seed_pair") => pairs += 1,
            Some("round") => rounds += 1,
            Some("end") => {
                record["seed_pairs"] = pairs.into();
                record["rounds"] = rounds.into();
            }
            _ => {}
        }
        kept.push(record.to_string());
    }
    kept.join("\n") + "\n"
}

/// Whether the audit report names `pair` in a `log` finding.
fn log_names(report: &Value, pair: &str) -> bool {
    report["findings"].as_array().is_some_and(|findings| {
        findings
            .iter()
            .any(|f| f["kind"] == "log" && f["detail"].as_str().is_some_and(|d| d.contains(pair)))
    })
}

/// `fairdeal audit EXPORT --log URL --state FILE`: the log is read only
/// from a monitor's state on, the pairs revealed before held from the
/// ledger its monitor kept, with the result a whole read gives (a pair
/// left out is named whether its reveal is before the state or after).
/// And an export says which of the log's reveals it covers: pairs
/// revealed after it was made, or before the cursor it resumed after, are
/// not held against it, while a pair left out of its span still is.
async fn an_export_is_held_against_a_monitors_state_and_its_own_span(app: &TestApp) {
    let base = app.public.base().to_owned();
    let early = revealed_pair(app, "before the state", 3).await;
    integrated(app).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("monitor.json");
    let (out, report) = monitor(app, Some(&state)).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let ledger = dir.path().join("monitor.json.digests");
    assert!(
        std::fs::metadata(&ledger).is_ok_and(|m| m.len() > 0),
        "the monitor keeps its ledger beside the state"
    );
    // A run that is not accepted (here: a state the log does not extend,
    // so a full run) leaves the ledger the state's snapshot vouches for as
    // it was: what it wrote is dropped.
    let kept_state = std::fs::read(&state).expect("state");
    let kept_ledger = std::fs::read(&ledger).expect("ledger");
    let mut forged: Value = serde_json::from_slice(&kept_state).expect("JSON");
    forged["root"] = json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    std::fs::write(&state, forged.to_string()).expect("write");
    let (out, report) = monitor(app, Some(&state)).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(std::fs::read(&ledger).expect("ledger"), kept_ledger);
    assert!(!dir.path().join("monitor.json.digests.new").exists());
    std::fs::write(&state, kept_state).expect("write");
    let later = revealed_pair(app, "after the state", 2).await;
    integrated(app).await;
    let export = app.public.get("/v1/export").await.text;
    let state_arg = state.display().to_string();
    let with_state = ["--state", state_arg.as_str()];

    let (code, report) = run_audit_log(&base, &export, &with_state).await;
    assert_eq!(code, Some(0), "{report:#}");
    let summary = report["log"].as_str().expect("the log's summary");
    assert!(
        summary.contains("resumed from the state's checkpoint"),
        "{summary}"
    );
    let (_, whole) = run_audit_log(&base, &export, &[]).await;
    // "N pairs (M revealed, K of their rounds held against the export), …"
    let counted = |summary: &str| {
        summary
            .split("; ")
            .find(|part| part.contains(" revealed, "))
            .map(str::to_owned)
    };
    assert_eq!(
        counted(summary),
        counted(whole["log"].as_str().expect("summary")),
        "the same pairs held either way"
    );

    // A pair left out of the export: named, from the ledger (revealed
    // before the state) and from the entries read (revealed after).
    for left_out in [&early, &later] {
        let (code, report) =
            run_audit_log(&base, &without_pair(&export, left_out), &with_state).await;
        assert_eq!(code, Some(1), "{report:#}");
        assert!(log_names(&report, left_out), "{left_out}: {report:#}");
    }

    // A pair revealed after the export was made is not the export's to
    // hold: counted, not a problem, with the state or without.
    let after_export = revealed_pair(app, "after the export", 1).await;
    integrated(app).await;
    for args in [&with_state[..], &[]] {
        let (code, report) = run_audit_log(&base, &export, args).await;
        assert_eq!(code, Some(0), "{args:?}: {report:#}");
        let summary = report["log"].as_str().expect("summary");
        assert!(
            summary.contains("0 pairs revealed before and 1 after"),
            "{summary}"
        );
        assert!(!log_names(&report, &after_export));
    }
    // An export that claims to cover less than it holds cannot hide a pair
    // revealed within what it holds: the coverage is the log's size when
    // the export began, and the pair left out lies before it.
    let (code, report) = run_audit_log(&base, &without_pair(&export, &early), &[]).await;
    assert_eq!(code, Some(1), "{report:#}");
    assert!(log_names(&report, &early), "{report:#}");

    // An export newer than the log's checkpoint: what differs may be a
    // pair revealed since, and the audit says to come back.
    let newer: String = without_pair(&export, &early)
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("JSON");
            if record["type"] == "end" {
                record["log"]["size"] = json!(1_000_000);
            }
            record.to_string() + "\n"
        })
        .collect();
    let (code, report) = run_audit_log(&base, &newer, &[]).await;
    assert_eq!(code, Some(1), "{report:#}");
    assert!(
        report["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["detail"]
                .as_str()
                .is_some_and(|d| d.contains("again once the log's checkpoint covers 1000000")))),
        "{report:#}"
    );

    // An export resumed after a cursor covers the reveals after that
    // pair's: the pairs before are counted, not named.
    let cursor = export
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|record| record["id"] == early.as_str())
        .and_then(|record| record["cursor"].as_str().map(str::to_owned))
        .expect("the early pair's cursor");
    let resumed = app
        .public
        .get(&format!("/v1/export?after={cursor}"))
        .await
        .text;
    let (code, report) = run_audit_log(&base, &resumed, &[]).await;
    assert_eq!(code, Some(0), "{report:#}");
    let summary = report["log"].as_str().expect("summary");
    assert!(
        summary.contains("1 pairs revealed before and 0 after"),
        "{summary}"
    );

    // A ledger damaged on disk, a byte changed or cut short: the whole log
    // is read instead, and says so; the result is the same (no false
    // difference from the auditor's own file).
    let kept = std::fs::read(&ledger).expect("ledger");
    let mut changed = kept.clone();
    changed[kept.len() / 2] ^= 0x01;
    for damaged in [changed, kept[..kept.len() - 1].to_vec()] {
        std::fs::write(&ledger, damaged).expect("write");
        let (code, report) = run_audit_log(&base, &export, &with_state).await;
        assert_eq!(code, Some(0), "{report:#}");
        let summary = report["log"].as_str().expect("summary");
        assert!(summary.contains("the whole log was read"), "{summary}");
    }
    // A state file that is not there is bad input, named.
    let (code, report) = run_audit_log(&base, &export, &["--state", "no-such-state.json"]).await;
    assert_eq!(code, Some(2), "{report:#}");
}
on_both_backends!(an_export_is_held_against_a_monitors_state_and_its_own_span);
