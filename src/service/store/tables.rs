//! Table pairs (fairdeal-table-v1): each seat commits, then reveals; the last
//! reveal derives the pair's client seed; a seat that stalls past its
//! phase's deadline voids the pair.
//!
//! Every change locks the pair row first (`UPDATE … SET next_nonce =
//! next_nonce`), so a seat's commitment, a reveal and the deadline sweep
//! never interleave: whichever comes first decides, and the others see it.

use sqlx::FromRow;

use super::Store;
use super::rows::{PairRow, PairStatus};

/// One seat of a table pair, as stored.
#[derive(Clone, Debug, FromRow)]
pub struct SeatRow {
    pub position: i64,
    pub label: String,
    pub commitment: Option<String>,
    pub contribution: Option<String>,
    pub committed_at: Option<i64>,
    pub contributed_at: Option<i64>,
    pub commitment_log_index: Option<i64>,
    pub contribution_log_index: Option<i64>,
}

macro_rules! seat_columns {
    () => {
        "position, label, commitment, contribution, committed_at, contributed_at, \
         commitment_log_index, contribution_log_index"
    };
}

/// Which phase a table awaiting contributions is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Some seat has not committed yet.
    Commit,
    /// Every seat has committed; some has not revealed.
    Reveal,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Commit => "commit",
            Phase::Reveal => "reveal",
        }
    }

    /// The phase the seats are in.
    pub fn of(seats: &[SeatRow]) -> Self {
        if seats.iter().any(|s| s.commitment.is_none()) {
            Phase::Commit
        } else {
            Phase::Reveal
        }
    }
}

/// Why a seat's commitment or contribution was not taken.
#[derive(Debug)]
pub enum SeatRefused {
    /// No such pair.
    NotFound,
    /// The pair is not a table.
    NotATable,
    /// No seat with that label.
    UnknownSeat,
    /// The table is not collecting (active, revealed or void).
    NotCollecting(PairStatus),
    /// The phase's deadline passed (at this time, ms): the pair is due to be
    /// voided.
    PastDeadline(i64),
    /// A contribution before every seat has committed: these seats have not.
    NotEveryoneCommitted(Vec<String>),
    /// A commitment once every seat has committed (the reveal phase).
    CommitPhaseOver,
    /// The seat already committed to another value (its commitment).
    AlreadyCommitted(String),
    /// The contribution does not hash to the seat's commitment.
    Mismatch { commitment: String },
}

/// A seat's commitment or contribution taken (or found already taken, for
/// a retry with the same value).
#[derive(Debug)]
pub struct SeatTaken {
    pub pair: PairRow,
    pub seat: SeatRow,
    /// The log index of the entry it created (none for a retry).
    pub log_index: Option<i64>,
    /// A retry: the seat already held this value.
    pub retried: bool,
}

/// The outcome of a seat's commitment or contribution.
pub type SeatOutcome = Result<SeatTaken, SeatRefused>;

/// A seat's commitment to store.
#[derive(Debug)]
pub struct SeatCommitment<'a> {
    pub label: &'a str,
    pub commitment: &'a str,
    pub now: i64,
    /// When the reveal phase ends, should this be the last commitment.
    pub reveal_deadline: i64,
}

/// A seat's contribution to store: `commitment` is its SHA-256, which must
/// be the seat's commitment.
#[derive(Debug)]
pub struct SeatContribution<'a> {
    pub label: &'a str,
    pub contribution: &'a str,
    pub commitment: &'a str,
    pub now: i64,
}

/// The derived client seed and its log entry, made from every seat once all
/// have revealed.
#[derive(Debug)]
pub struct Derived {
    pub client_seed: String,
    pub log_entry: Vec<u8>,
}

/// A void: the revealed server seed and the void's log entry, made from the
/// pair (with its sealed seed) and its seats.
#[derive(Debug)]
pub struct Voiding {
    pub server_seed: String,
    pub log_entry: Vec<u8>,
}

