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

/// The readiness answer: `ready`, then a line for each witness (how far
/// behind the latest checkpoint it is, and why, when it did not cosign).
/// A witness behind does not make the service unready: dealing goes on.
async fn readiness_detail(state: &AppState) -> String {
    let mut text = "ready\n".to_owned();
    if state.witnesses.current().is_empty() {
        return text;
    }
    let size = match tokio::time::timeout(READINESS_TIMEOUT, state.dealer.store().log_checkpoint())
        .await
    {
        Ok(Ok(Some(checkpoint))) => checkpoint.size,
        _ => 0,
    };
    for (name, status) in state.witnesses.current().statuses() {
        let line = match status.acknowledged {
            Some(acknowledged) if acknowledged >= size && status.last_error.is_none() => {
                format!("witness {name}: cosigned the latest checkpoint ({size} entries)")
            }
            acknowledged => format!(
                "witness {name}: behind by {} entries (cosigned {}){}",
                size.saturating_sub(acknowledged.unwrap_or(0)),
                acknowledged.map_or("nothing yet".to_owned(), |a| format!("{a} entries")),
                status
                    .last_error
                    .map(|why| format!("; last answer: {why}"))
                    .unwrap_or_default()
            ),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// Readiness: the database answers (within a second).
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready; with witnesses, a line each saying how far behind it is", body = String, content_type = "text/plain"),
        (status = 503, description = "The database does not answer (database-unavailable), or it is behind its transparency log after a restore and every write is refused (database-behind-log)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn readyz(State(state): State<AppState>) -> Result<String, ApiError> {
    // Within a second, whatever the pool's acquire timeout: a load balancer
    // asks often and must not pile up waiting requests.
    match tokio::time::timeout(READINESS_TIMEOUT, state.dealer.refusal_now()).await {
        Ok(Ok(refusal)) => match refusal {
            // Not ready for writes: the way out is in the answer.
            Some(why) => Err(ApiError::behind_log(why)),
            None => Ok(readiness_detail(&state).await),
        },
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "readiness check failed");
            Err(ApiError::database_unreachable(
                "the database does not answer",
            ))
        }
        Err(_) => {
            tracing::warn!("readiness check timed out");
            Err(ApiError::database_unreachable(
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
    state.metrics.mirror(
        state.dealer.mirror().map_or(0, |m| m.count()),
        state.dealer.refusal().is_some(),
    );
    let mut response = state.metrics.encode().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}
