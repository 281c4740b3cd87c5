//! The published known-answer vectors of fairdeal-v1 (test-vectors/fairdeal-v1.json,
//! also printed in docs/PROTOCOL.md). If any of these fails, published rounds
//! would deal differently: that is never a test to update, it is a regression.

use fairdeal_core::{
    Card, ClientSeed, Commitment, Deal, Game, Keystream, RoundKey, ServerSeed, WordSource, deal,
    parse_nonce, uniform,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

const VECTORS: &str = include_str!("../../../test-vectors/fairdeal-v1.json");

struct Vector {
    name: String,
    server_seed: ServerSeed,
    client_seed: ClientSeed,
    nonce: u64,
    game: Game,
    raw: Value,
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("vector field {key} is a string"))
}

/// The `hands` of an expected deal: one list of cards per seat.
fn expected_hands(expected: &Value) -> Vec<Vec<Card>> {
    expected["hands"]
        .as_array()
        .expect("hands")
        .iter()
        .map(cards)
        .collect()
}

fn cards(value: &Value) -> Vec<Card> {
    value
        .as_array()
        .expect("a list of cards")
        .iter()
        .map(|card| {
            card.as_str()
                .expect("card name")
                .parse()
                .expect("valid card")
        })
        .collect()
}

fn vectors() -> Vec<Vector> {
    let file: Value = serde_json::from_str(VECTORS).expect("vectors file is JSON");
    assert_eq!(file["protocol"], "fairdeal-v1");
    file["vectors"]
        .as_array()
        .expect("vectors list")
        .iter()
        .map(|raw| {
            let game = &raw["game"];
            let param = |key: &str| game[key].as_u64().map(|v| v as u32);
            Vector {
                name: text(raw, "name").to_owned(),
                server_seed: ServerSeed::from_hex(text(raw, "server_seed")).expect("seed"),
                client_seed: ClientSeed::new(text(raw, "client_seed")).expect("client seed"),
                nonce: parse_nonce(text(raw, "nonce")).expect("nonce"),
                game: Game::from_parts(
                    text(game, "type"),
                    param("players"),
                    param("cards"),
                    param("decks"),
                )
                .expect("game"),
                raw: raw.clone(),
            }
        })
        .collect()
}

fn vector(name: &str) -> Vector {
    vectors()
        .into_iter()
        .find(|v| v.name == name)
        .expect("vector exists")
}

fn joined(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_vector_with_a_published_commitment_matches_it() {
    let mut checked = 0;
    for v in vectors() {
        if let Some(hash) = v.raw["server_seed_hash"].as_str() {
            let published = Commitment::from_hex(hash).expect("hash");
            assert_eq!(v.server_seed.commitment(), published, "vector {}", v.name);
            assert_eq!(v.server_seed.commitment().to_string(), hash);
            checked += 1;
        }
    }
    assert_eq!(checked, 2);
}

#[test]
fn vector_a_keystream_words() {
    let v = vector("A");
    let mut keystream = Keystream::new(&RoundKey::derive(&v.server_seed, &v.client_seed, v.nonce));
    for expected in v.raw["keystream_words"].as_array().expect("words") {
        let expected = u32::from_str_radix(expected.as_str().expect("hex"), 16).expect("hex");
        assert_eq!(keystream.next_word(), expected);
    }
}

#[test]
fn vector_a_uniform_rejects_and_consumes_exactly_twelve_words() {
    let v = vector("A");
    let spec = &v.raw["uniform"];
    let bound: u64 = text(spec, "bound").parse().expect("bound");
    let mut keystream = Keystream::new(&RoundKey::derive(&v.server_seed, &v.client_seed, v.nonce));
    let results: Vec<String> = (0..8)
        .map(|_| uniform(&mut keystream, bound).to_string())
        .collect();
    let expected: Vec<&str> = spec["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r.as_str().expect("decimal"))
        .collect();
    assert_eq!(results, expected);
    assert_eq!(
        keystream.words_read(),
        spec["words_consumed"].as_u64().expect("count")
    );
}

#[test]
fn every_vector_deals_its_published_cards() {
    let mut checked = 0;
    for v in vectors() {
        let dealt = deal(&v.server_seed, &v.client_seed, v.nonce, v.game);
        match (&dealt, &v.raw["deal"]) {
            (Deal::Deck { deck }, expected) if expected.is_object() => {
                assert_eq!(
                    joined(deck),
                    joined(&cards(&expected["deck"])),
                    "{}",
                    v.name
                );
            }
            (
                Deal::Board {
                    hands,
                    board,
                    burns,
                },
                expected,
            ) => {
                assert_eq!(hands, &expected_hands(expected), "{}", v.name);
                assert_eq!(board, &cards(&expected["board"]), "{}", v.name);
                assert_eq!(burns, &cards(&expected["burns"]), "{}", v.name);
            }
            (Deal::Hands { hands, rest }, expected) => {
                assert_eq!(hands, &expected_hands(expected), "{}", v.name);
                let prefix = cards(&v.raw["rest_prefix"]);
                assert_eq!(&rest[..prefix.len()], &prefix[..], "{}", v.name);
                assert_eq!(rest.len(), 52 - 20);
            }
            (Deal::Deck { deck }, _) => {
                let prefix = cards(&v.raw["deck_prefix"]);
                assert_eq!(&deck[..prefix.len()], &prefix[..], "{}", v.name);
                assert_eq!(deck.len() as u64, v.raw["deck_len"].as_u64().expect("len"));
                let digest = hex::encode(Sha256::digest(joined(deck).as_bytes()));
                assert_eq!(digest, text(&v.raw, "deck_sha256"), "{}", v.name);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 5);
}
