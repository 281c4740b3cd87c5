//! `/v1/draws`: draws over entrant lists (fairdeal-draw-v1) — commit a list
//! (uploaded as text, or by its hash and count) and a server seed, set the
//! client seed, run, read, download the list.

use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fairdeal_core::{DRAW_PROTOCOL, Draw, ListCommitment};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::auth::{Operator, Viewer};
use super::error::ProblemKind;
use super::error::{
    ApiError, DatabaseUnavailable, DrawNotFound, InvalidClientSeed, JsonBodyProblems,
    OperatorAuthProblems, Problem, QueryProblems, ViewerAuthProblems,
};
use super::extract::{ApiJson, ApiPath, ApiQuery, identity_encoding, utf8_charset};
use super::receipts::{self, ProvenReceiptResponses, Receipt, proven_or};
use super::rounds::idempotency_key;
use super::wire::ClientSeedRequest;
use super::wire::cursor::{self, Listing};
use crate::service::dealer::PairLabel;
use crate::service::dealer::draws::{MAX_LIST_BYTES, NewDraw, UPLOAD_TIMEOUT, UploadError};
use crate::service::store::{BeginDraw, DrawRow, DrawStatus, DrawUpdate, Order};
use crate::time::timestamp;

/// How long an uploading client may send nothing before it gets a 408.
pub const UPLOAD_IDLE: Duration = Duration::from_secs(30);
/// Lines read from the database per page of `GET …/entries`.
const ENTRIES_PAGE: u64 = 10_000;

/// A draw over a list committed by its hash and line count.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a JSON object: {\"entries_sha256\", \"entries\", \"winners\", \"client_seed_source\"}"
)]
pub struct CreateDrawRequest {
    /// Lowercase hex SHA-256 of the list's exact bytes (docs/PROTOCOL.md §7).
    #[schema(pattern = "^[0-9a-f]{64}$", min_length = 64, max_length = 64)]
    pub entries_sha256: String,
    /// The list's number of lines, 2 to 4294967295.
    #[schema(minimum = 2, maximum = 4294967295u64)]
    #[serde(deserialize_with = "super::wire::whole")]
    pub entries: u64,
    /// How many winners to draw, 1 to 1000 and at most `entries`.
    #[schema(minimum = 1, maximum = 1000)]
    #[serde(deserialize_with = "super::wire::whole")]
    pub winners: u64,
    /// Where the client seed will come from, stated before it exists: 1 to
    /// 512 bytes, not blank, no control characters but line feeds and tabs.
    #[schema(min_length = 1, max_length = 512, pattern = "[^\\s]")]
    pub client_seed_source: String,
    /// The operator's own reference (shown to its operators only).
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 128,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub label: Option<String>,
}

/// The query of a list upload (`Content-Type: text/plain`).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UploadParams {
    /// How many winners to draw, 1 to 1000 and at most the list's lines
    /// (with an uploaded list; with JSON, in the body).
    #[param(minimum = 1, maximum = 1000)]
    pub winners: Option<u64>,
    /// Where the client seed will come from (with an uploaded list).
    #[param(min_length = 1, max_length = 512, pattern = "[^\\s]")]
    pub client_seed_source: Option<String>,
    /// The operator's own reference (with an uploaded list).
    #[param(
        min_length = 1,
        max_length = 128,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub label: Option<String>,
}

/// One winner.
#[derive(Debug, Serialize, ToSchema)]
pub struct Winner {
    /// 1 for the first drawn.
    pub rank: u32,
    /// The entrant's index in the list, from 0 (the protocol's numbering).
    pub entry: u32,
    /// The entrant's line as an editor numbers it (`entry + 1`).
    pub line_number: u64,
    /// The entrant's line, when the list was uploaded.
    pub text: Option<String>,
}

