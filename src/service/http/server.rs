//! Connections: accepting them under a cap, timing out slow or idle ones,
//! bounding each request, and shutting down gracefully. What an abusive
//! client can hold open is bounded here, so that health checks and deals
//! keep being answered.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

use super::AppState;
use super::error::ApiError;
use crate::service::dealer::draws::UPLOAD_TIMEOUT;

/// What one client may hold, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Time to send a request's headers, from the moment the connection is
    /// ready for them: a slow header (slowloris) and a kept-alive connection
    /// left idle are both closed after it.
    pub header_read_timeout: Duration,
    /// Time to read a request's body and answer it; past it, 408.
    pub request_timeout: Duration,
    /// Connections open at once; a connection beyond it is closed at once.
    pub max_connections: usize,
    /// Each API key's rate limit in this process, if any
    /// ([`super::rate_limit`]).
    pub rate_limit: Option<super::rate_limit::RateLimit>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_connections: 10_000,
            rate_limit: None,
        }
    }
}

/// Answers 408 problem+json when a request is not read and answered within
/// the limit. The handler's future is dropped: a database transaction in it
/// rolls back unless it had committed, which is why a deal is retried with
/// its Idempotency-Key.
pub(super) async fn bound_request(
    State(limit): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    // A list upload may take minutes: it bounds itself (the time between
    // its chunks, `draws::UPLOAD_IDLE`, and `UPLOAD_TIMEOUT` overall, after
    // which it discards its draft and answers 408); this is a backstop.
    let limit = if super::draws::is_list_upload(&request) {
        UPLOAD_TIMEOUT + Duration::from_secs(60)
    } else {
        limit
    };
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::request_timeout(limit).into_response(),
    }
}

/// Adds the request timeout to `router`.
pub(super) fn with_request_timeout(router: Router, limits: &Limits) -> Router {
    router.layer(middleware::from_fn_with_state(
        limits.request_timeout,
        bound_request,
    ))
}

/// Serves the API on `listener` with [`Limits::default`] until `shutdown`.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, state, Limits::default(), shutdown).await
}

/// Serves the API on `listener` until `shutdown` completes; then stops
/// accepting, lets requests in flight finish and closes idle connections.
pub async fn serve_with(
    listener: TcpListener,
    state: AppState,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = super::router_with(state.clone(), &limits);
    crate::serving::serve_connections(
        listener,
        app,
        limits.header_read_timeout,
        limits.max_connections,
        || state.metrics.connection_refused(),
        shutdown,
    )
    .await
}

/// Raises this process's open-file limit to its hard limit, so that the
/// connection cap, not the operating system, decides when to refuse. Returns
/// the limit now in force.
pub fn raise_open_file_limit() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}
