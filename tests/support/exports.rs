//! Fair exports made straight from the protocol library (no server), in the
//! format of `GET /v1/export`, for audit tests and benchmarks.

use fairdeal::export::{ExportEnd, ExportPair, ExportRound};
use fairdeal_core::{ClientSeed, Game, ServerSeed, deal};
use serde_json::value::RawValue;

/// The games dealt in turn.
pub fn games() -> Vec<Game> {
    vec![
        Game::holdem(6).expect("valid"),
        Game::hands(4, 5, 1).expect("valid"),
        Game::deck(1).expect("valid"),
        Game::omaha(3).expect("valid"),
    ]
}

/// `n_pairs` revealed pairs of `rounds_per_pair` rounds each, as NDJSON lines.
pub fn fair_export(n_pairs: usize, rounds_per_pair: u64) -> Vec<String> {
    let games = games();
    let mut lines = Vec::new();
    for p in 0..n_pairs {
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&(p as u64).to_le_bytes());
        seed_bytes[31] = 0xa5;
        let seed = ServerSeed::from_bytes(seed_bytes);
        let client = ClientSeed::new(format!("player {p}")).expect("valid");
        let pair_id = format!("pair-{p:06}");
        lines.push(
            serde_json::to_string(&ExportPair {
                record: "seed_pair".into(),
                cursor: (p + 1).to_string(),
                id: pair_id.clone(),
                server_seed_hash: seed.commitment().to_string(),
                server_seed: seed.reveal_hex(),
                client_seed: client.as_str().into(),
                rounds: rounds_per_pair,
                created_at: "2026-11-22T00:00:00Z".into(),
                revealed_at: "2026-11-22T01:00:00Z".into(),
            })
            .expect("serialise"),
        );
        for nonce in 0..rounds_per_pair {
            let game = games[(nonce as usize + p) % games.len()];
            let dealt = deal(&seed, &client, nonce, game);
            lines.push(
                serde_json::to_string(&ExportRound {
                    record: "round".into(),
                    id: format!("round-{p:06}-{nonce:06}"),
                    seed_pair_id: pair_id.clone(),
                    protocol: "fairdeal-v1".into(),
                    server_seed_hash: seed.commitment().to_string(),
                    server_seed: seed.reveal_hex(),
                    client_seed: client.as_str().into(),
                    nonce,
                    game: RawValue::from_string(serde_json::to_string(&game).expect("game"))
                        .expect("raw"),
                    deal: RawValue::from_string(serde_json::to_string(&dealt).expect("deal"))
                        .expect("raw"),
                    created_at: "2026-11-22T00:30:00Z".into(),
                })
                .expect("serialise"),
            );
        }
    }
    lines.push(
        serde_json::to_string(&ExportEnd {
            record: "end".into(),
            seed_pairs: n_pairs as u64,
            rounds: n_pairs as u64 * rounds_per_pair,
        })
        .expect("serialise"),
    );
    lines
}
