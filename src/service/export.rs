//! The export generator: reads revealed pairs and their rounds from the store
//! and writes them in the export format (`crate::audit::export`).
//!
//! Pairs come in the order they were revealed (`reveal_seq`, assigned under a
//! lock at reveal), so a cursor never skips a later reveal.

use fairdeal_core::PairProtocol;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::store::{Order, PairRow, Store};
use crate::audit::export::{
    ExportDraw, ExportDrawLines, ExportEnd, ExportPair, ExportRound, ExportSeat, ExportVoid,
    LogCoverage, RevealedPair,
};

/// What an export holds beyond pairs, rounds and draws.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions {
    /// Each drawn draw's entrant list, when the service holds it, in
    /// `draw_lines` records after its `draw` line.
    pub draw_lines: bool,
}

/// Lines a `draw_lines` record holds at most.
const LINES_PER_RECORD: u64 = 8192;
use crate::time::timestamp;

fn revealed(pair: &PairRow) -> RevealedPair<'_> {
    RevealedPair {
        id: &pair.id,
        server_seed_hash: &pair.server_seed_hash,
        server_seed: pair.server_seed.as_deref().unwrap_or_default(),
        client_seed: pair.client_seed.as_deref().unwrap_or_default(),
    }
}

/// Writes every drawn draw into `lines`, oldest first; how many (`None`
/// when the receiver went away).
async fn export_draws(
    store: &Store,
    lines: &mpsc::Sender<String>,
    options: ExportOptions,
) -> anyhow::Result<Option<u64>> {
    const DRAWS_PER_QUERY: i64 = 100;
    let (mut after, mut count) = (0i64, 0u64);
    loop {
        let draws = store.drawn_draws(after, DRAWS_PER_QUERY).await?;
        let Some(last) = draws.last() else {
            return Ok(Some(count));
        };
        after = last.seq;
        for draw in &draws {
            let record = ExportDraw {
                record: "draw".to_owned(),
                id: draw.id.clone(),
                protocol: fairdeal_core::DRAW_PROTOCOL.to_owned(),
                entries_sha256: draw.entries_sha256.clone().unwrap_or_default(),
                entries: draw.entries.unwrap_or_default() as u64,
                winners: draw.winners as u64,
                server_seed_hash: draw.server_seed_hash.clone().unwrap_or_default(),
                server_seed: draw.server_seed.clone().unwrap_or_default(),
                client_seed: draw.client_seed.clone().unwrap_or_default(),
                client_seed_source: draw.client_seed_source.clone(),
                result: draw
                    .winner_indices()?
                    .unwrap_or_default()
                    .into_iter()
                    .map(u64::from)
                    .collect(),
                created_at: timestamp(draw.created_at),
                drawn_at: draw.drawn_at.map(timestamp).unwrap_or_default(),
            };
            if lines.send(serde_json::to_string(&record)?).await.is_err() {
                return Ok(None);
            }
            count += 1;
            if options.draw_lines && draw.entries_uploaded {
                let total = draw.entries.unwrap_or_default() as u64;
                let mut from = 0u64;
                while from < total {
                    let chunk = store.draw_lines(draw.seq, from, LINES_PER_RECORD).await?;
                    anyhow::ensure!(
                        !chunk.is_empty(),
                        "draw {}'s list has lines missing from {from}",
                        draw.id
                    );
                    let n = chunk.len() as u64;
                    let record = ExportDrawLines {
                        record: "draw_lines".to_owned(),
                        draw: draw.id.clone(),
                        from,
                        lines: chunk.into_iter().map(|(_, line)| line).collect(),
                    };
                    if lines.send(serde_json::to_string(&record)?).await.is_err() {
                        return Ok(None);
                    }
                    from += n;
                }
            }
        }
    }
}

/// Streams the export after `after` into `lines` (one JSON text per line,
/// without the newline). Stops quietly when the receiver goes away.
pub async fn export(
    store: &Store,
    after: i64,
    options: ExportOptions,
    lines: mpsc::Sender<String>,
) -> anyhow::Result<()> {
    const PAIRS_PER_QUERY: i64 = 100;
    const ROUNDS_PER_QUERY: i64 = 1000;
    let mut cursor = after;
    let (mut n_pairs, mut n_rounds) = (0u64, 0u64);
    // The log's reveals this export covers, from the entry after the
    // cursor's pair's reveal to the log's size read just before the last
    // page, the empty one. Every pair revealed before that size was
    // committed then, with a reveal_seq above the pages read before
    // (reveal_seq follows the log's order): had it not been exported yet,
    // the last page would have found it. And every pair exported was
    // revealed before it. So the export holds exactly the pairs revealed in
    // that span.
    loop {
        let (log_size, _) = store.log_sizes().await?;
        let pairs = store.revealed_pairs(cursor, PAIRS_PER_QUERY).await?;
        let Some(last) = pairs.last() else {
            // Then every drawn draw (the cursor pages pairs only: each
            // export lists every draw, which an audit recomputes whole).
            let Some(n_draws) = export_draws(store, &lines, options).await? else {
                return Ok(());
            };
            // From the entry after the last reveal at or before the cursor,
            // read now: a pair revealed while the export ran under a cursor
            // past the last pair's is then behind it too.
            let log_from = match after {
                0 => 0,
                after => store
                    .reveal_log_index_through(after)
                    .await?
                    .map_or(0, |index| index as u64 + 1),
            };
            let end = ExportEnd::new(n_pairs, n_rounds)
                .with_draws(n_draws)
                .covering(LogCoverage {
                    from: log_from,
                    size: log_size,
                });
            let _ = lines.send(serde_json::to_string(&end)?).await;
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
            if let Some(length) = pair.protocol().chain_length() {
                record = record.with_chain(length.get());
            }
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
                    .rounds_of_pair(&pair.id, after_nonce, Order::Oldest, ROUNDS_PER_QUERY)
                    .await?;
                for row in &rounds {
                    let (id, nonce) = (row.id.clone(), row.nonce as u64);
                    let game = RawValue::from_string(row.game.clone())?;
                    let deal = RawValue::from_string(row.deal.clone())?;
                    let created_at = timestamp(row.created_at);
                    // A revealed chain pair's rounds were all published
                    // before it could rotate; a seed missing all the same
                    // is written empty, for the audit to name.
                    let record =
                        ExportRound::new(revealed(pair), id, nonce, game, deal, created_at);
                    let record = match pair.protocol() {
                        PairProtocol::V1 => record,
                        PairProtocol::Chain(_) => {
                            record.in_chain(row.server_seed.as_deref().unwrap_or_default())
                        }
                    };
                    let line = serde_json::to_string(&record)?;
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
