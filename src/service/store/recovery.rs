//! Recovery after a restore (`fairdeal recover`): the log entries a restored
//! database lost, appended again at their own indexes from the log mirror,
//! and the rounds they record stored again, in one transaction.

use super::Store;
use super::rows::RoundStatus;

/// A round the log recorded and the restored database lost, dealt again
/// from the seeds the database still holds (the same cards: the deal is a
/// function of the seeds, the nonce and the game).
#[derive(Debug)]
pub struct RestoredRound {
    pub id: String,
    pub pair_id: String,
    pub nonce: u64,
    /// The game as stored (JSON).
    pub game: String,
    /// The deal, sealed under the master key (its pair is not revealed).
    pub deal_sealed: Vec<u8>,
    pub created_at: i64,
    /// Its `round` entry.
    pub log_index: u64,
    /// A chain round whose seed was published (its `round_seed` entry was
    /// lost too): the seed, the deal in the clear, the entry's index.
    pub published: Option<(String, String, u64)>,
}

/// A chain round the restored database holds whose seed was published
/// after the backup (its `round_seed` entry was lost): the seed, the deal
/// in the clear and the entry's index, to store as the close did.
#[derive(Debug)]
pub struct LostSeed {
    pub round_id: String,
    pub pair_id: String,
    pub nonce: u64,
    pub server_seed: String,
    pub deal: String,
    pub log_index: u64,
    pub closed_at: i64,
}

/// A chain pair's published rounds raised to `$2` (never lowered).
const RAISE_CHAIN_PUBLISHED: &str =
    "UPDATE seed_pairs SET chain_published = $2 WHERE id = $1 AND chain_published < $2";

impl Store {
    /// Appends `entries` again at indexes `from`, `from + 1`, … (the
    /// database must hold exactly `from`), stores `rounds` (each pair's
    /// next nonce past its rounds) and the `seeds` published for rounds it
    /// held, and marks `lost_draws` (id, first lost entry) never to draw, in one transaction: a restore is recovered
    /// all at once or not at all.
    pub async fn restore_log(
        &self,
        from: u64,
        entries: &[Vec<u8>],
        rounds: &[RestoredRound],
        seeds: &[LostSeed],
        lost_draws: &[(String, u64)],
        witness_set: Option<&str>,
    ) -> anyhow::Result<()> {
        const INSERT: &str = "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, deal_sealed, \
             status, created_at, closed_at, log_index, server_seed, seed_log_index) \
             VALUES ($1, $2, $3, $4, COALESCE($5, ''), $6, $7, $8, $12, $9, $10, $11)";
        write_tx!(self, |tx| {
            let (next,): (i64,) = sqlx::query_as("SELECT next_index FROM log_state WHERE id = 1")
                .fetch_one(&mut *tx)
                .await?;
            anyhow::ensure!(
                next as u64 == from,
                "the database's log holds {next} entries, not {from}: another process wrote to it; \
                 stop every process and run the recovery again"
            );
            for (offset, entry) in entries.iter().enumerate() {
                sqlx::query("INSERT INTO log_entries (idx, entry) VALUES ($1, $2)")
                    .bind((from + offset as u64) as i64)
                    .bind(entry)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query("UPDATE log_state SET next_index = $1 WHERE id = 1")
                .bind((from + entries.len() as u64) as i64)
                .execute(&mut *tx)
                .await?;
            for round in rounds {
                let (server_seed, deal, seed_index) = match &round.published {
                    Some((seed, deal, index)) => (
                        Some(seed.as_str()),
                        Some(deal.as_str()),
                        Some(*index as i64),
                    ),
                    None => (None, None, None),
                };
                // A round whose seed the log did not publish is stored in
                // play: recovery ends its pair, and closing it first
                // publishes a chain round's seed as any close does.
                let status = match round.published {
                    Some(_) => RoundStatus::Closed,
                    None => RoundStatus::InPlay,
                };
                sqlx::query(INSERT)
                    .bind(&round.id)
                    .bind(&round.pair_id)
                    .bind(round.nonce as i64)
                    .bind(&round.game)
                    .bind(deal)
                    .bind(deal.is_none().then_some(round.deal_sealed.as_slice()))
                    .bind(status.as_str())
                    .bind(round.created_at)
                    .bind(round.log_index as i64)
                    .bind(server_seed)
                    .bind(seed_index)
                    .bind((status == RoundStatus::Closed).then_some(round.created_at))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE seed_pairs SET next_nonce = $2 WHERE id = $1 AND next_nonce < $2",
                )
                .bind(&round.pair_id)
                .bind(round.nonce as i64 + 1)
                .execute(&mut *tx)
                .await?;
                if round.published.is_some() {
                    sqlx::query(RAISE_CHAIN_PUBLISHED)
                        .bind(&round.pair_id)
                        .bind(round.nonce as i64 + 1)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            for seed in seeds {
                sqlx::query(
                    "UPDATE rounds SET server_seed = $2, deal = $3, deal_sealed = NULL, \
                     seed_log_index = $4, status = $5, closed_at = COALESCE(closed_at, $6) \
                     WHERE id = $1",
                )
                .bind(&seed.round_id)
                .bind(&seed.server_seed)
                .bind(&seed.deal)
                .bind(seed.log_index as i64)
                .bind(RoundStatus::Closed.as_str())
                .bind(seed.closed_at)
                .execute(&mut *tx)
                .await?;
                sqlx::query(RAISE_CHAIN_PUBLISHED)
                    .bind(&seed.pair_id)
                    .bind(seed.nonce as i64 + 1)
                    .execute(&mut *tx)
                    .await?;
            }
            // The witness set the last lost `witness_set` entry states:
            // the set the processes followed, not the backup's.
            if let Some(set) = witness_set {
                sqlx::query(super::UPSERT_SETTING)
                    .bind(crate::service::log::witness_set::SETTING)
                    .bind(set)
                    .execute(&mut *tx)
                    .await?;
            }
            for (draw, index) in lost_draws {
                sqlx::query(
                    "UPDATE draws SET lost_log_index = $2 \
                     WHERE id = $1 AND status <> 'drawn' AND lost_log_index IS NULL",
                )
                .bind(draw)
                .bind(*index as i64)
                .execute(&mut *tx)
                .await?;
            }
            anyhow::Ok(())
        })?;
        Ok(())
    }

    /// Appends `entries` to the log in one transaction (above the floor,
    /// as every append).
    pub async fn append_entries(&self, entries: &[Vec<u8>]) -> anyhow::Result<()> {
        write_tx!(self, |tx| {
            for entry in entries {
                append_log_entry!(self.log_floor(), tx, entry);
            }
            anyhow::Ok(())
        })?;
        Ok(())
    }

    /// A chain pair's first sealed seed above `position`: its position and
    /// sealed bytes.
    pub async fn chain_anchor_above(
        &self,
        pair_id: &str,
        position: u64,
    ) -> Result<Option<(u64, Vec<u8>)>, sqlx::Error> {
        let row: Option<(i64, Vec<u8>)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT position, seed_sealed FROM chain_anchors \
                 WHERE seed_pair_id = $1 AND position > $2 ORDER BY position LIMIT 1",
            )
            .bind(pair_id)
            .bind(position as i64)
            .fetch_optional(pool)
            .await
        })?;
        Ok(row.map(|(position, sealed)| (position as u64, sealed)))
    }
}
