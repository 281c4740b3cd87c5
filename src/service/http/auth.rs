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
use crate::service::store::PairRow;

/// An authenticated operator.
#[derive(Debug, Clone)]
pub struct Operator {
    /// The key's name, for logs.
    pub key_name: String,
    /// The key's tenant: the pairs it sees and acts on.
    pub tenant: String,
}

impl Operator {
    /// Whether `pair` is this operator's tenant's: only then does it see the
    /// pair's label and the deals of its rounds in play.
    pub fn owns(&self, pair: &PairRow) -> bool {
        pair.tenant == self.tenant
    }

    /// The pair `id`, if it is this operator's tenant's. Another tenant's
    /// pair is answered exactly like a pair that does not exist (404).
    pub async fn pair(&self, state: &AppState, id: &str) -> Result<PairRow, ApiError> {
        let pair = super::load_pair(state, id).await?;
        if self.owns(&pair) {
            Ok(pair)
        } else {
            Err(ApiError::not_found("seed pair", id))
        }
    }
}

impl Viewer {
    /// Whether the reader is an operator of `pair`'s tenant.
    pub fn owns(&self, pair: &PairRow) -> bool {
        self.0.as_ref().is_some_and(|operator| operator.owns(pair))
    }
}

/// Whoever reads a public endpoint.
#[derive(Debug, Clone)]
pub struct Viewer(pub Option<Operator>);

/// The token of an `Authorization: Bearer <token>` header value, if it has
/// that form. RFC 9110 §11.1: the scheme is case-insensitive.
pub fn bearer_token(value: &[u8]) -> Option<&str> {
    std::str::from_utf8(value)
        .ok()?
        .trim()
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
}

async fn authenticate(parts: &Parts, state: &AppState) -> Result<Option<Operator>, ApiError> {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let presented = bearer_token(value.as_bytes()).ok_or_else(|| {
        ApiError::unauthorized("the Authorization header must be 'Bearer <API key>'")
    })?;
    let invalid =
        || ApiError::unauthorized("the API key is not valid (unknown, malformed or revoked)");
    let (id, secret) = crate::service::keys::parse(presented).ok_or_else(invalid)?;
    let cache = state.dealer.key_cache();
    let row = match cache.get(id) {
        Some(row) => row,
        None => {
            let row = state.dealer.store().key(id).await?.ok_or_else(invalid)?;
            cache.put(&row);
            row
        }
    };
    if !crate::service::keys::matches(&row, secret) {
        return Err(invalid());
    }
    super::rate_limit::count(parts, &row.id)?;
    if cache.due_for_touch(&row.id) {
        // Off the request's path: a failure to record it costs only the
        // record (`keys list`'s last use).
        let (store, id) = (state.dealer.store().clone(), row.id.clone());
        tokio::spawn(async move {
            let every = crate::service::keys::TOUCH_EVERY.as_millis() as i64;
            if let Err(err) = store.touch_key(&id, crate::time::now_ms(), every).await {
                tracing::debug!(error = %err, "recording a key's last use");
            }
        });
    }
    Ok(Some(Operator {
        key_name: row.name,
        tenant: row.tenant,
    }))
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
