//! Signed receipts: for every event a response creates (a pair committed, a
//! client seed set, a round dealt, a rotation), the exact log entry, its log
//! index and the log key's signature over both — the operator's own signed
//! promise of what happened and where it sits in the log. Public reads add
//! the inclusion proof once the entry is in a checkpoint.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::auth::Viewer;
use super::error::{
    ApiError, DatabaseUnavailable, PairNotFound, QueryProblems, RoundNotFound, ViewerAuthProblems,
};
use super::extract::{ApiPath, ApiQuery};

/// A log entry with its index and the log's signature.
#[derive(Debug, Serialize, ToSchema)]
pub struct Receipt {
    /// Where the entry sits in the log.
    pub log_index: u64,
    /// The entry's exact bytes (RFC 8785 JSON), as a string.
    pub entry: String,
    /// Base64 Ed25519 signature by the log key (`GET /log/key`) over
    /// `"fairdeal-receipt/v1\n" ‖ decimal log_index ‖ "\n" ‖ entry`.
    pub signature: String,
}

/// A receipt and, once the entry is in a checkpoint, its proof.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProvenReceipt {
    #[serde(flatten)]
    pub receipt: Receipt,
    /// The c2sp.org/tlog-proof text: `c2sp.org/tlog-proof@v1`, `index N`,
    /// the inclusion hashes, a blank line and the signed checkpoint. Null
    /// until the entry is integrated (then the answer is 202).
    pub proof: Option<String>,
}

/// The two answers of a receipt endpoint: 200 with the proof, 202 until the
/// entry is in a checkpoint (with `Retry-After`).
#[derive(Debug)]
pub struct ProvenReceiptResponses;

impl utoipa::IntoResponses for ProvenReceiptResponses {
    fn responses() -> std::collections::BTreeMap<
        String,
        utoipa::openapi::RefOr<utoipa::openapi::response::Response>,
    > {
        use utoipa::openapi::{ContentBuilder, ResponseBuilder};
        let answer = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(utoipa::openapi::Ref::from_schema_name(
                            "ProvenReceipt",
                        )))
                        .build(),
                )
                .build()
                .into()
        };
        std::collections::BTreeMap::from([
            ("200".to_owned(), answer("The receipt and its proof")),
            (
                "202".to_owned(),
                answer("The receipt; the proof follows once the entry is in a checkpoint"),
            ),
        ])
    }
}

/// The receipt of the entry at `index`.
pub(super) async fn receipt(
    state: &AppState,
    index: Option<i64>,
) -> Result<Option<Receipt>, ApiError> {
    let Some(index) = index.and_then(|i| u64::try_from(i).ok()) else {
        return Ok(None);
    };
    // A record's own index names an entry the log must hold.
    let receipt = receipt_at(state, index)
        .await?
        .ok_or_else(|| anyhow::anyhow!("log entry {index} is missing"))?;
    Ok(Some(receipt))
}

/// The receipt of the entry at `index`, or None when the log is shorter.
async fn receipt_at(state: &AppState, index: u64) -> Result<Option<Receipt>, ApiError> {
    let entries = state.dealer.store().log_entries(index, index + 1).await?;
    match entries.into_iter().next() {
        Some(entry) => signed(state, index, entry).map(Some),
        None => Ok(None),
    }
}

/// The receipt of `entry`, at `index`, signed.
pub(super) fn signed(state: &AppState, index: u64, entry: Vec<u8>) -> Result<Receipt, ApiError> {
    Ok(Receipt {
        log_index: index,
        signature: state.log.sign_receipt(index, &entry),
        entry: String::from_utf8(entry).map_err(anyhow::Error::from)?,
    })
}

/// The receipt of `index` with its proof, as a response: 200 with the proof,
/// or 202 with `Retry-After` while the entry awaits its checkpoint.
async fn proven(
    state: &AppState,
    index: Option<i64>,
    what: &str,
    id: &str,
) -> Result<Response, ApiError> {
    let receipt = receipt(state, index)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("{what} receipt"), id))?;
    with_proof(state, receipt).await
}