const LOCK: &str = concat!(
    "UPDATE seed_pairs SET next_nonce = next_nonce WHERE id = $1 RETURNING ",
    pair_columns!()
);
const SEATS: &str = concat!(
    "SELECT ",
    seat_columns!(),
    " FROM table_seats WHERE seed_pair_id = $1 ORDER BY position"
);

/// Locks the pair and reads its seats on `$tx`; returns from the enclosing
/// function (with the transaction rolled back) unless the pair is a table.
macro_rules! lock_collecting_table {
    ($tx:ident, $pair_id:expr) => {{
        let Some(pair): Option<PairRow> = sqlx::query_as(LOCK)
            .bind($pair_id)
            .fetch_optional(&mut *$tx)
            .await?
        else {
            return Ok(Err(SeatRefused::NotFound));
        };
        if pair.seats.is_none() {
            return Ok(Err(SeatRefused::NotATable));
        }
        let seats: Vec<SeatRow> = sqlx::query_as(SEATS)
            .bind($pair_id)
            .fetch_all(&mut *$tx)
            .await?;
        (pair, seats)
    }};
}

/// Refuses (from the enclosing function) a void table, and one still
/// collecting past its deadline at `$now` — before anything else, so that
/// even a retry of a value already taken gets the truth: the table is void.
macro_rules! ensure_not_void_or_late {
    ($pair:expr, $now:expr) => {
        if $pair.status == PairStatus::Void {
            return Ok(Err(SeatRefused::NotCollecting($pair.status)));
        }
        if $pair.status == PairStatus::AwaitingContributions
            && let Some(deadline) = $pair.phase_deadline.filter(|d| $now > *d)
        {
            return Ok(Err(SeatRefused::PastDeadline(deadline)));
        }
    };
}

/// Refuses (from the enclosing function) a table that is not collecting or
/// is past its deadline at `$now`.
macro_rules! ensure_collecting {
    ($pair:expr, $now:expr) => {
        if $pair.status != PairStatus::AwaitingContributions {
            return Ok(Err(SeatRefused::NotCollecting($pair.status)));
        }
        if let Some(deadline) = $pair.phase_deadline.filter(|d| $now > *d) {
            return Ok(Err(SeatRefused::PastDeadline(deadline)));
        }
    };
}

/// Logs a seat's step (its commitment or its contribution: `$entry`) and
/// records it in the seat's row, `$set` naming the value's, the time's and
/// the log index's columns ($3, $4, $5); the updated row and the index.
macro_rules! record_seat_step {
    ($floor:expr, $tx:ident, ($pair_id:expr, $position:expr, $value:expr, $now:expr), $entry:expr, $set:literal) => {{
        let index = append_log_entry!($floor, $tx, $entry);
        let row: SeatRow = sqlx::query_as(concat!(
            "UPDATE table_seats SET ",
            $set,
            " WHERE seed_pair_id = $1 AND position = $2 RETURNING ",
            seat_columns!()
        ))
        .bind($pair_id)
        .bind($position)
        .bind($value)
        .bind($now)
        .bind(index)
        .fetch_one(&mut *$tx)
        .await?;
        (row, index)
    }};
}

impl Store {
    /// A pair's seats in seat order (none for a one-player pair).
    pub async fn seats(&self, pair_id: &str) -> Result<Vec<SeatRow>, sqlx::Error> {
        with_pool!(self, |pool| sqlx::query_as(SEATS)
            .bind(pair_id)
            .fetch_all(pool)
            .await)
    }

    /// How many of the tenant's tables were voided that had the same set
    /// of seats as `pair` (in any order) or its label.
    pub async fn voids_like(&self, pair: &PairRow) -> Result<i64, sqlx::Error> {
        let (n,): (i64,) = with_pool!(self, |pool| sqlx::query_as(
            "SELECT COUNT(*) FROM seed_pairs WHERE tenant = $1 AND status = $2 \
             AND (seats_key = $3 OR (CAST($4 AS TEXT) IS NOT NULL AND label = $4))"
        )
        .bind(&pair.tenant)
        .bind(PairStatus::Void.as_str())
        .bind(&pair.seats_key)
        .bind(&pair.label)
        .fetch_one(pool)
        .await)?;
        Ok(n)
    }

