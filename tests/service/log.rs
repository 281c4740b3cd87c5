//! The transparency log: every event of a session is an entry, in the order
//! the events happened, in the same transaction; checkpoints are signed by
//! the log key and verify; tiles and entry bundles are served in the C2SP
//! layout and give back the checkpoint's root.

use std::time::Duration;

use base64::Engine as _;
use fairdeal::tlog::entry::client_seed_sha256;
use fairdeal::tlog::key::{verify_note, verify_receipt};
use fairdeal::tlog::tiles::split_entry_bundle;
use fairdeal::tlog::tree::{self, Hash, MemoryHashes, record_hash};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Backend, Deployment, TestApp, TestDatabase, on_both_backends};

/// The latest checkpoint once it covers `size` entries: (size, root, note).
pub(crate) async fn checkpoint_of(app: &TestApp, size: u64) -> (u64, [u8; 32], String) {
    let vkey = app.public.get("/log/key").await.text.trim().to_owned();
    assert_eq!(vkey, app.log.vkey());
    for _ in 0..200 {
        let note = app.public.get("/log/checkpoint").await;
        assert_eq!(note.status, StatusCode::OK);
        assert!(note.content_type().starts_with("text/plain"));
        let body = verify_note(&note.text, &vkey).expect("the checkpoint verifies with /log/key");
        let lines: Vec<&str> = body.lines().collect();
        assert_eq!(lines.len(), 3, "{body}");
        assert_eq!(lines[0], app.log.origin());
        let found: u64 = lines[1].parse().expect("size");
        if found >= size {
            let root: [u8; 32] = base64::engine::general_purpose::STANDARD
                .decode(lines[2])
                .expect("base64")
                .try_into()
                .expect("32 bytes");
            return (found, root, note.text);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no checkpoint of {size} entries within five seconds");
}

/// Every entry of the latest checkpoint, read through the entry bundles.
pub(crate) async fn all_entries(app: &TestApp) -> Vec<Value> {
    let next = app.number("SELECT next_index FROM log_state").await;
    let (size, _, _) = checkpoint_of(app, next as u64).await;
    let mut entries = Vec::new();
    for index in 0..size.div_ceil(256) {
        let path = fairdeal::tlog::tiles::TilePath {
            level: None,
            index,
            width: (size - index * 256).min(256),
        }
        .path();
        let bundle = app.public.get(&format!("/log/{path}")).await;
        assert_eq!(bundle.status, StatusCode::OK, "{path}");
        for entry in split_entry_bundle(&bundle.bytes).expect("a bundle") {
            entries.push(serde_json::from_slice(&entry).expect("JSON"));
        }
    }
    entries
}

async fn every_event_is_logged_in_order_and_the_checkpoint_proves_it(app: &TestApp) {
    let operator = &app.operator;
    let pair = operator.active_pair("logged seed").await;
    let mut rounds = Vec::new();
    for game in [
        json!({"type": "holdem", "players": 2}),
        json!({"type": "deck"}),
    ] {
        rounds.push(operator.deal(&pair, game).await.id());
    }
    for round in &rounds {
        operator.close(round).await;
    }
    let rotated = operator.rotate(&pair, "next seed").await.success();
    let successor = rotated["current"]["id"].as_str().expect("id").to_owned();
    let revealed_seed = rotated["revealed"]["server_seed"]
        .as_str()
        .expect("seed")
        .to_owned();

    let (size, root, _) = checkpoint_of(app, 7).await;
    assert_eq!(
        size, 7,
        "commit, client seed, two rounds, reveal, commit, client seed"
    );
    let bundle = app
        .public
        .get(&format!("/log/tile/entries/000.p/{size}"))
        .await;
    assert_eq!(bundle.status, StatusCode::OK);
    let entries = split_entry_bundle(&bundle.bytes).expect("an entry bundle");
    assert_eq!(entries.len() as u64, size);
    let objects: Vec<Value> = entries
        .iter()
        .map(|e| serde_json::from_slice(e).expect("JSON"))
        .collect();
    let kinds: Vec<&str> = objects
        .iter()
        .map(|o| o["type"].as_str().expect("type"))
        .collect();
    assert_eq!(
        kinds[kinds.len() - 7..],
        [
            "commit",
            "client_seed",
            "round",
            "round",
            "reveal",
            "commit",
            "client_seed"
        ]
    );
    let ours = &objects[objects.len() - 7..];
    assert_eq!(ours[0]["seed_pair"], pair.as_str());
    assert_eq!(
        ours[1]["client_seed_sha256"],
        client_seed_sha256("logged seed")
    );
    assert_eq!(
        (ours[2]["nonce"].as_u64(), ours[3]["nonce"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(ours[2]["round"], rounds[0].as_str());
    assert_eq!(ours[2]["game"], json!({"type": "holdem", "players": 2}));
    assert!(ours[2].get("deal").is_none(), "no cards in the log");
    assert_eq!(ours[4]["server_seed"], revealed_seed.as_str());
    assert_eq!(ours[4]["successor"], successor.as_str());
    assert_eq!(ours[5]["seed_pair"], successor.as_str());
    assert_eq!(ours[5]["predecessor"], pair.as_str());
    assert_eq!(
        ours[6]["client_seed_sha256"],
        client_seed_sha256("next seed")
    );
    for object in &objects {
        let time = object["time"].as_str().expect("time");
        assert!(
            time.ends_with('Z') && time.len() == 24,
            "RFC 3339 with milliseconds: {time}"
        );
    }
    // The entries give the checkpoint's root, and the hash tile their leaves.
    let mut stored = MemoryHashes::default();
    for (n, entry) in entries.iter().enumerate() {
        let added = tree::append(n as u64, entry, &stored).expect("append");
        for (i, hash) in added.into_iter().enumerate() {
            stored
                .0
                .insert(tree::first_stored_index(n as u64) + i as u64, hash);
        }
    }
    assert_eq!(tree::tree_hash(size, &stored).expect("root").0, root);
    let tile = app.public.get(&format!("/log/tile/0/000.p/{size}")).await;
    let leaves: Vec<u8> = entries.iter().flat_map(|e| record_hash(e).0).collect();
    assert_eq!(tile.bytes, leaves);
    assert_eq!(tile.header("cache-control"), Some("no-cache"));
    // A tile beyond the checkpoint, or not in the canonical form, is a 404.
    for path in [
        format!("entries/000.p/{}", size + 1),
        "0/000".to_owned(),
        "0/0".to_owned(),
    ] {
        assert_eq!(
            app.public.get(&format!("/log/tile/{path}")).await.status,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
}
on_both_backends!(every_event_is_logged_in_order_and_the_checkpoint_proves_it);

/// A database's log is signed by one key: a process with another refuses
/// to start, naming both.
#[test]
fn a_process_with_another_log_key_refuses_to_start() {
    let db = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(TestDatabase::create(Backend::Sqlite))
        .expect("SQLite always runs");
    let deployment = Deployment::new(&db);
    let log = db.dir.path().join("first.log");
    let server = deployment.serve(&log, &[]);
    assert!(server.terminate().success());
    let out = deployment.run_with_env(
        &["serve", "--listen", "127.0.0.1:0"],
        &[("FAIRDEAL_LOG_KEY", &"ab".repeat(32))],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("transparency log is signed by"), "{stderr}");
    assert!(
        !stderr.contains(&"ab".repeat(32)),
        "the key itself is never printed"
    );
}

/// Checks a receipt's signature against the log key and returns its entry.
fn checked_receipt(receipt: &Value, vkey: &str) -> (u64, Value) {
    let index = receipt["log_index"].as_u64().expect("log_index");
    let entry = receipt["entry"].as_str().expect("entry");
    let signature = receipt["signature"].as_str().expect("signature");
    assert!(
        verify_receipt(vkey, index, entry.as_bytes(), signature),
        "the receipt's signature verifies"
    );
    assert!(!verify_receipt(
        vkey,
        index + 1,
        entry.as_bytes(),
        signature
    ));
    (index, serde_json::from_str(entry).expect("JSON entry"))
}

/// Checks a c2sp.org/tlog-proof against the log key: the entry is in the
/// signed checkpoint at its index.
fn check_proof(proof: &str, index: u64, entry: &[u8], vkey: &str) -> bool {
    let (head, note) = proof
        .split_once("\n\n")
        .expect("a blank line before the checkpoint");
    let mut lines = head.lines();
    assert_eq!(lines.next(), Some("c2sp.org/tlog-proof@v1"));
    assert_eq!(lines.next(), Some(format!("index {index}").as_str()));
    let hashes: Vec<Hash> = lines
        .map(|line| {
            Hash(
                base64::engine::general_purpose::STANDARD
                    .decode(line)
                    .expect("base64")
                    .try_into()
                    .expect("32 bytes"),
            )
        })
        .collect();
    let body = verify_note(note, vkey).expect("the proof's checkpoint verifies");
    let lines: Vec<&str> = body.lines().collect();
    let size: u64 = lines[1].parse().expect("size");
    let root = Hash::parse_hash(lines[2]).expect("root");
    tree::check_inclusion(&hashes, size, root, index, entry)
}

async fn every_event_comes_with_a_signed_receipt_and_a_proof(app: &TestApp) {
    let operator = &app.operator;
    let vkey = app.log.vkey();
    let created = operator.post("/v1/seed-pairs").await.success();
    let pair = created["id"].as_str().expect("id").to_owned();
    let (commit_index, commit) = checked_receipt(&created["receipt"], &vkey);
    assert_eq!(
        (commit["type"].as_str(), commit["seed_pair"].as_str()),
        (Some("commit"), Some(pair.as_str()))
    );
    let set = operator
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &json!({"client_seed": "receipted"}),
        )
        .await
        .success();
    let (seed_index, seed) = checked_receipt(&set["receipt"], &vkey);
    assert!(seed_index > commit_index);
    assert_eq!(seed["type"], "client_seed");
    let deal = |key: &'static str| {
        operator.send(
            operator
                .request(
                    reqwest::Method::POST,
                    &format!("/v1/seed-pairs/{pair}/rounds"),
                )
                .header("Idempotency-Key", key)
                .json(&json!({"game": {"type": "deck"}})),
        )
    };
    let dealt = deal("r1").await.success();
    let (round_index, round_entry) = checked_receipt(&dealt["receipt"], &vkey);
    assert_eq!(
        (round_entry["type"].as_str(), round_entry["nonce"].as_u64()),
        (Some("round"), Some(0))
    );
    let again = deal("r1").await.success();
    assert_eq!(
        again["receipt"], dealt["receipt"],
        "a retry gets the same receipt"
    );
    let round = dealt["id"].as_str().expect("id").to_owned();
    operator.close(&round).await;
    let rotated = operator.rotate(&pair, "next").await.success();
    let kinds: Vec<(u64, String)> = rotated["receipts"]
        .as_array()
        .expect("receipts")
        .iter()
        .map(|r| {
            let (index, entry) = checked_receipt(r, &vkey);
            (index, entry["type"].as_str().expect("type").to_owned())
        })
        .collect();
    assert_eq!(
        kinds.iter().map(|(_, k)| k.as_str()).collect::<Vec<_>>(),
        ["reveal", "commit", "client_seed"]
    );
    assert!(
        kinds[0].0 > round_index && kinds[1].0 == kinds[0].0 + 1 && kinds[2].0 == kinds[1].0 + 1
    );

    // Public reads: the receipt, and its proof once the entry is in a checkpoint.
    for (path, index) in [
        (format!("/v1/rounds/{round}/receipt"), round_index),
        (format!("/v1/seed-pairs/{pair}/receipt"), commit_index),
    ] {
        let mut proven = None;
        for _ in 0..200 {
            let reply = app.public.get(&path).await;
            if reply.status == StatusCode::OK {
                proven = Some(reply.json);
                break;
            }
            assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text);
            assert!(reply.header("retry-after").is_some());
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let proven = proven.expect("a proof within five seconds");
        let (got, _) = checked_receipt(&proven, &vkey);
        assert_eq!(got, index);
        let entry = proven["entry"].as_str().expect("entry").as_bytes().to_vec();
        let proof = proven["proof"].as_str().expect("proof");
        assert!(
            check_proof(proof, index, &entry, &vkey),
            "{path}: the proof verifies"
        );
        // One changed hash in the path, and it does not.
        let first_hash = proof
            .lines()
            .nth(2)
            .expect("the tree has more than one entry");
        let zero = base64::engine::general_purpose::STANDARD.encode([0u8; 32]);
        assert!(!check_proof(
            &proof.replacen(first_hash, &zero, 1),
            index,
            &entry,
            &vkey
        ));
        assert!(!check_proof(proof, index, b"another entry", &vkey));
    }
}
on_both_backends!(every_event_comes_with_a_signed_receipt_and_a_proof);

/// `GET /v1/log/consistency`: the proof between two real checkpoints
/// verifies against both roots and fails against a root of another history;
/// sizes out of order or beyond the checkpoint are refused, naming the field.
/// Full tiles are stored whole when the log integrates them (a request is
/// one row), and serve the very bytes the entries and hashes give (what a
/// log integrated before they were stored serves); the monitor checks them.
/// A reader going through the tiles in order is served from tiles read
/// ahead (several in one query): the same bytes, in any order asked.
async fn full_tiles_are_stored_whole_and_serve_the_bytes_of_the_entries(app: &TestApp) {
    let operator = &app.operator;
    let pair = operator.active_pair("tiles stored whole").await;
    for _ in 0..800 {
        operator.deal(&pair, json!({"type": "deck"})).await;
    }
    crate::monitor::integrated(app).await;
    let store = app.dealer.store();
    let bundles = store.log_tiles_from(-1, 0, 3).await.expect("bundles");
    let hashes = store.log_tiles_from(0, 0, 3).await.expect("hash tiles");
    assert_eq!(bundles.len(), 3, "three full entry bundles stored");
    assert_eq!(hashes.len(), 3, "three full hash tiles stored");
    let stored: Vec<(String, Vec<u8>)> = (bundles
        .into_iter()
        .map(|(i, b)| (format!("/log/tile/entries/{i:03}"), b)))
    .chain(
        hashes
            .into_iter()
            .map(|(i, b)| (format!("/log/tile/0/{i:03}"), b)),
    )
    .collect();
    let get = |i: usize| {
        let (path, body) = &stored[i];
        async move {
            let tile = app.public.get(path).await;
            assert_eq!(tile.status, StatusCode::OK, "{path}");
            assert_eq!(
                tile.headers
                    .get("cache-control")
                    .and_then(|v| v.to_str().ok()),
                Some("public, max-age=31536000, immutable"),
                "{path}"
            );
            assert_eq!(&tile.bytes, body, "{path}: not the stored tile");
        }
    };
    // The first two of each level in order: the second reads the third
    // ahead. Changed in the database after that, the third is still
    // served as read (a full tile never changes: only a test rewrites it).
    for i in [0, 1, 3, 4] {
        get(i).await;
    }
    app.execute("UPDATE log_tiles SET body = body || body")
        .await;
    for i in [2, 5, 5, 4, 3, 2, 1, 0] {
        get(i).await;
    }
    // Counted: the first of each level read alone, the second with the
    // third read ahead; the other eight answers from memory.
    let metrics = app.public.get("/metrics").await.text;
    for line in [
        "fairdeal_log_tiles_from_database_total 4",
        "fairdeal_log_tiles_read_ahead_total 2",
        "fairdeal_log_tiles_from_memory_total 8",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "{line} not in:\n{metrics}"
        );
    }
    // The same tiles built from the entries and hashes, by a server that
    // has not served them (nothing kept).
    app.execute("DELETE FROM log_tiles").await;
    let fresh = app.another_server().await;
    for (path, body) in stored.iter().rev() {
        let built = fresh.get(path).await;
        assert_eq!(built.status, StatusCode::OK, "{path}");
        assert_eq!(
            &built.bytes, body,
            "{path}: the stored tile differs from the built one"
        );
    }
    let (out, report) = crate::harness::run_monitor(app.public.base(), &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
}
on_both_backends!(full_tiles_are_stored_whole_and_serve_the_bytes_of_the_entries);

async fn consistency_proofs_link_checkpoints(app: &TestApp) {
    let pair = app.operator.active_pair("consistency").await;
    let (old_size, old_root, _) = checkpoint_of(app, 2).await;
    for _ in 0..5 {
        app.operator.deal(&pair, json!({"type": "deck"})).await;
    }
    let (size, root, _) = checkpoint_of(app, old_size + 5).await;
    let reply = app
        .public
        .get(&format!("/v1/log/consistency?old={old_size}&new={size}"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(
        (
            reply.json["old_size"].as_u64(),
            reply.json["new_size"].as_u64()
        ),
        (Some(old_size), Some(size))
    );
    let proof: Vec<Hash> = reply.json["proof"]
        .as_array()
        .expect("proof")
        .iter()
        .map(|h| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(h.as_str().expect("base64"))
                .expect("base64");
            Hash(bytes.try_into().expect("32 bytes"))
        })
        .collect();
    assert!(!proof.is_empty());
    assert!(tree::check_consistency(
        &proof,
        size,
        Hash(root),
        old_size,
        Hash(old_root)
    ));
    let forked = record_hash(b"another history");
    assert!(!tree::check_consistency(
        &proof,
        size,
        Hash(root),
        old_size,
        forked
    ));
    let same = app
        .public
        .get(&format!("/v1/log/consistency?old={size}&new={size}"))
        .await;
    assert_eq!(same.json["proof"], json!([]));

    for (query, field) in [
        (format!("old=0&new={size}"), "old"),
        (format!("old={size}&new={old_size}"), "old"),
        (format!("old=1&new={}", size + 1_000_000), "new"),
        ("old=x&new=2".to_owned(), "old"),
        ("new=2".to_owned(), "old"),
    ] {
        let reply = app
            .public
            .get(&format!("/v1/log/consistency?{query}"))
            .await;
        assert!(
            reply.status == StatusCode::UNPROCESSABLE_ENTITY
                || reply.status == StatusCode::BAD_REQUEST,
            "{query}: {} {}",
            reply.status,
            reply.text
        );
        assert_eq!(
            reply.json["field"], field,
            "{query}: the problem names {field}: {}",
            reply.text
        );
    }
}
on_both_backends!(consistency_proofs_link_checkpoints);

/// `GET /v1/seed-pairs/{id}/same-client-seed`: a seed kept across a
/// rotation is listed after the reveal (normal); a second pair given the
/// seed while the first is live is listed with overlapping log intervals.
async fn pairs_sharing_a_client_seed_are_listed_with_their_intervals(app: &TestApp) {
    let operator = &app.operator;
    let seed = "shared by two pairs";
    let first = operator.active_pair(seed).await;
    let rotated = operator.rotate(&first, seed).await.success();
    let kept = rotated["current"]["id"].as_str().expect("id").to_owned();
    let shopped = operator.reusing_pair(seed).await;
    operator.active_pair("someone else").await;

    let reply = app
        .public
        .get(&format!("/v1/seed-pairs/{kept}/same-client-seed"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let body = reply.json;
    assert_eq!(body["client_seed_sha256"], client_seed_sha256(seed));
    assert_eq!(body["pair"]["seed_pair"], kept.as_str());
    assert_eq!(body["truncated"], false);
    let others: Vec<&str> = body["others"]
        .as_array()
        .expect("others")
        .iter()
        .map(|o| o["seed_pair"].as_str().expect("id"))
        .collect();
    assert_eq!(others, [first.as_str(), shopped.as_str()], "in log order");
    let index = |v: &Value| v.as_u64().unwrap_or(u64::MAX);
    let (from, until) = (
        index(&body["pair"]["client_seed_log_index"]),
        index(&body["pair"]["reveal_log_index"]),
    );
    // The predecessor was revealed before this pair got the seed.
    assert!(index(&body["others"][0]["reveal_log_index"]) < from);
    assert_eq!(body["others"][0]["status"], "revealed");
    // The other pair got it while this one was live: the intervals overlap.
    let other_from = index(&body["others"][1]["client_seed_log_index"]);
    assert!(other_from > from && other_from < until, "{body:#}");

    // A pair from before the log (no log indexes) that is still live
    // overlaps every later holder: listed first, as live since before it.
    let changed = app
        .tamper(
            "UPDATE seed_pairs SET client_seed_log_index = NULL WHERE id = $1",
            shopped.clone(),
        )
        .await;
    assert_eq!(changed, 1);
    let reply = app
        .public
        .get(&format!("/v1/seed-pairs/{kept}/same-client-seed"))
        .await;
    assert_eq!(reply.json["others"][0]["seed_pair"], shopped.as_str());
    assert_eq!(
        reply.json["others"][0]["client_seed_log_index"],
        Value::Null
    );

    let none = app.operator.post("/v1/seed-pairs").await.success();
    let id = none["id"].as_str().expect("id");
    let reply = app
        .public
        .get(&format!("/v1/seed-pairs/{id}/same-client-seed"))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json["client_seed_sha256"], Value::Null);
    assert_eq!(reply.json["others"], json!([]));
    let missing = app
        .public
        .get("/v1/seed-pairs/no-such-pair/same-client-seed")
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}
on_both_backends!(pairs_sharing_a_client_seed_are_listed_with_their_intervals);
