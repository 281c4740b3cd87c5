//! `/v1/seed-pairs`: commit, set the client seed, read, rotate, list rounds.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use super::AppState;
use super::auth::{Operator, Viewer};
use super::error::{
    ApiError, ApiJson, ApiPath, ApiQuery, DatabaseUnavailable, InvalidClientSeed, JsonBodyProblems,
    OperatorAuthProblems, PairNotFound, Problem, QueryProblems, ViewerAuthProblems,
};
use super::wire::{ClientSeedRequest, PageParams, RotationResult, RoundPage, SeedPair};
use crate::service::store::{Rotate, SetClientSeed};

/// Commit to a new seed pair.
///
/// Publishes the SHA-256 of a fresh server seed (and of the seed the next pair
/// will use) before any client seed exists, so the server cannot pick its
/// seed after seeing the player's.
#[utoipa::path(post, path = "/v1/seed-pairs", tag = "seed pairs",
    security(("operator_key" = [])),
    responses(
        (status = 201, description = "The new pair, awaiting its client seed", body = SeedPair),
        DatabaseUnavailable,
        OperatorAuthProblems,
    ))]
pub async fn create(
    State(state): State<AppState>,
    _operator: Operator,
) -> Result<(StatusCode, Json<SeedPair>), ApiError> {
    let pair = state.dealer.create_pair().await?;
    tracing::info!(seed_pair = %pair.id, "seed pair committed");
    Ok((StatusCode::CREATED, Json(SeedPair::from(&pair))))
}

/// Set the pair's client seed (once).
#[utoipa::path(put, path = "/v1/seed-pairs/{id}/client-seed", tag = "seed pairs",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Seed pair id")),
    request_body = ClientSeedRequest,
    responses(
        (status = 200, description = "The pair, now active", body = SeedPair),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "The client seed is already set", body = Problem, content_type = "application/problem+json"),
        InvalidClientSeed,
    ))]
pub async fn set_client_seed(
    State(state): State<AppState>,
    _operator: Operator,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<ClientSeedRequest>,
) -> Result<Json<SeedPair>, ApiError> {
    let client_seed = request.client_seed()?;
    match state.dealer.set_client_seed(&id, &client_seed).await? {
        SetClientSeed::Set(pair) => Ok(Json(SeedPair::from(&pair))),
        SetClientSeed::NotFound => Err(ApiError::not_found("seed pair", &id)),
        SetClientSeed::AlreadySet(pair) => Err(ApiError::conflict(
            "Client seed already set",
            format!(
                "seed pair {id} is {}; its client seed can be set only once, while it awaits one",
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
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<SeedPair>, ApiError> {
    let pair = super::load_pair(&state, &id).await?;
    Ok(Json(SeedPair::from(&pair)))
}

/// List a pair's rounds by nonce.
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
        (status = 422, description = "limit out of range", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn rounds(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Json<RoundPage>, ApiError> {
    let limit = params.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::invalid(
            "limit",
            format!("must be 1 to 1000; got {limit}"),
        ));
    }
    let after = params.after.map(|a| i64::try_from(a).unwrap_or(i64::MAX));
    let store = state.dealer.store();
    let pair = super::load_pair(&state, &id).await?;
    let rows = store
        .rounds_of_pair(&id, after, i64::from(limit) + 1)
        .await?;
    let more = rows.len() > limit as usize;
    let rounds = rows
        .iter()
        .take(limit as usize)
        .map(|row| super::rounds::visible_round(&state, row, &pair, viewer.0.is_some()))
        .collect::<Result<Vec<_>, ApiError>>()?;
    let next_after = if more {
        rounds.last().map(|r| r.nonce)
    } else {
        None
    };
    Ok(Json(RoundPage { rounds, next_after }))
}

/// Reveal the pair's server seed and open the next pair.
///
/// The player chooses the new client seed knowing only the already published
/// `next_server_seed_hash`. Refused (409) while any round of the pair is in
/// play: revealing the seed mid-hand would expose the undealt cards.
#[utoipa::path(post, path = "/v1/seed-pairs/{id}/rotate", tag = "seed pairs",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Seed pair id")),
    request_body = ClientSeedRequest,
    responses(
        (status = 200, description = "The revealed pair and the new current pair", body = RotationResult),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        PairNotFound,
        (status = 409, description = "Rounds still in play, or the pair is not active", body = Problem, content_type = "application/problem+json"),
        InvalidClientSeed,
    ))]
pub async fn rotate(
    State(state): State<AppState>,
    _operator: Operator,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<ClientSeedRequest>,
) -> Result<Json<RotationResult>, ApiError> {
    let client_seed = request.client_seed()?;
    match state.dealer.rotate(&id, &client_seed).await? {
        Rotate::Rotated { revealed, current } => {
            tracing::info!(revealed = %revealed.id, current = %current.id, "seed pair rotated");
            Ok(Json(RotationResult {
                revealed: SeedPair::from(&*revealed),
                current: SeedPair::from(&*current),
            }))
        }
        Rotate::NotFound => Err(ApiError::not_found("seed pair", &id)),
        Rotate::NotActive(status) => Err(ApiError::conflict(
            "Seed pair not active",
            format!("seed pair {id} is {status}; only an active pair can be rotated"),
        )),
        Rotate::RoundsInPlay(ids) => Err(ApiError::rounds_in_play(ids)),
    }
}
