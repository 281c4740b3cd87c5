//! Seeds and seats that only look like the player's: the attacks of a
//! dishonest operator who knows the server seed and relays a variant of the
//! player's seed (an invisible character, a bidi override, a letter of
//! another script) to grind for the deal or the winners it wants. The
//! service refuses what cannot be seen, refuses a lookalike of a live
//! seed unless the operator insists, and the monitor and the public API
//! find what looks alike; an honest reuse (another tenant, after a reveal)
//! is a note, never a failure.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{TestApp, on_both_backends, run_monitor};
use crate::monitor::{integrated, kinds};
use crate::tenants::operator_of;

/// A draw of two entrants whose client seed comes from a beacon: its id.
/// The monitor, once the log is integrated, finds exactly one `kind`
/// finding, naming both `first` and `second` as lookalikes.
async fn named_as_lookalikes(app: &TestApp, kind: &str, first: &str, second: &str) {
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), [kind], "{report:#}");
    let detail = report["findings"][0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains(first) && detail.contains(second) && detail.contains("look alike"),
        "{detail}"
    );
}

async fn beacon_draw(api: &crate::harness::Client) -> String {
    api.send(
        api.request(
            reqwest::Method::POST,
            "/v1/draws?winners=1&client_seed_source=beacon",
        )
        .header("content-type", "text/plain")
        .body("ann\nbo\n"),
    )
    .await
    .id()
}

/// Seeds that show like `player-7f3a9c` (or `drand-8f3c2a91`, "WIN!") and
/// the code point each is refused for.
const INVISIBLE: [(&str, &str); 15] = [
    // A mark drawn over or under a letter it does not compose with, and a
    // space that is not U+0020 (the Ogham space mark is drawn as a dash).
    ("c\u{0323}ard-7", "U+0323 at character 1"),
    ("ca\u{0335}rd-7", "U+0335 at character 2"),
    ("car\u{0336}d-7", "U+0336 at character 3"),
    ("card-7\u{20DD}", "U+20DD at character 6"),
    ("card\u{1680}7", "U+1680 at character 4"),
    ("player-7f3a9c\u{200B}", "U+200B at character 13"),
    ("player\u{2060}-7f3a9c", "U+2060 at character 6"),
    ("\u{FEFF}player-7f3a9c", "U+FEFF at character 0"),
    ("drand-8f3c\u{200C}2a91", "U+200C at character 10"),
    ("\u{202E}!NIW", "U+202E at character 0"),
    ("pl\u{00AD}ayer", "U+00AD at character 2"),
    ("cafe\u{301}", "NFC"),
    ("ab\u{1D159}cd", "U+1D159 at character 2"),
    ("a\tb", "U+0009 at character 1"),
    ("\u{301}ab", "U+0301 at character 0"),
];

async fn invisible_and_bidi_client_seeds_are_refused_with_their_position(app: &TestApp) {
    let api = &app.operator;
    let pair = api.post("/v1/seed-pairs").await.id();
    let draw = beacon_draw(api).await;
    let active = api.active_pair("visible").await;
    for (seed, words) in INVISIBLE {
        for path in [
            format!("/v1/seed-pairs/{pair}/client-seed"),
            format!("/v1/draws/{draw}/client-seed"),
        ] {
            let reply = api.put_json(&path, &json!({ "client_seed": seed })).await;
            assert_eq!(
                reply.status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{path} {seed:?}: {}",
                reply.text
            );
            assert_eq!(reply.json["field"], "client_seed", "{}", reply.text);
            let detail = reply.json["detail"].as_str().expect("detail");
            assert!(detail.contains(words), "{seed:?}: {detail}");
        }
        let reply = api.rotate(&active, seed).await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            reply.text
        );
        assert_eq!(reply.json["field"], "client_seed", "{}", reply.text);
    }
    // Nothing was set, nothing was rotated, nothing was logged for them.
    let pair = app.public.get(&format!("/v1/seed-pairs/{pair}")).await;
    assert_eq!(pair.json["status"], "awaiting_client_seed");
    let active = app.public.get(&format!("/v1/seed-pairs/{active}")).await;
    assert_eq!(active.json["status"], "active");
    // Any script, emoji and accents written composed are taken.
    for seed in ["Zoë 🂡", "日本語", "ана", "नमस्ते"] {
        let id = api.active_pair(seed).await;
        assert!(!id.is_empty());
    }
}
on_both_backends!(invisible_and_bidi_client_seeds_are_refused_with_their_position);

