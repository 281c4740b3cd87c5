//! Recovery after a restore, in domain words (`fairdeal recover`).
//!
//! A restored database holds a prefix of the log; the log mirror holds
//! every entry acknowledged or signed. Recovery:
//!
//! 1. appends the lost entries again, at their own indexes, from the
//!    mirror: the log keeps its origin and key, and every checkpoint signed
//!    after is consistent with every one signed before (no fork);
//! 2. stores again, in the same transaction, the rounds those entries
//!    record on pairs the database still holds: dealt again from the same
//!    seeds, nonce and game, they are the same cards, at the same nonces,
//!    so the pair's next nonce is past every hand anyone saw;
//! 3. ends (reveals) every pair the lost entries touched: their
//!    idempotency keys were lost, so a retry must not deal a second hand;
//!    a pair whose reveal the log already holds takes that reveal rather
//!    than logging another;
//! 4. makes the witness set the last lost `witness_set` entry states the
//!    database's again (the processes followed it; the backup's is older);
//! 5. says what could not be restored: pairs and draws made after the
//!    backup (their seeds were lost with it), rounds dealt with a client
//!    seed set after the backup (only its hash is logged), draws whose
//!    client seed or result is lost.
//!
//! While it runs, a `RECOVERING` file in the mirror holds every process's
//! writes refused; it lists the pairs still to end, so a recovery cut
//! short is finished by running it again.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Context;
use fairdeal_core::{ClientSeed, Game, SeedKey, compact_deal_with};
use serde::{Deserialize, Serialize};

use super::{Dealer, chains};
use crate::service::log::mirror::{LogMirror, Standing};
use crate::service::log::witness_set::WitnessSet;
use crate::service::sealing::Slot;
use crate::service::store::{CloseRound, LostSeed, PairStatus, RestoredRound, Rotate, RoundStatus};
use crate::time::{now_ms, parse_timestamp};
use crate::tlog::entry::LoggedWitness;

/// What a recovery did, and what it could not restore.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Recovery {
    /// Whether this run finished a recovery cut short (the report is the
    /// whole recovery's).
    pub resumed: bool,
    /// Entries the database held, and the mirror.
    pub database_entries: u64,
    pub mirrored_entries: u64,
    /// Entries appended again from the mirror.
    pub entries_restored: u64,
    /// Rounds stored again (same ids, nonces and cards).
    pub rounds_restored: Vec<String>,
    /// Rounds the log records that the database cannot deal again, and why.
    pub rounds_not_restored: Vec<(String, String)>,
    /// Pairs revealed because the lost entries touched them.
    pub pairs_ended: Vec<String>,
    /// Pairs revealed by an entry the log already held (lost with the
    /// database): stored as revealed, no second reveal logged.
    pub reveals_taken_from_log: Vec<String>,
    /// Pairs committed after the backup: their seeds were lost with it,
    /// their commitments stay unrevealed in the log.
    pub pairs_lost: Vec<String>,
    /// Successors opened by a rotation after the backup, with the seed the
    /// database still held as their predecessor's next: revealed now, so
    /// their hands can be checked (the rows themselves are lost).
    pub successors_revealed: Vec<String>,
    /// Chain rounds the database held whose seeds were published after
    /// the backup: stored with them again.
    pub round_seeds_restored: Vec<String>,
    /// Draws whose entries were lost: committed after the backup (seed
    /// lost), or given a client seed or drawn after it.
    pub draws_lost: Vec<String>,
    /// The witness set a lost `witness_set` entry stated, made the
    /// database's again (as [`WitnessSet::describe`] says it), when one was
    /// lost.
    pub witness_set_restored: Option<String>,
}

/// The state a recovery leaves in the mirror while it runs.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Marker {
    /// The report as it stood before the pairs were ended.
    report: Recovery,
    pairs_to_end: Vec<String>,
    /// Reveal entries the log holds for pairs still to end: pair → (index,
    /// time in ms).
    logged_reveals: BTreeMap<String, (i64, i64)>,
    /// Pairs still to end whose lost rotation opened a successor the
    /// database lost: pair → that successor.
    successors: BTreeMap<String, LostSuccessor>,
}

/// A successor a restored database lost: its id and the commitment its
/// lost `commit` entry states.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct LostSuccessor {
    pub id: String,
    pub server_seed_hash: String,
}

