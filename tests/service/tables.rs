//! Table pairs (fairdeal-table-v1) over HTTP, on both backends: every seat
//! commits, then reveals, concurrently; the client seed is the one the
//! protocol crate derives; a stalled seat voids the pair and reveals its
//! seed; bad input is refused naming the field and the seat and changes
//! nothing; rotation opens a successor table; the export, the audit and the
//! monitor check the contributions.

use std::time::Duration;

use fairdeal_core::{ClientSeed, Contribution, Game, Seats, ServerSeed, deal, table_client_seed};
use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::harness::{
    Backend, Client, Deployment, TestApp, TestDatabase, log_reaches, on_both_backends, run_monitor,
};
use crate::tenants::operator_of;

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Each seat's secret contribution in a test.
fn contribution(table: &str, seat: &str) -> String {
    format!("{table}-{seat}-secret")
}

async fn create_table(api: &Client, seats: &[&str], label: &str) -> Value {
    let created = api
        .post_json("/v1/seed-pairs", &json!({"seats": seats, "label": label}))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    created.json
}

fn seat_path(pair: &str, seat: &str, what: &str) -> String {
    format!(
        "/v1/seed-pairs/{pair}/seats/{}/{what}",
        urlencoding_path(seat)
    )
}

/// Percent-encodes a path segment.
fn urlencoding_path(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn commit(api: &Client, pair: &str, seat: &str, commitment: &str) -> crate::harness::Reply {
    api.put_json(
        &seat_path(pair, seat, "commitment"),
        &json!({"commitment": commitment}),
    )
    .await
}

async fn reveal(api: &Client, pair: &str, seat: &str, text: &str) -> crate::harness::Reply {
    api.put_json(
        &seat_path(pair, seat, "contribution"),
        &json!({"contribution": text}),
    )
    .await
}

/// Every seat of `pair` commits, concurrently.
async fn commit_all(api: &Client, pair: &str, seats: &[&str]) {
    let replies = join_all(seats.iter().map(|seat| async move {
        commit(api, pair, seat, &sha256_hex(&contribution(pair, seat))).await
    }))
    .await;
    for reply in replies {
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    }
}

/// Every seat of `pair` reveals, concurrently; the last answer's pair.
async fn reveal_all(api: &Client, pair: &str, seats: &[&str]) {
    let replies = join_all(
        seats
            .iter()
            .map(|seat| async move { reveal(api, pair, seat, &contribution(pair, seat)).await }),
    )
    .await;
    for reply in replies {
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    }
}

/// The client seed the protocol crate derives for `pair`'s test contributions.
fn derived(pair: &str, seats: &[&str]) -> ClientSeed {
    let labels = Seats::new(seats.iter().map(|s| (*s).to_owned()).collect()).expect("seats");
    let contributions: Vec<Contribution> = seats
        .iter()
        .map(|seat| Contribution::new(contribution(pair, seat)).expect("contribution"))
        .collect();
    table_client_seed(&labels, &contributions).expect("derived")
}

fn receipt_entry(reply: &Value) -> Value {
    serde_json::from_str(reply["receipt"]["entry"].as_str().expect("a receipt")).expect("JSON")
}

async fn a_table_deals_from_every_seats_contribution(app: &TestApp) {
    let seats = ["alice", "bob", "carol <b>", "dmitri ÿ"];
    let table = create_table(&app.operator, &seats, "table-7").await;
    let pair = table["id"].as_str().expect("id").to_owned();
    assert_eq!(table["status"], "awaiting_contributions");
    assert_eq!(table["client_seed"], Value::Null);
    assert_eq!(table["table"]["phase"], "commit");
    assert_eq!(table["table"]["protocol"], "fairdeal-table-v1");
    assert!(table["table"]["deadline"].is_string());
    let commit_entry = receipt_entry(&table);
    assert_eq!(
        commit_entry["seats"],
        json!(seats.map(sha256_hex)),
        "the commit entry names the seats by hash"
    );

    // Contributions wait for every commitment; nothing can be set directly.
    let early = reveal(&app.operator, &pair, "alice", &contribution(&pair, "alice")).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.text);
    assert!(
        early.json["detail"]
            .as_str()
            .expect("detail")
            .contains("bob"),
        "{}",
        early.text
    );
    assert_eq!(early.json["seat"], "alice");
    let direct = app
        .operator
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &json!({"client_seed": "mine"}),
        )
        .await;
    assert_eq!(direct.status, StatusCode::CONFLICT, "{}", direct.text);
    let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
    assert_eq!(dealt.status, StatusCode::CONFLICT, "{}", dealt.text);

    // Commit phase, every seat at once; a retry is harmless, a change is not.
    commit_all(&app.operator, &pair, &seats).await;
    let again = commit(
        &app.operator,
        &pair,
        "bob",
        &sha256_hex(&contribution(&pair, "bob")),
    )
    .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    let changed = commit(&app.operator, &pair, "bob", &"ab".repeat(32)).await;
    assert_eq!(changed.status, StatusCode::CONFLICT, "{}", changed.text);
    assert_eq!(changed.json["seat"], "bob");
    let read = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    assert_eq!(read["table"]["phase"], "reveal");
    assert_eq!(
        read["table"]["seats"][1]["commitment"],
        sha256_hex(&contribution(&pair, "bob"))
    );
    assert_eq!(read["table"]["seats"][1]["contribution"], Value::Null);

    // A reveal that does not open its commitment changes nothing.
    let wrong = reveal(&app.operator, &pair, "carol <b>", "not carol's").await;
    assert_eq!(
        wrong.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        wrong.text
    );
    assert_eq!(wrong.json["field"], "contribution");
    assert_eq!(wrong.json["seat"], "carol <b>");
    let unchanged = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    assert_eq!(
        unchanged["table"], read["table"],
        "a refused reveal changes nothing"
    );

    // Reveal phase, every seat at once: the pair becomes active with the
    // client seed the protocol crate derives.
    reveal_all(&app.operator, &pair, &seats).await;
    let active = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    assert_eq!(active["status"], "active");
    assert_eq!(active["table"]["phase"], "complete");
    assert_eq!(active["table"]["deadline"], Value::Null);
    let client_seed = derived(&pair, &seats);
    assert_eq!(active["client_seed"], client_seed.as_str());
    for (i, seat) in seats.iter().enumerate() {
        assert_eq!(active["table"]["seats"][i]["seat"], *seat);
        assert_eq!(
            active["table"]["seats"][i]["contribution"],
            contribution(&pair, seat)
        );
    }
    let retried = reveal(&app.operator, &pair, "alice", &contribution(&pair, "alice")).await;
    assert_eq!(
        retried.status,
        StatusCode::OK,
        "a retried reveal: {}",
        retried.text
    );

    // It deals like any pair; rotation reveals it and opens the next table.
    let round = app
        .operator
        .deal(&pair, json!({"type": "holdem", "players": 4}))
        .await
        .success();
    app.operator.close(round["id"].as_str().expect("id")).await;
    let refused = app
        .operator
        .post_json(
            &format!("/v1/seed-pairs/{pair}/rotate"),
            &json!({"client_seed": "x"}),
        )
        .await;
    assert_eq!(
        refused.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        refused.text
    );
    let rotated = app
        .operator
        .post(&format!("/v1/seed-pairs/{pair}/rotate"))
        .await
        .success();
    assert_eq!(rotated["receipts"].as_array().map(Vec::len), Some(2));
    let server_seed =
        ServerSeed::from_hex(rotated["revealed"]["server_seed"].as_str().expect("seed"))
            .expect("hex");
    let recomputed = deal(
        &server_seed,
        &client_seed,
        0,
        Game::holdem(4).expect("a game"),
    );
    assert_eq!(
        round["deal"],
        serde_json::to_value(&recomputed).expect("JSON")
    );
    let next = &rotated["current"];
    assert_eq!(next["status"], "awaiting_contributions");
    assert_eq!(next["server_seed_hash"], table["next_server_seed_hash"]);
    assert_eq!(
        next["table"]["seats"]
            .as_array()
            .map(|s| s.iter().map(|s| s["seat"].clone()).collect::<Vec<_>>()),
        Some(seats.map(Value::from).to_vec())
    );
    // A rotation may seat other players.
    let next_id = next["id"].as_str().expect("id").to_owned();
    commit_all(&app.operator, &next_id, &seats).await;
    reveal_all(&app.operator, &next_id, &seats).await;
    let moved = app
        .operator
        .post_json(
            &format!("/v1/seed-pairs/{next_id}/rotate"),
            &json!({"seats": ["erin", "frank"]}),
        )
        .await
        .success();
    assert_eq!(moved["current"]["table"]["seats"][1]["seat"], "frank");

    // The export carries the seats; the audit checks the derivation.
    let export = app.public.get("/v1/export").await;
    let line = export
        .text
        .lines()
        .find(|l| l.contains(&pair) && l.contains("\"seed_pair\""))
        .expect("the table in the export");
    let record: Value = serde_json::from_str(line).expect("JSON");
    assert_eq!(
        record["table"]["seats"][3]["contribution"],
        contribution(&pair, "dmitri ÿ")
    );
    let report = fairdeal::audit::audit(export.text.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let forged = export
        .text
        .replace(&contribution(&pair, "bob"), &contribution(&pair, "bob!"));
    let report = fairdeal::audit::audit(forged.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(
        report.findings.iter().any(|f| f.kind == "table"),
        "a changed contribution is found: {:?}",
        report.findings
    );

    // The monitor follows the tables, and with the API recomputes the seed.
    // The log holds 24 entries: per table its commit, a commitment and a
    // contribution per seat, the client seed; a round; two rotations'
    // reveals (with the next tables' commits).
    log_reaches(app.public.base(), 24).await;
    let (out, json) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert!(
        out.status.success(),
        "{json}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json["tables"], 3);
    app.tamper(
        "UPDATE table_seats SET contribution = 'swapped' WHERE position = 0 AND seed_pair_id = $1",
        pair.clone(),
    )
    .await;
    let (out, json) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert!(!out.status.success());
    assert!(
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["kind"] == "api" && f["detail"].as_str().is_some_and(|d| d.contains(&pair))),
        "{json}"
    );
    // A reveal erased from the next table (revealed since): the monitor
    // finds that too, though the table was checked before.
    app.tamper(
        "UPDATE table_seats SET contribution = NULL, contributed_at = NULL \
         WHERE position = 1 AND seed_pair_id = $1",
        next_id.clone(),
    )
    .await;
    let (_, json) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    let about_next: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["detail"].as_str())
        .filter(|d| d.contains(&next_id))
        .collect();
    assert!(
        about_next
            .iter()
            .any(|d| d.contains("logged reveal is not shown")),
        "{json}"
    );
}
on_both_backends!(a_table_deals_from_every_seats_contribution);