async fn a_lookalike_of_a_live_seed_is_refused_unless_insisted_and_then_named(app: &TestApp) {
    let api = &app.operator;
    let first = api.active_pair("player-7f3a9c").await;
    // Cyrillic а, upper case, a capital I for the l and a zero for the o:
    // the same seed to a player's eye.
    for lookalike in [
        "pl\u{0430}yer-7f3a9c",
        // Lunate sigma for c, small capital A for a.
        "player-7f3a9\u{03F2}",
        "pl\u{1D00}yer-7f3a9c",
        "PLAYER-7F3A9C",
        "player-7f3a9c",
        "pIayer-7f3a9c",
        "P1ayer-7f3a9c",
    ] {
        let pair = api.post("/v1/seed-pairs").await.id();
        let reply = api
            .put_json(
                &format!("/v1/seed-pairs/{pair}/client-seed"),
                &json!({ "client_seed": lookalike }),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text);
        assert_eq!(reply.json["title"], "Client seed in use");
        let detail = reply.json["detail"].as_str().expect("detail");
        assert!(
            detail.contains(&first) && detail.contains("allow_reuse"),
            "{detail}"
        );
        // The holders in a field of their own, for a backend to act on.
        assert_eq!(reply.json["holders"], json!([first]), "{}", reply.text);
        assert_eq!(reply.json["field"], "client_seed");
        // So is a rotation that would give it to the successor.
        let other = api.active_pair(&format!("other {pair}")).await;
        let reply = api.rotate(&other, lookalike).await;
        assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text);
    }
    // The player's own pair may keep its seed across its rotation.
    let kept = api.rotate(&first, "player-7f3a9c").await.success();
    let first = kept["current"]["id"].as_str().expect("id").to_owned();
    // The operator insists: allowed, and the log shows it.
    let second = api.reusing_pair("pl\u{0430}yer-7f3a9c").await;
    let shared = app
        .public
        .get(&format!("/v1/seed-pairs/{first}/same-client-seed"))
        .await
        .success();
    let other = shared["others"]
        .as_array()
        .expect("others")
        .iter()
        .find(|o| o["seed_pair"] == second.as_str())
        .unwrap_or_else(|| panic!("{shared:#}"))
        .clone();
    assert_eq!(other["lookalike"], true, "{shared:#}");
    assert_eq!(other["same_tenant"], true, "{shared:#}");
    assert_eq!(
        shared["client_seed_lookalike_sha256"],
        fairdeal::text::lookalike_sha256("player-7f3a9c")
    );
    named_as_lookalikes(app, "client_seed_reuse", &first, &second).await;
}
on_both_backends!(a_lookalike_of_a_live_seed_is_refused_unless_insisted_and_then_named);