/// A draw.
#[derive(Debug, Serialize, ToSchema)]
pub struct DrawView {
    pub id: String,
    /// Always `fairdeal-draw-v1`.
    pub protocol: &'static str,
    pub status: DrawStatus,
    /// The operator's reference: shown to its operators only.
    pub label: Option<String>,
    /// SHA-256 of the entrant list, committed before the client seed.
    pub entries_sha256: String,
    /// Lines in the list.
    pub entries: u64,
    /// How many winners the draw has.
    pub winners: u64,
    /// Where the client seed comes from, as the operator stated it first.
    pub client_seed_source: String,
    /// SHA-256 of the draw's server seed, committed before the client seed.
    pub server_seed_hash: String,
    pub client_seed: Option<String>,
    /// The server seed, revealed when the draw runs.
    pub server_seed: Option<String>,
    /// The nonce of a draw: always 0 (its seed serves this draw only).
    pub nonce: u64,
    /// Whether the list can be downloaded from `/v1/draws/{id}/entries`.
    pub entries_uploaded: bool,
    pub created_at: String,
    pub client_seed_set_at: Option<String>,
    pub drawn_at: Option<String>,
    /// The winners, winner 1 first, once drawn.
    pub result: Option<Vec<Winner>>,
    /// Set when a database restore lost this draw's client seed or result
    /// (the log holds them): the index of the first such log entry. Such
    /// a draw is never drawn again with another seed; treat it as void.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_in_restore_at: Option<u64>,
    /// The signed receipt of the event this response created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

/// 404 for a draw that does not exist, is someone else's (for an
/// operator's action) or is still a draft.
fn draw_not_found(id: &str) -> ApiError {
    ApiError::not_found("draw", id)
}

/// The published draw `id`.
async fn load_draw(state: &AppState, id: &str) -> Result<DrawRow, ApiError> {
    match state.dealer.store().draw(id).await? {
        Some(row) if row.is_published() => Ok(row),
        _ => Err(draw_not_found(id)),
    }
}

/// The published draw `id`, if it is `operator`'s tenant's.
async fn operators_draw(
    state: &AppState,
    operator: &Operator,
    id: &str,
) -> Result<DrawRow, ApiError> {
    let row = load_draw(state, id).await?;
    if row.tenant == operator.tenant {
        Ok(row)
    } else {
        Err(draw_not_found(id))
    }
}

/// The draw as a reader sees it: the label only for its operators; the
/// winners' lines looked up when the list was uploaded.
async fn view(state: &AppState, row: &DrawRow, owner: bool) -> Result<DrawView, ApiError> {
    let result = match row.winner_indices()? {
        None => None,
        Some(indices) => {
            let mut lines = std::collections::HashMap::new();
            if row.entries_uploaded {
                lines.extend(
                    state
                        .dealer
                        .store()
                        .draw_lines_at(row.seq, &indices)
                        .await?,
                );
            }
            Some(
                indices
                    .iter()
                    .enumerate()
                    .map(|(rank, &entry)| Winner {
                        rank: rank as u32 + 1,
                        entry,
                        line_number: u64::from(entry) + 1,
                        text: lines.remove(&i64::from(entry)),
                    })
                    .collect(),
            )
        }
    };
    Ok(DrawView {
        id: row.id.clone(),
        protocol: DRAW_PROTOCOL,
        status: row.status,
        label: row.label.clone().filter(|_| owner),
        entries_sha256: row.entries_sha256.clone().unwrap_or_default(),
        entries: row.entries.unwrap_or_default() as u64,
        winners: row.winners as u64,
        client_seed_source: row.client_seed_source.clone(),
        server_seed_hash: row.server_seed_hash.clone().unwrap_or_default(),
        client_seed: row.client_seed.clone(),
        server_seed: row.revealed_seed().map(str::to_owned),
        nonce: 0,
        entries_uploaded: row.entries_uploaded,
        lost_in_restore_at: row.lost_log_index.map(|i| i as u64),
        created_at: timestamp(row.created_at),
        client_seed_set_at: row.client_seed_at.map(timestamp),
        drawn_at: row
            .drawn_at
            .filter(|_| row.status == DrawStatus::Drawn)
            .map(timestamp),
        result,
        receipt: None,
    })
}

/// Whether the request's body is declared as `mime`.
fn content_type_is(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(mime))
}