/// Moves the pair's phase deadline into the past, as time would.
async fn expire(app: &TestApp, pair: &str) {
    assert_eq!(
        app.tamper(
            "UPDATE seed_pairs SET phase_deadline = 1 WHERE id = $1",
            pair.to_owned()
        )
        .await,
        1
    );
}

async fn a_stalled_seat_voids_the_table_and_reveals_its_seed(app: &TestApp) {
    let seats = ["north", "east", "south"];
    // Commit phase: south never commits; its late commitment finds the void.
    let table = create_table(&app.operator, &seats, "table-9").await;
    let pair = table["id"].as_str().expect("id").to_owned();
    commit_all(&app.operator, &pair, &seats[..2]).await;
    expire(app, &pair).await;
    // Even a retry of a commitment already taken is told the truth.
    let retry = commit(
        &app.operator,
        &pair,
        "north",
        &sha256_hex(&contribution(&pair, "north")),
    )
    .await;
    assert_eq!(retry.status, StatusCode::CONFLICT, "{}", retry.text);
    let late = commit(&app.operator, &pair, "south", &sha256_hex("late")).await;
    assert_eq!(late.status, StatusCode::CONFLICT, "{}", late.text);
    assert!(
        late.json["detail"]
            .as_str()
            .expect("detail")
            .contains("void"),
        "{}",
        late.text
    );
    let void = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    assert_eq!(void["status"], "void");
    assert_eq!(void["client_seed"], Value::Null);
    assert_eq!(void["table"]["void"]["phase"], "commit");
    assert_eq!(void["table"]["void"]["stalled_seats"], json!(["south"]));
    assert_eq!(void["table"]["voids"], 1);
    let seed = void["server_seed"]
        .as_str()
        .expect("the seed is revealed at once");
    assert_eq!(
        hex::encode(Sha256::digest(hex::decode(seed).expect("hex"))),
        table["server_seed_hash"]
    );
    let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
    assert_eq!(
        dealt.status,
        StatusCode::CONFLICT,
        "a void table deals nothing"
    );
    let again = commit(
        &app.operator,
        &pair,
        "north",
        &sha256_hex(&contribution(&pair, "north")),
    )
    .await;
    assert_eq!(
        again.status,
        StatusCode::CONFLICT,
        "a void table takes nothing: {}",
        again.text
    );
    assert!(
        dealt.json["detail"]
            .as_str()
            .expect("detail")
            .contains("void")
    );

    // Reveal phase: every seat committed, only east revealed; the sweep voids it.
    let table = create_table(&app.operator, &seats, "table-9").await;
    let second = table["id"].as_str().expect("id").to_owned();
    commit_all(&app.operator, &second, &seats).await;
    let read = app
        .public
        .get(&format!("/v1/seed-pairs/{second}"))
        .await
        .success();
    assert_eq!(read["table"]["phase"], "reveal");
    reveal(
        &app.operator,
        &second,
        "east",
        &contribution(&second, "east"),
    )
    .await
    .success();
    assert_eq!(
        app.dealer
            .void_expired_tables(fairdeal::time::now_ms())
            .await
            .expect("sweep"),
        0,
        "nothing is due before the deadline"
    );
    expire(app, &second).await;
    assert_eq!(
        app.dealer
            .void_expired_tables(fairdeal::time::now_ms())
            .await
            .expect("sweep"),
        1
    );
    let void = app
        .public
        .get(&format!("/v1/seed-pairs/{second}"))
        .await
        .success();
    assert_eq!(void["table"]["void"]["phase"], "reveal");
    assert_eq!(
        void["table"]["void"]["stalled_seats"],
        json!(["north", "south"])
    );
    assert_eq!(
        void["table"]["voids"], 2,
        "voids are counted per table label"
    );

    // A third void of the same seats, reseated under another label: still
    // counted, and the monitor names the table.
    let table = create_table(&app.operator, &["South", "NORTH", "east"], "table-10").await;
    assert_eq!(
        table["table"]["voids"], 2,
        "the same players in another order and case"
    );
    let third = table["id"].as_str().expect("id").to_owned();
    expire(app, &third).await;
    app.dealer
        .void_expired_tables(fairdeal::time::now_ms())
        .await
        .expect("sweep");
    // Twelve entries: three commits, five seat commitments, one
    // contribution, three voids.
    log_reaches(app.public.base(), 12).await;
    let (out, json) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert!(!out.status.success(), "{json}");
    let kinds: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["repeated_voids"], "{json}");
    assert_eq!(json["table_voids"], 3);
    // The export carries the void tables (their seeds are revealed), with
    // the seats they blame; the audit holds each void to its seats.
    let export = app.public.get("/v1/export").await;
    let voids: Vec<Value> = export
        .text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["table"]["void"].is_object())
        .collect();
    assert_eq!(voids.len(), 3, "{}", export.text);
    let second_record = voids
        .iter()
        .find(|r| r["id"] == second.as_str())
        .expect("the second void");
    assert_eq!(second_record["table"]["void"]["phase"], "reveal");
    assert_eq!(
        second_record["table"]["void"]["stalled_seats"],
        json!(["north", "south"])
    );
    assert_eq!(second_record["client_seed"], "");
    let report = fairdeal::audit::audit(export.text.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let forged = export.text.replace(
        r#""stalled_seats":["north","south"]"#,
        r#""stalled_seats":["north"]"#,
    );
    assert_ne!(forged, export.text);
    let report = fairdeal::audit::audit(forged.as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(
        report.findings.iter().any(|f| f.kind == "table"),
        "a void that blames the wrong seats is found: {:?}",
        report.findings
    );
    // A stalled seat given a commitment afterwards, behind the service's
    // back: the API no longer blames it, and the monitor says so.
    app.tamper(
        "UPDATE table_seats SET commitment = '0000000000000000000000000000000000000000000000000000000000000000', \
         committed_at = 1 WHERE position = 2 AND seed_pair_id = $1",
        pair.clone(),
    )
    .await;
    let (_, json) = run_monitor(app.public.base(), &["--check-api".to_owned()]).await;
    assert!(
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["kind"] == "api"
                && f["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains(&pair) && d.contains("blaming"))),
        "{json}"
    );
}
on_both_backends!(a_stalled_seat_voids_the_table_and_reveals_its_seed);

async fn bad_table_input_names_the_field_and_the_seat(app: &TestApp) {
    let api = &app.operator;
    let many: Vec<String> = (0..23).map(|i| format!("s{i}")).collect();
    for (body, field, words) in [
        (json!({"seats": ["only"]}), "seats", "2 to 22"),
        (json!({"seats": many}), "seats", "got 23"),
        (json!({"seats": ["a", "b", "a"]}), "seats[2]", "repeats"),
        (json!({"seats": ["a", "b\u{7}"]}), "seats[1]", "control"),
        (json!({"seats": ["a", "x".repeat(65)]}), "seats[1]", "64"),
        (json!({"seats": ["a", ""]}), "seats[1]", "empty"),
        (
            json!({"seats": ["Zo\u{eb}", "Zoe\u{308}"]}),
            "seats[1]",
            "NFC",
        ),
        (
            json!({"seats": ["Ann", "ann"]}),
            "seats[1]",
            "looks like seats[0]",
        ),
        (
            json!({"seats": ["ana", "ben", "\u{430}n\u{430}"]}),
            "seats[2]",
            "looks like seats[0]",
        ),
        (json!({"seats": ["a", "\u{202e}b"]}), "seats[1]", "U+202E"),
        (
            json!({"seats": ["Il", "lI"]}),
            "seats[1]",
            "looks like seats[0]",
        ),
        (
            json!({"seats": ["O7", "07"]}),
            "seats[1]",
            "looks like seats[0]",
        ),
        (json!({"seats": ["a", "b\u{2060}"]}), "seats[1]", "U+2060"),
        (json!({"seats": ["a", "b\u{200b}"]}), "seats[1]", "U+200B"),
        (json!({"seats": ["a", " "]}), "seats[1]", "white space"),
        (json!({"seats": ["a", " b"]}), "seats[1]", "white space"),
    ] {
        let reply = api.post_json("/v1/seed-pairs", &body).await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            reply.text
        );
        assert_eq!(reply.json["field"], field, "{body}: {}", reply.text);
        assert!(
            reply.json["detail"]
                .as_str()
                .expect("detail")
                .contains(words),
            "{}",
            reply.text
        );
    }
    let seats = ["a", "b"];
    let pair = create_table(api, &seats, "t").await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let before = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    for (commitment, words) in [
        ("AB".repeat(32), "character 1"),
        ("ab".repeat(31), "62 characters"),
        ("zz".repeat(32), "lowercase hex"),
    ] {
        let reply = commit(api, &pair, "a", &commitment).await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            reply.text
        );
        assert_eq!(reply.json["field"], "commitment");
        assert_eq!(reply.json["seat"], "a");
        assert!(
            reply.json["detail"]
                .as_str()
                .expect("detail")
                .contains(words),
            "{}",
            reply.text
        );
    }
    for text in ["", "x\ny", &"y".repeat(65)] {
        let reply = reveal(api, &pair, "a", text).await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            reply.text
        );
        assert_eq!(reply.json["field"], "contribution");
    }
    let unknown = commit(api, &pair, "zed", &"ab".repeat(32)).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{}", unknown.text);
    assert_eq!(unknown.json["seat"], "zed");
    let long = "q".repeat(5000);
    let unknown = commit(api, &pair, &long, &"ab".repeat(32)).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{}", unknown.text);
    assert_eq!(unknown.json["seat"], "q".repeat(64), "a long label is cut");
    // Every refusal of a seat's request names the seat.
    let broken = api
        .send(
            api.request(reqwest::Method::PUT, &seat_path(&pair, "b", "contribution"))
                .header("content-type", "application/json")
                .body("{"),
        )
        .await;
    assert_eq!(broken.status, StatusCode::BAD_REQUEST, "{}", broken.text);
    assert_eq!(broken.json["seat"], "b");
    let missing = commit(api, "no-such-pair", "b", &"ab".repeat(32)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.json["seat"], "b");
    let not_utf8 = api
        .put_json(
            &format!("/v1/seed-pairs/{pair}/seats/%C3/commitment"),
            &json!({"commitment": "ab".repeat(32)}),
        )
        .await;
    assert_eq!(
        not_utf8.status,
        StatusCode::BAD_REQUEST,
        "{}",
        not_utf8.text
    );
    assert_eq!(not_utf8.json["field"], "seat", "{}", not_utf8.text);
    let extra = api
        .put_json(
            &seat_path(&pair, "a", "commitment"),
            &json!({"commitment": "ab".repeat(32), "x": 1}),
        )
        .await;
    assert_eq!(extra.status, StatusCode::BAD_REQUEST, "{}", extra.text);
    let keyless = app
        .public
        .put_json(
            &seat_path(&pair, "a", "commitment"),
            &json!({"commitment": "ab".repeat(32)}),
        )
        .await;
    assert_eq!(keyless.status, StatusCode::UNAUTHORIZED);
    let stranger = operator_of(app, "other", "other-brand").await;
    let theirs = commit(&stranger, &pair, "a", &"ab".repeat(32)).await;
    assert_eq!(
        theirs.status,
        StatusCode::NOT_FOUND,
        "another tenant's table is not found"
    );
    let after = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}"))
        .await
        .success();
    assert_eq!(after["table"], before["table"], "nothing changed");

    let single = api.post("/v1/seed-pairs").await.success();
    let single = single["id"].as_str().expect("id");
    let not_table = commit(api, single, "a", &"ab".repeat(32)).await;
    assert_eq!(not_table.status, StatusCode::CONFLICT, "{}", not_table.text);
    assert_eq!(not_table.json["seat"], "a");
    assert!(single.len() == 36);
    let both = api
        .post_json(
            &format!("/v1/seed-pairs/{pair}/rotate"),
            &json!({"client_seed": "x", "seats": ["a", "b"]}),
        )
        .await;
    assert_eq!(
        both.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        both.text
    );
    let collecting = api.post(&format!("/v1/seed-pairs/{pair}/rotate")).await;
    assert_eq!(
        collecting.status,
        StatusCode::CONFLICT,
        "a table still collecting is not rotated"
    );
}
on_both_backends!(bad_table_input_names_the_field_and_the_seat);

