//! The HTTP API: one module of handlers per resource, listed once in
//! [`documented_routes!`] (the router and the OpenAPI description both come
//! from that list, `openapi.rs` assembling the latter); the error type and
//! the JSON extractor (`error`); the problem catalogue (`problems`); the
//! wire types by resource (`wire`); authentication; and [`serve`], which
//! takes a bound listener and a shutdown future so tests bind port 0 and
//! stop the server themselves.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::handler::Handler;
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{self, MethodFilter, MethodRouter};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use utoipa::openapi::path::HttpMethod;

use super::dealer::Dealer;
use super::log::mirror::NotAcknowledged;
use super::metrics::Metrics;
use crate::tlog::key::LogKey;
pub use openapi::{openapi, openapi_yaml};
pub use rate_limit::RateLimit;
pub use server::{Limits, raise_open_file_limit, serve, serve_with};

pub mod auth;
pub mod draws;
pub mod error;
pub mod evidence;
pub mod export;
pub mod extract;
pub mod log;
mod openapi;
pub mod ops;
pub mod page;
pub mod problems;
pub mod rate_limit;
pub mod receipts;
pub mod request_id;
pub mod rounds;
pub mod seed_pairs;
pub mod server;
pub mod statements;
pub mod tables;
pub mod transparency;
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
    /// The transparency log's key (its verifier key is public).
    pub log: Arc<LogKey>,
    /// The largest checkpoint size a tile request has read: a tile below it
    /// is served without reading the checkpoint again (the log only grows).
    pub log_size_seen: Arc<std::sync::atomic::AtomicU64>,
    /// Full tiles recently served, and read ahead for readers in order.
    pub tiles: Arc<crate::service::log::tile_cache::TileCache>,
    /// The witnesses asked to cosign the log's checkpoints (none by
    /// default; the database's set, followed as it changes), and what each
    /// last did: read with `.current()`.
    pub witnesses: Arc<crate::service::log::witnessing::LiveWitnesses>,
    /// The monitors whose signed statements about the log the service
    /// keeps and serves (none by default).
    pub monitors: Arc<statements::Monitors>,
}

/// A route: where and how it is served, how it is described, and its handler.
struct DocumentedRoute {
    path: String,
    methods: Vec<HttpMethod>,
    operation: utoipa::openapi::path::Operation,
    handler: MethodRouter<AppState>,
}

impl DocumentedRoute {
    /// The route of `handler`, whose `#[utoipa::path]` generated `Doc`;
    /// `operation_id` is unique across the API (`module_handler`).
    fn of<Doc, H, T>(handler: H, operation_id: &str) -> Self
    where
        // `Tags` is how utoipa hands over an operation's `tag = …` (as
        // utoipa-axum does); `Path::operation` leaves it out.
        Doc: utoipa::Path + for<'t> utoipa::__dev::Tags<'t>,
        H: Handler<T, AppState>,
        T: 'static,
    {
        let mut operation = Doc::operation();
        operation.operation_id = Some(operation_id.to_owned());
        let tags = Doc::tags();
        if !tags.is_empty() {
            operation.tags = Some(tags.into_iter().map(str::to_owned).collect());
        }
        let methods = Doc::methods();
        let filter = methods
            .iter()
            .map(|method| match method {
                HttpMethod::Get => MethodFilter::GET,
                HttpMethod::Put => MethodFilter::PUT,
                HttpMethod::Post => MethodFilter::POST,
                HttpMethod::Delete => MethodFilter::DELETE,
                HttpMethod::Options => MethodFilter::OPTIONS,
                HttpMethod::Head => MethodFilter::HEAD,
                HttpMethod::Patch => MethodFilter::PATCH,
                HttpMethod::Trace => MethodFilter::TRACE,
            })
            .reduce(MethodFilter::or)
            .unwrap_or(MethodFilter::GET);
        Self {
            path: Doc::path(),
            methods,
            operation,
            handler: routing::on(filter, handler),
        }
    }
}

/// THE list of routes. Each handler's `#[utoipa::path]` states its method and
/// path once; the router ([`router`]) and the OpenAPI description
/// ([`openapi`]) are both built from this list, so neither can lack a route
/// the other has. A new endpoint is one handler in its resource's module and
/// one line here.
macro_rules! documented_routes {
    ($($module:ident :: $handler:ident),+ $(,)?) => {
        pastey::paste! {
            fn documented_routes() -> Vec<DocumentedRoute> {
                vec![$(DocumentedRoute::of::<$module::[<__path_ $handler>], _, _>(
                    $module::$handler,
                    concat!(stringify!($module), "_", stringify!($handler)),
                )),+]
            }
        }
    };
}

documented_routes![
    seed_pairs::create,
    seed_pairs::list,
    seed_pairs::get,
    seed_pairs::set_client_seed,
    seed_pairs::rounds,
    seed_pairs::rotate,
    seed_pairs::end,
    tables::commit,
    tables::contribute,
    rounds::create,
    rounds::get,
    rounds::close,
    verify::verify,
    export::export,
    page::verify_page,
    ops::healthz,
    ops::readyz,
    ops::metrics,
    ops::version,
    log::checkpoint,
    log::key,
    problems::list,
    problems::explain,
    receipts::round,
    receipts::round_seed,
    transparency::witnessed_checkpoint,
    receipts::pair,
    receipts::entry,
    statements::post,
    statements::list,
    transparency::consistency,
    transparency::same_client_seed,
    evidence::pair,
    draws::create,
    draws::list,
    draws::get,
    draws::set_client_seed,
    draws::run,
    draws::entries,
    draws::receipt,
];

