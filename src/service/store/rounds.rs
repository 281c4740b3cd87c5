//! Rounds: deal (nonce and insert in one transaction), read, list, close.

use super::rows::{NewRound, PairStatus, RoundRow, RoundStatus};
use super::{Constraint, Store};

/// Whether `err` is losing the race for an idempotency key to a concurrent
/// request (the unique constraint): that request's round is then the answer.
pub fn is_idempotency_race(err: &anyhow::Error) -> bool {
    err.downcast_ref::<sqlx::Error>()
        .and_then(Constraint::violated_by)
        == Some(Constraint::RoundsPairIdempotency)
}

/// What the deal closure receives inside the round transaction.
#[derive(Debug)]
pub struct DealContext<'a> {
    pub nonce: u64,
    pub server_seed_sealed: &'a [u8],
    pub client_seed: &'a str,
    /// A chain pair's first sealed seed at or above `nonce + 1`: its
    /// position and the sealed bytes (none for a fairdeal-v1 pair).
    pub chain_anchor: Option<(u64, &'a [u8])>,
}

/// A chain pair's rounds whose seeds a close publishes: every round from
/// the first unpublished nonce up to (not including) the first in play,
/// by nonce, and the sealed seed at or above the last one's `s_{k+1}`.
#[derive(Debug)]
pub struct ChainWork {
    pub pair_id: String,
    pub rounds: Vec<ChainRound>,
    pub anchor_position: u64,
    pub anchor_sealed: Vec<u8>,
}

/// A round of [`ChainWork`].
#[derive(Debug, sqlx::FromRow)]
pub struct ChainRound {
    pub id: String,
    #[sqlx(try_from = "i64")]
    pub nonce: u64,
    pub deal_sealed: Option<Vec<u8>>,
}

/// A chain round's seed as published: the seed's hex, its deal opened (to
/// be stored in the clear) and the log entry that publishes it.
#[derive(Debug)]
pub struct PublishedSeed {
    pub round_id: String,
    pub server_seed: String,
    pub deal: Option<String>,
    pub log_entry: Vec<u8>,
}

/// The outcome of dealing a round.
#[derive(Debug)]
pub enum InsertRound {
    Dealt(RoundRow),
    /// The idempotency key was used before on this pair: that round.
    Replayed(RoundRow),
    NotFound,
    /// The pair does not take rounds (`awaiting_client_seed` or `revealed`).
    NotActive(PairStatus),
    /// The pair has dealt 2^53 − 1 rounds (the most a log entry states
    /// exactly).
    Exhausted,
    /// A chain pair has dealt the last round of its chain (its length).
    ChainUsedUp(u64),
    /// Never made by the store: the dealer's verdict when the idempotency
    /// key's round was dealt for another game.
    IdempotencyKeyReused,
}

/// The outcome of closing a round.
#[derive(Debug)]
pub enum CloseRound {
    Closed(Box<RoundRow>),
    NotFound,
}

/// A pair's row after a batch took its nonces: its id, its next nonce
/// after them, its sealed seed, its client seed, and a chain pair's first
/// two sealed seeds above its first nonce (position and bytes each).
#[derive(sqlx::FromRow)]
struct TakenNonces {
    id: String,
    next_nonce: i64,
    server_seed_sealed: Option<Vec<u8>>,
    client_seed: Option<String>,
    chain_length: Option<i64>,
    anchor_1: Option<i64>,
    sealed_1: Option<Vec<u8>>,
    anchor_2: Option<i64>,
    sealed_2: Option<Vec<u8>>,
}

/// One deal of a batch: the pair, and the request's idempotency key.
#[derive(Clone, Debug)]
pub struct RoundRequest {
    pub pair_id: String,
    pub idempotency_key: Option<String>,
}

/// What became of one request of a batch: dealt (its row), not dealt because
/// the pair takes no round (`None`: [`Store::why_no_round`] says why), or
/// failed on its own (rolled back alone).
pub type BatchedRound = anyhow::Result<Option<RoundRow>>;

