//! The HTTP API: one router per resource, merged here; the error type; the
//! wire types; authentication; and [`serve`], which takes a bound listener
//! and a shutdown future so tests bind port 0 and stop the server themselves.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post, put};
use tokio::net::TcpListener;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use utoipa::OpenApi;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};

use crate::service::dealer::Dealer;
use crate::service::metrics::Metrics;

pub mod auth;
pub mod error;
pub mod export;
pub mod ops;
pub mod page;
pub mod rounds;
pub mod seed_pairs;
pub mod verify;
pub mod wire;

/// The pair with this id, or a 404 naming it.
pub(crate) async fn load_pair(
    state: &AppState,
    id: &str,
) -> Result<crate::service::store::PairRow, error::ApiError> {
    state
        .dealer
        .store()
        .pair(id)
        .await?
        .ok_or_else(|| error::ApiError::not_found("seed pair", id))
}

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// What every handler can reach.
#[derive(Clone, Debug)]
pub struct AppState {
    pub dealer: Arc<Dealer>,
    pub metrics: Arc<Metrics>,
}

/// The whole API.
pub fn router(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/v1/seed-pairs", post(seed_pairs::create))
        .route("/v1/seed-pairs/{id}", get(seed_pairs::get))
        .route(
            "/v1/seed-pairs/{id}/client-seed",
            put(seed_pairs::set_client_seed),
        )
        .route(
            "/v1/seed-pairs/{id}/rounds",
            post(rounds::create).get(seed_pairs::rounds),
        )
        .route("/v1/seed-pairs/{id}/rotate", post(seed_pairs::rotate))
        .route("/v1/rounds/{id}", get(rounds::get))
        .route("/v1/rounds/{id}/close", post(rounds::close))
        .route("/v1/verify", post(verify::verify))
        .route("/v1/export", get(export::export));
    let page = Router::new()
        .route("/", get(page::verify_page))
        .route("/verify", get(page::verify_page));
    let ops = Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics));
    Router::new()
        .merge(v1)
        .merge(page)
        .merge(ops)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(
            // Method, path and status only: never headers (Authorization) or bodies.
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(tracing::Level::INFO))
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .with_state(state)
}

async fn not_found() -> error::ApiError {
    error::ApiError::not_found("endpoint", "this path")
}

async fn method_not_allowed() -> Response {
    error::problem_response(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed",
        "this path does not take that method; see openapi.yaml".to_owned(),
    )
}

/// Records latency and status per route template.
async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    state.metrics.observe(
        &method,
        &route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

/// Serves `router` on `listener` until `shutdown` completes, then lets
/// in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// The OpenAPI description, generated from the handlers and wire types.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "fairdeal",
        description = "Provably-fair card dealing (protocol fairdeal-v1, docs/PROTOCOL.md). \
                       Operator endpoints need `Authorization: Bearer <API key>`; \
                       every error is RFC 9457 application/problem+json."
    ),
    paths(
        seed_pairs::create, seed_pairs::set_client_seed, seed_pairs::get, seed_pairs::rounds,
        seed_pairs::rotate, rounds::create, rounds::get, rounds::close, verify::verify, export::export, page::verify_page,
        ops::healthz, ops::readyz, ops::metrics,
    ),
    components(schemas(error::Problem, wire::SeedPair, wire::Round, wire::RoundPage,
        wire::RotationResult, wire::ClientSeedRequest, wire::CreateRoundRequest,
        wire::VerifyRequest, wire::VerifyResponse, wire::GameSpec, wire::DealDoc, wire::NonceDoc)),
    modifiers(&OperatorKey),
)]
#[derive(Debug)]
pub struct ApiDoc;

struct OperatorKey;

impl utoipa::Modify for OperatorKey {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "operator_key",
                SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
            );
        }
    }
}

/// The OpenAPI description as YAML (what `openapi.yaml` holds).
pub fn openapi_yaml() -> String {
    ApiDoc::openapi().to_yaml().unwrap_or_default()
}