/// A lost entry, as far as recovery reads it.
#[derive(Debug, Deserialize)]
struct Lost {
    #[serde(rename = "type")]
    kind: String,
    seed_pair: Option<String>,
    draw: Option<String>,
    round: Option<String>,
    nonce: Option<u64>,
    game: Option<serde_json::Value>,
    server_seed: Option<String>,
    server_seed_hash: Option<String>,
    successor: Option<String>,
    chain_length: Option<u64>,
    time: Option<String>,
}

/// What the lost entries say, read once.
#[derive(Default)]
struct Survey {
    /// Every pair a lost entry names.
    touched: BTreeSet<String>,
    /// A pair's first lost `client_seed` entry.
    client_seed_lost_at: BTreeMap<String, u64>,
    /// A round's lost `round_seed` entry: its seed and index.
    seeds_published: BTreeMap<String, (String, u64)>,
    /// A draw's first lost entry.
    draws: BTreeMap<String, u64>,
    /// A fairdeal-v1 pair's lost `commit`: its server seed hash.
    commits: BTreeMap<String, String>,
    /// A pair revealed by a lost rotation → the successor it opened.
    successor_of: BTreeMap<String, String>,
    /// A pair's lost reveal (or void): its index and time in ms.
    logged_reveals: BTreeMap<String, (i64, i64)>,
    /// Pairs committed in the lost entries, in log order.
    committed: Vec<String>,
}

impl Survey {
    fn of(lost: &[(u64, Lost)]) -> Self {
        let mut survey = Survey::default();
        for (index, entry) in lost {
            if let Some(draw) = &entry.draw {
                survey.draws.entry(draw.clone()).or_insert(*index);
            }
            let Some(pair) = &entry.seed_pair else {
                continue;
            };
            survey.touched.insert(pair.clone());
            match entry.kind.as_str() {
                "commit" => {
                    survey.committed.push(pair.clone());
                    if entry.chain_length.is_none()
                        && let Some(hash) = &entry.server_seed_hash
                    {
                        survey.commits.insert(pair.clone(), hash.clone());
                    }
                }
                "client_seed" => {
                    survey
                        .client_seed_lost_at
                        .entry(pair.clone())
                        .or_insert(*index);
                }
                "round_seed" => {
                    if let (Some(round), Some(seed)) = (&entry.round, &entry.server_seed) {
                        survey
                            .seeds_published
                            .insert(round.clone(), (seed.clone(), *index));
                    }
                }
                "reveal" | "table_void" => {
                    let at = entry
                        .time
                        .as_deref()
                        .and_then(parse_timestamp)
                        .unwrap_or_else(now_ms);
                    survey
                        .logged_reveals
                        .insert(pair.clone(), (*index as i64, at));
                    if let Some(successor) = &entry.successor {
                        survey.successor_of.insert(pair.clone(), successor.clone());
                    }
                }
                _ => {}
            }
        }
        survey
    }
}

/// The set the last `witness_set` entry among `entries` states, if one
/// does. Its quorum is the number the entry states, or "all" when that is
/// every witness.
fn lost_witness_set(entries: &[Vec<u8>]) -> anyhow::Result<Option<WitnessSet>> {
    #[derive(Deserialize)]
    struct Logged {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        witnesses: Vec<LoggedWitness>,
        #[serde(default)]
        quorum: u64,
    }
    let Some(last) = entries
        .iter()
        .rev()
        .filter_map(|bytes| serde_json::from_slice::<Logged>(bytes).ok())
        .find(|entry| entry.kind == "witness_set")
    else {
        return Ok(None);
    };
    let all = last.quorum == last.witnesses.len() as u64;
    let set = WitnessSet {
        quorum: (!all).then_some(last.quorum),
        witnesses: last.witnesses,
    };
    set.check().map_err(|(_, rule)| {
        anyhow::anyhow!("a mirrored witness_set entry does not hold together: {rule}")
    })?;
    Ok(Some(set))
}

