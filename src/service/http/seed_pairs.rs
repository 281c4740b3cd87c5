//! `/v1/seed-pairs`: commit, list, set the client seed, read, rotate, list
//! rounds.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth::{Operator, Viewer};
use super::error::ProblemKind;
use super::error::{
    ApiError, DatabaseUnavailable, InvalidClientSeed, JsonBodyProblems, OperatorAuthProblems,
    PairNotFound, Problem, QueryProblems, ViewerAuthProblems,
};
use super::extract::{ApiJson, ApiPath, ApiQuery};
use super::receipts::receipt;
use super::tables::pair_view;
use super::wire::cursor::{self, Listing};
use super::wire::{
    ClientSeedRequest, CreatePairRequest, PageParams, PairListParams, PairPage, RotateRequest,
    RotationResult, RoundPage, SeedPair, parse_pair_cursor, seed_reuse,
};
use crate::service::dealer::{Owner, PairLabel, PairSpec, Successor};
use crate::service::store::{Order, PairFilter, PairRow, PairStatus, Rotate, SetClientSeed};
use fairdeal_core::PairProtocol;

/// Commit to a new seed pair.
///
/// Publishes the SHA-256 of a fresh server seed (and of the seed the next pair
/// will use) before any client seed exists, so the server cannot pick its
/// seed after seeing the player's.
#[utoipa::path(post, path = "/v1/seed-pairs", tag = "seed pairs",
    security(("operator_key" = [])),
    request_body(content = CreatePairRequest, description = "Optional (no body, or `null`, makes a plain fairdeal-v1 pair): a label; seats for a table pair; the protocol and a chain's length"),
    responses(
        (status = 201, description = "The new pair, awaiting its client seed (or, for a table, its seats' contributions)", body = SeedPair),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        (status = 422, description = "Invalid label, seats or chain length", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    operator: Operator,
    request: Option<ApiJson<Option<CreatePairRequest>>>,
) -> Result<(StatusCode, Json<SeedPair>), ApiError> {
    let options = request
        .and_then(|ApiJson(r)| r)
        .unwrap_or_default()
        .options()?;
    let spec = PairSpec {
        owner: Owner {
            tenant: operator.tenant.clone(),
            label: options.label,
        },
        seats: options.seats,
        protocol: options.protocol,
    };
    let pair = state.dealer.create_pair(spec).await?;
    tracing::info!(seed_pair = %pair.id, tenant = %pair.tenant, seats = pair.seats, protocol = pair.protocol().name(), chain_length = pair.chain_length, "seed pair committed");
    let mut view = pair_view(&state, &pair, true).await?;
    view.receipt = receipt(&state, pair.commit_log_index).await?;
    Ok((StatusCode::CREATED, Json(view)))
}

/// List the operator's seed pairs.
///
/// The pairs of the key's tenant, oldest first or (`order=newest`) newest
/// first, optionally only those in one status or with one label;
/// `next_cursor` pages on.
#[utoipa::path(get, path = "/v1/seed-pairs", tag = "seed pairs",
    security(("operator_key" = [])),
    params(PairListParams),
    responses(
        (status = 200, description = "A page of the tenant's pairs", body = PairPage),
        DatabaseUnavailable,
        OperatorAuthProblems,
        QueryProblems,
        (status = 422, description = "limit out of range, or an unusable cursor", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list(
    State(state): State<AppState>,
    operator: Operator,
    ApiQuery(params): ApiQuery<PairListParams>,
) -> Result<Json<PairPage>, ApiError> {
    let limit = page_limit(params.limit)?;
    let (order, key) = cursor::start(
        Listing::Pairs,
        params.order,
        params.cursor.as_deref(),
        params.after.is_some(),
        |key| crate::service::store::parse_listing_cursor(key).is_some(),
    )?;
    let position = key.as_deref().or(params.after.as_deref());
    let after = position.map(parse_pair_cursor).transpose()?;
    let label = params
        .label
        .map(|text| PairLabel::new(text).map_err(|rule| ApiError::invalid("label", rule)))
        .transpose()?;
    let filter = PairFilter {
        status: params.status,
        label: label.map(|label| label.as_str().to_owned()),
    };
    let rows = state
        .dealer
        .store()
        .tenant_pairs(
            &operator.tenant,
            &filter,
            after,
            order,
            i64::from(limit) + 1,
        )
        .await?;
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let last = rows.last().filter(|_| more);
    Ok(Json(PairPage {
        seed_pairs: rows.iter().map(|row| SeedPair::view(row, true)).collect(),
        next_cursor: last.map(|row| cursor::next(Listing::Pairs, order, &row.listing_cursor())),
        next_after: last
            .filter(|_| order == Order::Oldest)
            .map(PairRow::listing_cursor),
    }))
}

/// A page size from `limit`: 1 to 1000, 100 when not given.
fn page_limit(limit: Option<u32>) -> Result<u32, ApiError> {
    page_size(limit, 1000)
}

/// A page size from `limit`: 1 to `max`, 100 (or `max`) when not given.
pub(super) fn page_size(limit: Option<u32>, max: u32) -> Result<u32, ApiError> {
    let limit = limit.unwrap_or(100.min(max));
    if (1..=max).contains(&limit) {
        Ok(limit)
    } else {
        Err(ApiError::invalid(
            "limit",
            format!("must be 1 to {max}; got {limit}"),
        ))
    }
}

/// The answer to a client seed refused because these live pairs of the
/// tenant hold it or one that looks like it
/// ([`crate::service::store::SeedReuse::Refused`]).
fn seed_in_use(holders: &[String]) -> ApiError {
    ApiError::seed_in_use(
        holders,
        format!(
            "client_seed: seed pair(s) {} of this tenant, not yet revealed, hold this client seed \
             or one that looks like it; giving it to another pair would let deals be shopped \
             across them, and the transparency log shows it as deal-shopping. Ask the player \
             for another seed, rotate those pairs first, or send \"allow_reuse\": true to insist",
            holders.join(", ")
        ),
    )
}

/// Set the pair's client seed (once).
///
/// Setting the seed the pair already has is a retry: it answers 200 with the
/// pair as it is now and the header `Idempotent-Replayed: true`, and changes
/// nothing. Another seed is 409.
#[utoipa::path(put, path = "/v1/seed-pairs/{id}/client-seed", tag = "seed pairs",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Seed pair id")),
    request_body = ClientSeedRequest,
    responses(
        (status = 200, description = "The pair, now active (or as it is now, to a retry)", body = SeedPair, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "Another client seed is already set, or this seed (or one that looks like it) is held by another of the tenant's pairs not yet revealed (`allow_reuse` to insist)", body = Problem, content_type = "application/problem+json"),
        InvalidClientSeed,
    ))]
pub async fn set_client_seed(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<ClientSeedRequest>,
) -> Result<Response, ApiError> {
    let reuse = seed_reuse(request.allow_reuse);
    let client_seed = request.client_seed()?;
    operator.pair(&state, &id).await?;
    // The pair with the receipt of its client seed's entry.
    let answer = async |pair: &PairRow| -> Result<Response, ApiError> {
        let mut view = SeedPair::view(pair, true);
        view.receipt = receipt(&state, pair.client_seed_log_index).await?;
        Ok(Json(view).into_response())
    };
    match state
        .dealer
        .set_client_seed(&id, &client_seed, reuse)
        .await?
    {
        SetClientSeed::Set(pair) => answer(&pair).await,
        SetClientSeed::SeedInUse(holders) => Err(seed_in_use(&holders)),
        // The same seed again: a retry whose first answer was lost.
        SetClientSeed::AlreadySet(pair)
            if pair.seats.is_none()
                && pair.client_seed.as_deref() == Some(client_seed.as_str()) =>
        {
            Ok(super::replayed(answer(&pair).await?))
        }
        SetClientSeed::NotFound => Err(ApiError::not_found("seed pair", &id)),
        SetClientSeed::AlreadySet(pair) if pair.seats.is_some() => Err(ApiError::conflict(
            ProblemKind::TableClientSeed,
            format!(
                "seed pair {id} is a table: its client seed is derived from its seats' contributions \
                 (PUT /v1/seed-pairs/{id}/seats/{{seat}}/commitment, then …/contribution), never set"
            ),
        )),
        SetClientSeed::AlreadySet(pair) => Err(ApiError::conflict(
            ProblemKind::ClientSeedAlreadySet,
            format!(
                "seed pair {id} is {} with another client seed; a client seed can be set only once, \
                 while the pair awaits one",
                pair.status
            ),
        )),
    }
}

/// Read a seed pair.
#[utoipa::path(get, path = "/v1/seed-pairs/{id}", tag = "seed pairs",
    params(("id" = String, Path, description = "Seed pair id")),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The pair; `server_seed` only once revealed", body = SeedPair),
        DatabaseUnavailable,
        ViewerAuthProblems,
        PairNotFound,
    ))]
