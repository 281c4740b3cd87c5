//! The seed-pair lifecycle in domain terms: commit, accept the client seed,
//! deal, close, rotate. Handlers call this; this calls the protocol crate, the
//! sealing key and the store.
//!
//! Order of events it guarantees:
//! - a pair's commitment (and the next one's) exists before any client seed;
//! - a round is dealt with the next nonce inside the transaction that
//!   records it;
//! - a seed is revealed only when none of its pair's rounds is in play.

use std::sync::{Arc, Mutex};

use anyhow::Context;
use fairdeal_core::Seats;
use fairdeal_core::{
    ChainLength, ClientSeed, Game, PairProtocol, SeedKey, ServerSeed, compact_deal_with,
};
use tokio::sync::oneshot;

use super::sealing::{MasterKey, Slot};
use super::store::{
    BatchedRound, CloseRound, DealContext, InsertRound, NewChain, NewPair, NewRound, PairRow,
    PairStatus, Rotate, Rotation, RoundRequest, RoundRow, SealedDeal, SeedReuse, SetClientSeed,
    Store, is_behind_log, is_idempotency_race, is_unavailable_cause,
};
use crate::time::{now_ms, timestamp};
use crate::tlog::entry::{Entry, client_seed_sha256};

pub mod chains;
pub mod draws;
pub mod recovery;
pub mod tables;

/// A new id: a UUIDv7, the time in milliseconds, then a 42-bit counter
/// (seeded at random each millisecond, one more for each id within it, so
/// one process's ids ascend) and 32 random bits. Ids made one after another
/// land side by side in the id indexes, so a commit of many rows writes one
/// leaf of each, not one leaf a row. The time an id shows is no secret: the
/// round or pair says when it was made, and the public log lists it.
fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn fresh_seed() -> anyhow::Result<ServerSeed> {
    ServerSeed::from_os_rng().map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))
}

/// A game backend's reference for a pair (a player or table id): 1 to 128
/// bytes of UTF-8 without control characters. Shown to the pair's operators
/// only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairLabel(String);