impl Dealer {
    /// Recovers a database that is behind `mirror` (see the module's
    /// documentation). Every serving process must refuse writes meanwhile;
    /// they do from the moment the database is found behind, and while the
    /// marker is present.
    pub async fn recover(&self, mirror: &LogMirror) -> anyhow::Result<Recovery> {
        // One recovery at a time: the lock goes with the process, however
        // it ends.
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(mirror.dir().join("RECOVER.lock"))
            .context("opening the recovery lock in the log mirror")?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
                "another `fairdeal recover` is running with this log mirror: let it finish \
                 (its report says what it did), then run this again if needed"
            ),
            Err(std::fs::TryLockError::Error(err)) => {
                return Err(err).context("locking the recovery lock in the log mirror");
            }
        }
        let marker_path = mirror.recovery_marker();
        let held: Option<Marker> = match std::fs::read_to_string(&marker_path) {
            Ok(text) => Some(serde_json::from_str(&text).context("reading the recovery marker")?),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(err).context("reading the recovery marker"),
        };
        let (database, _) = self.store.log_sizes().await?;
        let standing = mirror.standing_of(&self.store).await?;
        match standing {
            Standing::Current => {
                let Some(marker) = held else {
                    return Ok(Recovery {
                        database_entries: database,
                        mirrored_entries: mirror.count(),
                        ..Recovery::default()
                    });
                };
                // Cut short after the lost entries were appended again:
                // finish ending the pairs, and report the whole recovery.
                let mut report = marker.report.clone();
                report.resumed = true;
                self.end_touched(&marker, &mut report).await?;
                std::fs::remove_file(&marker_path).context("removing the recovery marker")?;
                return Ok(report);
            }
            // Also when cut short before its transaction committed: then
            // everything is done again, and the marker written again.
            Standing::Behind { .. } => {}
            Standing::Forked { index } => anyhow::bail!(
                "log entry {index} in the database differs from the mirror's: the database was \
                 written to after it was restored (by a process without this mirror, or while \
                 another recovered). Stop every process, restore the backup again, and run \
                 `fairdeal recover` before starting any"
            ),
            Standing::OtherMirror { database, this } => anyhow::bail!(
                "this database's log is mirrored by another log mirror (id {database}) than the \
                 one given (id {this}): recover from the mirror the service used (--log-mirror)"
            ),
            Standing::Unwritable | Standing::Recovering => {
                anyhow::bail!("the log mirror cannot be read; the cause is logged above")
            }
        }
        let mut report = Recovery {
            database_entries: database,
            mirrored_entries: mirror.count(),
            ..Recovery::default()
        };
        let mirrored = mirror.count();
        let entries = mirror.read_range(database, mirrored)?;
        let lost: Vec<(u64, Lost)> = entries
            .iter()
            .enumerate()
            .map(|(offset, bytes)| {
                let index = database + offset as u64;
                serde_json::from_slice(bytes)
                    .map(|entry| (index, entry))
                    .with_context(|| {
                        format!(
                            "mirrored entry {index} is not a log entry: the log mirror is damaged; \
                             restore it from its own backup and run `fairdeal recover` again"
                        )
                    })
            })
            .collect::<anyhow::Result<_>>()?;

        let Survey {
            touched,
            client_seed_lost_at,
            seeds_published,
            draws,
            commits,
            successor_of,
            logged_reveals,
            committed,
        } = Survey::of(&lost);
        let mut marker = Marker {
            logged_reveals,
            ..Marker::default()
        };
        report.pairs_lost = committed;
        report.draws_lost = draws.keys().cloned().collect();
        let lost_draws: Vec<(String, u64)> = draws.into_iter().collect();
        let witness_set = lost_witness_set(&entries)?;
        report.witness_set_restored = witness_set.as_ref().map(WitnessSet::describe);

        let restored = self
            .redeal_lost_rounds(&lost, &client_seed_lost_at, &seeds_published, &mut report)
            .await?;
        // A round on a successor the database lost cannot be stored (its
        // pair's row is gone), but its seed is revealed below: say so.
        let lost_successors: BTreeSet<&String> = successor_of.values().collect();
        for (round, why) in &mut report.rounds_not_restored {
            let on_successor = lost
                .iter()
                .find(|(_, entry)| entry.round.as_deref() == Some(round.as_str()))
                .and_then(|(_, entry)| entry.seed_pair.as_ref())
                .is_some_and(|pair| lost_successors.contains(pair));
            if on_successor {
                *why = "its pair, a rotation's successor, was lost with the database: its seed \
                        is revealed by this recovery, so the hand is checked from the log"
                    .to_owned();
            }
        }

        // Chain rounds the database holds whose seeds the lost entries
        // published.
        let seeds = self
            .lost_seeds_of_held_rounds(&seeds_published, &restored, &mut report)
            .await?;

        // Pairs the database holds, unrevealed, that the lost entries
        // touched: each is ended.
        for pair in &touched {
            if let Some(row) = self.store.pair(pair).await?
                && row.status != PairStatus::Revealed
            {
                marker.pairs_to_end.push(pair.clone());
            }
        }
        marker
            .logged_reveals
            .retain(|pair, _| marker.pairs_to_end.contains(pair));
        for (pair, successor) in successor_of {
            if marker.pairs_to_end.contains(&pair)
                && let Some(hash) = commits.get(&successor)
                && self.store.pair(&successor).await?.is_none()
            {
                marker.successors.insert(
                    pair,
                    LostSuccessor {
                        id: successor.clone(),
                        server_seed_hash: hash.clone(),
                    },
                );
            }
        }
        report
            .pairs_lost
            .retain(|pair| !marker.pairs_to_end.contains(pair));

        report.entries_restored = entries.len() as u64;
        report.rounds_restored = restored.iter().map(|r| r.id.clone()).collect();
        marker.report = report.clone();
        std::fs::write(&marker_path, serde_json::to_vec(&marker)?)
            .context("writing the recovery marker")?;
        self.store
            .restore_log(
                database,
                &entries,
                &restored,
                &seeds,
                &lost_draws,
                witness_set.as_ref().map(WitnessSet::to_setting).as_deref(),
            )
            .await
            .context("appending the lost entries again")?;
        self.end_touched(&marker, &mut report).await?;
        std::fs::remove_file(&marker_path).context("removing the recovery marker")?;
        Ok(report)
    }

    /// The rounds the lost entries record, dealt again where the database
    /// still holds what they were dealt with; the others in `report`.
    async fn redeal_lost_rounds(
        &self,
        lost: &[(u64, Lost)],
        client_seed_lost_at: &BTreeMap<String, u64>,
        seeds_published: &BTreeMap<String, (String, u64)>,
        report: &mut Recovery,
    ) -> anyhow::Result<Vec<RestoredRound>> {
        let mut restored = Vec::new();
        for (index, entry) in lost {
            if entry.kind != "round" {
                continue;
            }
            let (Some(pair_id), Some(round_id), Some(nonce), Some(game)) =
                (&entry.seed_pair, &entry.round, entry.nonce, &entry.game)
            else {
                anyhow::bail!("mirrored entry {index} is a round entry without its fields");
            };
            match self
                .redeal(pair_id, round_id, nonce, game, *index, client_seed_lost_at)
                .await?
            {
                Ok(mut round) => {
                    round.created_at = entry
                        .time
                        .as_deref()
                        .and_then(parse_timestamp)
                        .unwrap_or_else(now_ms);
                    if let Some((seed, seed_index)) = seeds_published.get(round_id) {
                        let key = &self.key;
                        let deal = key
                            .open_deal(&round.deal_sealed, round_id)
                            .context("opening a restored deal")?;
                        round.published = Some((seed.clone(), deal, *seed_index));
                    }
                    restored.push(round);
                }
                Err(why) => report.rounds_not_restored.push((round_id.clone(), why)),
            }
        }
        Ok(restored)
    }

    /// The chain rounds the database holds whose seeds `published` (round
    /// → seed and entry index) were logged and lost, as `restore_log`
    /// stores them; `restored` rounds (dealt again) carry theirs already.
    async fn lost_seeds_of_held_rounds(
        &self,
        published: &BTreeMap<String, (String, u64)>,
        restored: &[RestoredRound],
        report: &mut Recovery,
    ) -> anyhow::Result<Vec<LostSeed>> {
        let restored_ids: BTreeSet<&str> = restored.iter().map(|r| r.id.as_str()).collect();
        let mut seeds = Vec::new();
        for (round_id, (seed, index)) in published {
            if restored_ids.contains(round_id.as_str()) {
                continue;
            }
            let Some(row) = self.store.round(round_id).await? else {
                continue;
            };
            let deal = match &row.deal_sealed {
                Some(sealed) => self
                    .key
                    .open_deal(sealed, round_id)
                    .context("opening a round's sealed deal")?,
                None => row.deal.clone(),
            };
            report.round_seeds_restored.push(round_id.clone());
            seeds.push(LostSeed {
                round_id: round_id.clone(),
                pair_id: row.seed_pair_id.clone(),
                nonce: row.nonce as u64,
                server_seed: seed.clone(),
                deal,
                log_index: *index,
                closed_at: now_ms(),
            });
        }
        Ok(seeds)
    }

    /// Round `round_id` of `pair_id` dealt again as the log records it, or
    /// why it cannot be.
    async fn redeal(
        &self,
        pair_id: &str,
        round_id: &str,
        nonce: u64,
        game: &serde_json::Value,
        index: u64,
        client_seed_lost_at: &BTreeMap<String, u64>,
    ) -> anyhow::Result<Result<RestoredRound, String>> {
        let Some(pair) = self.store.pair(pair_id).await? else {
            return Ok(Err(
                "its pair was committed after the backup: its seed was lost with it".to_owned(),
            ));
        };
        if self.store.round(round_id).await?.is_some() {
            return Ok(Err("the database holds it already".to_owned()));
        }
        if client_seed_lost_at
            .get(pair_id)
            .is_some_and(|at| *at < index)
        {
            return Ok(Err(
                "its client seed was set after the backup; the log holds only its hash".to_owned(),
            ));
        }
        let (Some(client_seed), Some(sealed)) = (&pair.client_seed, &pair.server_seed_sealed)
        else {
            return Ok(Err(
                "its pair holds no client seed or sealed seed in the database".to_owned(),
            ));
        };
        let game: Game = serde_json::from_value(game.clone()).context("a logged game")?;
        let seed = match pair.protocol() {
            fairdeal_core::PairProtocol::Chain(_) => {
                let (anchor, sealed) = self
                    .store
                    .chain_anchor_above(pair_id, nonce)
                    .await?
                    .context("a chain pair without a sealed seed above the nonce")?;
                chains::seed_at(&self.key, pair_id, anchor, &sealed, nonce + 1)?
            }
            fairdeal_core::PairProtocol::V1 => self
                .key
                .open(sealed, pair_id, Slot::Current)
                .context("opening the pair's server seed")?,
        };
        let client = ClientSeed::new(client_seed)
            .map_err(|e| anyhow::anyhow!("stored client seed is invalid: {e}"))?;
        let dealt = compact_deal_with(&SeedKey::new(&seed), &client, nonce, game);
        let deal_sealed = self
            .key
            .seal_deal(&serde_json::to_string(&dealt)?, round_id)?;
        Ok(Ok(RestoredRound {
            id: round_id.to_owned(),
            pair_id: pair_id.to_owned(),
            nonce,
            game: serde_json::to_string(&game)?,
            deal_sealed,
            created_at: 0,
            log_index: index,
            published: None,
        }))
    }

    /// Ends every pair the marker lists: its rounds in play closed, then
    /// revealed (by the reveal the log already holds, if any).
    async fn end_touched(&self, marker: &Marker, report: &mut Recovery) -> anyhow::Result<()> {
        for pair in &marker.pairs_to_end {
            let rounds = self
                .store
                .rounds_of_pair(pair, None, crate::service::store::Order::Oldest, i64::MAX)
                .await?;
            for round in rounds.iter().filter(|r| r.status == RoundStatus::InPlay) {
                if let CloseRound::NotFound = self.close_round(&round.id).await? {
                    anyhow::bail!("round {} vanished while recovering", round.id);
                }
            }
            let logged = marker.logged_reveals.get(pair).copied();
            let successor = marker.successors.get(pair);
            match self.end_logged(pair, logged, successor).await? {
                // Ended now, or by this recovery before it was cut short (the
                // reveal and its successor's were one transaction): reported
                // alike.
                Rotate::Ended(_) | Rotate::NotActive(PairStatus::Revealed) => {}
                other => anyhow::bail!("ending pair {pair} while recovering: {other:?}"),
            }
            match logged {
                Some(_) => report.reveals_taken_from_log.push(pair.clone()),
                None => report.pairs_ended.push(pair.clone()),
            }
            if let Some(lost) = successor {
                report.pairs_lost.retain(|p| *p != lost.id);
                report.successors_revealed.push(lost.id.clone());
            }
        }
        Ok(())
    }
}
