//! The export generator: reads revealed pairs and their rounds from the store
//! and writes them in the export format (`crate::audit::export`).
//!
//! Pairs come in the order they were revealed (`reveal_seq`, assigned under a
//! lock at reveal), so a cursor never skips a later reveal.

use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::store::{PairRow, Store};
use crate::audit::export::{
    ExportEnd, ExportPair, ExportRound, ExportSeat, ExportVoid, RevealedPair,
};
use crate::time::timestamp;

fn revealed(pair: &PairRow) -> RevealedPair<'_> {
    RevealedPair {
        id: &pair.id,
        server_seed_hash: &pair.server_seed_hash,
        server_seed: pair.server_seed.as_deref().unwrap_or_default(),
        client_seed: pair.client_seed.as_deref().unwrap_or_default(),
    }
}

/// Streams the export after `after` into `lines` (one JSON text per line,
/// without the newline). Stops quietly when the receiver goes away.
pub async fn export(store: &Store, after: i64, lines: mpsc::Sender<String>) -> anyhow::Result<()> {
    const PAIRS_PER_QUERY: i64 = 100;
    const ROUNDS_PER_QUERY: i64 = 1000;
    let mut cursor = after;
    let (mut n_pairs, mut n_rounds) = (0u64, 0u64);
    loop {
        let pairs = store.revealed_pairs(cursor, PAIRS_PER_QUERY).await?;
        let Some(last) = pairs.last() else {
            let end = serde_json::to_string(&ExportEnd::new(n_pairs, n_rounds))?;
            let _ = lines.send(end).await;
            return Ok(());
        };
        cursor = last.reveal_seq.unwrap_or(cursor);
        for pair in &pairs {
            let mut record = ExportPair::new(
                revealed(pair),
                pair.reveal_seq.unwrap_or_default(),
                pair.next_nonce as u64,
                timestamp(pair.created_at),
                pair.revealed_at.map(timestamp).unwrap_or_default(),
            );
            if pair.seats.is_some() {
                let rows = store.seats(&pair.id).await?;
                let seats: Vec<ExportSeat> = rows
                    .into_iter()
                    .map(|s| ExportSeat {
                        seat: s.label,
                        commitment: s.commitment.unwrap_or_default(),
                        contribution: s.contribution.unwrap_or_default(),
                    })
                    .collect();
                record = match pair.void_phase.as_deref() {
                    Some(phase) => {
                        let stalled_seats = seats
                            .iter()
                            .filter(|s| match phase {
                                "commit" => s.commitment.is_empty(),
                                _ => s.contribution.is_empty(),
                            })
                            .map(|s| s.seat.clone())
                            .collect();
                        let void = ExportVoid {
                            phase: phase.to_owned(),
                            stalled_seats,
                        };
                        record.with_void_table(seats, void)
                    }
                    None => record.with_table(seats),
                };
            }
            let line = serde_json::to_string(&record)?;
            if lines.send(line).await.is_err() {
                return Ok(());
            }
            n_pairs += 1;
            let mut after_nonce = None;
            loop {
                let rounds = store
                    .rounds_of_pair(&pair.id, after_nonce, ROUNDS_PER_QUERY)
                    .await?;
                for row in &rounds {
                    let line = serde_json::to_string(&ExportRound::new(
                        revealed(pair),
                        row.id.clone(),
                        row.nonce as u64,
                        RawValue::from_string(row.game.clone())?,
                        RawValue::from_string(row.deal.clone())?,
                        timestamp(row.created_at),
                    ))?;
                    if lines.send(line).await.is_err() {
                        return Ok(());
                    }
                    n_rounds += 1;
                }
                match rounds.last() {
                    Some(last) if rounds.len() as i64 == ROUNDS_PER_QUERY => {
                        after_nonce = Some(last.nonce)
                    }
                    _ => break,
                }
            }
        }
    }
}
