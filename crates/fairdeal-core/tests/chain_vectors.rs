//! The published known-answer vectors of fairdeal-chain-v1
//! (test-vectors/fairdeal-chain-v1.json, docs/PROTOCOL.md §13): every seed
//! of each chain from its tip, each round dealt as fairdeal-v1 from its
//! seed, published prefixes that fail at the named round, and the
//! successor chain's commitment.

use fairdeal_core::{
    Card, ClientSeed, Commitment, Deal, Game, ServerSeed, chain_commitment, chain_round_seed,
    chain_seed_at, check_chain_prefix, deal, parse_nonce,
};
use serde_json::{Value, json};

const VECTORS: &str = include_str!("../../../test-vectors/fairdeal-chain-v1.json");

fn seed(v: &Value) -> ServerSeed {
    ServerSeed::from_hex(v.as_str().expect("hex")).expect("a seed")
}

fn commitment(v: &Value) -> Commitment {
    Commitment::from_hex(v.as_str().expect("hex")).expect("a commitment")
}

#[test]
fn every_chain_vector_is_reproduced() {
    let all: Value = serde_json::from_str(VECTORS).expect("JSON");
    let vectors = all["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 2);
    for v in vectors {
        let name = v["name"].as_str().expect("name");
        let length = v["length"].as_u64().expect("length");
        let tip = seed(&v["tip"]);
        let seeds = v["seeds"].as_array().expect("seeds");
        assert_eq!(seeds.len() as u64, length + 1, "{name}");
        for (i, expected) in seeds.iter().enumerate() {
            let got = chain_seed_at(&tip, length, i as u64).expect("in range");
            assert_eq!(
                got.reveal_hex(),
                expected.as_str().expect("hex"),
                "{name} s_{i}"
            );
        }
        let committed = chain_commitment(&tip, length).expect("length");
        assert_eq!(committed, commitment(&v["commitment"]), "{name}");
        let published: Vec<ServerSeed> = seeds[1..].iter().map(seed).collect();
        assert_eq!(check_chain_prefix(&committed, &published), Ok(()), "{name}");
        for round in v["rounds"].as_array().expect("rounds") {
            let k = parse_nonce(round["nonce"].as_str().expect("nonce")).expect("nonce");
            let server = chain_round_seed(&tip, length, k).expect("a round of the chain");
            assert_eq!(
                server.reveal_hex(),
                round["server_seed"],
                "{name} round {k}"
            );
            // Its fairdeal-v1 commitment is the seed before it.
            assert_eq!(
                server.commitment().to_string(),
                seeds[k as usize],
                "{name} round {k}"
            );
            let client =
                ClientSeed::new(round["client_seed"].as_str().expect("text")).expect("valid");
            let game = match round["game"]["type"].as_str() {
                Some("holdem") => {
                    Game::holdem(round["game"]["players"].as_u64().expect("players") as u32)
                }
                _ => Game::deck(1),
            }
            .expect("a game");
            let text =
                |cards: &[Card]| -> Vec<String> { cards.iter().map(ToString::to_string).collect() };
            let dealt: Value = match deal(&server, &client, k, game) {
                Deal::Deck { deck } => json!({ "deck": text(&deck) }),
                Deal::Board {
                    hands,
                    board,
                    burns,
                } => json!({
                    "hands": hands.iter().map(|h| text(h)).collect::<Vec<_>>(),
                    "board": text(&board),
                    "burns": text(&burns),
                }),
                Deal::Hands { .. } => unreachable!("no hands game in the vectors"),
            };
            for (key, cards) in round["deal"].as_object().expect("deal") {
                assert_eq!(&dealt[key], cards, "{name} round {k} {key}");
            }
        }
        for tampered in v["tampered"].as_array().into_iter().flatten() {
            let published: Vec<ServerSeed> = tampered["published"]
                .as_array()
                .expect("seeds")
                .iter()
                .map(seed)
                .collect();
            let fails_at = tampered["fails_at"].as_u64().expect("a round") as usize;
            assert_eq!(
                check_chain_prefix(&committed, &published),
                Err(fails_at),
                "{name}: {}",
                tampered["what"]
            );
        }
        if let Some(next) = v.get("successor") {
            let next_length = next["length"].as_u64().expect("length");
            assert_eq!(
                chain_commitment(&seed(&next["tip"]), next_length).expect("length"),
                commitment(&next["commitment"]),
                "{name} successor"
            );
        }
    }
}