pub async fn get(
    State(state): State<AppState>,
    // Public, but a key that is present must be valid, as on every read.
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<SeedPair>, ApiError> {
    let pair = super::load_pair(&state, &id).await?;
    Ok(Json(pair_view(&state, &pair, viewer.owns(&pair)).await?))
}

/// List a pair's rounds by nonce, from the first (`order=oldest`) or the
/// last (`order=newest`); `next_cursor` pages on.
///
/// Every round ever dealt on the pair is listed, so a player can see that no
/// deal was drawn and discarded between the rounds they played. Before the
/// pair is revealed, public readers see no cards.
#[utoipa::path(get, path = "/v1/seed-pairs/{id}/rounds", tag = "rounds",
    params(("id" = String, Path, description = "Seed pair id"), PageParams),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "A page of rounds", body = RoundPage),
        DatabaseUnavailable,
        QueryProblems,
        ViewerAuthProblems,
        PairNotFound,
        (status = 422, description = "limit out of range, or an unusable cursor", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn rounds(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Json<RoundPage>, ApiError> {
    let limit = page_limit(params.limit)?;
    let (order, key) = cursor::start(
        Listing::Rounds,
        params.order,
        params.cursor.as_deref(),
        params.after.is_some(),
        |key| cursor::whole(key).is_some(),
    )?;
    if let Some(after) = params.after.filter(|a| *a < 0) {
        return Err(ApiError::invalid(
            "after",
            format!("must be a nonce (0 or more); got {after}"),
        ));
    }
    let after = key.as_deref().and_then(cursor::whole).or(params.after);
    let store = state.dealer.store();
    let pair = super::load_pair(&state, &id).await?;
    let rows = store
        .rounds_of_pair(&id, after, order, i64::from(limit) + 1)
        .await?;
    let more = rows.len() > limit as usize;
    let mut rounds = rows
        .iter()
        .take(limit as usize)
        .map(|row| super::rounds::visible_round(&state, row, &pair, viewer.owns(&pair)))
        .collect::<Result<Vec<_>, ApiError>>()?;
    // A chain round's commitment is the seed of the round before: in the
    // page (the extra row read past its end included), or read.
    if let PairProtocol::Chain(_) = pair.protocol() {
        for (round, row) in rounds.iter_mut().zip(&rows) {
            let before = match row.nonce {
                0 => None,
                nonce => match rows.iter().find(|other| other.nonce == nonce - 1) {
                    Some(other) => other.server_seed.clone(),
                    None => store.round_seed_at(&id, nonce - 1).await?,
                },
            };
            super::rounds::set_round_commitment(round, &pair, before);
        }
    }
    let last = rounds.last().filter(|_| more);
    Ok(Json(RoundPage {
        next_cursor: last.map(|r| cursor::next(Listing::Rounds, order, &r.nonce.to_string())),
        next_after: last.filter(|_| order == Order::Oldest).map(|r| r.nonce),
        rounds,
    }))
}

/// Reveal the pair's server seed and open the next pair.
///
/// The player chooses the new client seed knowing only the already published
/// `next_server_seed_hash`. A table opens a successor table instead (the
/// same seats, or `seats`), awaiting new contributions. Refused (409) while
/// any round of the pair is in play: revealing the seed mid-hand would
/// expose the undealt cards.
///
/// Rotating a one-player pair again with the client seed its successor
/// took is a retry: it answers 200 with the same pairs (as they are now) and
/// receipts, with the header `Idempotent-Replayed: true`.
#[utoipa::path(post, path = "/v1/seed-pairs/{id}/rotate", tag = "seed pairs",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Seed pair id")),
    request_body = RotateRequest,
    responses(
        (status = 200, description = "The revealed pair and the new current pair (the same, to a retry)", body = RotationResult, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "Rounds still in play, the pair is not active, or the successor's client seed (or one that looks like it) is held by another of the tenant's pairs not yet revealed (`allow_reuse` to insist)", body = Problem, content_type = "application/problem+json"),
        InvalidClientSeed,
    ))]
