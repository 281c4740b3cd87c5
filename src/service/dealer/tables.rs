//! Table pairs (fairdeal-table-v1, docs/PROTOCOL.md §11) in domain words:
//! every seat commits to a secret contribution, then reveals it; the last
//! reveal derives the pair's client seed; a seat that stalls voids the pair.
//!
//! Order of events it guarantees:
//! - the server's commitment (the pair's `commit` entry, with its seats) is
//!   published before any seat commits;
//! - no contribution is accepted before every seat has committed, so no seat
//!   (nor the operator, who knows the server seed) can choose its
//!   contribution after seeing another's;
//! - the client seed is derived, logged and the pair made active in the
//!   transaction of the last reveal;
//! - a phase that runs out voids the pair and reveals its seed in one
//!   transaction: a void deals nothing.

use std::time::Duration;

use anyhow::Context;
use fairdeal_core::{Contribution, Seats, table_client_seed};

use super::{Dealer, client_seed_entry};
use crate::service::sealing::Slot;
use crate::service::store::{
    Derived, PairRow, Phase, SeatCommitment, SeatContribution, SeatOutcome, SeatRow, Voiding,
};
use crate::time::{now_ms, timestamp};
use crate::tlog::entry::Entry;

/// How long each phase (commit, then reveal) may take unless configured.
pub const DEFAULT_PHASE: Duration = Duration::from_secs(60);

/// Most expired tables voided per sweep query.
const VOIDS_PER_SWEEP: i64 = 100;

/// A seat's commitment as the wire gives it: 64 lowercase hex digits (the
/// SHA-256 of the seat's contribution), or the rule it breaks.
pub fn check_commitment(text: &str) -> Result<(), String> {
    if text.len() != 64 {
        return Err(format!(
            "must be 64 lowercase hex digits (the SHA-256 of the seat's contribution); it is {} characters",
            text.chars().count()
        ));
    }
    if let Some((i, c)) = text
        .char_indices()
        .find(|(_, c)| !matches!(c, '0'..='9' | 'a'..='f'))
    {
        return Err(format!(
            "must be 64 lowercase hex digits; character {} is {c:?}",
            i + 1
        ));
    }
    Ok(())
}

impl Dealer {
    /// How long each phase of a table takes.
    pub fn table_phase(&self) -> Duration {
        Duration::from_millis(self.table_phase_ms as u64)
    }

    /// Stores the commitment of the seat labelled `seat`.
    pub async fn commit_seat(
        &self,
        pair_id: &str,
        seat: &str,
        commitment: &str,
    ) -> anyhow::Result<SeatOutcome> {
        let now = now_ms();
        self.store
            .commit_seat(
                pair_id,
                SeatCommitment {
                    label: seat,
                    commitment,
                    now,
                    reveal_deadline: now.saturating_add(self.table_phase_ms),
                },
                |position| {
                    Entry::SeatCommitment {
                        seed_pair: pair_id.to_owned(),
                        seat: position,
                        commitment: commitment.to_owned(),
                        time: timestamp(now),
                    }
                    .to_bytes()
                },
            )
            .await
    }

    /// Stores the contribution of the seat labelled `seat`; the last one
    /// derives the pair's client seed and makes it active.
    pub async fn reveal_seat(
        &self,
        pair_id: &str,
        seat: &str,
        contribution: &Contribution,
    ) -> anyhow::Result<SeatOutcome> {
        let now = now_ms();
        let commitment = contribution.commitment();
        self.store
            .reveal_seat(
                pair_id,
                SeatContribution {
                    label: seat,
                    contribution: contribution.as_str(),
                    commitment: &commitment,
                    now,
                },
                |position| {
                    Entry::SeatContribution {
                        seed_pair: pair_id.to_owned(),
                        seat: position,
                        time: timestamp(now),
                    }
                    .to_bytes()
                },
                |seats| {
                    let client_seed = derive_client_seed(seats)?;
                    Ok(Derived {
                        log_entry: client_seed_entry(pair_id, &client_seed, now)?,
                        client_seed: client_seed.as_str().to_owned(),
                    })
                },
            )
            .await
    }

    /// Voids the table if its phase has run out: its seed is revealed, the
    /// seats that stalled are named in the log. `None` when it is not due.
    pub async fn void_if_due(&self, pair_id: &str, now: i64) -> anyhow::Result<Option<PairRow>> {
        self.store
            .void_table(pair_id, now, |pair, seats| {
                let sealed = pair
                    .server_seed_sealed
                    .as_deref()
                    .context("a table awaiting contributions without a sealed seed")?;
                let seed = self
                    .key
                    .open(sealed, &pair.id, Slot::Current)
                    .context("opening the table's server seed")?;
                let phase = Phase::of(seats);
                let stalled = seats
                    .iter()
                    .filter(|s| match phase {
                        Phase::Commit => s.commitment.is_none(),
                        Phase::Reveal => s.contribution.is_none(),
                    })
                    .map(|s| s.position as u32)
                    .collect();
                Ok(Voiding {
                    server_seed: seed.reveal_hex(),
                    log_entry: Entry::TableVoid {
                        seed_pair: pair.id.clone(),
                        phase: phase.as_str().to_owned(),
                        stalled_seats: stalled,
                        server_seed: seed.reveal_hex(),
                        time: timestamp(now),
                    }
                    .to_bytes()?,
                })
            })
            .await
    }

    /// Voids every table whose phase ran out before `now`; how many.
    pub async fn void_expired_tables(&self, now: i64) -> anyhow::Result<u64> {
        let mut voided = 0;
        loop {
            let due = self.store.expired_tables(now, VOIDS_PER_SWEEP).await?;
            for id in &due {
                if let Some(pair) = self.void_if_due(id, now).await? {
                    tracing::info!(seed_pair = %pair.id, phase = pair.void_phase.as_deref().unwrap_or(""), "table voided: a seat stalled past its deadline");
                    voided += 1;
                }
            }
            if (due.len() as i64) < VOIDS_PER_SWEEP {
                return Ok(voided);
            }
        }
    }
}

/// The client seed of a table whose every seat has revealed.
pub fn derive_client_seed(seats: &[SeatRow]) -> anyhow::Result<fairdeal_core::ClientSeed> {
    let labels = Seats::new(seats.iter().map(|s| s.label.clone()).collect())
        .context("a stored table's seats")?;
    let contributions = seats
        .iter()
        .map(|s| {
            Contribution::new(s.contribution.clone().unwrap_or_default())
                .context("a stored contribution")
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(table_client_seed(&labels, &contributions)?)
}