/// What a `POST /v1/draws` body is.
enum BodyKind {
    /// `text/plain` (UTF-8): the list itself.
    List,
    /// JSON: the list's commitment.
    Json,
}

/// The body's kind from its headers, or 415 saying what is taken.
fn body_kind(headers: &HeaderMap) -> Result<BodyKind, ApiError> {
    let unsupported = |detail: String| ApiError::unsupported(detail);
    identity_encoding(headers, "the body")?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json")) {
        utf8_charset(content_type, "the commitment")?;
        return Ok(BodyKind::Json);
    }
    if mime == "text/plain" {
        utf8_charset(content_type, "the list")?;
        return Ok(BodyKind::List);
    }
    Err(unsupported(format!(
        "send the list as text/plain (UTF-8, one entrant a line) or its commitment as \
         application/json; got Content-Type {:?}",
        if content_type.is_empty() {
            "(none)"
        } else {
            content_type
        }
    )))
}

/// Whether `request` uploads a list (its time is bounded by
/// [`UPLOAD_IDLE`] between chunks, not by the request timeout).
pub(super) fn is_list_upload(request: &Request) -> bool {
    request.method() == axum::http::Method::POST
        && request.uri().path() == "/v1/draws"
        && content_type_is(request.headers(), "text/plain")
}

fn label(text: Option<String>) -> Result<Option<PairLabel>, ApiError> {
    text.map(|text| PairLabel::new(text).map_err(|rule| ApiError::invalid("label", rule)))
        .transpose()
}

fn checked(new: NewDraw) -> Result<NewDraw, ApiError> {
    new.check()
        .map_err(|(field, rule)| ApiError::invalid(field, rule))?;
    Ok(new)
}