/// Takes `$request`'s pair's next nonce on the executor `$tx` and deals it
/// with `$deal($i, …)`: the nonce and the new round, or `None` when the pair
/// takes no round (missing, not active, exhausted).
macro_rules! take_nonce_and_deal {
    ($tx:ident, $deal:expr, $i:expr, $request:expr) => {
        async {
            let taken: Option<(i64, Option<Vec<u8>>, Option<String>, Option<i64>)> =
                sqlx::query_as(
                    "UPDATE seed_pairs SET next_nonce = next_nonce + 1 \
                     WHERE id = $1 AND status = $2 AND next_nonce < 9007199254740991 \
                     AND (chain_length IS NULL OR next_nonce < chain_length) \
                     RETURNING next_nonce - 1, server_seed_sealed, client_seed, chain_length",
                )
                .bind(&$request.pair_id)
                .bind(PairStatus::Active.as_str())
                .fetch_optional(&mut *$tx)
                .await?;
            match taken {
                Some((nonce, Some(sealed), Some(client_seed), chain_length)) => {
                    // A chain pair's round seed comes from the first sealed
                    // seed at or above it.
                    let anchor: Option<(i64, Vec<u8>)> = match chain_length {
                        Some(_) => Some(
                            sqlx::query_as(
                                "SELECT position, seed_sealed FROM chain_anchors \
                                 WHERE seed_pair_id = $1 AND position > $2 \
                                 ORDER BY position LIMIT 1",
                            )
                            .bind(&$request.pair_id)
                            .bind(nonce)
                            .fetch_optional(&mut *$tx)
                            .await?
                            .ok_or_else(|| {
                                anyhow::anyhow!(
                                    "a chain pair without a sealed seed above its nonce"
                                )
                            })?,
                        ),
                        None => None,
                    };
                    let round = $deal(
                        $i,
                        &DealContext {
                            nonce: nonce as u64,
                            server_seed_sealed: &sealed,
                            client_seed: &client_seed,
                            chain_anchor: anchor
                                .as_ref()
                                .map(|(position, sealed)| (*position as u64, sealed.as_slice())),
                        },
                    )?;
                    anyhow::Ok(Some((nonce, round)))
                }
                Some(_) => {
                    anyhow::bail!("an active seed pair without a sealed seed or client seed")
                }
                None => Ok(None),
            }
        }
    };
}

