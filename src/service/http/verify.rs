//! `POST /v1/verify`: recompute a round statelessly. A convenience only: the
//! point of fairdeal is that a player need not trust this server, and can
//! recompute with `fairdeal replay`, the verification page or their own code.

use axum::Json;
use fairdeal_core::{ClientSeed, ServerSeed, deal, parse_nonce};

use super::error::{ApiError, JsonBodyProblems, Problem};
use super::extract::ApiJson;
use super::wire::{NonceInput, VerifyRequest, VerifyResponse};

/// Recompute a deal from its seeds.
#[utoipa::path(post, path = "/v1/verify", tag = "verification",
    request_body = VerifyRequest,
    responses(
        (status = 200, description = "The commitment and the deal", body = VerifyResponse),
        JsonBodyProblems,
        (status = 422, description = "An input breaks a rule", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn verify(
    ApiJson(request): ApiJson<VerifyRequest>,
) -> Result<Json<VerifyResponse>, ApiError> {
    let core = |e: fairdeal_core::Error| ApiError::from_core(&e);
    let server_seed = ServerSeed::from_hex(&request.server_seed).map_err(core)?;
    let client_seed = ClientSeed::new(request.client_seed).map_err(core)?;
    let nonce = match request.nonce {
        NonceInput::Number(n) => n,
        NonceInput::Text(text) => parse_nonce(&text).map_err(core)?,
    };
    let game = request.game.game()?;
    Ok(Json(VerifyResponse {
        server_seed_hash: server_seed.commitment().to_string(),
        deal: deal(&server_seed, &client_seed, nonce, game),
    }))
}