/// Commit to a draw.
///
/// Either upload the entrant list (`Content-Type: text/plain`; one entrant a
/// line, each ending with LF; `winners` and `client_seed_source` in the
/// query), streamed and checked line by line, or commit to a list kept
/// elsewhere by its SHA-256 and line count (`application/json`). The answer
/// publishes the list's commitment and the draw's server seed commitment,
/// before any client seed exists. A refused list stores nothing; the error
/// names its line (1-based). With `Idempotency-Key`, a retry returns the
/// draw the first request made.
#[utoipa::path(post, path = "/v1/draws", tag = "draws",
    security(("operator_key" = [])),
    params(UploadParams,
        ("Idempotency-Key" = Option<String>, Header, description = "1–255 visible ASCII characters; a retry with the same key returns the same draw")),
    request_body(description = "The list (text/plain), or its commitment (JSON)", content(
        (String = "text/plain"),
        (CreateDrawRequest = "application/json"),
    )),
    responses(
        (status = 201, description = "The draw, committed and awaiting its client seed", body = DrawView),
        (status = 200, description = "A retry with the same Idempotency-Key: the draw it made", body = DrawView, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "A list over 256 MiB, or a JSON commitment over 16 KiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Neither text/plain nor JSON, compressed, or a charset other than UTF-8", body = Problem, content_type = "application/problem+json"),
        OperatorAuthProblems,
        QueryProblems,
        (status = 408, description = "The list stopped arriving (30 s idle, 30 min in all); nothing kept", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "An upload with this Idempotency-Key is still arriving", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad list (naming its line), or a bad field", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    operator: Operator,
    request: Request,
) -> Result<Response, ApiError> {
    let key = idempotency_key(request.headers())?;
    let (mut parts, body) = request.into_parts();
    let ApiQuery(params) = ApiQuery::<UploadParams>::from_request_parts(&mut parts, &()).await?;
    match body_kind(&parts.headers)? {
        BodyKind::Json => {
            let request = Request::from_parts(parts, body);
            let ApiJson(body) = ApiJson::<CreateDrawRequest>::from_request(request, &()).await?;
            return create_by_hash(&state, operator, key, params, body).await;
        }
        BodyKind::List => {}
    }
    if let Some(field) = [
        params.winners.is_none(),
        params.client_seed_source.is_none(),
    ]
    .iter()
    .position(|missing| *missing)
    {
        let name = ["winners", "client_seed_source"][field];
        return Err(ApiError::invalid(
            name,
            "is required in the query string of a list upload",
        ));
    }
    let new = checked(NewDraw {
        tenant: operator.tenant.clone(),
        label: label(params.label)?,
        winners: params.winners.unwrap_or_default(),
        client_seed_source: params.client_seed_source.unwrap_or_default(),
        idempotency_key: key,
    })?;
    let draft = match state.dealer.start_upload(&new).await? {
        BeginDraw::Existing(row) => {
            if row.is_published() && row.entries_uploaded {
                // The same key again: the same list? Read it (nothing kept).
                let list = state
                    .dealer
                    .list_commitment(body.into_data_stream(), UPLOAD_IDLE)
                    .await
                    .map_err(upload_error)?;
                if row.entries_sha256.as_deref() != Some(list.sha256_hex().as_str())
                    || row.entries != Some(list.entries as i64)
                {
                    return Err(key_reused());
                }
            }
            return existing(&state, row, &new).await;
        }
        BeginDraw::Started(row) => row,
    };
    let row = state
        .dealer
        .upload_list(&draft, body.into_data_stream(), UPLOAD_IDLE)
        .await
        .map_err(upload_error)?;
    tracing::info!(draw = %row.id, entries = row.entries, "draw committed (list uploaded)");
    created(&state, &row).await
}

async fn create_by_hash(
    state: &AppState,
    operator: Operator,
    key: Option<String>,
    params: UploadParams,
    body: CreateDrawRequest,
) -> Result<Response, ApiError> {
    for (name, given) in [
        ("winners", params.winners.is_some()),
        ("client_seed_source", params.client_seed_source.is_some()),
        ("label", params.label.is_some()),
    ] {
        if given {
            return Err(ApiError::invalid(
                name,
                "with a JSON body, every field goes in the body, not the query string",
            ));
        }
    }
    let sha256 = body.entries_sha256.as_str();
    let digest: [u8; 32] = match hex::decode(sha256) {
        Ok(bytes) if sha256.len() == 64 && sha256 == sha256.to_ascii_lowercase() => {
            bytes.try_into().map_err(|_| {
                ApiError::invalid("entries_sha256", "must be 64 lowercase hex characters")
            })?
        }
        _ => {
            return Err(ApiError::invalid(
                "entries_sha256",
                "must be 64 lowercase hex characters (SHA-256 of the list's bytes)",
            ));
        }
    };
    let new = checked(NewDraw {
        tenant: operator.tenant.clone(),
        label: label(body.label)?,
        winners: body.winners,
        client_seed_source: body.client_seed_source,
        idempotency_key: key,
    })?;
    Draw::new(body.entries, body.winners).map_err(|err| ApiError::invalid(err.field(), err))?;
    let list = ListCommitment {
        sha256: digest,
        entries: body.entries,
    };
    match state.dealer.create_draw_by_hash(&new, list).await? {
        BeginDraw::Started(row) => {
            tracing::info!(draw = %row.id, "draw committed (list by hash)");
            created(state, &row).await
        }
        BeginDraw::Existing(row) => {
            if row.entries_sha256.as_deref() != Some(sha256)
                || row.entries != Some(body.entries as i64)
            {
                return Err(key_reused());
            }
            existing(state, row, &new).await
        }
    }
}

fn key_reused() -> ApiError {
    ApiError::invalid(
        "Idempotency-Key",
        "was used for another draw (another list, winners, client_seed_source or label); use a new key",
    )
}

/// The draw as its operator sees it, with the receipt of the entry at
/// `index` (the event the answer is about, made now or by the request a
/// retry repeats).
async fn with_receipt(
    state: &AppState,
    row: &DrawRow,
    index: Option<i64>,
) -> Result<DrawView, ApiError> {
    let mut body = view(state, row, true).await?;
    body.receipt = receipts::receipt(state, index).await?;
    Ok(body)
}

/// 201 with the new draw and its commitment's receipt.
async fn created(state: &AppState, row: &DrawRow) -> Result<Response, ApiError> {
    state.metrics.event("draw_created");
    let body = with_receipt(state, row, row.commit_log_index).await?;
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// 200 with the draw an earlier request with the same key made, if it
/// asked for the same.
async fn existing(state: &AppState, row: DrawRow, new: &NewDraw) -> Result<Response, ApiError> {
    if row.winners != new.winners as i64
        || row.client_seed_source != new.client_seed_source
        || row.label.as_deref() != new.label.as_ref().map(PairLabel::as_str)
    {
        return Err(key_reused());
    }
    if !row.is_published() {
        return Err(ApiError::conflict(
            ProblemKind::UploadInProgress,
            format!(
                "draw {} is still receiving its list under this Idempotency-Key; retry when that upload has finished",
                row.id
            ),
        ));
    }
    let body = with_receipt(state, &row, row.commit_log_index).await?;
    Ok(super::replayed(
        (StatusCode::OK, Json(body)).into_response(),
    ))
}

fn upload_error(err: UploadError) -> ApiError {
    match err {
        UploadError::Line { index, rule } => {
            let mut err = ApiError::invalid("entries", rule);
            err.set_line(index + 1);
            err
        }
        UploadError::TooLarge => ApiError::payload_too_large(format!(
            "the list is larger than the {} MiB a draw accepts",
            MAX_LIST_BYTES / (1024 * 1024)
        )),
        UploadError::Draw(err) => ApiError::invalid(err.field(), err),
        UploadError::Stalled(idle) => ApiError::timeout(format!(
            "the list stopped arriving: nothing for {} s. Nothing was kept; upload it again",
            idle.as_secs()
        )),
        UploadError::TooSlow => ApiError::timeout(format!(
            "the list did not arrive within {} minutes. Nothing was kept; upload it again, \
             faster, or commit to it by hash (application/json)",
            UPLOAD_TIMEOUT.as_secs() / 60
        )),
        UploadError::Body(detail) => {
            ApiError::malformed(format!("the list could not be read: {detail}"), None)
        }
        UploadError::Internal(err) => ApiError::internal(&err),
    }
}

/// A page of an operator's draws.
#[derive(Debug, Serialize, ToSchema)]
pub struct DrawPage {
    pub draws: Vec<DrawView>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// Deprecated: use `next_cursor`. Pass as `after` for the next page of
    /// `order=oldest`; null on the last page, and always with
    /// `order=newest`.
    #[schema(deprecated)]
    pub next_after: Option<String>,
}

/// Which of the operator's draws to list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DrawListParams {
    /// Page size, 1 to 100 (default 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// Which end to start from: `oldest` (the default) or `newest`.
    pub order: Option<super::wire::cursor::ListOrder>,
    /// The `next_cursor` of the previous page (it keeps its order).
    #[param(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    pub cursor: Option<String>,
    /// Deprecated: use `cursor`. The `next_after` of the previous page
    /// (`order=oldest` only).
    #[param(pattern = "^[0-9]{1,19}$")]
    pub after: Option<String>,
}

/// List the operator's draws.
///
/// The draws of the key's tenant, oldest first or (`order=newest`) newest
/// first (a lost answer to `POST /v1/draws` is found here); `next_cursor`
/// pages on.
#[utoipa::path(get, path = "/v1/draws", tag = "draws",
    security(("operator_key" = [])),
    params(DrawListParams),
    responses(
        (status = 200, description = "A page of the tenant's draws", body = DrawPage),
        DatabaseUnavailable,
        OperatorAuthProblems,
        QueryProblems,
        (status = 422, description = "limit out of range, or an unusable cursor", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list(
    State(state): State<AppState>,
    operator: Operator,
    ApiQuery(params): ApiQuery<DrawListParams>,
) -> Result<Json<DrawPage>, ApiError> {
    let limit = super::seed_pairs::page_size(params.limit, 100)?;
    let (order, key) = cursor::start(
        Listing::Draws,
        params.order,
        params.cursor.as_deref(),
        params.after.is_some(),
        |key| cursor::whole(key).is_some(),
    )?;
    let after = match key {
        Some(key) => cursor::whole(&key),
        None => params
            .after
            .as_deref()
            .map(|text| {
                text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                    ApiError::invalid("after", "must be the next_after of an earlier page")
                })
            })
            .transpose()?,
    };
    let rows = state
        .dealer
        .store()
        .tenant_draws(&operator.tenant, after, order, i64::from(limit) + 1)
        .await?;
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let mut draws = Vec::with_capacity(rows.len());
    for row in rows {
        draws.push(view(&state, row, true).await?);
    }
    let last = rows.last().filter(|_| more);
    Ok(Json(DrawPage {
        draws,
        next_cursor: last.map(|row| cursor::next(Listing::Draws, order, &row.seq.to_string())),
        next_after: last
            .filter(|_| order == Order::Oldest)
            .map(|row| row.seq.to_string()),
    }))
}

/// Read a draw.
///
/// Public: the commitments, the client seed and where it comes from, and,
/// once drawn, the revealed server seed and the winners.
#[utoipa::path(get, path = "/v1/draws/{id}", tag = "draws",
    params(("id" = String, Path, description = "Draw id")),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The draw", body = DrawView),
        DatabaseUnavailable,
        ViewerAuthProblems,
        (status = 404, description = "No such draw", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<DrawView>, ApiError> {
    let row = load_draw(&state, &id).await?;
    let owner = viewer.0.as_ref().is_some_and(|o| o.tenant == row.tenant);
    Ok(Json(view(&state, &row, owner).await?))
}

/// Set the draw's client seed (once).
///
/// Only after the commitments are published; the same seed again is
/// answered as set (a retry), another one is refused.
#[utoipa::path(put, path = "/v1/draws/{id}/client-seed", tag = "draws",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Draw id")),
    request_body = ClientSeedRequest,
    responses(
        (status = 200, description = "The draw, ready to run", body = DrawView, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        (status = 404, description = "No such draw", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another client seed is set, the draw is drawn, or another draw of the tenant from the same list has this seed or one that looks like it (`allow_reuse` to insist)", body = Problem, content_type = "application/problem+json"),
        InvalidClientSeed,
    ))]
pub async fn set_client_seed(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<ClientSeedRequest>,
) -> Result<Response, ApiError> {
    let reuse = super::wire::seed_reuse(request.allow_reuse);
    let client_seed = request.client_seed()?;
    operators_draw(&state, &operator, &id).await?;
    match state
        .dealer
        .set_draw_client_seed(&id, &client_seed, reuse)
        .await?
    {
        DrawUpdate::SeedInUse(others) => Err(ApiError::seed_in_use(
            &others,
            format!(
                "client_seed: draw(s) {} of this tenant draw from the same list with this \
                 client seed or one that looks like it; two draws of one list with one seed \
                 let the operator publish the result it liked, and the transparency log \
                 shows it. Send \"allow_reuse\": true to insist",
                others.join(", ")
            ),
        )),
        DrawUpdate::Done(row) => {
            state.metrics.event("draw_client_seed");
            Ok(Json(with_receipt(&state, &row, row.client_seed_log_index).await?).into_response())
        }
        DrawUpdate::NotFound => Err(draw_not_found(&id)),
        // The same seed again (a retry), before or after the run.
        DrawUpdate::Refused(row) if row.client_seed.as_deref() == Some(client_seed.as_str()) => {
            let body = with_receipt(&state, &row, row.client_seed_log_index).await?;
            Ok(super::replayed(Json(body).into_response()))
        }
        DrawUpdate::Refused(row) if row.lost_log_index.is_some() => Err(lost_in_restore(&row)),
        DrawUpdate::Refused(row) => Err(ApiError::conflict(
            ProblemKind::ClientSeedAlreadySet,
            format!(
                "draw {id} is {}; its client seed can be set only once, while it awaits one",
                row.status
            ),
        )),
    }
}

/// The answer for a draw a restore lost part of: never drawn again.
fn lost_in_restore(row: &DrawRow) -> ApiError {
    ApiError::conflict(
        ProblemKind::DrawLostInRestore,
        format!(
            "draw {} lost its entries from log entry {} on in a database restore: drawing it again \
             with another seed would be a re-roll, so it is never drawn; announce it void and \
             commit a new draw",
            row.id,
            row.lost_log_index.unwrap_or_default()
        ),
    )
}

/// Run the draw.
///
/// Draws the winners (nonce 0 of the draw's server seed) and reveals the
/// seed in the same transaction: a draw is over when it is drawn. Running a
/// drawn draw again answers the same winners.
#[utoipa::path(post, path = "/v1/draws/{id}/run", tag = "draws",
    security(("operator_key" = [])),
    params(("id" = String, Path, description = "Draw id")),
    responses(
        (status = 200, description = "The draw, drawn: winners and revealed seed", body = DrawView, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        OperatorAuthProblems,
        (status = 404, description = "No such draw", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The client seed is not set yet", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn run(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let row = operators_draw(&state, &operator, &id).await?;
    let outcome = if row.status == DrawStatus::Ready {
        state.dealer.run_draw(&row).await?
    } else {
        DrawUpdate::Refused(row)
    };
    match outcome {
        DrawUpdate::Done(row) => {
            state.metrics.event("draw_run");
            tracing::info!(draw = %row.id, "draw run, seed revealed");
            Ok(Json(with_receipt(&state, &row, row.result_log_index).await?).into_response())
        }
        DrawUpdate::Refused(row) if row.status == DrawStatus::Drawn => {
            let body = with_receipt(&state, &row, row.result_log_index).await?;
            Ok(super::replayed(Json(body).into_response()))
        }
        DrawUpdate::Refused(row) if row.lost_log_index.is_some() => Err(lost_in_restore(&row)),
        DrawUpdate::Refused(row) => Err(ApiError::conflict(
            ProblemKind::DrawNotReady,
            format!(
                "draw {id} is {}; set its client seed (PUT /v1/draws/{id}/client-seed) before running it",
                row.status
            ),
        )),
        DrawUpdate::NotFound => Err(draw_not_found(&id)),
        DrawUpdate::SeedInUse(_) => Err(anyhow::anyhow!("running a draw checked a seed").into()),
    }
}

/// Download the draw's entrant list.
///
/// The exact bytes that were committed (`entries_sha256`), streamed: anyone
/// can check their own line is in it, before and after the draw.
#[utoipa::path(get, path = "/v1/draws/{id}/entries", tag = "draws",
    params(("id" = String, Path, description = "Draw id")),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The list, one entrant a line", body = String, content_type = "text/plain"),
        DatabaseUnavailable,
        ViewerAuthProblems,
        (status = 404, description = "No such draw", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The list was committed by its hash only (`/problems/list-not-held`): the operator keeps it", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn entries(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let row = load_draw(&state, &id).await?;
    if !row.entries_uploaded {
        return Err(ApiError::conflict(
            ProblemKind::ListNotHeld,
            format!(
                "draw {id}'s list was committed by its hash only; the operator keeps the list \
                 (its SHA-256 is the draw's entries_sha256)"
            ),
        ));
    }
    let total = row.entries.unwrap_or_default() as u64;
    // The first page is read before answering, so an unreachable database
    // is a 503, not a cut-off 200.
    let store = state.dealer.store().clone();
    let first = store.draw_lines(row.seq, 0, ENTRIES_PAGE).await?;
    let seq = row.seq;
    // State: the page already read (the first), and where the next starts.
    let pages = futures_util::stream::unfold((Some(first), 0u64), move |(read, from)| {
        let store = store.clone();
        async move {
            let lines = match read {
                Some(lines) => lines,
                None if from >= total => return None,
                None => match store.draw_lines(seq, from, ENTRIES_PAGE).await {
                    Ok(lines) => lines,
                    Err(err) => {
                        // The client sees a cut-off body, and its hash fails.
                        tracing::warn!(error = %err, "a list download was cut off");
                        return Some((Err(std::io::Error::other("database")), (None, u64::MAX)));
                    }
                },
            };
            if lines.is_empty() {
                // Fewer lines than the list has: cut the body short rather
                // than end it as if complete (Content-Length says so too).
                return (from < total).then(|| {
                    tracing::error!(draw = seq, from, "a list's lines are missing");
                    (
                        Err(std::io::Error::other("missing lines")),
                        (None, u64::MAX),
                    )
                });
            }
            let mut text = String::with_capacity(lines.iter().map(|(_, l)| l.len() + 1).sum());
            for (_, line) in &lines {
                text.push_str(line);
                text.push('\n');
            }
            Some((Ok::<_, std::io::Error>(text), (None, from + ENTRIES_PAGE)))
        }
    });
    let mut response = Response::new(Body::from_stream(pages));
    if let Some(bytes) = row.entries_bytes {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes as u64));
    }
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response.headers_mut().insert(
        header::HeaderName::from_static("x-entries-sha256"),
        HeaderValue::from_str(row.entries_sha256.as_deref().unwrap_or_default())
            .map_err(anyhow::Error::from)?,
    );
    Ok(response)
}

/// Which of a draw's entries a receipt is for.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DrawEntry {
    /// The `draw_commit` entry (the default).
    #[default]
    Commit,
    /// The `draw_client_seed` entry.
    ClientSeed,
    /// The `draw_result` entry.
    Result,
}

/// Which receipt of a draw.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DrawReceiptParams {
    /// `commit` (the default), `client_seed` or `result`.
    pub entry: Option<DrawEntry>,
}