async fn one_seed_at_two_tenants_or_after_a_reveal_is_a_note_not_a_failure(app: &TestApp) {
    let brand_a = operator_of(app, "brand-a-key", "brand-a").await;
    let brand_b = operator_of(app, "brand-b-key", "brand-b").await;
    let a = brand_a.active_pair("lucky7").await;
    // Another brand's player chose the same seed: taken, and not shopping.
    let b = brand_b.active_pair("lucky7").await;
    // The same brand, after the first pair was revealed (another day).
    let rotated = brand_a.rotate(&a, "next for a").await.success();
    assert!(rotated["current"]["id"].is_string());
    let later = brand_a.active_pair("lucky7").await;
    let shared = app
        .public
        .get(&format!("/v1/seed-pairs/{b}/same-client-seed"))
        .await
        .success();
    let others = shared["others"].as_array().expect("others");
    assert_eq!(others.len(), 2, "{shared:#}");
    assert!(
        others
            .iter()
            .all(|o| o["same_tenant"] == false && o["lookalike"] == false),
        "{shared:#}"
    );
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let notes = report["notes"].as_array().expect("notes");
    assert_eq!(notes.len(), 1, "{report:#}");
    let note = notes[0]["detail"].as_str().expect("detail");
    assert!(
        note.contains(&a) && note.contains(&b) && note.contains(&later),
        "{note}"
    );
    // The log names the tenant by an opaque id, never by name.
    let entries = crate::log::all_entries(app).await;
    let commits: Vec<&Value> = entries.iter().filter(|e| e["type"] == "commit").collect();
    assert!(commits.iter().all(|e| {
        let tenant = e["tenant"].as_str().unwrap_or_default();
        tenant.len() == 32 && !tenant.contains("brand")
    }));
    assert!(
        entries
            .iter()
            .filter(|e| e["type"] == "client_seed")
            .all(|e| e["client_seed_lookalike_sha256"].is_string())
    );
}
on_both_backends!(one_seed_at_two_tenants_or_after_a_reveal_is_a_note_not_a_failure);

async fn a_draw_given_a_lookalike_of_a_beacon_value_is_refused_then_named(app: &TestApp) {
    let api = &app.operator;
    let create = || async {
        api.send(
            api.request(
                reqwest::Method::POST,
                "/v1/draws?winners=3&client_seed_source=drand",
            )
            .header("content-type", "text/plain")
            .body(
                (0..100)
                    .map(|i| format!("entrant {i}\n"))
                    .collect::<String>(),
            ),
        )
        .await
        .id()
    };
    let seed = |id: String, seed: &'static str, insist: bool| async move {
        api.put_json(
            &format!("/v1/draws/{id}/client-seed"),
            &json!({ "client_seed": seed, "allow_reuse": insist }),
        )
        .await
    };
    let first = create().await;
    seed(first.clone(), "drand-8f3c2a91", false).await.success();
    let second = create().await;
    let refused = seed(second.clone(), "drand-8f3c2\u{0430}91", false).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert!(
        refused.json["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&first)),
        "{}",
        refused.text
    );
    seed(second.clone(), "drand-8f3c2\u{0430}91", true)
        .await
        .success();
    for id in [&first, &second] {
        api.post(&format!("/v1/draws/{id}/run")).await.success();
    }
    named_as_lookalikes(app, "draw_reuse", &first, &second).await;
}
on_both_backends!(a_draw_given_a_lookalike_of_a_beacon_value_is_refused_then_named);

async fn the_monitor_remembers_a_consistent_checkpoint_whatever_it_finds(app: &TestApp) {
    let api = &app.operator;
    api.active_pair("shopped").await;
    api.reusing_pair("shopped").await;
    integrated(app).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("monitor.json");
    let args = ["--state".to_owned(), state.display().to_string()];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(report["checkpoint_accepted"], true);
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("JSON");
    assert_eq!(kept["size"], report["size"]);
    // The log grows; the next run proves it extends the one remembered.
    api.active_pair("someone new").await;
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let advanced: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("JSON");
    assert!(
        advanced["size"].as_u64() > kept["size"].as_u64(),
        "{advanced} after {kept}"
    );
    assert_eq!(kinds(&report), ["client_seed_reuse"]);
}
on_both_backends!(the_monitor_remembers_a_consistent_checkpoint_whatever_it_finds);