    /// Stores a seat's commitment, once, during the commit phase, with the
    /// log entry `entry(position)` makes for the seat's position. The last
    /// commitment starts the reveal phase (its deadline set).
    pub async fn commit_seat<F>(
        &self,
        pair_id: &str,
        seat: SeatCommitment<'_>,
        entry: F,
    ) -> anyhow::Result<SeatOutcome>
    where
        F: Fn(u32) -> anyhow::Result<Vec<u8>>,
    {
        Ok(write_tx!(self, |tx| {
            let (pair, seats) = lock_collecting_table!(tx, pair_id);
            let Some(row) = seats.iter().find(|s| s.label == seat.label) else {
                return Ok(Err(SeatRefused::UnknownSeat));
            };
            ensure_not_void_or_late!(pair, seat.now);
            if let Some(held) = &row.commitment {
                // The same commitment again is a retry, in any phase.
                if held == seat.commitment {
                    return Ok(Ok(SeatTaken {
                        seat: row.clone(),
                        pair,
                        log_index: None,
                        retried: true,
                    }));
                }
                if pair.status == PairStatus::AwaitingContributions {
                    return Ok(Err(SeatRefused::AlreadyCommitted(held.clone())));
                }
            }
            ensure_collecting!(pair, seat.now);
            if Phase::of(&seats) == Phase::Reveal {
                return Ok(Err(SeatRefused::CommitPhaseOver));
            }
            let (row, index) = record_seat_step!(
                self.log_floor(),
                tx,
                (pair_id, row.position, seat.commitment, seat.now),
                entry(row.position as u32)?,
                "commitment = $3, committed_at = $4, commitment_log_index = $5"
            );
            let waiting = seats
                .iter()
                .filter(|s| s.commitment.is_none() && s.position != row.position)
                .count();
            let pair = if waiting == 0 {
                sqlx::query_as(concat!(
                    "UPDATE seed_pairs SET phase_deadline = $2 WHERE id = $1 RETURNING ",
                    pair_columns!()
                ))
                .bind(pair_id)
                .bind(seat.reveal_deadline)
                .fetch_one(&mut *tx)
                .await?
            } else {
                pair
            };
            Ok(SeatTaken {
                pair,
                seat: row,
                log_index: Some(index),
                retried: false,
            })
        }))
    }

    /// Stores a seat's contribution, once every seat has committed, with
    /// the log entry `entry(position)` makes; it must hash to the seat's
    /// commitment. The last contribution derives the client seed with
    /// `derive(seats)` and makes the pair active.
    pub async fn reveal_seat<E, F>(
        &self,
        pair_id: &str,
        seat: SeatContribution<'_>,
        entry: E,
        derive: F,
    ) -> anyhow::Result<SeatOutcome>
    where
        E: Fn(u32) -> anyhow::Result<Vec<u8>>,
        F: Fn(&[SeatRow]) -> anyhow::Result<Derived>,
    {
        Ok(write_tx!(self, |tx| {
            let (pair, seats) = lock_collecting_table!(tx, pair_id);
            let Some(row) = seats.iter().find(|s| s.label == seat.label) else {
                return Ok(Err(SeatRefused::UnknownSeat));
            };
            ensure_not_void_or_late!(pair, seat.now);
            if let (Some(held), Some(commitment)) = (&row.contribution, &row.commitment) {
                // Only the same contribution hashes to the commitment.
                return Ok(if commitment == seat.commitment {
                    debug_assert_eq!(held, seat.contribution);
                    Ok(SeatTaken {
                        seat: row.clone(),
                        pair,
                        log_index: None,
                        retried: true,
                    })
                } else {
                    Err(SeatRefused::Mismatch {
                        commitment: commitment.clone(),
                    })
                });
            }
            ensure_collecting!(pair, seat.now);
            let uncommitted: Vec<String> = seats
                .iter()
                .filter(|s| s.commitment.is_none())
                .map(|s| s.label.clone())
                .collect();
            if !uncommitted.is_empty() {
                return Ok(Err(SeatRefused::NotEveryoneCommitted(uncommitted)));
            }
            let commitment = row.commitment.clone().unwrap_or_default();
            if commitment != seat.commitment {
                return Ok(Err(SeatRefused::Mismatch { commitment }));
            }
            let (row, index) = record_seat_step!(
                self.log_floor(),
                tx,
                (pair_id, row.position, seat.contribution, seat.now),
                entry(row.position as u32)?,
                "contribution = $3, contributed_at = $4, contribution_log_index = $5"
            );
            let mut all = seats;
            all[row.position as usize] = row.clone();
            let pair = if all.iter().all(|s| s.contribution.is_some()) {
                let derived = derive(&all)?;
                let seed_index = append_log_entry!(self.log_floor(), tx, &derived.log_entry);
                sqlx::query_as(concat!(
                    "UPDATE seed_pairs SET status = $2, client_seed = $3, phase_deadline = NULL, \
                     client_seed_log_index = $4 WHERE id = $1 RETURNING ",
                    pair_columns!()
                ))
                .bind(pair_id)
                .bind(PairStatus::Active.as_str())
                .bind(&derived.client_seed)
                .bind(seed_index)
                .fetch_one(&mut *tx)
                .await?
            } else {
                pair
            };
            Ok(SeatTaken {
                pair,
                seat: row,
                log_index: Some(index),
                retried: false,
            })
        }))
    }

