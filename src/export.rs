//! The export: every revealed seed pair and its rounds as NDJSON, the format
//! `fairdeal audit` reads.
//!
//! Order: pairs in the order they were revealed (`reveal_seq`), each pair's
//! line followed by its rounds by nonce. Each pair line carries a `cursor`;
//! passing the last complete pair's cursor as `after` resumes the export just
//! after it. Every round line repeats its pair's seeds and commitment, so a
//! line can be checked on its own. Unrevealed pairs never appear: their deals
//! are secret.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::http::wire::timestamp;
use crate::store::{PairRow, Store};

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

fn pair_line(pair: &PairRow) -> anyhow::Result<String> {
    Ok(serde_json::to_string(&ExportPair {
        record: "seed_pair".to_owned(),
        cursor: pair.reveal_seq.unwrap_or_default().to_string(),
        id: pair.id.clone(),
        server_seed_hash: pair.server_seed_hash.clone(),
        server_seed: pair.server_seed.clone().unwrap_or_default(),
        client_seed: pair.client_seed.clone().unwrap_or_default(),
        rounds: pair.next_nonce as u64,
        created_at: timestamp(pair.created_at),
        revealed_at: pair.revealed_at.map(timestamp).unwrap_or_default(),
    })?)
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
            let end = serde_json::to_string(&ExportEnd {
                record: "end".to_owned(),
                seed_pairs: n_pairs,
                rounds: n_rounds,
            })?;
            let _ = lines.send(end).await;
            return Ok(());
        };
        cursor = last.reveal_seq.unwrap_or(cursor);
        for pair in &pairs {
            if lines.send(pair_line(pair)?).await.is_err() {
                return Ok(());
            }
            n_pairs += 1;
            let mut after_nonce = None;
            loop {
                let rounds = store
                    .rounds_of_pair(&pair.id, after_nonce, ROUNDS_PER_QUERY)
                    .await?;
                for row in &rounds {
                    let line = serde_json::to_string(&ExportRound {
                        record: "round".to_owned(),
                        id: row.id.clone(),
                        seed_pair_id: pair.id.clone(),
                        protocol: fairdeal_core::PROTOCOL.to_owned(),
                        server_seed_hash: pair.server_seed_hash.clone(),
                        server_seed: pair.server_seed.clone().unwrap_or_default(),
                        client_seed: pair.client_seed.clone().unwrap_or_default(),
                        nonce: row.nonce as u64,
                        game: RawValue::from_string(row.game.clone())?,
                        deal: RawValue::from_string(row.deal.clone())?,
                        created_at: timestamp(row.created_at),
                    })?;
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
