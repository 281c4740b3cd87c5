//! `/v1/seed-pairs/{id}/rounds` (deal) and `/v1/rounds/{id}`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth::{Operator, Viewer};
use super::error::ProblemKind;
use super::error::{
    ApiError, DatabaseUnavailable, JsonBodyProblems, OperatorAuthProblems, PairNotFound, Problem,
    RoundNotFound, ViewerAuthProblems,
};
use super::extract::{ApiJson, ApiPath};
use super::wire::{CreateRoundRequest, Round};
use crate::service::store::{CloseRound, InsertRound, PairRow, PairStatus, RoundRow};

const IDEMPOTENCY_KEY: &str = "idempotency-key";

pub(super) fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .ok()
        .filter(|t| (1..=255).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_graphic()));
    match text {
        Some(text) => Ok(Some(text.to_owned())),
        None => Err(ApiError::invalid(
            "Idempotency-Key",
            "must be 1 to 255 visible ASCII characters",
        )),
    }
}

/// The round as `viewer` may see it (the deal for an operator of its pair's
/// tenant, or once the pair is revealed).
async fn round_view(state: &AppState, row: &RoundRow, viewer: &Viewer) -> Result<Round, ApiError> {
    let pair = super::load_pair(state, &row.seed_pair_id).await?;
    let mut round = visible_round(state, row, &pair, viewer.owns(&pair))?;
    // Only a published chain round's commitment is the seed before it.
    let previous = match row.nonce {
        k if k > 0
            && matches!(pair.protocol(), fairdeal_core::PairProtocol::Chain(_))
            && row.server_seed.is_some() =>
        {
            state.dealer.store().round_seed_at(&pair.id, k - 1).await?
        }
        _ => None,
    };
    set_round_commitment(&mut round, &pair, previous);
    Ok(round)
}

/// A published chain round's fairdeal-v1 commitment: the chain's
/// commitment for round 0, else `previous` (the previous round's published
/// seed, as stored).
pub(super) fn set_round_commitment(round: &mut Round, pair: &PairRow, previous: Option<String>) {
    if round.server_seed.is_none() {
        return;
    }
    if let Some(chain) = round.chain.as_mut() {
        chain.round_commitment = if round.nonce == 0 {
            Some(pair.server_seed_hash.clone())
        } else {
            previous
        };
    }
}

/// [`Round::view`] with the deal opened when the reader may see it.
pub(super) fn visible_round(
    state: &AppState,
    row: &RoundRow,
    pair: &PairRow,
    operator: bool,
) -> Result<Round, ApiError> {
    let deal = Round::deal_visible(pair, row, operator)
        .then(|| state.dealer.deal_json(row))
        .transpose()?;
    Ok(Round::view(row, pair, deal)?)
}

