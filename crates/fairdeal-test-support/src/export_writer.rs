//! Fair exports made straight from the protocol library (no server), in the
//! format of `GET /v1/export`, written as they are made: for
//! `examples/fair_export.rs`, and through `exports.rs` for the audit tests and
//! benchmarks.

use std::io::Write;

use fairdeal::audit::export::{ExportEnd, ExportPair, ExportRound, RevealedPair};
use fairdeal_core::{ClientSeed, Deal, Game, ServerSeed, deal};
use serde_json::value::RawValue;

/// The games dealt in turn.
fn games() -> Vec<Game> {
    vec![
        Game::holdem(6).expect("valid"),
        Game::hands(4, 5, 1).expect("valid"),
        Game::deck(1).expect("valid"),
        Game::omaha(3).expect("valid"),
    ]
}

/// Writes `n_pairs` revealed pairs of `rounds_per_pair` rounds each as NDJSON.
/// With `tamper_line` (1-based), that round's recorded deal has its first two
/// cards of the board, deck or rest swapped.
pub fn write_fair_export(
    out: &mut impl Write,
    n_pairs: u64,
    rounds_per_pair: u64,
    tamper_line: Option<u64>,
) -> anyhow::Result<()> {
    let games = games();
    let mut line = 0u64;
    let emit = |out: &mut dyn Write, text: String| -> anyhow::Result<()> {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    };
    for p in 0..n_pairs {
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&p.to_le_bytes());
        seed_bytes[31] = 0xa5;
        let seed = ServerSeed::from_bytes(seed_bytes);
        let client = ClientSeed::new(format!("player {p}"))?;
        let pair_id = format!("pair-{p:06}");
        let (commitment, revealed_seed) = (seed.commitment().to_string(), seed.reveal_hex());
        let revealed = RevealedPair {
            id: &pair_id,
            server_seed_hash: &commitment,
            server_seed: &revealed_seed,
            client_seed: client.as_str(),
        };
        line += 1;
        emit(
            out,
            serde_json::to_string(&ExportPair::new(
                revealed,
                (p + 1) as i64,
                rounds_per_pair,
                "2026-11-22T00:00:00Z".into(),
                "2026-11-22T01:00:00Z".into(),
            ))?,
        )?;
        for nonce in 0..rounds_per_pair {
            line += 1;
            let game = games[((nonce + p) % games.len() as u64) as usize];
            // Written as the service stores and exports a deal.
            let mut dealt = deal(&seed, &client, nonce, game);
            if tamper_line == Some(line) {
                match &mut dealt {
                    Deal::Board { board: cards, .. }
                    | Deal::Deck { deck: cards }
                    | Deal::Hands { rest: cards, .. } => cards.swap(0, 1),
                }
            }
            emit(
                out,
                serde_json::to_string(&ExportRound::new(
                    revealed,
                    format!("round-{p:06}-{nonce:06}"),
                    nonce,
                    RawValue::from_string(serde_json::to_string(&game)?)?,
                    RawValue::from_string(serde_json::to_string(&dealt)?)?,
                    "2026-11-22T00:30:00Z".into(),
                ))?,
            )?;
        }
    }
    emit(
        out,
        serde_json::to_string(&ExportEnd::new(n_pairs, n_pairs * rounds_per_pair))?,
    )?;
    Ok(())
}
