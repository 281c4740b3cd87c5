//! The published known-answer vectors of fairdeal-table-v1
//! (test-vectors/fairdeal-table-v1.json, docs/PROTOCOL.md §11), and the
//! property a seated player relies on: their contribution is in the seed.

use fairdeal_core::{
    Card, ClientSeed, Contribution, Deal, Game, Seats, ServerSeed, deal, parse_nonce,
    table_client_seed,
};
use proptest::prelude::*;
use serde_json::Value;

const VECTORS: &str = include_str!("../../../test-vectors/fairdeal-table-v1.json");

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("text").to_owned())
        .collect()
}

#[test]
fn every_table_vector_is_reproduced() {
    let all: Value = serde_json::from_str(VECTORS).expect("JSON");
    let vectors = all["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 3);
    for v in vectors {
        let seats = Seats::new(strings(&v["seats"])).expect("valid seats");
        let contributions: Vec<Contribution> = strings(&v["contributions"])
            .into_iter()
            .map(|c| Contribution::new(c).expect("valid contribution"))
            .collect();
        let commitments: Vec<String> = contributions.iter().map(Contribution::commitment).collect();
        assert_eq!(commitments, strings(&v["commitments"]), "{}", v["name"]);
        let client_seed = table_client_seed(&seats, &contributions).expect("derives");
        assert_eq!(client_seed.as_str(), v["client_seed"], "{}", v["name"]);
        if let Some(expected) = v.get("deal") {
            let server =
                ServerSeed::from_hex(expected["server_seed"].as_str().expect("seed")).expect("hex");
            let players = expected["game"]["players"].as_u64().expect("players") as u32;
            let nonce = parse_nonce(expected["nonce"].as_str().expect("nonce")).expect("nonce");
            let dealt = deal(
                &server,
                &client_seed,
                nonce,
                Game::holdem(players).expect("valid"),
            );
            let cards = |v: &Value| -> Vec<Card> {
                strings(v)
                    .iter()
                    .map(|c| c.parse().expect("a card"))
                    .collect()
            };
            let recorded = Deal::Board {
                hands: expected["hands"]
                    .as_array()
                    .expect("hands")
                    .iter()
                    .map(cards)
                    .collect(),
                board: cards(&expected["board"]),
                burns: cards(&expected["burns"]),
            };
            assert_eq!(dealt, recorded, "{}", v["name"]);
        }
    }
}

fn text() -> impl Strategy<Value = String> {
    "[^\\p{Cc}]{1,16}"
}

proptest! {
    /// Changing any one seat's contribution changes the client seed: no
    /// seat's entropy can be left out.
    #[test]
    fn changing_any_one_contribution_changes_the_client_seed(
        n in 2usize..=22,
        contributions in proptest::collection::vec(text(), 22),
        seat in 0usize..22,
        replacement in text(),
    ) {
        let seat = seat % n;
        prop_assume!(replacement != contributions[seat]);
        let seats = Seats::new((0..n).map(|i| format!("seat {i}")).collect()).expect("valid");
        let make = |texts: &[String]| -> Vec<Contribution> {
            texts[..n].iter().map(|t| Contribution::new(t.clone()).expect("valid")).collect()
        };
        let before = table_client_seed(&seats, &make(&contributions)).expect("derives");
        let mut changed = contributions.clone();
        changed[seat] = replacement;
        let after = table_client_seed(&seats, &make(&changed)).expect("derives");
        prop_assert_ne!(before.as_str(), after.as_str());
        prop_assert!(ClientSeed::new(after.as_str()).is_ok());
    }
}
