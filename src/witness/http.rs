//! The witness's HTTP interface: `POST /add-checkpoint` (c2sp.org/tlog-witness)
//! and `GET /healthz`. Thin: the body goes to [`Witness::add_checkpoint`],
//! its answer or refusal comes back as status, content type and text.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::protocol::MAX_REQUEST_BYTES;
use super::{AddError, Witness, unix_now};

/// The witness's routes. A body over [`MAX_REQUEST_BYTES`] is refused with
/// 413 before it is read whole.
pub fn router(witness: Arc<Witness>) -> Router {
    Router::new()
        .route("/add-checkpoint", post(add_checkpoint))
        .route("/healthz", get(healthz))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(witness)
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn add_checkpoint(State(witness): State<Arc<Witness>>, body: Bytes) -> Response {
    match witness.add_checkpoint(&body, unix_now()).await {
        Ok(lines) => text(StatusCode::OK, "text/plain; charset=utf-8", lines),
        Err(AddError::Refused(refusal)) => text(
            StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::BAD_REQUEST),
            refusal.content_type(),
            refusal.body(),
        ),
        Err(AddError::Unavailable(err)) => {
            tracing::error!(error = format!("{err:#}"), "add-checkpoint failed");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain; charset=utf-8",
                "the witness could not record the checkpoint (its database failed, or the \
                 log's checkpoint kept changing under the request); retry\n"
                    .to_owned(),
            )
        }
    }
}

async fn healthz(State(witness): State<Arc<Witness>>) -> Response {
    match witness.store().ping().await {
        Ok(()) => text(
            StatusCode::OK,
            "text/plain; charset=utf-8",
            "ok\n".to_owned(),
        ),
        Err(err) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain; charset=utf-8",
            format!("{err:#}\n"),
        ),
    }
}