/// Deal the pair's next round.
///
/// The round is answered only after it and the nonce advance are committed.
/// With an `Idempotency-Key` header, a retry returns the same round and spends
/// no nonce; the same key with a different game is 422. A 5xx answer (a 503
/// while the database is unavailable, say) does not mean that nothing was
/// dealt: the round may have been committed before the answer was lost. Retry
/// with the same `Idempotency-Key` to get that round, or have it dealt once.
#[utoipa::path(post, path = "/v1/seed-pairs/{id}/rounds", tag = "rounds",
    security(("operator_key" = [])),
    params(
        ("id" = String, Path, description = "Seed pair id"),
        ("Idempotency-Key" = Option<String>, Header, description = "1–255 visible ASCII characters; retries with the same key return the same round"),
    ),
    request_body = CreateRoundRequest,
    responses(
        (status = 201, description = "The dealt round, with its cards", body = Round, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "The pair is awaiting its client seed or revealed", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid game, or an idempotency key reused with another game", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(pair_id): ApiPath<String>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<CreateRoundRequest>,
) -> Result<Response, ApiError> {
    let idempotency_key = idempotency_key(&headers)?;
    // Read before dealing (as last read while active, when it was): the
    // answer shows the round with it. A pair cannot be revealed while this
    // round is in play, so what the view takes from it (commitment, client
    // seed, no seed) still holds after the deal. Another tenant's pair is
    // answered like a missing one.
    let pair = state
        .dealer
        .pair_for_deal(&pair_id)
        .await?
        .filter(|pair| operator.owns(pair))
        .ok_or_else(|| ApiError::not_found("seed pair", &pair_id))?;
    let game = request.game.game()?;
    let outcome = state
        .dealer
        .deal_round(&pair_id, game, idempotency_key.as_deref())
        .await?;
    let (mut row, replayed) = match outcome {
        InsertRound::Dealt(row) => {
            state.metrics.round_dealt(game.type_name());
            tracing::info!(round = %row.id, seed_pair = %pair_id, nonce = row.nonce, game = game.type_name(), "round dealt");
            (row, false)
        }
        InsertRound::Replayed(row) => (row, true),
        InsertRound::IdempotencyKeyReused => {
            return Err(ApiError::invalid(
                "Idempotency-Key",
                "was already used on this seed pair for a different game; use a new key for a new round",
            ));
        }
        InsertRound::NotFound => return Err(ApiError::not_found("seed pair", &pair_id)),
        InsertRound::NotActive(status) => {
            return Err(ApiError::conflict(
                ProblemKind::PairNotActive,
                match status {
                    PairStatus::AwaitingClientSeed => format!(
                        "seed pair {pair_id} has no client seed yet; set it (PUT /v1/seed-pairs/{pair_id}/client-seed) before dealing"
                    ),
                    PairStatus::AwaitingContributions => format!(
                        "seed pair {pair_id} is a table still collecting its seats' contributions; it deals once every seat has revealed"
                    ),
                    PairStatus::Void => format!(
                        "seed pair {pair_id} is a void table (a seat stalled) and deals nothing; open a new table"
                    ),
                    PairStatus::Active | PairStatus::Revealed => format!(
                        "seed pair {pair_id} is {status} and takes no more rounds; deal on its successor"
                    ),
                },
            ));
        }
        InsertRound::ChainUsedUp(length) => {
            return Err(ApiError::conflict(
                ProblemKind::PairExhausted,
                format!(
                    "seed pair {pair_id} has dealt all {length} rounds of its chain; rotate it and deal on its successor"
                ),
            ));
        }
        InsertRound::Exhausted => {
            return Err(ApiError::conflict(
                ProblemKind::PairExhausted,
                format!("seed pair {pair_id} has used every nonce; rotate it"),
            ));
        }
    };
    let mut round = visible_round(&state, &row, &pair, true)?;
    // A round just dealt brings its entry's bytes: no read of the log.
    round.receipt = match (row.log_entry.take(), row.log_index) {
        (Some(entry), Some(index)) => Some(super::receipts::signed(
            &state,
            u64::try_from(index).map_err(anyhow::Error::from)?,
            entry,
        )?),
        _ => super::receipts::receipt(&state, row.log_index).await?,
    };
    let response = (StatusCode::CREATED, Json(round)).into_response();
    Ok(if replayed {
        super::replayed(response)
    } else {
        response
    })
}

/// Read a round.
///
/// Before its pair is revealed, a public reader sees everything but `deal`
/// (opponents' hole cards must not leak mid-game); an operator key sees the
/// deal. After reveal everyone sees the deal and the `server_seed`.
#[utoipa::path(get, path = "/v1/rounds/{id}", tag = "rounds",
    params(("id" = String, Path, description = "Round id")),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The round", body = Round),
        DatabaseUnavailable,
        ViewerAuthProblems,
        RoundNotFound,
    ))]
pub async fn get(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Round>, ApiError> {
    let store = state.dealer.store();
    let row = store
        .round(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("round", &id))?;
    Ok(Json(round_view(&state, &row, &viewer).await?))
}

/// Close a round: the game that used this deal is over.
///
/// Closing a closed round changes nothing. Rounds left in play close by
/// themselves after the configured timeout (default one hour).
#[utoipa::path(post, path = "/v1/rounds/{id}/close", tag = "rounds",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, description = "The round, closed", body = Round),
        DatabaseUnavailable,
        OperatorAuthProblems,
        RoundNotFound,
    ))]
pub async fn close(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Round>, ApiError> {
    // Another tenant's round is answered as one that does not exist.
    let owned = match state.dealer.store().round(&id).await? {
        Some(round) => operator.pair(&state, &round.seed_pair_id).await.is_ok(),
        None => false,
    };
    if !owned {
        return Err(ApiError::not_found("round", &id));
    }
    let row = match state.dealer.close_round(&id).await? {
        CloseRound::Closed(row) => *row,
        CloseRound::NotFound => return Err(ApiError::not_found("round", &id)),
    };
    Ok(Json(
        round_view(&state, &row, &Viewer(Some(operator))).await?,
    ))
}
