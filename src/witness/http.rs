//! The witness's HTTP interface: `POST /add-checkpoint` (c2sp.org/tlog-witness)
//! and `GET /healthz`. Thin: the body goes to [`Witness::add_checkpoint`],
//! its answer or refusal comes back as status, content type and text.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::net::TcpListener;

use super::protocol::MAX_REQUEST_BYTES;
use super::{AddError, Witness, unix_now};

/// Time a client has to send a request's headers (a slow one, and an idle
/// kept-alive connection, are closed after it).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Time to read a request's body and answer it; past it, 408.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections open at once; one beyond it is closed at once.
pub const MAX_CONNECTIONS: usize = 1024;

/// The witness's routes. A body over [`MAX_REQUEST_BYTES`] is refused with
/// 413 before it is read whole; a request not read and answered within
/// [`REQUEST_TIMEOUT`] with 408.
pub fn router(witness: Arc<Witness>) -> Router {
    Router::new()
        .route("/add-checkpoint", post(add_checkpoint))
        .route("/healthz", get(healthz))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .layer(middleware::from_fn(bound_request))
        .with_state(witness)
}

/// Answers 408 when a request is not read and answered in time. A
/// checkpoint recorded before the timeout stays recorded: the client's
/// retry from the size a 409 names is cosigned.
async fn bound_request(request: Request, next: Next) -> Response {
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(request)).await {
        Ok(response) => response,
        Err(_) => text(
            StatusCode::REQUEST_TIMEOUT,
            "text/plain; charset=utf-8",
            format!(
                "the request was not read and answered within {} s\n",
                REQUEST_TIMEOUT.as_secs()
            ),
        ),
    }
}

/// Serves `router` on `listener` until `shutdown` completes, with
/// [`HEADER_READ_TIMEOUT`] and at most [`MAX_CONNECTIONS`]; then stops
/// accepting and lets requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    crate::serving::serve_connections(
        listener,
        router,
        HEADER_READ_TIMEOUT,
        MAX_CONNECTIONS,
        || tracing::warn!("connection refused: {MAX_CONNECTIONS} already open"),
        shutdown,
    )
    .await
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn add_checkpoint(
    State(witness): State<Arc<Witness>>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    // A body over the limit (or one that could not be read) is refused
    // with one line of text, as every other refusal.
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                "text/plain; charset=utf-8",
                format!("the body is over {MAX_REQUEST_BYTES} bytes\n"),
            );
        }
        Err(rejection) => {
            return text(
                rejection.status(),
                "text/plain; charset=utf-8",
                format!("the body could not be read: {}\n", rejection.body_text()),
            );
        }
    };
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
