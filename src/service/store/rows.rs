//! What the store reads and writes: rows as stored, new rows to insert, and
//! the statuses as types. Times are milliseconds since the Unix epoch.

use std::fmt;

use serde::{Deserialize, Serialize};
use sqlx::FromRow;
use utoipa::ToSchema;

/// Where a seed pair is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairStatus {
    /// A table pair, committed: its seats commit to their contributions,
    /// then reveal them; the client seed is derived from them.
    AwaitingContributions,
    /// Committed; the player has not chosen the client seed yet.
    AwaitingClientSeed,
    /// Deals rounds.
    Active,
    /// Its server seed is public; it deals no more.
    Revealed,
    /// A table pair whose seat stalled past a deadline: it dealt nothing,
    /// and its server seed is public.
    Void,
}

/// Where a round is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundStatus {
    /// The game using this deal is not over: the pair cannot be revealed.
    InPlay,
    /// Over, by the operator or the auto-close timeout.
    Closed,
}

/// The text each status is stored and answered as, one table per type.
macro_rules! status_text {
    ($ty:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// Every status, in lifecycle order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// As stored in the database and written on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $text),+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl TryFrom<String> for $ty {
            type Error = String;
            fn try_from(text: String) -> Result<Self, String> {
                match text.as_str() {
                    $($text => Ok($ty::$variant),)+
                    _ => Err(format!("unknown {} {text:?}", stringify!($ty))),
                }
            }
        }
    };
}

status_text!(PairStatus {
    AwaitingContributions => "awaiting_contributions",
    AwaitingClientSeed => "awaiting_client_seed",
    Active => "active",
    Revealed => "revealed",
    Void => "void",
});

status_text!(RoundStatus {
    InPlay => "in_play",
    Closed => "closed",
});

/// A seed pair as stored.
#[derive(Clone, Debug, FromRow)]
pub struct PairRow {
    pub id: String,
    #[sqlx(try_from = "String")]
    pub status: PairStatus,
    pub server_seed_hash: String,
    pub server_seed_sealed: Option<Vec<u8>>,
    pub server_seed: Option<String>,
    pub next_server_seed_hash: String,
    pub next_server_seed_sealed: Option<Vec<u8>>,
    pub client_seed: Option<String>,
    pub next_nonce: i64,
    pub created_at: i64,
    pub revealed_at: Option<i64>,
    pub predecessor_id: Option<String>,
    pub successor_id: Option<String>,
    /// Position in the order of reveals (1, 2, …), once revealed.
    pub reveal_seq: Option<i64>,
    /// The tenant of the key that created the pair (or its first
    /// predecessor).
    pub tenant: String,
    /// The game backend's reference, for its operators only.
    pub label: Option<String>,
    /// Log indexes of the pair's `commit`, `client_seed` and `reveal`
    /// entries (none for pairs from before the log).
    pub commit_log_index: Option<i64>,
    pub client_seed_log_index: Option<i64>,
    pub reveal_log_index: Option<i64>,
    /// A table pair's number of seats; none for a one-player pair.
    pub seats: Option<i64>,
    /// When the current commit or reveal phase ends, while the table
    /// awaits contributions.
    pub phase_deadline: Option<i64>,
    /// The phase a void table stalled in (`commit` or `reveal`).
    pub void_phase: Option<String>,
    /// A table's set of seats, whatever their order
    /// ([`fairdeal_core::Seats`] → `seats_key`).
    pub seats_key: Option<String>,
    /// A fairdeal-chain-v1 pair's chain length N; none for a fairdeal-v1
    /// pair.
    pub chain_length: Option<i64>,
    /// How many of a chain pair's rounds, from nonce 0, have their seeds
    /// published (0 for a fairdeal-v1 pair).
    pub chain_published: i64,
}

impl PairRow {
    /// The revealed server seed (hex), only once the pair is revealed. The one
    /// place that decides whether a reader may see it.
    pub fn revealed_seed(&self) -> Option<&str> {
        match self.status {
            PairStatus::Revealed | PairStatus::Void => self.server_seed.as_deref(),
            PairStatus::AwaitingContributions
            | PairStatus::AwaitingClientSeed
            | PairStatus::Active => None,
        }
    }

    /// How the pair's rounds are dealt. The stored length is 1 or more
    /// (the column's CHECK) and at most the dealer's bound, far below the
    /// protocol's; one beyond it reads as the protocol's longest.
    pub fn protocol(&self) -> fairdeal_core::PairProtocol {
        use fairdeal_core::{ChainLength, MAX_CHAIN_LENGTH, PairProtocol};
        match self.chain_length {
            None => PairProtocol::V1,
            Some(length) => {
                let length = u64::try_from(length)
                    .unwrap_or(1)
                    .clamp(1, MAX_CHAIN_LENGTH);
                ChainLength::new(length).map_or(PairProtocol::V1, PairProtocol::Chain)
            }
        }
    }
}

