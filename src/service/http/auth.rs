//! Operator authentication: `Authorization: Bearer fdk_…`.
//!
//! [`Operator`] is required on operator endpoints (401 without it). [`Viewer`]
//! is for public endpoints where an operator sees more: no header means a
//! public reader, but a header that is present and wrong is still a 401, so a
//! misconfigured backend is told rather than silently shown less.

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use super::AppState;
use super::error::ApiError;

/// An authenticated operator.
#[derive(Debug, Clone)]
pub struct Operator {
    /// The key's name, for logs.
    pub key_name: String,
}

/// Whoever reads a public endpoint.
#[derive(Debug, Clone)]
pub struct Viewer(pub Option<Operator>);

async fn authenticate(parts: &Parts, state: &AppState) -> Result<Option<Operator>, ApiError> {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    // RFC 9110 §11.1: the scheme is case-insensitive.
    let presented = value
        .to_str()
        .ok()
        .and_then(|v| v.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, key)| key.trim())
        .ok_or_else(|| {
            ApiError::unauthorized("the Authorization header must be 'Bearer <API key>'")
        })?;
    let invalid =
        || ApiError::unauthorized("the API key is not valid (unknown, malformed or revoked)");
    let (id, secret) = crate::service::keys::parse(presented).ok_or_else(invalid)?;
    let row = state.dealer.store().key(id).await?.ok_or_else(invalid)?;
    if !crate::service::keys::matches(&row, secret) {
        return Err(invalid());
    }
    Ok(Some(Operator { key_name: row.name }))
}

impl FromRequestParts<AppState> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(parts, state).await?.ok_or_else(|| {
            ApiError::unauthorized(
                "this endpoint needs an operator API key: Authorization: Bearer <key>",
            )
        })
    }
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(Viewer(authenticate(parts, state).await?))
    }
}