/// The whole API, with [`Limits::default`].
pub fn router(state: AppState) -> Router {
    router_with(state, &Limits::default())
}

/// The whole API, each request bounded by `limits.request_timeout`.
pub fn router_with(state: AppState, limits: &Limits) -> Router {
    let mut api = Router::new()
        // The verification page is also the front page (not described twice).
        .route("/", routing::get(page::verify_page))
        // The page's modules (web/*.mjs, web/page/*.js), as they import
        // each other.
        .route("/verify/modules/{*path}", routing::get(page::module))
        // The log's tiles: C2SP paths, whose index spans several segments,
        // described in the introduction and docs/TRANSPARENCY.md.
        .route("/log/tile/{*path}", routing::get(log::tile));
    for route in documented_routes() {
        api = api.route(&route.path, route.handler);
    }
    let api = api
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    let mut api = api.layer(middleware::from_fn_with_state(state.clone(), acknowledge));
    if let Some(limit) = limits.rate_limit {
        api = api.layer(middleware::from_fn_with_state(
            rate_limit::KeyLimits::new(limit),
            rate_limit::layer,
        ));
    }
    server::with_request_timeout(api, limits)
        .layer(middleware::from_fn_with_state(state, observe))
        .layer(middleware::from_fn(cross_origin_reads))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(
            // Method, path and status only: never headers (Authorization),
            // queries or bodies.
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(middleware::from_fn(request_id::assign))
}

/// `response` marked as the answer to a retry (`Idempotent-Replayed:
/// true`): nothing new was made.
fn replayed(mut response: Response) -> Response {
    response.headers_mut().insert(
        "idempotent-replayed",
        axum::http::HeaderValue::from_static("true"),
    );
    response
}

async fn not_found() -> error::ApiError {
    error::ApiError::no_route()
}

async fn method_not_allowed() -> Response {
    error::problem_response(
        error::ProblemKind::MethodNotAllowed,
        "this path does not take that method; see openapi.yaml".to_owned(),
    )
}

/// The request's method as a label or log field: one of the methods HTTP
/// defines, or `other`. A client may send any token as a method (thousands
/// of bytes, a new one each request), and a label or field taken from it
/// as sent would grow the metrics without bound.
pub(crate) fn method_name(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "other",
    }
}

/// A request's span: its method ([`method_name`]), path and id
/// ([`request_id`]); the query is left out (it may carry a tenant's labels).
fn request_span(request: &Request) -> tracing::Span {
    tracing::info_span!(
        "request",
        method = method_name(request.method()),
        path = request.uri().path(),
        request_id = request
            .headers()
            .get(request_id::HEADER)
            .and_then(|id| id.to_str().ok())
            .unwrap_or_default(),
    )
}

/// A request that may write (any method but GET, HEAD and OPTIONS, on any
/// path but those that never append to the log) is
/// refused while the database is behind its log, and answered only once
/// the log entries it appended are in the log mirror (`service::log::mirror`):
/// nothing acknowledged can be lost with the database. Answers that wrote
/// nothing pay one pass that finds nothing new.
async fn acknowledge(State(state): State<AppState>, request: Request, next: Next) -> Response {
    // What never appends to the log: a verification (a computation), a
    // monitor's statement (kept beside the log, not in it).
    const NEVER_LOGGED: [&str; 2] = ["/v1/verify", "/v1/log/monitor-statements"];
    let writes = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) && !NEVER_LOGGED.contains(&request.uri().path());
    if !writes || state.dealer.mirror().is_none() {
        return next.run(request).await;
    }
    if let Some(why) = state.dealer.refusal() {
        return error::ApiError::behind_log(why).into_response();
    }
    state.dealer.catch_up_with_mirror();
    let response = next.run(request).await;
    match state.dealer.acknowledge().await {
        Ok(()) => response,
        Err(NotAcknowledged::Refused(why)) => error::ApiError::behind_log(why).into_response(),
        Err(NotAcknowledged::DatabaseUnavailable) => {
            error::ApiError::database_unavailable().into_response()
        }
    }
}

/// Public reads answer any origin, so that a verifier the operator does
/// not serve (the released single file, opened from disk or from another
/// site) can check this service's records and log: `GET` and `HEAD` under
/// `/v1/` and `/log/` carry `Access-Control-Allow-Origin: *`. Nothing else
/// is opened: no credentials (the service uses no cookies, and a request
/// with `Authorization` from another origin needs a preflight, which is
/// never granted), no writes, and `/metrics`, `/readyz` and `/healthz`
/// stay same-origin. Answers differ with the key (an operator sees cards
/// in play), so they `Vary` on `Authorization`.
async fn cross_origin_reads(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let readable = matches!(*request.method(), Method::GET | Method::HEAD)
        && (path.starts_with("/v1/") || path.starts_with("/log/"));
    let mut response = next.run(request).await;
    if readable {
        let headers = response.headers_mut();
        headers.insert(
            axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
            axum::http::HeaderValue::from_static("*"),
        );
        headers.append(
            axum::http::header::VARY,
            axum::http::HeaderValue::from_static("Authorization"),
        );
    }
    response
}

/// Records latency and status per route template.
async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_name(request.method());
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    state.metrics.observe(
        method,
        &route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}