    /// Tables whose phase ended before `now`, at most `limit`.
    pub async fn expired_tables(&self, now: i64, limit: i64) -> Result<Vec<String>, sqlx::Error> {
        let rows: Vec<(String,)> = with_pool!(self, |pool| sqlx::query_as(
            "SELECT id FROM seed_pairs WHERE status = $1 AND phase_deadline < $2 \
             ORDER BY phase_deadline LIMIT $3"
        )
        .bind(PairStatus::AwaitingContributions.as_str())
        .bind(now)
        .bind(limit)
        .fetch_all(pool)
        .await)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Voids the table if its phase ended before `now`: `void(pair, seats)`
    /// opens its seed and makes the log entry; the pair becomes `void` with
    /// its seed in the clear and the phase it stalled in. `None` when the
    /// pair is not due (missing, not collecting, or within its deadline).
    pub async fn void_table<F>(
        &self,
        pair_id: &str,
        now: i64,
        void: F,
    ) -> anyhow::Result<Option<PairRow>>
    where
        F: Fn(&PairRow, &[SeatRow]) -> anyhow::Result<Voiding>,
    {
        let is_postgres = matches!(self, Store::Postgres(..));
        Ok(write_tx!(self, |tx| {
            let Some(pair): Option<PairRow> = sqlx::query_as(LOCK)
                .bind(pair_id)
                .fetch_optional(&mut *tx)
                .await?
            else {
                return Ok(None);
            };
            if pair.status != PairStatus::AwaitingContributions
                || pair.phase_deadline.is_none_or(|d| now <= d)
            {
                return Ok(None);
            }
            let seats: Vec<SeatRow> = sqlx::query_as(SEATS)
                .bind(pair_id)
                .fetch_all(&mut *tx)
                .await?;
            let phase = Phase::of(&seats);
            let voiding = void(&pair, &seats)?;
            let index = append_log_entry!(self.log_floor(), tx, &voiding.log_entry);
            before_reveal!(tx, is_postgres, pair_id);
            let row: PairRow = sqlx::query_as(concat!(
                "UPDATE seed_pairs SET status = $2, server_seed = $3, server_seed_sealed = NULL, \
                 next_server_seed_sealed = NULL, revealed_at = $4, void_phase = $5, \
                 phase_deadline = NULL, reveal_log_index = $6, \
                 reveal_seq = (SELECT COALESCE(MAX(reveal_seq), 0) + 1 FROM seed_pairs) \
                 WHERE id = $1 RETURNING ",
                pair_columns!()
            ))
            .bind(pair_id)
            .bind(PairStatus::Void.as_str())
            .bind(&voiding.server_seed)
            .bind(now)
            .bind(phase.as_str())
            .bind(index)
            .fetch_one(&mut *tx)
            .await?;
            Some(row)
        }))
    }
}