impl PairLabel {
    /// The label, or the rule it breaks.
    pub fn new(text: String) -> Result<Self, String> {
        if text.is_empty() || text.len() > 128 {
            return Err(format!(
                "must be 1 to 128 bytes of UTF-8; it is {} bytes",
                text.len()
            ));
        }
        if let Some((byte_idx, c)) = text.char_indices().find(|(_, c)| c.is_control()) {
            return Err(format!(
                "must not contain control characters; found U+{:04X} at byte {byte_idx}",
                u32::from(c)
            ));
        }
        Ok(Self(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whose a pair is: the tenant of the key that created it, and the backend's
/// label. A pair opened by rotation keeps its predecessor's.
#[derive(Clone, Debug)]
pub struct Owner {
    pub tenant: String,
    pub label: Option<PairLabel>,
}

/// A new pair, as asked for: whose it is, a table's seats (none for one
/// player), and how its rounds are dealt (a chain's length already in the
/// service's range, [`chains::MAX_SERVICE_CHAIN`]).
#[derive(Clone, Debug)]
pub struct PairSpec {
    pub owner: Owner,
    pub seats: Option<Seats>,
    pub protocol: PairProtocol,
}

/// The log entry of a pair's commitment.
fn commit_entry(pair: &NewPair, key: &MasterKey) -> anyhow::Result<Vec<u8>> {
    Entry::Commit {
        seed_pair: pair.id.clone(),
        server_seed_hash: pair.server_seed_hash.clone(),
        next_server_seed_hash: pair.next_server_seed_hash.clone(),
        predecessor: pair.predecessor_id.clone(),
        tenant: Some(key.tenant_id(&pair.tenant)),
        seats: pair.table.as_ref().map(|(seats, _)| {
            seats
                .labels()
                .iter()
                .map(|label| client_seed_sha256(label))
                .collect()
        }),
        seat_set: pair
            .table
            .as_ref()
            .map(|(seats, _)| crate::tlog::entry::seat_set(seats.labels())),
        chain_length: pair.chain.as_ref().map(|chain| chain.length),
        time: timestamp(pair.created_at),
    }
    .to_bytes()
}

/// The log entry of a pair's client seed (its hash: the log holds no raw
/// user string).
fn client_seed_entry(
    pair_id: &str,
    client_seed: &ClientSeed,
    at_ms: i64,
) -> anyhow::Result<Vec<u8>> {
    Entry::ClientSeed {
        seed_pair: pair_id.to_owned(),
        client_seed_sha256: client_seed_sha256(client_seed.as_str()),
        client_seed_lookalike_sha256: Some(crate::text::lookalike_sha256(client_seed.as_str())),
        time: timestamp(at_ms),
    }
    .to_bytes()
}

/// A new pair's seeds, made before its row: its commitment and sealed seed
/// (a fairdeal-chain-v1 pair's: the chain's `s_0` and its tip, with its
/// sealed anchors), and its successor's.
#[derive(Clone, Debug)]
struct Seeds {
    server_seed_hash: String,
    server_seed_sealed: Vec<u8>,
    next_server_seed_hash: String,
    next_server_seed_sealed: Vec<u8>,
    chain: Option<NewChain>,
}

impl Seeds {
    /// A fairdeal-v1 pair's: `current`, and a fresh next seed.
    fn v1(key: &MasterKey, pair_id: &str, current: &ServerSeed) -> anyhow::Result<Self> {
        let next = fresh_seed()?;
        Ok(Self {
            server_seed_hash: current.commitment().to_string(),
            server_seed_sealed: key.seal(current, pair_id, Slot::Current)?,
            next_server_seed_hash: next.commitment().to_string(),
            next_server_seed_sealed: key.seal(&next, pair_id, Slot::Next)?,
            chain: None,
        })
    }

    /// A chain pair's: the chain of `length` from `tip`, and a fresh
    /// successor chain of the same length. Walks both chains: call it
    /// through [`Seeds::chain_off_thread`].
    fn chain(
        key: &MasterKey,
        pair_id: &str,
        tip: &ServerSeed,
        length: ChainLength,
    ) -> anyhow::Result<Self> {
        let prepared = chains::prepare(key, pair_id, tip, length.get())?;
        let next = fresh_seed()?;
        Ok(Self {
            server_seed_hash: prepared.commitment.to_string(),
            server_seed_sealed: key.seal(tip, pair_id, Slot::Current)?,
            next_server_seed_hash: chains::commitment_of(&next, length.get())?.to_string(),
            next_server_seed_sealed: key.seal(&next, pair_id, Slot::Next)?,
            chain: Some(prepared.chain),
        })
    }

    /// [`Seeds::chain`] on a blocking thread (a long chain is a fraction of
    /// a second of hashing).
    async fn chain_off_thread(
        key: &Arc<MasterKey>,
        pair_id: &str,
        tip: ServerSeed,
        length: ChainLength,
    ) -> anyhow::Result<Self> {
        let key = Arc::clone(key);
        let pair_id = pair_id.to_owned();
        tokio::task::spawn_blocking(move || Self::chain(&key, &pair_id, &tip, length))
            .await
            .context("making a chain")?
    }
}

/// What a rotation opens after the pair it reveals.
#[derive(Debug)]
pub enum Successor {
    /// A one-player pair with this client seed.
    ClientSeed(ClientSeed),
    /// A table awaiting contributions: these seats, or the rotated table's.
    Table(Option<Seats>),
}

/// The most deals one transaction commits together.
pub const MAX_BATCH: usize = 64;

/// A deal waiting for its batch, and where its outcome goes.
struct Waiting {
    request: RoundRequest,
    game: Game,
    reply: oneshot::Sender<BatchedRound>,
}

/// The deals waiting, and whether a task is dealing them.
#[derive(Default)]
struct Waiters {
    deals: Vec<Waiting>,
    draining: bool,
}

/// This process's deal queue: group commit. The first deal to arrive starts
/// a task that deals everything waiting, a batch at a time, until the queue
/// is empty; deals that arrive during a commit form the next batch. The task
/// is apart from the requests, so a request that goes away (a client that
/// hangs up) does not cut a batch short.
struct DealQueue {
    store: Store,
    key: Arc<MasterKey>,
    waiters: Mutex<Waiters>,
}

impl DealQueue {
    /// Deals `request` in the next batch.
    async fn deal(self: &Arc<Self>, request: RoundRequest, game: Game) -> BatchedRound {
        let (reply, outcome) = oneshot::channel();
        let start = {
            let mut waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
            waiters.deals.push(Waiting {
                request,
                game,
                reply,
            });
            !std::mem::replace(&mut waiters.draining, true)
        };
        if start {
            tokio::spawn(Arc::clone(self).drain());
        }
        outcome
            .await
            .map_err(|_| anyhow::anyhow!("the deal's batch failed before it answered"))?
    }

    /// Deals batches until none is waiting.
    async fn drain(self: Arc<Self>) {
        loop {
            let batch: Vec<Waiting> = {
                let mut waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
                if waiters.deals.is_empty() {
                    waiters.draining = false;
                    return;
                }
                let n = waiters.deals.len().min(MAX_BATCH);
                waiters.deals.drain(..n).collect()
            };
            // A task of its own: should dealing panic, this batch's requests
            // get an error and the queue goes on.
            let queue = Arc::clone(&self);
            let _ = tokio::spawn(async move { queue.commit(batch).await }).await;
        }
    }

    /// Deals one batch in one transaction and answers every deal in it.
    async fn commit(&self, batch: Vec<Waiting>) {
        let requests: Vec<RoundRequest> = batch.iter().map(|w| w.request.clone()).collect();
        let deal = |i: usize, ctx: &DealContext<'_>| {
            new_round(&self.key, &batch[i].request.pair_id, batch[i].game, ctx)
        };
        // Deals almost never fail, so a batch (a batch of one too) runs
        // without a savepoint per deal, in two to four statements; if one does
        // fail, the batch is rolled back and run again with savepoints, so
        // that it fails alone, with its own error. An unreachable database
        // is not a deal's fault: no second try.
        let mut outcome = self.store.insert_rounds(&requests, false, deal).await;
        if outcome
            .as_ref()
            .is_err_and(|err| !is_unavailable_cause(err) && is_behind_log(err).is_none())
        {
            outcome = self.store.insert_rounds(&requests, true, deal).await;
        }
        match outcome {
            Ok(results) => {
                for (waiting, result) in batch.into_iter().zip(results) {
                    let _ = waiting.reply.send(result);
                }
            }
            Err(err) if is_behind_log(&err).is_some() => {
                // A database behind its log: nothing was committed, and
                // every deal gets that refusal.
                let refused = is_behind_log(&err).expect("behind its log");
                for waiting in batch {
                    let _ = waiting.reply.send(Err(refused.into()));
                }
            }
            Err(err) => {
                // The transaction failed as a whole: nothing was committed.
                // Each deal gets the same verdict; an unreachable database
                // stays a 503 for every one of them.
                let unavailable = is_unavailable_cause(&err);
                let text = format!("{err:#}");
                for waiting in batch {
                    let _ = waiting.reply.send(Err(if unavailable {
                        anyhow::Error::from(sqlx::Error::PoolTimedOut).context(text.clone())
                    } else {
                        anyhow::anyhow!("dealing a batch of rounds: {text}")
                    }));
                }
            }
        }
    }
}

/// One round of `game` on `pair_id` at the nonce `ctx` took: the seed
/// opened, the deal computed and sealed, the log entry written.
fn new_round(
    key: &MasterKey,
    pair_id: &str,
    game: Game,
    ctx: &DealContext<'_>,
) -> anyhow::Result<NewRound> {
    let seed = match ctx.chain_anchor {
        // A chain pair's round k is dealt with s_{k+1}.
        Some((anchor, sealed)) => chains::seed_at(key, pair_id, anchor, sealed, ctx.nonce + 1)?,
        None => key
            .open(ctx.server_seed_sealed, pair_id, Slot::Current)
            .context("opening the pair's server seed")?,
    };
    let client = ClientSeed::new(ctx.client_seed)
        .map_err(|e| anyhow::anyhow!("stored client seed is invalid: {e}"))?;
    let dealt = compact_deal_with(&SeedKey::new(&seed), &client, ctx.nonce, game);
    let id = new_id();
    let deal_sealed = key.seal_deal(&serde_json::to_string(&dealt)?, &id)?;
    let created_at = now_ms();
    let log_entry = Entry::Round {
        seed_pair: pair_id.to_owned(),
        round: id.clone(),
        nonce: ctx.nonce,
        game: serde_json::to_value(game)?,
        time: timestamp(created_at),
    }
    .to_bytes()?;
    Ok(NewRound {
        id,
        game: serde_json::to_string(&game)?,
        deal_sealed,
        created_at,
        log_entry,
    })
}

/// Most pairs [`ActivePairs`] keeps (it is cleared when full).
const ACTIVE_PAIRS_MAX: usize = 4096;

/// Pairs as last read while active, for the deal path, which would
/// otherwise read its pair on every request. What a deal's answer takes
/// from its pair (the owner, the commitment, the client seed, no revealed
/// seed) does not change while the pair is active. A pair revealed since
/// (by this process, which forgets it, or by another) is refused by the
/// database's own status check when dealt, and forgotten then; the dealing
/// never trusts this copy.
#[derive(Default)]
struct ActivePairs(Mutex<std::collections::HashMap<String, PairRow>>);

impl ActivePairs {
    fn get(&self, id: &str) -> Option<PairRow> {
        let pairs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        pairs.get(id).cloned()
    }

    /// Remembers `pair` if it is active.
    fn put(&self, pair: &PairRow) {
        if pair.status != PairStatus::Active {
            return;
        }
        let mut pairs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if pairs.len() >= ACTIVE_PAIRS_MAX {
            pairs.clear();
        }
        pairs.insert(pair.id.clone(), pair.clone());
    }

    fn forget(&self, id: &str) {
        let mut pairs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        pairs.remove(id);
    }
}

/// The service's dealer.
pub struct Dealer {
    store: Store,
    key: Arc<MasterKey>,
    queue: Arc<DealQueue>,
    /// Operator key rows read in the last second (`service::keys::KeyCache`).
    keys: super::keys::KeyCache,
    /// Pairs as last read while active, for the deal path.
    active: ActivePairs,
    /// How long each phase of a table pair (commit, then reveal) may take.
    table_phase_ms: i64,
    /// The log mirror (none: a restored database is caught only by
    /// witnesses and monitors).
    mirror: Option<Arc<super::log::mirror::LogMirror>>,
}

impl std::fmt::Debug for Dealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dealer")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl Dealer {
    pub fn new(store: Store, key: MasterKey) -> Self {
        let key = Arc::new(key);
        let queue = Arc::new(DealQueue {
            store: store.clone(),
            key: Arc::clone(&key),
            waiters: Mutex::new(Waiters::default()),
        });
        Self {
            store,
            key,
            queue,
            keys: super::keys::KeyCache::default(),
            active: ActivePairs::default(),
            table_phase_ms: tables::DEFAULT_PHASE.as_millis() as i64,
            mirror: None,
        }
    }

    /// Acknowledges writes only once their log entries are in `mirror`.
    pub fn with_mirror(mut self, mirror: Option<Arc<super::log::mirror::LogMirror>>) -> Self {
        self.mirror = mirror;
        self
    }

    /// The log mirror, if any.
    pub fn mirror(&self) -> Option<&Arc<super::log::mirror::LogMirror>> {
        self.mirror.as_ref()
    }

    /// Why this process refuses every write now (the database is behind
    /// its log, or the mirror cannot be written), as the last mirror pass
    /// found it: the state and the way out.
    pub fn refusal(&self) -> Option<String> {
        self.mirror.as_ref().and_then(|m| m.standing().refusal())
    }

    /// [`Dealer::refusal`], but looked at now rather than as the last pass
    /// found it: what other processes mirrored is learned, and a database
    /// holding fewer entries than the mirror (or, without one, than a
    /// witness holds) is behind: what a reader of the checkpoint or a
    /// readiness probe must not miss between passes.
    pub async fn refusal_now(&self) -> Result<Option<String>, sqlx::Error> {
        if let Some(why) = self.refusal() {
            return Ok(Some(why));
        }
        self.catch_up_with_mirror();
        // The floor: what the mirror holds, or what a witness holds of
        // this log (without a mirror, the one who knows).
        let (database, _) = self.store.log_sizes().await?;
        let known = self.store.log_floor().get();
        if database >= known {
            return Ok(None);
        }
        Ok(match &self.mirror {
            Some(_) => super::log::mirror::Standing::Behind {
                database,
                mirrored: known,
            }
            .refusal(),
            None => Some(format!(
                "the database holds {database} log entries, but a witness holds a checkpoint of \
                 {known}: it was restored from a backup or rolled back, and this process has no \
                 log mirror to recover from. No deal, draw or checkpoint: restore a backup that \
                 holds every witnessed entry, or start a new log (docs/OPERATIONS.md, Restore)"
            )),
        })
    }

    /// Learns what other processes put in the log mirror, before a write:
    /// a database restored under them refuses the write before it commits.
    pub fn catch_up_with_mirror(&self) {
        if let Some(mirror) = &self.mirror {
            mirror.catch_up();
        }
    }

    /// Waits until what the database holds now is in the log mirror: the
    /// step between a write's commit and its answer. An error is the
    /// refusal to answer it.
    pub async fn acknowledge(&self) -> Result<(), super::log::mirror::NotAcknowledged> {
        match &self.mirror {
            Some(mirror) => mirror.flush(&self.store).await,
            None => Ok(()),
        }
    }

    /// Gives each phase of a table pair `phase` (at least a millisecond).
    pub fn with_table_phase(mut self, phase: std::time::Duration) -> Self {
        self.table_phase_ms = i64::try_from(phase.as_millis()).unwrap_or(i64::MAX).max(1);
        self
    }

    /// Pair `id` for a deal's answer: as last read while active, or read
    /// now. Whether the deal happens is the database's verdict, not this
    /// copy's.
    pub async fn pair_for_deal(&self, id: &str) -> anyhow::Result<Option<PairRow>> {
        if let Some(pair) = self.active.get(id) {
            return Ok(Some(pair));
        }
        let pair = self.store.pair(id).await?;
        if let Some(pair) = &pair {
            self.active.put(pair);
        }
        Ok(pair)
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The operator keys read recently, for authentication.
    pub fn key_cache(&self) -> &super::keys::KeyCache {
        &self.keys
    }

    /// A pair whose current and next seeds are fresh, sealed, and committed:
    /// a one-player pair (with its client seed, or awaiting it), or a table
    /// whose seats will contribute it.
    fn new_pair(
        &self,
        id: String,
        seeds: Seeds,
        client_seed: Option<&ClientSeed>,
        predecessor_id: Option<String>,
        owner: Owner,
        seats: Option<Seats>,
    ) -> anyhow::Result<NewPair> {
        let created_at = now_ms();
        Ok(NewPair {
            server_seed_hash: seeds.server_seed_hash,
            server_seed_sealed: seeds.server_seed_sealed,
            next_server_seed_hash: seeds.next_server_seed_hash,
            next_server_seed_sealed: seeds.next_server_seed_sealed,
            chain: seeds.chain,
            status: if seats.is_some() {
                PairStatus::AwaitingContributions
            } else if client_seed.is_some() {
                PairStatus::Active
            } else {
                PairStatus::AwaitingClientSeed
            },
            client_seed: client_seed.map(|c| c.as_str().to_owned()),
            table: seats.map(|seats| (seats, created_at.saturating_add(self.table_phase_ms))),
            created_at,
            predecessor_id,
            id,
            tenant: owner.tenant,
            label: owner.label.map(|label| label.0),
        })
    }

    /// Commits to a new pair as `spec` says; its client seed comes later,
    /// from the player, or (with seats) from every seat of a table.
    pub async fn create_pair(&self, spec: PairSpec) -> anyhow::Result<PairRow> {
        let id = new_id();
        let seeds = match spec.protocol {
            PairProtocol::V1 => Seeds::v1(&self.key, &id, &fresh_seed()?)?,
            PairProtocol::Chain(length) => {
                Seeds::chain_off_thread(&self.key, &id, fresh_seed()?, length).await?
            }
        };
        let pair = self.new_pair(id, seeds, None, None, spec.owner, spec.seats)?;
        Ok(self
            .store
            .insert_pair(&pair, &commit_entry(&pair, &self.key)?)
            .await?)
    }

    pub async fn set_client_seed(
        &self,
        pair_id: &str,
        client_seed: &ClientSeed,
        reuse: SeedReuse,
    ) -> anyhow::Result<SetClientSeed> {
        let entry = client_seed_entry(pair_id, client_seed, now_ms())?;
        Ok(self
            .store
            .set_client_seed(pair_id, client_seed.as_str(), reuse, &entry)
            .await?)
    }

    /// Deals the pair's next round. A retry with the same idempotency key
    /// gets the round it dealt, if it asks for the same game; the same key
    /// with another game is [`InsertRound::IdempotencyKeyReused`].
    ///
    /// Deals share commits: the request joins this process's deal queue, and
    /// the deals waiting at that moment (up to [`MAX_BATCH`]) are dealt in
    /// one transaction with one durable commit (a deal that fails sends its
    /// batch round again with a savepoint per deal, so it fails alone). The
    /// answer comes only after that commit.
    pub async fn deal_round(
        &self,
        pair_id: &str,
        game: Game,
        idempotency_key: Option<&str>,
    ) -> anyhow::Result<InsertRound> {
        let request = RoundRequest {
            pair_id: pair_id.to_owned(),
            idempotency_key: idempotency_key.map(str::to_owned),
        };
        // A concurrent request with the same idempotency key can lose the race
        // on the unique constraint; it then finds the winner's round.
        for _attempt in 0..2 {
            if let Some(row) = self.store.replayed(&request).await? {
                let recorded: Game =
                    serde_json::from_str(&row.game).context("reading a recorded game")?;
                if recorded != game {
                    return Ok(InsertRound::IdempotencyKeyReused);
                }
                return Ok(InsertRound::Replayed(row));
            }
            match self.queue.deal(request.clone(), game).await {
                Err(err) if is_idempotency_race(&err) => continue,
                Err(err) => return Err(err),
                Ok(Some(row)) => return Ok(InsertRound::Dealt(row)),
                Ok(None) => {
                    self.active.forget(pair_id);
                    return self.store.why_no_round(pair_id).await;
                }
            }
        }
        anyhow::bail!("idempotency key race did not settle")
    }

    /// The round's deal as JSON: opened from its seal while the pair is
    /// unrevealed, as stored once it is. Callers decide who may see it.
    pub fn deal_json(&self, round: &RoundRow) -> anyhow::Result<String> {
        match &round.deal_sealed {
            Some(sealed) => self
                .key
                .open_deal(sealed, &round.id)
                .context("opening a round's sealed deal"),
            None => Ok(round.deal.clone()),
        }
    }

    /// Closes a round; on a chain pair, publishes the seeds of the rounds
    /// that now have no earlier round in play.
    pub async fn close_round(&self, round_id: &str) -> anyhow::Result<CloseRound> {
        let now = now_ms();
        self.store
            .close_round(round_id, now, |work| chains::publish(&self.key, work, now))
            .await
    }

    /// Closes rounds that have been in play longer than `timeout_ms` as of `now`.
    pub async fn close_stale_rounds(&self, timeout_ms: i64, now: i64) -> anyhow::Result<u64> {
        self.store
            .close_stale_rounds(now.saturating_sub(timeout_ms), now, |work| {
                chains::publish(&self.key, work, now)
            })
            .await
    }

    /// Reveals the pair's seed and opens its successor: the successor deals
    /// with the seed promised as `next_server_seed_hash`, nonce 0, a fresh
    /// next commitment, and the new client seed — or, for a table, the
    /// seats' contributions still to come (the same seats unless `next`
    /// names others).
    pub async fn rotate(
        &self,
        pair_id: &str,
        next: Successor,
        reuse: SeedReuse,
    ) -> anyhow::Result<Rotate> {
        self.active.forget(pair_id);
        let successor_id = new_id();
        // A chain pair's successor is a chain of the same length from the
        // promised tip: walked here, before the transaction.
        let chain_seeds = match self.store.pair(pair_id).await? {
            Some(pair) => match (pair.protocol(), &pair.next_server_seed_sealed) {
                (PairProtocol::Chain(length), Some(sealed_next)) => {
                    let tip = self
                        .key
                        .open(sealed_next, &pair.id, Slot::Next)
                        .context("opening the chain pair's next tip")?;
                    Some(Seeds::chain_off_thread(&self.key, &successor_id, tip, length).await?)
                }
                _ => None,
            },
            None => None,
        };
        let (client_seed, seats) = match next {
            Successor::ClientSeed(client_seed) => {
                if !self.store.seats(pair_id).await?.is_empty() {
                    return Ok(Rotate::TableTakesNoClientSeed);
                }
                (Some(client_seed), None)
            }
            Successor::Table(Some(seats)) => (None, Some(seats)),
            Successor::Table(None) => {
                let rows = self.store.seats(pair_id).await?;
                if rows.is_empty() {
                    return Ok(Rotate::NeedsClientSeed);
                }
                let labels = rows.into_iter().map(|s| s.label).collect();
                (
                    None,
                    Some(Seats::new(labels).context("a stored table's seats")?),
                )
            }
        };
        let successor_seed = client_seed.as_ref().map(|seed| (seed.as_str(), reuse));
        self.store
            .rotate(
                pair_id,
                false,
                successor_seed,
                |pair: &PairRow, sealed_deals: &[SealedDeal]| {
                    let sealed_current = pair
                        .server_seed_sealed
                        .as_deref()
                        .context("active pair without a sealed seed")?;
                    let sealed_next = pair
                        .next_server_seed_sealed
                        .as_deref()
                        .context("active pair without a sealed next seed")?;
                    let current = self
                        .key
                        .open(sealed_current, &pair.id, Slot::Current)
                        .context("opening the pair's server seed")?;
                    let seeds = match (pair.protocol(), &chain_seeds) {
                        (PairProtocol::V1, _) => {
                            let next = self
                                .key
                                .open(sealed_next, &pair.id, Slot::Next)
                                .context("opening the pair's next server seed")?;
                            Seeds::v1(&self.key, &successor_id, &next)?
                        }
                        (PairProtocol::Chain(_), Some(seeds)) => seeds.clone(),
                        (PairProtocol::Chain(_), None) => {
                            anyhow::bail!("a chain pair's successor was not made")
                        }
                    };
                    let successor = self.new_pair(
                        successor_id.clone(),
                        seeds,
                        client_seed.as_ref(),
                        Some(pair.id.clone()),
                        Owner {
                            tenant: pair.tenant.clone(),
                            label: pair.label.clone().map(PairLabel),
                        },
                        seats.clone(),
                    )?;
                    let opened_deals = self.open_deals(sealed_deals)?;
                    let reveal = Entry::Reveal {
                        seed_pair: pair.id.clone(),
                        server_seed: current.reveal_hex(),
                        successor: Some(successor.id.clone()),
                        time: timestamp(successor.created_at),
                    }
                    .to_bytes()?;
                    let mut log_entries = vec![reveal, commit_entry(&successor, &self.key)?];
                    if let Some(client_seed) = &client_seed {
                        log_entries.push(client_seed_entry(
                            &successor.id,
                            client_seed,
                            successor.created_at,
                        )?);
                    }
                    Ok(Rotation {
                        revealed_server_seed: current.reveal_hex(),
                        at: successor.created_at,
                        successor: Some(successor),
                        opened_deals,
                        log_entries,
                        logged_reveal: None,
                        also_logged: Vec::new(),
                    })
                },
            )
            .await
    }

    /// The deals of a pair being revealed, opened to be stored in the clear.
    fn open_deals(&self, sealed_deals: &[SealedDeal]) -> anyhow::Result<Vec<(String, String)>> {
        sealed_deals
            .iter()
            .map(|(round_id, sealed)| {
                let deal = self
                    .key
                    .open_deal(sealed, round_id)
                    .context("opening a round's sealed deal")?;
                Ok((round_id.clone(), deal))
            })
            .collect()
    }

    /// Ends the session: reveals the pair's seed and opens no successor (the
    /// player left, the table broke up). A pair still awaiting its client
    /// seed or its seats' contributions may end too; it dealt nothing. Its
    /// promised next seed is never used, so never revealed.
    pub async fn end(&self, pair_id: &str) -> anyhow::Result<Rotate> {
        self.end_logged(pair_id, None, None).await
    }

    /// [`Dealer::end`]; with `logged` (an index and a time in ms), by the
    /// reveal entry the log already holds at that index: nothing new is
    /// logged (a restored database's lost reveal, appended again by
    /// recovery).
    pub(crate) async fn end_logged(
        &self,
        pair_id: &str,
        logged: Option<(i64, i64)>,
        successor: Option<&recovery::LostSuccessor>,
    ) -> anyhow::Result<Rotate> {
        self.active.forget(pair_id);
        self.store
            .rotate(
                pair_id,
                true,
                None,
                |pair: &PairRow, sealed_deals: &[SealedDeal]| {
                    let sealed_current = pair
                        .server_seed_sealed
                        .as_deref()
                        .context("an unrevealed pair without a sealed seed")?;
                    let current = self
                        .key
                        .open(sealed_current, &pair.id, Slot::Current)
                        .context("opening the pair's server seed")?;
                    let opened_deals = self.open_deals(sealed_deals)?;
                    if let Some((index, at)) = logged {
                        // A successor the restored database lost dealt with
                        // this pair's next seed, which it still holds: that
                        // seed is revealed for it.
                        let also_logged = match (successor, &pair.next_server_seed_sealed) {
                            (Some(lost), Some(sealed_next)) => {
                                let next = self
                                    .key
                                    .open(sealed_next, &pair.id, Slot::Next)
                                    .context("opening the pair's next server seed")?;
                                anyhow::ensure!(
                                    next.commitment().to_string() == lost.server_seed_hash,
                                    "the lost successor {} was not committed to this pair's next seed",
                                    lost.id
                                );
                                vec![
                                    Entry::Reveal {
                                        seed_pair: lost.id.clone(),
                                        server_seed: next.reveal_hex(),
                                        successor: None,
                                        time: timestamp(now_ms()),
                                    }
                                    .to_bytes()?,
                                ]
                            }
                            _ => Vec::new(),
                        };
                        return Ok(Rotation {
                            revealed_server_seed: current.reveal_hex(),
                            successor: None,
                            at,
                            opened_deals,
                            log_entries: Vec::new(),
                            logged_reveal: Some(index),
                            also_logged,
                        });
                    }
                    let at = now_ms();
                    let reveal = Entry::Reveal {
                        seed_pair: pair.id.clone(),
                        server_seed: current.reveal_hex(),
                        successor: None,
                        time: timestamp(at),
                    }
                    .to_bytes()?;
                    Ok(Rotation {
                        revealed_server_seed: current.reveal_hex(),
                        successor: None,
                        at,
                        opened_deals,
                        log_entries: vec![reveal],
                        logged_reveal: None,
                        also_logged: Vec::new(),
                    })
                },
            )
            .await
    }
}