async fn tables_of_lookalike_seats_voided_again_and_again_are_one_set(app: &TestApp) {
    // "ana" and "ben", then with Cyrillic а or е in place of Latin letters:
    // to a player, the same two seats every time.
    let seatings = [
        ["ana", "ben"],
        ["\u{430}na", "ben"],
        ["an\u{430}", "b\u{435}n"],
        ["\u{430}n\u{430}", "b\u{435}n"],
    ];
    let mut voided = Vec::new();
    for seats in seatings {
        let created = app
            .operator
            .post_json("/v1/seed-pairs", &json!({ "seats": seats }))
            .await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        let pair = created.id();
        app.tamper(
            "UPDATE seed_pairs SET phase_deadline = 1 WHERE id = $1",
            pair.clone(),
        )
        .await;
        app.dealer
            .void_expired_tables(fairdeal::time::now_ms())
            .await
            .expect("voids");
        voided.push(pair);
    }
    let last = app
        .public
        .get(&format!("/v1/seed-pairs/{}", voided[3]))
        .await
        .success();
    assert_eq!(last["status"], "void");
    assert_eq!(last["table"]["voids"], 4, "{last:#}");
    integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(kinds(&report), ["repeated_voids"], "{report:#}");
    let detail = report["findings"][0]["detail"].as_str().expect("detail");
    assert!(
        voided.iter().all(|p| detail.contains(p.as_str())),
        "{detail}"
    );
}
on_both_backends!(tables_of_lookalike_seats_voided_again_and_again_are_one_set);