/// `receipt` with its proof, as a response: 200 with the proof, or 202 with
/// `Retry-After` while the entry awaits its checkpoint.
async fn with_proof(state: &AppState, receipt: Receipt) -> Result<Response, ApiError> {
    let store = state.dealer.store();
    // With the witnesses' cosignatures of it, when there are some.
    let checkpoint = match store.log_checkpoint().await? {
        Some(checkpoint) => Some(
            state
                .witnesses
                .current()
                .cosigned(store, checkpoint)
                .await?,
        ),
        None => None,
    };
    let proof = match checkpoint {
        Some(checkpoint) if checkpoint.size > receipt.log_index => {
            let hashes = store
                .log_inclusion_proof(checkpoint.size, receipt.log_index)
                .await?;
            let mut text = format!("c2sp.org/tlog-proof@v1\nindex {}\n", receipt.log_index);
            for hash in hashes {
                text.push_str(&BASE64.encode(hash.0));
                text.push('\n');
            }
            text.push('\n');
            text.push_str(&checkpoint.note);
            Some(text)
        }
        _ => None,
    };
    let status = if proof.is_some() {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let mut response = (status, Json(ProvenReceipt { receipt, proof })).into_response();
    if status == StatusCode::ACCEPTED {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(1));
    }
    Ok(response)
}

/// Round `id` as stored, or 404.
async fn round_row(
    state: &AppState,
    id: &str,
) -> Result<crate::service::store::RoundRow, ApiError> {
    state
        .dealer
        .store()
        .round(id)
        .await?
        .ok_or_else(|| ApiError::not_found("round", id))
}

/// A round's receipt, with its inclusion proof.
///
/// Anyone may read it: the entry holds no cards. 202 (with `Retry-After`)
/// until the entry is in a signed checkpoint, within about a second.
#[utoipa::path(get, path = "/v1/rounds/{id}/receipt", tag = "transparency log",
    params(("id" = String, Path, description = "Round id")),
    security((), ("operator_key" = [])),
    responses(
        ProvenReceiptResponses,
        DatabaseUnavailable,
        RoundNotFound,
        ViewerAuthProblems,
    ))]
pub async fn round(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let row = round_row(&state, &id).await?;
    proven(&state, row.log_index, "round", &id).await
}

/// A chain round's seed receipt, with its inclusion proof.
///
/// The `round_seed` entry that published a `fairdeal-chain-v1` round's
/// seed once it and every earlier round of its pair ended: the log's proof
/// of when the seed was published, after the round's own entry. 404 for a
/// round whose seed is not published (in play, or an earlier round is), and
/// for a fairdeal-v1 round (its seed is its pair's, revealed by rotation).
#[utoipa::path(get, path = "/v1/rounds/{id}/seed-receipt", tag = "transparency log",
    params(("id" = String, Path, description = "Round id")),
    security((), ("operator_key" = [])),
    responses(
        ProvenReceiptResponses,
        DatabaseUnavailable,
        RoundNotFound,
        ViewerAuthProblems,
    ))]
pub async fn round_seed(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let row = round_row(&state, &id).await?;
    if row.seed_log_index.is_none() {
        return Err(ApiError::not_found_detail(format!(
            "round {}'s seed is not published: it is a fairdeal-v1 round (its pair's seed is revealed by rotation), or it or an earlier round of its chain pair is still in play",
            row.id
        )));
    }
    proven(&state, row.seed_log_index, "round seed", &id).await
}

/// Which of a seed pair's entries a receipt is for.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairEntry {
    /// The `commit` entry (the default).
    #[default]
    Commit,
    /// The `client_seed` entry.
    ClientSeed,
    /// The `reveal` entry (a voided table's `table_void`).
    Reveal,
}

/// Which receipt of a pair.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PairReceiptParams {
    /// `commit` (the default), `client_seed` or `reveal`.
    pub entry: Option<PairEntry>,
}

