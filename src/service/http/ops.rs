//! Operational endpoints: liveness, readiness, metrics, version.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, Problem};

/// What this server is.
#[derive(Debug, Serialize, ToSchema)]
pub struct VersionInfo {
    /// The package version.
    #[schema(example = "0.1.0")]
    pub version: &'static str,
    /// The git commit it was built from (`unknown` when built without one).
    pub commit: &'static str,
    /// The dealing protocol it implements.
    #[schema(example = "fairdeal-v1")]
    pub protocol: &'static str,
}

/// The version and git commit of this server.
#[utoipa::path(get, path = "/version", tag = "operations",
    responses((status = 200, description = "Version, commit and protocol", body = VersionInfo)))]
pub async fn version() -> Json<VersionInfo> {
    Json(VersionInfo {
        version: env!("CARGO_PKG_VERSION"),
        commit: env!("FAIRDEAL_GIT_COMMIT"),
        protocol: fairdeal_core::PROTOCOL,
    })
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "Alive", body = String, content_type = "text/plain")))]
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// How long `/readyz` waits for the database.
const READINESS_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(900);

/// Readiness: the database answers (within a second).
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready", body = String, content_type = "text/plain"),
        (status = 503, description = "The database does not answer", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn readyz(State(state): State<AppState>) -> Result<&'static str, ApiError> {
    // Within a second, whatever the pool's acquire timeout: a load balancer
    // asks often and must not pile up waiting requests.
    match tokio::time::timeout(READINESS_TIMEOUT, state.dealer.store().ping()).await {
        Ok(Ok(())) => Ok("ready\n"),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "readiness check failed");
            Err(ApiError::unavailable("the database does not answer"))
        }
        Err(_) => {
            tracing::warn!("readiness check timed out");
            Err(ApiError::unavailable(
                "the database did not answer within one second",
            ))
        }
    }
}

/// Prometheus metrics, in the OpenMetrics text format.
///
/// Besides requests and rounds: lifecycle events, the database pool and the
/// transparency log, read at each scrape (a database that does not answer
/// within a second leaves those as they were).
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "OpenMetrics text format", body = String, content_type = "application/openmetrics-text")))]
pub async fn metrics(State(state): State<AppState>) -> Response {
    let store = state.dealer.store();
    let read = async {
        let (pool_size, pool_idle, acquire_seconds) = store.pool_sample().await?;
        let (log_entries, _) = store.log_sizes().await?;
        let checkpoint_size = store.log_checkpoint().await?.map_or(0, |c| c.size);
        Ok::<_, sqlx::Error>(crate::service::metrics::Snapshot {
            pool_size,
            pool_idle,
            acquire_seconds,
            log_entries,
            checkpoint_size,
        })
    };
    match tokio::time::timeout(std::time::Duration::from_secs(1), read).await {
        Ok(Ok(snapshot)) => state.metrics.snapshot(crate::time::now_ms(), snapshot),
        Ok(Err(err)) => tracing::warn!(error = %err, "metrics: reading the database failed"),
        Err(_) => tracing::warn!("metrics: the database did not answer within a second"),
    }
    let mut response = state.metrics.encode().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}