/// The real binary voids a stalled table on its own, within about a second
/// of the deadline (`--table-phase-timeout`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_voids_stalled_tables_on_its_own() {
    let db = TestDatabase::create(Backend::Sqlite)
        .await
        .expect("SQLite always runs");
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let server = deployment.serve(
        &db.dir.path().join("serve.log"),
        &[("FAIRDEAL_TABLE_PHASE_TIMEOUT", "0.5")],
    );
    let api = Client::new(&server.base).with_key(&key);
    let pair = create_table(&api, &["a", "b"], "t").await["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut status = Value::Null;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        status = api.get(&format!("/v1/seed-pairs/{pair}")).await.success()["status"].clone();
        if status == "void" {
            break;
        }
    }
    assert_eq!(status, "void", "voided by the server's sweep");
    log_reaches(&server.base, 2).await;
    let _ = server.terminate();
}

/// A table can be a fairdeal-chain-v1 pair: its seats derive the client
/// seed, each round's seed is published as it ends, the monitor accepts
/// it, and rotation opens a successor table with the chain promised.
async fn a_table_can_be_a_chain_pair(app: &TestApp) {
    let seats = ["ana", "ben"];
    let created = app
        .operator
        .post_json(
            "/v1/seed-pairs",
            &json!({"seats": seats, "protocol": "fairdeal-chain-v1", "chain_length": 3}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.json["protocol"], "fairdeal-chain-v1");
    let pair = created.id();
    commit_all(&app.operator, &pair, &seats).await;
    reveal_all(&app.operator, &pair, &seats).await;
    let dealt = app
        .operator
        .deal(&pair, json!({"type": "holdem", "players": 2}))
        .await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    app.operator.close(&dealt.id()).await;
    let round = app
        .public
        .get(&format!("/v1/rounds/{}", dealt.id()))
        .await
        .json;
    let seed =
        ServerSeed::from_hex(round["server_seed"].as_str().expect("published")).expect("hex");
    let commitment = fairdeal_core::Commitment::from_hex(
        created.json["server_seed_hash"].as_str().expect("hash"),
    )
    .expect("hex");
    assert!(fairdeal_core::chain_links(&seed, &commitment));
    let game = Game::holdem(2).expect("game");
    let expected = deal(&seed, &derived(&pair, &seats), 0, game);
    assert_eq!(
        round["deal"],
        serde_json::to_value(&expected).expect("JSON")
    );
    crate::monitor::integrated(app).await;
    let (out, report) = run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let rotated = app
        .operator
        .post_json(&format!("/v1/seed-pairs/{pair}/rotate"), &json!({}))
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let successor = &rotated.json["current"];
    assert_eq!(successor["protocol"], "fairdeal-chain-v1");
    assert_eq!(successor["chain"]["length"], 3);
    assert_eq!(successor["status"], "awaiting_contributions");
    assert_eq!(
        successor["server_seed_hash"],
        created.json["next_server_seed_hash"]
    );
}
on_both_backends!(a_table_can_be_a_chain_pair);
