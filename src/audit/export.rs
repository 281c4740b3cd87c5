//! The export format: every revealed seed pair and its rounds as NDJSON, what
//! the service writes (`crate::service::export`) and `fairdeal audit` reads.
//! Records are built only through the constructors here, by the service and
//! by the tests' fair exports alike.
//!
//! Order: pairs in the order they were revealed (`reveal_seq`), each pair's
//! line followed by its rounds by nonce. Each pair line carries a `cursor`;
//! passing the last complete pair's cursor as `after` resumes the export just
//! after it. Every round line repeats its pair's seeds and commitment, so a
//! line can be checked on its own. Unrevealed pairs never appear: their deals
//! are secret.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A revealed seed pair.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportPair {
    /// Always `seed_pair`.
    #[serde(rename = "type")]
    pub record: String,
    /// Resume after this pair with `after=<cursor>`.
    pub cursor: String,
    pub id: String,
    pub server_seed_hash: String,
    pub server_seed: String,
    pub client_seed: String,
    /// How many rounds the pair dealt: its rounds are nonces 0 to this − 1.
    pub rounds: u64,
    pub created_at: String,
    pub revealed_at: String,
}

/// One round of a revealed pair.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportRound {
    /// Always `round`.
    #[serde(rename = "type")]
    pub record: String,
    pub id: String,
    pub seed_pair_id: String,
    pub protocol: String,
    pub server_seed_hash: String,
    pub server_seed: String,
    pub client_seed: String,
    pub nonce: u64,
    pub game: Box<RawValue>,
    pub deal: Box<RawValue>,
    pub created_at: String,
}

/// The last line of a complete export. Without it, the export was cut off:
/// resume with the last pair line's cursor.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportEnd {
    /// Always `end`.
    #[serde(rename = "type")]
    pub record: String,
    pub seed_pairs: u64,
    pub rounds: u64,
}

/// Parses a cursor (`after`), or says what is wrong with it.
pub fn parse_cursor(text: &str) -> Result<i64, String> {
    text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
        format!("must be a cursor from an earlier export (a whole number); got {text:?}")
    })
}

/// What a pair line and each of its round lines repeat, so that a line can be
/// checked on its own.
#[derive(Clone, Copy, Debug)]
pub struct RevealedPair<'a> {
    pub id: &'a str,
    pub server_seed_hash: &'a str,
    pub server_seed: &'a str,
    pub client_seed: &'a str,
}

impl ExportPair {
    /// The line of a revealed pair that dealt `rounds` rounds.
    pub fn new(
        pair: RevealedPair<'_>,
        cursor: i64,
        rounds: u64,
        created_at: String,
        revealed_at: String,
    ) -> Self {
        Self {
            record: "seed_pair".to_owned(),
            cursor: cursor.to_string(),
            id: pair.id.to_owned(),
            server_seed_hash: pair.server_seed_hash.to_owned(),
            server_seed: pair.server_seed.to_owned(),
            client_seed: pair.client_seed.to_owned(),
            rounds,
            created_at,
            revealed_at,
        }
    }
}

impl ExportRound {
    /// The line of one round of `pair`; `game` and `deal` are their JSON.
    pub fn new(
        pair: RevealedPair<'_>,
        id: String,
        nonce: u64,
        game: Box<RawValue>,
        deal: Box<RawValue>,
        created_at: String,
    ) -> Self {
        Self {
            record: "round".to_owned(),
            id,
            seed_pair_id: pair.id.to_owned(),
            protocol: fairdeal_core::PROTOCOL.to_owned(),
            server_seed_hash: pair.server_seed_hash.to_owned(),
            server_seed: pair.server_seed.to_owned(),
            client_seed: pair.client_seed.to_owned(),
            nonce,
            game,
            deal,
            created_at,
        }
    }
}

impl ExportEnd {
    /// The closing line of a complete export.
    pub fn new(seed_pairs: u64, rounds: u64) -> Self {
        Self {
            record: "end".to_owned(),
            seed_pairs,
            rounds,
        }
    }
}
