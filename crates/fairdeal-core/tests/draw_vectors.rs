//! The published known-answer vectors of fairdeal-draw-v1
//! (test-vectors/fairdeal-draw-v1.json, docs/PROTOCOL.md §9), and the
//! properties every draw has. A failing vector is a regression, never a test
//! to update.

use fairdeal_core::{
    ClientSeed, Draw, Keystream, LineRule, SeedKey, ServerSeed, draw, draw_winners, fresh_deck,
    parse_list, parse_nonce, shuffle_items, shuffled_deck, shuffled_items,
};
use proptest::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

const VECTORS: &str = include_str!("../../../test-vectors/fairdeal-draw-v1.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("the vectors are JSON")
}

fn inputs(v: &Value) -> (ServerSeed, ClientSeed, u64) {
    (
        ServerSeed::from_hex(v["server_seed"].as_str().expect("seed")).expect("valid seed"),
        ClientSeed::new(v["client_seed"].as_str().expect("client seed")).expect("valid"),
        parse_nonce(v["nonce"].as_str().expect("nonce")).expect("valid nonce"),
    )
}

fn numbers(v: &Value) -> Vec<u32> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|n| u32::try_from(n.as_u64().expect("a number")).expect("fits u32"))
        .collect()
}

#[test]
fn list_commitments() {
    let all = vectors();
    let lists = all["lists"].as_array().expect("lists");
    assert!(!lists.is_empty());
    for list in lists {
        let text = list["text"].as_str().expect("text");
        let (commitment, lines) = parse_list(text.as_bytes()).expect("a valid list");
        assert_eq!(
            commitment.sha256_hex(),
            list["entries_sha256"],
            "{}",
            list["name"]
        );
        assert_eq!(commitment.entries, list["entries"].as_u64().expect("n"));
        assert_eq!(lines.len() as u64, commitment.entries);
    }
}

#[test]
fn bad_lists_are_refused_at_their_line() {
    let all = vectors();
    let bad = all["bad_lists"].as_array().expect("bad lists");
    assert_eq!(bad.len(), 4);
    for list in bad {
        let err = parse_list(list["text"].as_str().expect("text").as_bytes())
            .expect_err("a bad list is refused");
        assert_eq!(
            err.index + 1,
            list["line"].as_u64().expect("line"),
            "{list}"
        );
        let rule = match err.rule {
            LineRule::CarriageReturn => "carriage_return",
            LineRule::Empty => "empty",
            LineRule::Duplicate { .. } => "duplicate",
            LineRule::Unterminated => "unterminated",
            other => panic!("unexpected rule {other:?}"),
        };
        assert_eq!(rule, list["rule"], "{list}");
    }
}

#[test]
fn draws() {
    let all = vectors();
    let draws = all["draws"].as_array().expect("draws");
    assert_eq!(draws.len(), 7);
    for v in draws {
        let (seed, client, nonce) = inputs(v);
        let expected = numbers(&v["winners"]);
        let params = Draw::new(
            v["entries"].as_u64().expect("entries"),
            expected.len() as u64,
        )
        .expect("valid draw");
        assert_eq!(
            draw(&seed, &client, nonce, params),
            expected,
            "{}",
            v["name"]
        );
        if let Some(name) = v["list"].as_str() {
            let list = all["lists"]
                .as_array()
                .expect("lists")
                .iter()
                .find(|l| l["name"] == name)
                .expect("the named list");
            let (_, lines) =
                parse_list(list["text"].as_str().expect("text").as_bytes()).expect("valid");
            let got: Vec<&str> = expected.iter().map(|&i| lines[i as usize]).collect();
            assert_eq!(got, numbers_text(&v["winner_lines"]));
        }
    }
}

fn numbers_text(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("text"))
        .collect()
}

#[test]
fn shuffles() {
    let all = vectors();
    let shuffles = all["shuffles"].as_array().expect("shuffles");
    assert_eq!(shuffles.len(), 2);
    for v in shuffles {
        let (seed, client, nonce) = inputs(v);
        let items = v["items"].as_u64().expect("items");
        let order = shuffled_items(&seed, &client, nonce, items).expect("valid");
        let first = numbers(&v["first"]);
        assert_eq!(&order[..first.len()], first.as_slice(), "{}", v["name"]);
        let mut text = String::new();
        for item in &order {
            text.push_str(&item.to_string());
            text.push('\n');
        }
        assert_eq!(hex::encode(Sha256::digest(text.as_bytes())), v["sha256"]);
    }
}

/// A shuffle of 52 items is fairdeal-v1's one-deck shuffle, index for index.
#[test]
fn a_shuffle_of_52_items_is_the_deck_shuffle() {
    let seed = ServerSeed::from_bytes([7; 32]);
    let client = ClientSeed::new("same").expect("valid");
    for nonce in 0..50 {
        let deck = shuffled_deck(&seed, &client, nonce, 1);
        let order = shuffled_items(&seed, &client, nonce, 52).expect("valid");
        let fresh = fresh_deck(1);
        let as_cards: Vec<_> = order.iter().map(|&i| fresh[i as usize]).collect();
        assert_eq!(as_cards, deck, "nonce {nonce}");
    }
}

proptest! {
    /// With the real keystream: a draw of k is the last k items of the full
    /// shuffle of n, read from the end — for any seed, n and k.
    #[test]
    fn a_draw_is_the_tail_of_the_full_shuffle(
        seed in any::<[u8; 32]>(),
        n in 2u32..3000,
        k_fraction in 0.0f64..=1.0,
    ) {
        let k = ((f64::from(n) * k_fraction) as u32).clamp(1, n);
        let key = SeedKey::new(&ServerSeed::from_bytes(seed))
            .round_key(&ClientSeed::new("prop").expect("valid"), u64::from(n));
        let full = shuffle_items(&mut Keystream::new(&key), n);
        let tail: Vec<u32> = full.iter().rev().take(k as usize).copied().collect();
        let params = Draw::new(n.into(), k.into()).expect("valid");
        prop_assert_eq!(draw_winners(&mut Keystream::new(&key), params), tail);
    }

    /// Winners are distinct entrants.
    #[test]
    fn winners_are_distinct_and_in_range(seed in any::<[u8; 32]>(), n in 2u64..=u64::from(u32::MAX), k in 1u64..200) {
        let k = k.min(n);
        let winners = draw(
            &ServerSeed::from_bytes(seed),
            &ClientSeed::new("prop").expect("valid"),
            0,
            Draw::new(n, k).expect("valid"),
        );
        prop_assert_eq!(winners.len() as u64, k);
        let mut sorted = winners.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len() as u64, k);
        prop_assert!(winners.iter().all(|&w| u64::from(w) < n));
    }
}