/// On the executor `$tx`, after a close: if `$pair_id` is an active chain
/// pair, publishes the seed of every round from its first unpublished nonce
/// up to its first round in play (or its next nonce): `$publish` computes
/// them from the first sealed seed at or above the last, the rounds take
/// their seeds and deals in the clear, each seed's log entry is appended in
/// nonce order, and the sealed seeds below are deleted (they are public
/// now). The pair row is locked first, so two closes publish in turn.
/// Evaluates to whether it published anything.
macro_rules! publish_chain_seeds {
    ($floor:expr, $tx:ident, $pair_id:expr, $publish:expr) => {{
        let pair_id: &str = $pair_id;
        let chain: Option<(i64, i64)> = sqlx::query_as(
            "UPDATE seed_pairs SET chain_published = chain_published \
             WHERE id = $1 AND chain_length IS NOT NULL AND status = $2 \
             RETURNING chain_published, next_nonce",
        )
        .bind(pair_id)
        .bind(PairStatus::Active.as_str())
        .fetch_optional(&mut *$tx)
        .await?;
        let mut published_any = false;
        if let Some((published, next_nonce)) = chain {
            let (first_in_play,): (Option<i64>,) = sqlx::query_as(
                "SELECT MIN(nonce) FROM rounds WHERE seed_pair_id = $1 AND status = $2",
            )
            .bind(pair_id)
            .bind(RoundStatus::InPlay.as_str())
            .fetch_one(&mut *$tx)
            .await?;
            let upto = first_in_play.unwrap_or(next_nonce);
            if upto > published {
                let rounds: Vec<ChainRound> = sqlx::query_as(
                    "SELECT id, nonce, deal_sealed FROM rounds \
                     WHERE seed_pair_id = $1 AND nonce >= $2 AND nonce < $3 ORDER BY nonce",
                )
                .bind(pair_id)
                .bind(published)
                .bind(upto)
                .fetch_all(&mut *$tx)
                .await?;
                anyhow::ensure!(
                    rounds.len() as i64 == upto - published,
                    "a chain pair's rounds {published} to {} are not all stored",
                    upto - 1
                );
                let (anchor_position, anchor_sealed): (i64, Vec<u8>) = sqlx::query_as(
                    "SELECT position, seed_sealed FROM chain_anchors \
                     WHERE seed_pair_id = $1 AND position >= $2 ORDER BY position LIMIT 1",
                )
                .bind(pair_id)
                .bind(upto)
                .fetch_optional(&mut *$tx)
                .await?
                .ok_or_else(|| {
                    anyhow::anyhow!("a chain pair without a sealed seed to publish from")
                })?;
                let work = ChainWork {
                    pair_id: pair_id.to_owned(),
                    rounds,
                    anchor_position: anchor_position as u64,
                    anchor_sealed,
                };
                let seeds = ($publish)(&work)?;
                anyhow::ensure!(
                    seeds.len() == work.rounds.len(),
                    "{} seeds published for {} rounds",
                    seeds.len(),
                    work.rounds.len()
                );
                for seed in seeds {
                    let index = append_log_entry!($floor, $tx, &seed.log_entry);
                    sqlx::query(
                        "UPDATE rounds SET server_seed = $2, deal = COALESCE($3, deal), \
                         deal_sealed = NULL, seed_log_index = $4 WHERE id = $1",
                    )
                    .bind(&seed.round_id)
                    .bind(&seed.server_seed)
                    .bind(&seed.deal)
                    .bind(index)
                    .execute(&mut *$tx)
                    .await?;
                }
                sqlx::query("UPDATE seed_pairs SET chain_published = $2 WHERE id = $1")
                    .bind(pair_id)
                    .bind(upto)
                    .execute(&mut *$tx)
                    .await?;
                sqlx::query("DELETE FROM chain_anchors WHERE seed_pair_id = $1 AND position < $2")
                    .bind(pair_id)
                    .bind(upto)
                    .execute(&mut *$tx)
                    .await?;
                published_any = true;
            }
        }
        published_any
    }};
}

impl Store {
    /// The round `request`'s idempotency key already dealt on its pair.
    pub async fn replayed(&self, request: &RoundRequest) -> Result<Option<RoundRow>, sqlx::Error> {
        match &request.idempotency_key {
            Some(key) => self.round_by_idempotency_key(&request.pair_id, key).await,
            None => Ok(None),
        }
    }

    /// Why the pair took no round: it does not exist, is not active, or has
    /// dealt all it may.
    pub async fn why_no_round(&self, pair_id: &str) -> anyhow::Result<InsertRound> {
        Ok(match self.pair(pair_id).await? {
            None => InsertRound::NotFound,
            Some(pair) if pair.status == PairStatus::Active => match pair.chain_length {
                Some(length) if pair.next_nonce >= length => {
                    InsertRound::ChainUsedUp(length as u64)
                }
                _ => InsertRound::Exhausted,
            },
            Some(pair) => InsertRound::NotActive(pair.status),
        })
    }