/// A seed pair's commitment or client seed receipt, with its inclusion proof.
///
/// `entry=commit` (the default): the `commit` entry, the log's proof that
/// the commitment existed at that position, before the client seed's entry.
/// `entry=client_seed`: the `client_seed` entry, the SHA-256 of the client
/// seed the pair's rounds are dealt with, logged after the commitment and
/// before the first round; a verifier compares it with the client seed a
/// round shows, so a client seed changed after it was set is caught. 404
/// while the pair has no client seed (or for a pair given it before the
/// log existed). `entry=reveal`: the `reveal` entry (a voided table's
/// `table_void`), where the pair stopped being live; 404 until it is
/// revealed.
#[utoipa::path(get, path = "/v1/seed-pairs/{id}/receipt", tag = "transparency log",
    params(("id" = String, Path, description = "Seed pair id"), PairReceiptParams),
    security((), ("operator_key" = [])),
    responses(
        ProvenReceiptResponses,
        DatabaseUnavailable,
        PairNotFound,
        QueryProblems,
        ViewerAuthProblems,
    ))]
pub async fn pair(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiQuery(params): ApiQuery<PairReceiptParams>,
) -> Result<Response, ApiError> {
    let pair = super::load_pair(&state, &id).await?;
    let (index, missing) = match params.entry.unwrap_or_default() {
        PairEntry::Commit => return proven(&state, pair.commit_log_index, "seed pair", &id).await,
        PairEntry::ClientSeed => (
            pair.client_seed_log_index,
            match pair.client_seed {
                Some(_) => "has a client seed but the service holds no log entry for it",
                None => "has no client seed yet",
            },
        ),
        PairEntry::Reveal => (pair.reveal_log_index, "is not revealed in the log"),
    };
    proven_or(&state, index, || format!("seed pair {} {missing}", pair.id)).await
}

/// The receipt of `index` with its proof, or a 404 saying `missing()` (why
/// the record has no such entry).
pub(super) async fn proven_or(
    state: &AppState,
    index: Option<i64>,
    missing: impl FnOnce() -> String,
) -> Result<Response, ApiError> {
    match receipt(state, index).await? {
        Some(receipt) => with_proof(state, receipt).await,
        None => Err(ApiError::not_found_detail(missing())),
    }
}

/// Any log entry by its index, with its inclusion proof.
///
/// The entry at `index` as a receipt (its exact bytes, signed by the log
/// key) with its inclusion proof in the latest checkpoint: the same evidence
/// as the log's entry tiles, for one entry. A round's `verify_url` names its
/// entry's index, so a verifier holding the link reads the round's entry
/// from the log itself, whatever the API says of the round now. 202 (with
/// `Retry-After`) until the entry is in a signed checkpoint; 404 beyond the
/// log's last entry.
#[utoipa::path(get, path = "/v1/log/entries/{index}", tag = "transparency log",
    params(("index" = u64, Path, description = "The entry's log index, from 0")),
    security(()),
    responses(
        ProvenReceiptResponses,
        (status = 404, description = "The log has no entry at this index yet", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The index is not a whole number from 0", body = super::error::Problem, content_type = "application/problem+json"),
        DatabaseUnavailable,
    ))]
pub async fn entry(
    State(state): State<AppState>,
    ApiPath(index): ApiPath<String>,
) -> Result<Response, ApiError> {
    let index = parse_index(&index)?;
    let receipt = receipt_at(&state, index)
        .await?
        .ok_or_else(|| ApiError::not_found_detail(format!("the log has no entry {index} (yet)")))?;
    with_proof(&state, receipt).await
}

/// A log index in a path: decimal digits, at most 2^63 − 1.
fn parse_index(text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>()
        .ok()
        .filter(|i| !text.starts_with('+') && i64::try_from(*i).is_ok())
        .ok_or_else(|| {
            let shown: String = text.chars().take(32).collect();
            ApiError::invalid(
                "index",
                format!(
                    "must be a whole number from 0 to 2^63 - 1 in decimal digits; got {shown:?}"
                ),
            )
        })
}