/// A round as stored.
#[derive(Clone, Debug, FromRow)]
pub struct RoundRow {
    pub id: String,
    pub seed_pair_id: String,
    pub nonce: i64,
    pub game: String,
    /// The deal's JSON once the pair is revealed; empty while it is sealed.
    pub deal: String,
    /// The deal sealed under the master key, while the pair is unrevealed.
    pub deal_sealed: Option<Vec<u8>>,
    #[sqlx(try_from = "String")]
    pub status: RoundStatus,
    pub created_at: i64,
    pub closed_at: Option<i64>,
    pub idempotency_key: Option<String>,
    /// Log index of the round's entry.
    pub log_index: Option<i64>,
    /// A chain round's published seed `s_{k+1}` (hex), once it and every
    /// earlier round of its pair ended; none for a fairdeal-v1 round.
    pub server_seed: Option<String>,
    /// Log index of the entry that published it.
    pub seed_log_index: Option<i64>,
    /// The entry's bytes, when the round was just dealt (not a column): its
    /// receipt is signed from them without reading the log back.
    #[sqlx(skip)]
    pub log_entry: Option<Vec<u8>>,
}

/// An API key as stored (the secret itself is never stored).
#[derive(Clone, Debug, FromRow)]
pub struct KeyRow {
    pub id: String,
    pub name: String,
    /// Whose pairs the key sees and acts on.
    pub tenant: String,
    pub secret_hash: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
    /// When it was last used, to the minute ([`crate::service::keys::TOUCH_EVERY`]).
    pub last_used_at: Option<i64>,
}

/// A table's set of seats, whatever their order and however written
/// (`crate::tlog::entry::seat_set`): voids are counted per set.
pub fn seats_key(seats: &fairdeal_core::Seats) -> String {
    crate::tlog::entry::seat_set(seats.labels())
}

/// A new seed pair, its seeds already sealed.
#[derive(Debug)]
pub struct NewPair {
    pub id: String,
    pub status: PairStatus,
    pub server_seed_hash: String,
    pub server_seed_sealed: Vec<u8>,
    pub next_server_seed_hash: String,
    pub next_server_seed_sealed: Vec<u8>,
    pub client_seed: Option<String>,
    pub created_at: i64,
    pub predecessor_id: Option<String>,
    pub tenant: String,
    pub label: Option<String>,
    /// A table pair's seats, in seat order, and when its commit phase ends.
    pub table: Option<(fairdeal_core::Seats, i64)>,
    /// A chain pair's length and its sealed anchors (position, sealed seed).
    pub chain: Option<NewChain>,
}

/// The chain of a new fairdeal-chain-v1 pair: its length, and its seeds
/// every [`crate::service::dealer::chains::ANCHOR_SPACING`] positions and
/// at the tip, each sealed for its position.
#[derive(Clone, Debug)]
pub struct NewChain {
    pub length: u64,
    pub anchors: Vec<(u64, Vec<u8>)>,
}

/// A round to insert, made by the deal closure: its deal already sealed,
/// and its log entry.
#[derive(Debug)]
pub struct NewRound {
    pub id: String,
    pub game: String,
    pub deal_sealed: Vec<u8>,
    pub created_at: i64,
    pub log_entry: Vec<u8>,
}

// Column lists as macros so every query stays a compile-time literal (sqlx
// refuses SQL built at run time unless audited).
macro_rules! pair_columns {
    () => {
        "id, status, server_seed_hash, server_seed_sealed, server_seed, \
         next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at, \
         revealed_at, predecessor_id, successor_id, reveal_seq, tenant, label, \
         commit_log_index, client_seed_log_index, reveal_log_index, seats, phase_deadline, \
         void_phase, seats_key, chain_length, chain_published"
    };
}

macro_rules! round_columns {
    () => {
        "id, seed_pair_id, nonce, game, deal, deal_sealed, status, created_at, closed_at, \
         idempotency_key, log_index, server_seed, seed_log_index"
    };
}

macro_rules! key_columns {
    () => {
        "id, name, tenant, secret_hash, created_at, revoked_at, last_used_at"
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_stored_and_answered_as_the_same_text() {
        for &status in PairStatus::ALL {
            let text = status.as_str().to_owned();
            assert_eq!(serde_json::to_value(status).ok(), Some(text.clone().into()));
            assert_eq!(PairStatus::try_from(text), Ok(status));
        }
        for &status in RoundStatus::ALL {
            let text = status.as_str().to_owned();
            assert_eq!(serde_json::to_value(status).ok(), Some(text.clone().into()));
            assert_eq!(RoundStatus::try_from(text), Ok(status));
        }
        assert!(PairStatus::try_from("open".to_owned()).is_err());
    }
}