    /// Deals several rounds in ONE transaction and one commit (group
    /// commit): request `i` takes its pair's next nonce, is dealt by
    /// `deal(i, …)`, logged and inserted. Requests on the same pair get
    /// consecutive nonces in request order. The outer error is the
    /// transaction's: then nothing was committed.
    ///
    /// With `isolated`, each request runs in a savepoint of its own, so one
    /// that fails is rolled back alone and the others commit. Without, the
    /// batch runs in a few statements (the nonces of every pair, then the
    /// log indexes, the log entries and the rounds: one statement on
    /// PostgreSQL, three on SQLite), and the first request that fails fails
    /// the whole batch (an outer error): run it again isolated.
    pub async fn insert_rounds<F>(
        &self,
        requests: &[RoundRequest],
        isolated: bool,
        deal: F,
    ) -> anyhow::Result<Vec<BatchedRound>>
    where
        F: Fn(usize, &DealContext<'_>) -> anyhow::Result<NewRound>,
    {
        const INSERT: &str = concat!(
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, deal_sealed, status, \
             created_at, idempotency_key, log_index) \
             VALUES ($1, $2, $3, $4, '', $5, $8, $6, $7, $9) RETURNING ",
            round_columns!()
        );
        let floor = self.log_floor().clone();
        // One request's statements on the executor `$tx`.
        macro_rules! deal_one {
            ($tx:ident, $i:expr, $request:expr) => {
                async {
                    let request: &RoundRequest = $request;
                    let Some((nonce, round)) = take_nonce_and_deal!($tx, deal, $i, request).await?
                    else {
                        return Ok(None);
                    };
                    let log_index = append_log_entry!(floor, $tx, &round.log_entry);
                    let mut row: RoundRow = sqlx::query_as(INSERT)
                        .bind(&round.id)
                        .bind(&request.pair_id)
                        .bind(nonce)
                        .bind(&round.game)
                        .bind(&round.deal_sealed)
                        .bind(round.created_at)
                        .bind(&request.idempotency_key)
                        .bind(RoundStatus::InPlay.as_str())
                        .bind(log_index)
                        .fetch_one(&mut *$tx)
                        .await?;
                    row.log_entry = Some(round.log_entry);
                    Ok(Some(row))
                }
            };
        }
        if !isolated {
            return self.insert_rounds_together(requests, deal).await;
        }
        Ok(write_tx!(self, |tx| {
            let mut results: Vec<BatchedRound> = Vec::with_capacity(requests.len());
            for (i, request) in requests.iter().enumerate() {
                let mut savepoint = sqlx::Acquire::begin(&mut tx).await?;
                let outcome: BatchedRound = deal_one!(savepoint, i, request).await;
                match outcome {
                    Ok(row) => {
                        savepoint.commit().await?;
                        results.push(Ok(row));
                    }
                    Err(err) => {
                        savepoint.rollback().await?;
                        results.push(Err(err));
                    }
                }
            }
            results
        }))
    }