pub async fn rotate(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
    request: Option<ApiJson<RotateRequest>>,
) -> Result<Response, ApiError> {
    let request = request.map(|ApiJson(request)| request).unwrap_or_default();
    let reuse = seed_reuse(request.allow_reuse);
    let successor = request.successor()?;
    operator.pair(&state, &id).await?;
    // The client seed a retry would find on the successor.
    let retry_seed = match &successor {
        Successor::ClientSeed(seed) => Some(seed.as_str().to_owned()),
        Successor::Table(_) => None,
    };
    match state.dealer.rotate(&id, successor, reuse).await? {
        Rotate::Rotated { revealed, current } => {
            state.metrics.event("rotation");
            tracing::info!(revealed = %revealed.id, current = %current.id, "seed pair rotated");
            Ok(Json(rotation(&state, &revealed, &current).await?).into_response())
        }
        Rotate::NotFound => Err(ApiError::not_found("seed pair", &id)),
        Rotate::NotActive(status) => {
            let pair = operator.pair(&state, &id).await?;
            let next = match &pair.successor_id {
                Some(next) => state.dealer.store().pair(next).await?,
                None => None,
            }
            .filter(|next| operator.owns(next));
            match next {
                // The rotation this request asks for has been made: a retry.
                Some(next)
                    if next.seats.is_none()
                        && retry_seed.is_some()
                        && next.client_seed == retry_seed =>
                {
                    Ok(super::replayed(
                        Json(rotation(&state, &pair, &next).await?).into_response(),
                    ))
                }
                Some(next) => Err(ApiError::conflict(
                    ProblemKind::PairNotActive,
                    format!(
                        "seed pair {id} is {status}, rotated already: its successor is {}; \
                         only an active pair can be rotated",
                        next.id
                    ),
                )),
                None => Err(ApiError::conflict(
                    ProblemKind::PairNotActive,
                    format!("seed pair {id} is {status}; only an active pair can be rotated"),
                )),
            }
        }
        Rotate::RoundsInPlay(ids) => Err(ApiError::rounds_in_play(ids)),
        Rotate::SeedInUse(holders) => Err(seed_in_use(&holders)),
        Rotate::Ended(_) => Err(anyhow::anyhow!("a rotation ended the session").into()),
        Rotate::NeedsClientSeed => Err(ApiError::invalid(
            "client_seed",
            "is required to rotate a one-player pair (or give seats to open a table)",
        )),
        Rotate::TableTakesNoClientSeed => Err(ApiError::invalid(
            "client_seed",
            "a table's successor is a table, whose seats contribute its client seed; \
             rotate with no body (the same seats) or with seats",
        )),
    }
}

