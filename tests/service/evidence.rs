//! `GET /v1/seed-pairs/{id}/evidence`: a pair's rounds' log entries a page
//! at a time, with one set of tree nodes that gives the root of one signed
//! checkpoint. Recomputed here as the page does: every page of a pair whose
//! rounds are interleaved with another pair's reaches the checkpoint's
//! root; a changed entry or node does not; refused queries name the field.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::harness::{TestApp, on_both_backends};
use crate::log::checkpoint_of;

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in parts {
        h.update(part);
    }
    h.finalize().into()
}

/// The root of `[lo, hi)` from leaf hashes and nodes, by RFC 6962's
/// recursion; None when a needed hash is missing.
fn root_of(
    lo: u64,
    hi: u64,
    leaves: &HashMap<u64, [u8; 32]>,
    nodes: &HashMap<(u64, u64), [u8; 32]>,
) -> Option<[u8; 32]> {
    let width = hi - lo;
    let holds = leaves.keys().any(|&l| lo <= l && l < hi);
    if !holds && width.is_power_of_two() {
        let level = u64::from(width.trailing_zeros());
        return nodes.get(&(level, lo >> level)).copied();
    }
    if width == 1 {
        return leaves.get(&lo).copied();
    }
    let k = 1u64 << (63 - (width - 1).leading_zeros());
    let left = root_of(lo, lo + k, leaves, nodes)?;
    let right = root_of(lo + k, hi, leaves, nodes)?;
    Some(sha256(&[&[1], &left, &right]))
}

/// The root a page's entries and nodes give (entries in the checkpoint only).
fn page_root(page: &Value, changed_entry: bool, changed_node: bool) -> Option<[u8; 32]> {
    let size = page["size"].as_u64().expect("size");
    let mut leaves = HashMap::new();
    for (i, round) in page["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .enumerate()
    {
        if round["in_checkpoint"] != true {
            continue;
        }
        let mut entry = round["entry"].as_str().expect("entry").as_bytes().to_vec();
        if changed_entry && i == 0 {
            entry.push(b' ');
        }
        leaves.insert(
            round["log_index"].as_u64().expect("index"),
            sha256(&[&[0], &entry]),
        );
    }
    let mut nodes = HashMap::new();
    for (i, node) in page["nodes"].as_array().expect("nodes").iter().enumerate() {
        let mut hash: [u8; 32] = BASE64
            .decode(node["hash"].as_str().expect("hash"))
            .expect("base64")
            .try_into()
            .expect("32 bytes");
        if changed_node && i == 0 {
            hash[0] ^= 1;
        }
        nodes.insert(
            (
                node["level"].as_u64().expect("level"),
                node["index"].as_u64().expect("index"),
            ),
            hash,
        );
    }
    root_of(0, size, &leaves, &nodes)
}

async fn a_pairs_evidence_proves_every_round_against_one_checkpoint(app: &TestApp) {
    let operator = &app.operator;
    let pair = operator.active_pair("evidence").await;
    let other = operator.active_pair("interleaved").await;
    let mut ids = Vec::new();
    for i in 0..13 {
        let round = operator
            .deal(&pair, json!({"type": "holdem", "players": 2}))
            .await
            .success();
        ids.push(round["id"].as_str().expect("id").to_owned());
        // Another pair's rounds between this pair's: the nodes must skip them.
        for _ in 0..(i % 3) {
            operator
                .deal(&other, json!({"type": "deck"}))
                .await
                .success();
        }
    }
    let next = app.number("SELECT next_index FROM log_state").await as u64;
    let (size, root, note) = checkpoint_of(app, next).await;

    // Pages of 5 against the latest checkpoint, then against its size.
    let mut after: Option<i64> = None;
    let mut seen = Vec::new();
    loop {
        let query = match after {
            None => format!("limit=5&size={size}"),
            Some(a) => format!("limit=5&size={size}&after={a}"),
        };
        let page = app
            .public
            .get(&format!("/v1/seed-pairs/{pair}/evidence?{query}"))
            .await
            .success();
        assert_eq!(page["seed_pair"], pair.as_str());
        assert_eq!(page["size"], size);
        assert_eq!(page["checkpoint"], note.as_str());
        assert_eq!(page_root(&page, false, false), Some(root), "{page}");
        assert_ne!(page_root(&page, true, false), Some(root), "a changed entry");
        assert_ne!(page_root(&page, false, true), Some(root), "a forged node");
        for round in page["rounds"].as_array().expect("rounds") {
            let entry: Value =
                serde_json::from_str(round["entry"].as_str().expect("entry")).expect("JSON");
            assert_eq!(entry["type"], "round");
            assert_eq!(entry["seed_pair"], pair.as_str());
            assert_eq!(entry["round"], round["round"]);
            assert_eq!(entry["nonce"], round["nonce"]);
            seen.push(round["round"].as_str().expect("id").to_owned());
        }
        match page["next_after"].as_i64() {
            Some(a) => after = Some(a),
            None => break,
        }
    }
    assert_eq!(seen, ids, "every round once, by nonce");

    // Without `size`: the latest checkpoint, the same evidence.
    let latest = app
        .public
        .get(&format!("/v1/seed-pairs/{pair}/evidence"))
        .await
        .success();
    assert!(latest["size"].as_u64().expect("size") >= size);
    assert_eq!(latest["rounds"].as_array().expect("rounds").len(), 13);
    assert_eq!(latest["next_after"], Value::Null);

    // Refused, naming the field; an unknown pair is 404.
    for (query, field) in [
        ("size=0".to_owned(), "size"),
        (format!("size={}", size + 1_000_000), "size"),
        ("limit=0".to_owned(), "limit"),
        ("limit=1001".to_owned(), "limit"),
        ("after=-1".to_owned(), "after"),
        ("size=x".to_owned(), "size"),
    ] {
        let reply = app
            .public
            .get(&format!("/v1/seed-pairs/{pair}/evidence?{query}"))
            .await;
        assert!(
            reply.status == StatusCode::UNPROCESSABLE_ENTITY
                || reply.status == StatusCode::BAD_REQUEST,
            "{query}: {} {}",
            reply.status,
            reply.text
        );
        assert_eq!(reply.json["field"], field, "{query}: {}", reply.text);
    }
    let missing = app.public.get("/v1/seed-pairs/no-such-pair/evidence").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}
on_both_backends!(a_pairs_evidence_proves_every_round_against_one_checkpoint);
