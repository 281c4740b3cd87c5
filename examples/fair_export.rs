//! Writes a fair export (the NDJSON of `GET /v1/export`) of any size, straight
//! from the protocol library, for measuring `fairdeal audit` on large inputs.
//!
//! cargo run --release --example fair_export -- PAIRS ROUNDS_PER_PAIR [TAMPER_LINE] > export.ndjson
//!
//! With TAMPER_LINE, that line's round gets two cards swapped, as a dishonest
//! operator's record would.

use std::io::{BufWriter, Write};

use fairdeal::export::{ExportEnd, ExportPair, ExportRound};
use fairdeal_core::{ClientSeed, Game, ServerSeed, deal};
use serde_json::value::RawValue;

fn main() -> anyhow::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let (pairs, per_pair) = match args[..] {
        [p, r, ..] => (p, r),
        _ => anyhow::bail!("usage: fair_export PAIRS ROUNDS_PER_PAIR [TAMPER_LINE]"),
    };
    let tamper = args.get(2).copied();
    let games = [
        Game::holdem(6)?,
        Game::hands(4, 5, 1)?,
        Game::deck(1)?,
        Game::omaha(3)?,
    ];
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut line = 0u64;
    for p in 0..pairs {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&p.to_le_bytes());
        bytes[8] = 0x5d;
        let seed = ServerSeed::from_bytes(bytes);
        let client = ClientSeed::new(format!("player {p}"))?;
        let pair_id = format!("pair-{p:08}");
        line += 1;
        serde_json::to_writer(
            &mut out,
            &ExportPair {
                record: "seed_pair".into(),
                cursor: (p + 1).to_string(),
                id: pair_id.clone(),
                server_seed_hash: seed.commitment().to_string(),
                server_seed: seed.reveal_hex(),
                client_seed: client.as_str().into(),
                rounds: per_pair,
                created_at: "2026-11-22T00:00:00Z".into(),
                revealed_at: "2026-11-22T01:00:00Z".into(),
            },
        )?;
        out.write_all(b"\n")?;
        for nonce in 0..per_pair {
            line += 1;
            let game = games[((nonce + p) % 4) as usize];
            let mut dealt = serde_json::to_value(deal(&seed, &client, nonce, game))?;
            if tamper == Some(line) {
                let list = if dealt.get("deck").is_some() {
                    "deck"
                } else {
                    "board"
                };
                if let Some(cards) = dealt.get_mut(list).and_then(|c| c.as_array_mut()) {
                    cards.swap(0, 1);
                } else if let Some(rest) = dealt.get_mut("rest").and_then(|c| c.as_array_mut()) {
                    rest.swap(0, 1);
                }
            }
            serde_json::to_writer(
                &mut out,
                &ExportRound {
                    record: "round".into(),
                    id: format!("round-{p:08}-{nonce:06}"),
                    seed_pair_id: pair_id.clone(),
                    protocol: "fairdeal-v1".into(),
                    server_seed_hash: seed.commitment().to_string(),
                    server_seed: seed.reveal_hex(),
                    client_seed: client.as_str().into(),
                    nonce,
                    game: RawValue::from_string(serde_json::to_string(&game)?)?,
                    deal: RawValue::from_string(dealt.to_string())?,
                    created_at: "2026-11-22T00:30:00Z".into(),
                },
            )?;
            out.write_all(b"\n")?;
        }
    }
    serde_json::to_writer(
        &mut out,
        &ExportEnd {
            record: "end".into(),
            seed_pairs: pairs,
            rounds: pairs * per_pair,
        },
    )?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}