/// End the session: reveal the pair's seed and open no successor.
///
/// For a player who leaves, or a table that breaks up: the seed is revealed
/// now (so every round of the pair can be checked) instead of waiting for a
/// rotation that would never come, and no successor is committed (a table's
/// would void itself in public, blaming players who simply left). Refused
/// (409) while rounds are in play. A pair still awaiting its client seed or
/// its seats' contributions may end too: it dealt nothing. Ending an ended
/// pair again is a retry: 200 with `Idempotent-Replayed: true`.
#[utoipa::path(post, path = "/v1/seed-pairs/{id}/end", tag = "seed pairs",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Seed pair id")),
    responses(
        (status = 200, description = "The pair, revealed, with the receipt of its reveal", body = SeedPair, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "Rounds still in play, or the pair was rotated (its successor goes on) or voided", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn end(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    operator.pair(&state, &id).await?;
    let answer = async |pair: &PairRow| -> Result<Response, ApiError> {
        let mut view = pair_view(&state, pair, true).await?;
        view.receipt = receipt(&state, pair.reveal_log_index).await?;
        Ok(Json(view).into_response())
    };
    match state.dealer.end(&id).await? {
        Rotate::Ended(revealed) => {
            state.metrics.event("session_end");
            tracing::info!(revealed = %revealed.id, "session ended");
            answer(&revealed).await
        }
        Rotate::NotFound => Err(ApiError::not_found("seed pair", &id)),
        Rotate::RoundsInPlay(ids) => Err(ApiError::rounds_in_play(ids)),
        Rotate::NotActive(status) => {
            let pair = operator.pair(&state, &id).await?;
            match (&pair.successor_id, status) {
                (None, PairStatus::Revealed) => Ok(super::replayed(answer(&pair).await?)),
                (Some(next), _) => Err(ApiError::conflict(
                    ProblemKind::PairNotActive,
                    format!(
                        "seed pair {id} was rotated: its session goes on as {next}; end that one"
                    ),
                )),
                (None, status) => Err(ApiError::conflict(
                    ProblemKind::PairNotActive,
                    format!("seed pair {id} is {status}; it has nothing left to reveal"),
                )),
            }
        }
        other => Err(anyhow::anyhow!("ending a session: {other:?}").into()),
    }
}

/// What a rotation answers: both pairs, and the receipts of the reveal, the
/// successor's commitment and its client seed.
async fn rotation(
    state: &AppState,
    revealed: &PairRow,
    current: &PairRow,
) -> Result<RotationResult, ApiError> {
    let mut receipts = Vec::new();
    for index in [
        revealed.reveal_log_index,
        current.commit_log_index,
        current.client_seed_log_index,
    ] {
        receipts.extend(receipt(state, index).await?);
    }
    Ok(RotationResult {
        revealed: pair_view(state, revealed, true).await?,
        current: pair_view(state, current, true).await?,
        receipts,
    })
}
