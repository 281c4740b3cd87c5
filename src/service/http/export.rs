//! `GET /v1/export`: every revealed seed pair and its rounds, streamed as NDJSON.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::mpsc;
use utoipa::IntoParams;

use super::AppState;
use super::error::{ApiError, DatabaseUnavailable, Problem, QueryProblems};
use super::extract::ApiQuery;
use crate::audit::export::parse_cursor;
use crate::service::export::export as write_export;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExportParams {
    /// Resume after the pair whose line carried this `cursor`.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub after: Option<String>,
    /// Also each drawn draw's entrant list, when the service holds it:
    /// `draw_lines` records of up to 8,192 lines after its `draw` line,
    /// which `fairdeal audit` hashes against the draw's commitment.
    pub draw_lines: Option<bool>,
}

/// Export every revealed seed pair and its rounds.
///
/// NDJSON, in reveal order: a `seed_pair` line, then its `round` lines by
/// nonce, for each pair; a final `end` line with the counts marks a complete
/// export, and its `log` member (`from`, `size`) says which of the
/// transparency log's reveals it covers: every pair revealed by an entry
/// from `from` (0, or the entry after the cursor's pair's reveal) up to
/// `size` (the log's size when the export ended), and no other. Unrevealed
/// pairs never appear. `fairdeal audit` reads this format.
#[utoipa::path(get, path = "/v1/export", tag = "verification",
    params(ExportParams),
    responses(
        (status = 200, description = "NDJSON lines: seed_pair, round, …, end", body = String, content_type = "application/x-ndjson"),
        DatabaseUnavailable,
        QueryProblems,
        (status = 422, description = "An unusable cursor", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn export(
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<ExportParams>,
) -> Result<Response, ApiError> {
    let after = match params.after.as_deref() {
        Some(text) => parse_cursor(text).map_err(|rule| ApiError::invalid("after", rule))?,
        None => 0,
    };
    let (tx, rx) = mpsc::channel::<String>(256);
    let store = state.dealer.store().clone();
    tokio::spawn(async move {
        let options = crate::service::export::ExportOptions {
            draw_lines: params.draw_lines.unwrap_or(false),
        };
        if let Err(err) = write_export(&store, after, options, tx).await {
            // The stream ends without its `end` line, so the reader knows.
            tracing::error!(error = format!("{err:#}"), "export failed part way");
        }
    });
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        let line = rx.recv().await?;
        Some((Ok::<_, Infallible>(Bytes::from(line + "\n")), rx))
    });
    let mut response = Response::new(Body::from_stream(lines));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    Ok(response)
}