    /// [`Store::insert_rounds`] without savepoints: one `UPDATE … FROM
    /// (VALUES …)` advances every pair's nonce by its number of deals, then
    /// the batch takes its log indexes at once and inserts every log entry
    /// and every round — in one more statement on PostgreSQL (data-modifying
    /// CTEs), in three on SQLite. The first failure fails the batch.
    async fn insert_rounds_together<F>(
        &self,
        requests: &[RoundRequest],
        deal: F,
    ) -> anyhow::Result<Vec<BatchedRound>>
    where
        F: Fn(usize, &DealContext<'_>) -> anyhow::Result<NewRound>,
    {
        const TAKE_INDEXES: &str = "UPDATE log_state SET next_index = next_index + $1 \
             WHERE id = 1 RETURNING next_index - $1";
        // A batch's round rows but their log indexes, in the order
        // `push_round!` binds them; the deal itself is stored sealed only.
        const ROUND_COLUMNS: &str = "id, seed_pair_id, nonce, game, deal, deal_sealed, \
             status, created_at, idempotency_key";
        Ok(write_tx!(self, |tx| {
            // Every pair's nonces for the batch in one statement; a pair
            // it leaves out (missing, not active, or too near its last
            // nonce, or its chain's end, for all its deals) is taken deal
            // by deal below.
            let mut counts: Vec<(&str, i64)> = Vec::new();
            for request in requests {
                match counts.iter_mut().find(|(id, _)| *id == request.pair_id) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((&request.pair_id, 1)),
                }
            }
            // In the order of their ids: on PostgreSQL, the update then locks
            // its pairs in one order whenever it reads them in this list's
            // order (an index lookup a pair), so the batches of two
            // processes sharing pairs wait for each other instead of
            // deadlocking.
            counts.sort_unstable_by_key(|(id, _)| *id);
            let mut update = sqlx::QueryBuilder::new(
                "UPDATE seed_pairs SET next_nonce = next_nonce + b.column2 FROM (VALUES ",
            );
            for (k, (id, n)) in counts.iter().enumerate() {
                if k > 0 {
                    update.push(", ");
                }
                update
                    .push("(")
                    .push_bind(*id)
                    .push(", CAST(")
                    .push_bind(*n)
                    .push(" AS BIGINT))");
            }
            update
                .push(") AS b WHERE seed_pairs.id = b.column1 AND seed_pairs.status = ")
                .push_bind(PairStatus::Active.as_str())
                .push(
                    " AND seed_pairs.next_nonce + b.column2 <= 9007199254740991 \
                     AND (seed_pairs.chain_length IS NULL \
                          OR seed_pairs.next_nonce + b.column2 <= seed_pairs.chain_length) \
                     RETURNING seed_pairs.id, seed_pairs.next_nonce, \
                     seed_pairs.server_seed_sealed, seed_pairs.client_seed, \
                     seed_pairs.chain_length, ",
                );
            // A chain pair's deals need the first sealed seed above each
            // nonce; a batch (at most 64 deals) spans at most two of them,
            // 128 apart. PostgreSQL reads them with the nonces, from the
            // primary key; SQLite (whose planner makes every row of such an
            // UPDATE cost more) in one more statement, below.
            let is_postgres = matches!(self, Store::Postgres(..));
            for (k, (column, sealed_offset)) in [
                ("position", "0"),
                ("seed_sealed", "0"),
                ("position", "1"),
                ("seed_sealed", "1"),
            ]
            .iter()
            .enumerate()
            {
                if k > 0 {
                    update.push(", ");
                }
                if !is_postgres {
                    update
                        .push("NULL AS ")
                        .push(["anchor_1", "sealed_1", "anchor_2", "sealed_2"][k]);
                    continue;
                }
                update
                    .push("CASE WHEN seed_pairs.chain_length IS NULL THEN NULL ELSE (SELECT c.")
                    .push(*column)
                    .push(
                        " FROM chain_anchors c WHERE c.seed_pair_id = seed_pairs.id \
                         AND c.position > seed_pairs.next_nonce - b.column2 \
                         ORDER BY c.position LIMIT 1 OFFSET ",
                    )
                    .push(*sealed_offset)
                    .push(") END AS ")
                    .push(["anchor_1", "sealed_1", "anchor_2", "sealed_2"][k]);
            }
            let mut taken: Vec<TakenNonces> = update.build_query_as().fetch_all(&mut *tx).await?;
            if !is_postgres && taken.iter().any(|row| row.chain_length.is_some()) {
                // A range of the primary key a chain pair, by UNION ALL.
                let mut read = sqlx::QueryBuilder::new("");
                for (k, row) in taken
                    .iter()
                    .filter(|r| r.chain_length.is_some())
                    .enumerate()
                {
                    let n = counts
                        .iter()
                        .find(|(pair, _)| *pair == row.id)
                        .map_or(0, |(_, n)| *n);
                    let first = row.next_nonce - n;
                    if k > 0 {
                        read.push(" UNION ALL ");
                    }
                    read.push(
                        "SELECT seed_pair_id, position, seed_sealed FROM chain_anchors \
                         WHERE seed_pair_id = ",
                    )
                    .push_bind(row.id.as_str())
                    .push(" AND position > ")
                    .push_bind(first)
                    .push(" AND position <= ")
                    .push_bind(first + n + 128);
                }
                let mut anchors: Vec<(String, i64, Vec<u8>)> =
                    read.build_query_as().fetch_all(&mut *tx).await?;
                anchors.sort_unstable_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
                for row in taken.iter_mut().filter(|r| r.chain_length.is_some()) {
                    let mut mine = anchors.iter().filter(|(id, _, _)| *id == row.id);
                    if let Some((_, position, bytes)) = mine.next() {
                        (row.anchor_1, row.sealed_1) = (Some(*position), Some(bytes.clone()));
                    }
                    if let Some((_, position, bytes)) = mine.next() {
                        (row.anchor_2, row.sealed_2) = (Some(*position), Some(bytes.clone()));
                    }
                }
            }
            // pair id → (its next nonce in this batch, sealed seed, client
            // seed, a chain pair's sealed seeds above its first nonce)
            type Anchors = Vec<(i64, Vec<u8>)>;
            let mut pairs: std::collections::HashMap<
                String,
                (i64, Vec<u8>, String, Option<Anchors>),
            > = std::collections::HashMap::with_capacity(taken.len());
            for row in taken {
                let (Some(sealed), Some(client_seed)) = (row.server_seed_sealed, row.client_seed)
                else {
                    anyhow::bail!("an active seed pair without a sealed seed or client seed");
                };
                let n = counts
                    .iter()
                    .find(|(pair, _)| *pair == row.id)
                    .map_or(0, |(_, n)| *n);
                // A chain pair is never dealt from its sealed tip: without
                // a sealed seed above its nonce its deals fail.
                let anchors = row.chain_length.map(|_| {
                    [(row.anchor_1, row.sealed_1), (row.anchor_2, row.sealed_2)]
                        .into_iter()
                        .filter_map(|(position, bytes)| Some((position?, bytes?)))
                        .collect::<Vec<_>>()
                });
                pairs.insert(row.id, (row.next_nonce - n, sealed, client_seed, anchors));
            }
            // (request index, nonce, the new round), in request order, so a
            // pair's deals take its nonces in the order they came.
            let mut dealt: Vec<(usize, i64, NewRound)> = Vec::with_capacity(requests.len());
            for (i, request) in requests.iter().enumerate() {
                if let Some((nonce, sealed, client_seed, anchors)) = pairs.get_mut(&request.pair_id)
                {
                    let chain_anchor = match anchors {
                        Some(list) => Some(
                            list.iter()
                                .find(|(position, _)| *position > *nonce)
                                .map(|(position, sealed)| (*position as u64, sealed.as_slice()))
                                .ok_or_else(|| {
                                    anyhow::anyhow!(
                                        "a chain pair without a sealed seed above its nonce"
                                    )
                                })?,
                        ),
                        None => None,
                    };
                    let round = deal(
                        i,
                        &DealContext {
                            nonce: *nonce as u64,
                            server_seed_sealed: sealed,
                            client_seed,
                            chain_anchor,
                        },
                    )?;
                    dealt.push((i, *nonce, round));
                    *nonce += 1;
                } else if let Some((nonce, round)) =
                    take_nonce_and_deal!(tx, deal, i, request).await?
                {
                    dealt.push((i, nonce, round));
                }
            }
            let mut results: Vec<BatchedRound> = (0..requests.len()).map(|_| Ok(None)).collect();
            if !dealt.is_empty() {
                let count = dealt.len() as i64;
                // The values of a round's row, in the order of ROUND_COLUMNS.
                macro_rules! push_round {
                    ($row:ident, $i:expr, $nonce:expr, $round:expr) => {
                        $row.push_bind($round.id.as_str())
                            .push_bind(requests[$i].pair_id.as_str())
                            .push_bind($nonce)
                            .push_bind($round.game.as_str())
                            .push("''")
                            .push_bind($round.deal_sealed.as_slice())
                            .push_bind(RoundStatus::InPlay.as_str())
                            .push_bind($round.created_at)
                            .push_bind(requests[$i].idempotency_key.as_deref())
                    };
                }
                let first = if matches!(self, Store::Postgres(..)) {
                    // One statement, two round trips fewer: the log
                    // indexes taken, the entries and the rounds inserted,
                    // by data-modifying CTEs.
                    let mut insert = sqlx::QueryBuilder::new(
                        "WITH taken AS (UPDATE log_state SET next_index = next_index + ",
                    );
                    insert
                        .push_bind(count)
                        .push(" WHERE id = 1 RETURNING next_index - ")
                        .push_bind(count)
                        .push(
                            " AS first), entries AS (INSERT INTO log_entries (idx, entry) \
                             SELECT taken.first + e.k, e.entry FROM taken, (",
                        );
                    insert.push_values(dealt.iter().enumerate(), |mut row, (k, (_, _, round))| {
                        row.push_bind(k as i64)
                            .push_bind(round.log_entry.as_slice());
                    });
                    insert
                        .push(") AS e (k, entry)) INSERT INTO rounds (")
                        .push(ROUND_COLUMNS)
                        .push(
                            ", log_index) SELECT r.id, r.pair, r.nonce, r.game, r.deal, \
                             r.sealed, r.status, r.created_at, r.key, taken.first + r.k \
                             FROM taken, (",
                        );
                    insert.push_values(
                        dealt.iter().enumerate(),
                        |mut row, (k, (i, nonce, round))| {
                            row.push_bind(k as i64);
                            push_round!(row, *i, *nonce, round);
                        },
                    );
                    insert.push(
                        ") AS r (k, id, pair, nonce, game, deal, sealed, status, created_at, \
                         key) RETURNING log_index",
                    );
                    let indexes: Vec<(i64,)> = insert.build_query_as().fetch_all(&mut *tx).await?;
                    anyhow::ensure!(
                        indexes.len() == dealt.len(),
                        "{} of a batch's {count} rounds were inserted",
                        indexes.len()
                    );
                    indexes
                        .iter()
                        .map(|(index,)| *index)
                        .min()
                        .unwrap_or_default()
                } else {
                    // SQLite has no data-modifying CTEs: three statements.
                    let (first,): (i64,) = sqlx::query_as(TAKE_INDEXES)
                        .bind(count)
                        .fetch_one(&mut *tx)
                        .await?;
                    let mut entries =
                        sqlx::QueryBuilder::new("INSERT INTO log_entries (idx, entry) ");
                    entries.push_values(dealt.iter().enumerate(), |mut row, (k, (_, _, round))| {
                        row.push_bind(first + k as i64)
                            .push_bind(round.log_entry.as_slice());
                    });
                    entries.build().execute(&mut *tx).await?;
                    let mut insert = sqlx::QueryBuilder::new("INSERT INTO rounds (");
                    insert.push(ROUND_COLUMNS).push(", log_index) ");
                    insert.push_values(
                        dealt.iter().enumerate(),
                        |mut row, (k, (i, nonce, round))| {
                            push_round!(row, *i, *nonce, round).push_bind(first + k as i64);
                        },
                    );
                    let inserted = insert.build().execute(&mut *tx).await?.rows_affected();
                    anyhow::ensure!(
                        inserted == count as u64,
                        "{inserted} of a batch's {count} rounds were inserted"
                    );
                    first
                };
                // Never at indexes the log already used (a restored
                // database): the whole batch rolls back.
                let known = self.log_floor().get();
                if (first as u64) < known {
                    return Err(crate::service::store::BehindLog {
                        index: first as u64,
                        known,
                    }
                    .into());
                }
                // The rows as inserted, built here rather than read back: every
                // column is a value this batch bound.
                for (k, (i, nonce, round)) in dealt.into_iter().enumerate() {
                    let request = &requests[i];
                    results[i] = Ok(Some(RoundRow {
                        id: round.id,
                        seed_pair_id: request.pair_id.clone(),
                        nonce,
                        game: round.game,
                        deal: String::new(),
                        deal_sealed: Some(round.deal_sealed),
                        status: RoundStatus::InPlay,
                        created_at: round.created_at,
                        closed_at: None,
                        idempotency_key: request.idempotency_key.clone(),
                        log_index: Some(first + k as i64),
                        server_seed: None,
                        seed_log_index: None,
                        log_entry: Some(round.log_entry),
                    }));
                }
            }
            results
        }))
    }

