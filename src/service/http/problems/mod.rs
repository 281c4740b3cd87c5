//! The problem pages: `GET /problems/{kind}` says what one kind of problem
//! means and what to do; `GET /problems` lists them all. The kinds
//! themselves are declared once in [`catalogue`], which imports nothing of
//! the HTTP layer (`error.rs` answers them).

use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::extract::ApiPath;

pub mod catalogue;

pub use catalogue::ProblemKind;

/// What one kind of problem means and what to do about it.
///
/// The `type` of every problem answered is one of these pages (a
/// backend switches on it); `GET /problems` lists them all.
#[utoipa::path(get, path = "/problems/{kind}", tag = "operations",
    params(("kind" = String, Path, description = "The last segment of a problem's `type`", example = "client-seed-in-use")),
    security(()),
    responses(
        (status = 200, description = "What the problem means and what to do", body = String, content_type = "text/plain"),
        (status = 404, description = "No such kind of problem", body = super::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn explain(ApiPath(kind): ApiPath<String>) -> Result<Response, ApiError> {
    let found = ProblemKind::ALL
        .iter()
        .find(|k| k.slug() == kind)
        .ok_or_else(|| ApiError::not_found("kind of problem", &kind))?;
    Ok(text(page(*found)))
}

/// Every kind of problem the API answers.
#[utoipa::path(get, path = "/problems", tag = "operations",
    security(()),
    responses(
        (status = 200, description = "Every kind, with its status, title and meaning", body = String, content_type = "text/plain"),
    ))]
pub async fn list() -> Response {
    let pages: Vec<String> = ProblemKind::ALL.iter().map(|k| page(*k)).collect();
    text(pages.join("\n"))
}

fn page(kind: ProblemKind) -> String {
    format!(
        "{}\n{} {}: {}\n\n{}",
        kind.uri(),
        kind.status().as_u16(),
        kind.status().canonical_reason().unwrap_or_default(),
        kind.title(),
        kind.explanation()
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    )
}

fn text(body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        body,
    )
        .into_response()
}