/// A draw's commitment, client seed or result receipt, with its inclusion
/// proof.
///
/// `entry=commit` (the default): the `draw_commit` entry, the list's hash
/// and size, the number of winners, the server seed's commitment and the
/// hash of the client seed's stated source, logged before the client seed.
/// `entry=client_seed`: the `draw_client_seed` entry (the SHA-256 of the
/// client seed), 404 until it is set. `entry=result`: the `draw_result`
/// entry (the winners and the revealed seed), 404 until the draw is run. A
/// verifier holds the draw the API shows to these entries, in this order.
#[utoipa::path(get, path = "/v1/draws/{id}/receipt", tag = "transparency log",
    params(("id" = String, Path, description = "Draw id"), DrawReceiptParams),
    security((), ("operator_key" = [])),
    responses(
        ProvenReceiptResponses,
        DatabaseUnavailable,
        DrawNotFound,
        QueryProblems,
        ViewerAuthProblems,
    ))]
pub async fn receipt(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiQuery(params): ApiQuery<DrawReceiptParams>,
) -> Result<Response, ApiError> {
    let draw = load_draw(&state, &id).await?;
    let (index, missing) = match params.entry.unwrap_or_default() {
        DrawEntry::Commit => (
            draw.commit_log_index,
            "holds no log entry for its commitment",
        ),
        DrawEntry::ClientSeed => (
            draw.client_seed_log_index,
            match draw.client_seed {
                Some(_) => "has a client seed but the service holds no log entry for it",
                None => "has no client seed yet",
            },
        ),
        DrawEntry::Result => (draw.result_log_index, "is not drawn in the log"),
    };
    proven_or(&state, index, || format!("draw {} {missing}", draw.id)).await
}