    async fn round_by_idempotency_key(
        &self,
        pair_id: &str,
        key: &str,
    ) -> Result<Option<RoundRow>, sqlx::Error> {
        const SQL: &str = concat!(
            "SELECT ",
            round_columns!(),
            " FROM rounds WHERE seed_pair_id = $1 AND idempotency_key = $2"
        );
        with_pool!(self, |pool| {
            sqlx::query_as(SQL)
                .bind(pair_id)
                .bind(key)
                .fetch_optional(pool)
                .await
        })
    }

    pub async fn round(&self, id: &str) -> Result<Option<RoundRow>, sqlx::Error> {
        const SQL: &str = concat!("SELECT ", round_columns!(), " FROM rounds WHERE id = $1");
        with_pool!(self, |pool| sqlx::query_as(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)
    }

    /// The published seed of round `nonce` of chain pair `pair_id`, if it is
    /// published.
    pub async fn round_seed_at(
        &self,
        pair_id: &str,
        nonce: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        let row: Option<(Option<String>,)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT server_seed FROM rounds WHERE seed_pair_id = $1 AND nonce = $2")
                .bind(pair_id)
                .bind(nonce)
                .fetch_optional(pool)
                .await
        })?;
        Ok(row.and_then(|(seed,)| seed))
    }

    /// Rounds of a pair past the nonce `after` (all when `None`) in `order`
    /// (by nonce, from the first or the last), at most `limit`.
    pub async fn rounds_of_pair(
        &self,
        pair_id: &str,
        after: Option<i64>,
        order: super::Order,
        limit: i64,
    ) -> Result<Vec<RoundRow>, sqlx::Error> {
        const OLDEST: &str = concat!(
            "SELECT ",
            round_columns!(),
            " FROM rounds WHERE seed_pair_id = $1 AND nonce > $2 \
             ORDER BY nonce LIMIT $3"
        );
        const NEWEST: &str = concat!(
            "SELECT ",
            round_columns!(),
            " FROM rounds WHERE seed_pair_id = $1 AND nonce < $2 \
             ORDER BY nonce DESC LIMIT $3"
        );
        let (sql, after) = match order {
            super::Order::Oldest => (OLDEST, after.unwrap_or(-1)),
            super::Order::Newest => (NEWEST, after.unwrap_or(i64::MAX)),
        };
        with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(pair_id)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await
        })
    }

    /// Marks a round closed (closing a closed round changes nothing) and,
    /// for a chain pair, publishes the seeds its close makes public
    /// (`publish` opens and logs them; see [`publish_chain_seeds`]). The row
    /// answered is the round as it is after both.
    pub async fn close_round<F>(&self, id: &str, now: i64, publish: F) -> anyhow::Result<CloseRound>
    where
        F: Fn(&ChainWork) -> anyhow::Result<Vec<PublishedSeed>>,
    {
        const SQL: &str = concat!(
            "UPDATE rounds SET status = $3, closed_at = COALESCE(closed_at, $2) \
             WHERE id = $1 RETURNING ",
            round_columns!()
        );
        const READ: &str = concat!("SELECT ", round_columns!(), " FROM rounds WHERE id = $1");
        let row: Option<RoundRow> = write_tx!(self, |tx| {
            let row: Option<RoundRow> = sqlx::query_as(SQL)
                .bind(id)
                .bind(now)
                .bind(RoundStatus::Closed.as_str())
                .fetch_optional(&mut *tx)
                .await?;
            match row {
                Some(row) => {
                    if publish_chain_seeds!(self.log_floor(), tx, &row.seed_pair_id, &publish) {
                        sqlx::query_as(READ)
                            .bind(id)
                            .fetch_optional(&mut *tx)
                            .await?
                    } else {
                        Some(row)
                    }
                }
                None => None,
            }
        });
        Ok(row.map_or(CloseRound::NotFound, |row| {
            CloseRound::Closed(Box::new(row))
        }))
    }

    /// Closes every round in play created before `created_before`, and
    /// publishes the seeds that makes public on chain pairs; returns how
    /// many rounds it closed.
    pub async fn close_stale_rounds<F>(
        &self,
        created_before: i64,
        now: i64,
        publish: F,
    ) -> anyhow::Result<u64>
    where
        F: Fn(&ChainWork) -> anyhow::Result<Vec<PublishedSeed>>,
    {
        Ok(write_tx!(self, |tx| {
            let closed: Vec<(String,)> = sqlx::query_as(
                "UPDATE rounds SET status = $3, closed_at = $2 \
                 WHERE status = $4 AND created_at < $1 RETURNING seed_pair_id",
            )
            .bind(created_before)
            .bind(now)
            .bind(RoundStatus::Closed.as_str())
            .bind(RoundStatus::InPlay.as_str())
            .fetch_all(&mut *tx)
            .await?;
            let count = closed.len() as u64;
            let mut pairs: Vec<String> = closed.into_iter().map(|(pair,)| pair).collect();
            pairs.sort_unstable();
            pairs.dedup();
            for pair in &pairs {
                publish_chain_seeds!(self.log_floor(), tx, pair, &publish);
            }
            count
        }))
    }
}