/// A live seed stored in the first folded form (before migration 0019) is
/// folded again on start: the migration clears the stored form, the
/// service fills it in anew, and a lookalike the first form missed is
/// refused from then on, for a pair as for a draw.
async fn seeds_stored_in_the_first_form_are_folded_again(app: &TestApp) {
    let api = &app.operator;
    let pair = api.active_pair("pl\u{1D00}yer-1").await;
    let first_form = |seed: &str| {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(fairdeal::text::lookalike_fold_v1(
            seed,
        )))
    };
    let stored = app
        .tamper(
            "UPDATE seed_pairs SET client_seed_lookalike = $1 WHERE client_seed = 'pl\u{1D00}yer-1'",
            first_form("pl\u{1D00}yer-1"),
        )
        .await;
    assert_eq!(stored, 1);
    // In the first form, small capital A and a differ: the lookalike passes.
    let escaped = api.active_pair("player-1").await;
    api.post(&format!("/v1/seed-pairs/{escaped}/end"))
        .await
        .success();
    // Migration 0019, then the start's fill.
    app.execute(
        "UPDATE seed_pairs SET client_seed_lookalike = NULL \
         WHERE status = 'active' AND seats IS NULL AND client_seed IS NOT NULL",
    )
    .await;
    let filled = app
        .dealer
        .store()
        .fill_client_seed_lookalikes()
        .await
        .expect("fills");
    assert!(filled >= 1, "{filled}");
    let other = api.post("/v1/seed-pairs").await.id();
    let refused = api
        .put_json(
            &format!("/v1/seed-pairs/{other}/client-seed"),
            &json!({"client_seed": "player-1"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert!(
        refused.text.contains(&pair) && !refused.text.contains(&escaped),
        "{}",
        refused.text
    );
    // A draw's stored form is filled in as well.
    let draw = beacon_draw(api).await;
    api.put_json(
        &format!("/v1/draws/{draw}/client-seed"),
        &json!({"client_seed": "be\u{1D00}con"}),
    )
    .await
    .success();
    app.execute("UPDATE draws SET client_seed_lookalike = NULL")
        .await;
    app.dealer
        .store()
        .fill_client_seed_lookalikes()
        .await
        .expect("fills");
    assert_eq!(
        app.number("SELECT COUNT(*) FROM draws WHERE client_seed_lookalike IS NULL")
            .await,
        0
    );
    let again = beacon_draw(api).await;
    let refused = api
        .put_json(
            &format!("/v1/draws/{again}/client-seed"),
            &json!({"client_seed": "beacon"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["holders"], json!([draw]), "{}", refused.text);
}
on_both_backends!(seeds_stored_in_the_first_form_are_folded_again);

/// A seed in capitals is the seed: `AGAIN-X1` beside a live `again-x1` is
/// refused (the second folded form read capital `I` as `l` and small `i` as
/// itself, so both were taken), and when the operator insists the monitor
/// names the two pairs as lookalikes.
async fn a_seed_in_capitals_is_the_seed(app: &TestApp) {
    let api = &app.operator;
    let first = api.active_pair("again-x1").await;
    for capitals in [
        "AGAIN-X1",
        "Again-x1",
        "agaIn-x1",
        "AGA\u{130}N-X1",
        "AGA\u{CE}N-X1",
    ] {
        let pair = api.post("/v1/seed-pairs").await.id();
        let reply = api
            .put_json(
                &format!("/v1/seed-pairs/{pair}/client-seed"),
                &json!({ "client_seed": capitals }),
            )
            .await;
        assert_eq!(
            reply.status,
            StatusCode::CONFLICT,
            "{capitals}: {}",
            reply.text
        );
        assert_eq!(reply.json["holders"], json!([first]), "{}", reply.text);
    }
    // A draw's seed likewise.
    let draw = beacon_draw(api).await;
    api.put_json(
        &format!("/v1/draws/{draw}/client-seed"),
        &json!({"client_seed": "nine-lives"}),
    )
    .await
    .success();
    let other = beacon_draw(api).await;
    let refused = api
        .put_json(
            &format!("/v1/draws/{other}/client-seed"),
            &json!({"client_seed": "NINE-LIVES"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["holders"], json!([draw]), "{}", refused.text);
    let second = api.reusing_pair("AGAIN-X1").await;
    named_as_lookalikes(app, "client_seed_reuse", &first, &second).await;
}
on_both_backends!(a_seed_in_capitals_is_the_seed);

/// A live seed stored in the second folded form (before migration 0021) is
/// folded again on start: the migration itself, run as written, clears the
/// stored form, the service fills it in anew, and the capital the second
/// form missed is refused from then on, for a pair as for a draw.
async fn seeds_stored_in_the_second_form_are_folded_again(app: &TestApp) {
    let api = &app.operator;
    let second_form = |seed: &str| {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(fairdeal::text::lookalike_fold_v2(
            seed,
        )))
    };
    let pair = api.active_pair("kiwi-2").await;
    let draw = beacon_draw(api).await;
    api.put_json(
        &format!("/v1/draws/{draw}/client-seed"),
        &json!({"client_seed": "kiwi-3"}),
    )
    .await
    .success();
    let stored = app
        .tamper(
            "UPDATE seed_pairs SET client_seed_lookalike = $1 WHERE client_seed = 'kiwi-2'",
            second_form("kiwi-2"),
        )
        .await;
    assert_eq!(stored, 1);
    let stored = app
        .tamper(
            "UPDATE draws SET client_seed_lookalike = $1 WHERE client_seed = 'kiwi-3'",
            second_form("kiwi-3"),
        )
        .await;
    assert_eq!(stored, 1);
    // In the second form, KIWI and kiwi differ: the capitals pass.
    let escaped = api.active_pair("KIWI-2").await;
    api.post(&format!("/v1/seed-pairs/{escaped}/end"))
        .await
        .success();
    // Migration 0021 as written, then the start's fill.
    let migration = match app.db.backend {
        crate::harness::Backend::Sqlite => {
            include_str!("../../migrations/sqlite/0021_lookalike_form_3.sql")
        }
        crate::harness::Backend::Postgres => {
            include_str!("../../migrations/postgres/0021_lookalike_form_3.sql")
        }
    };
    crate::harness::run_sql(app.dealer.store(), migration)
        .await
        .expect("the migration runs");
    assert_eq!(
        app.number(
            "SELECT COUNT(*) FROM seed_pairs WHERE client_seed_lookalike IS NULL \
             AND client_seed = 'kiwi-2'"
        )
        .await,
        1
    );
    let filled = app
        .dealer
        .store()
        .fill_client_seed_lookalikes()
        .await
        .expect("fills");
    assert!(filled >= 2, "{filled}");
    let other = api.post("/v1/seed-pairs").await.id();
    let refused = api
        .put_json(
            &format!("/v1/seed-pairs/{other}/client-seed"),
            &json!({"client_seed": "KIWI-2"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["holders"], json!([pair]), "{}", refused.text);
    let again = beacon_draw(api).await;
    let refused = api
        .put_json(
            &format!("/v1/draws/{again}/client-seed"),
            &json!({"client_seed": "KIWI-3"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.json["holders"], json!([draw]), "{}", refused.text);
}
on_both_backends!(seeds_stored_in_the_second_form_are_folded_again);
