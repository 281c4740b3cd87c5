//! The HTTP API: one module of handlers per resource, listed once in
//! [`documented_routes!`] (the router and the OpenAPI description both come
//! from that list); the error type and the JSON extractor (`error`); the wire
//! types; authentication; and [`serve`], which takes a bound listener and a
//! shutdown future so tests bind port 0 and stop the server themselves.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::handler::Handler;
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{self, MethodFilter, MethodRouter};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use utoipa::OpenApi;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};

use super::dealer::Dealer;
use super::metrics::Metrics;
use crate::tlog::key::LogKey;
pub use server::{Limits, raise_open_file_limit, serve, serve_with};

pub mod auth;
pub mod draws;
pub mod error;
pub mod export;
pub mod log;
pub mod ops;
pub mod page;
pub mod problems;
pub mod receipts;
pub mod rounds;
pub mod seed_pairs;
pub mod server;
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
    problems::list,
    problems::explain,
    receipts::round,
    receipts::pair,
    transparency::consistency,
    transparency::same_client_seed,
    draws::create,
    draws::list,
    draws::get,
    draws::set_client_seed,
    draws::run,
    draws::entries,
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
        // The transparency log: C2SP static resources, described in
        // docs/TRANSPARENCY.md rather than in the OpenAPI description.
        .route("/log/checkpoint", routing::get(log::checkpoint))
        .route("/log/key", routing::get(log::key))
        .route("/log/tile/{*path}", routing::get(log::tile));
    for route in documented_routes() {
        api = api.route(&route.path, route.handler);
    }
    let api = api
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    server::with_request_timeout(api, limits)
        .layer(middleware::from_fn_with_state(state, observe))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(
            // Method, path and status only: never headers (Authorization),
            // queries or bodies.
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
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

/// A request's span: its method ([`method_name`]) and path; the query is
/// left out (it may carry a tenant's labels).
fn request_span(request: &Request) -> tracing::Span {
    tracing::info_span!(
        "request",
        method = method_name(request.method()),
        path = request.uri().path(),
    )
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

/// What the OpenAPI description says besides its paths.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "fairdeal",
        description = "Provably-fair card dealing (protocol fairdeal-v1, docs/PROTOCOL.md). \
                       Operator endpoints need `Authorization: Bearer <API key>`; \
                       every error is RFC 9457 application/problem+json."
    ),
    components(schemas(error::Problem, receipts::Receipt, receipts::ProvenReceipt,
        transparency::ConsistencyProof, transparency::SameClientSeed, transparency::ClientSeedPair, wire::SeedPair, wire::PairPage, wire::CreatePairRequest, wire::Round, wire::RoundPage,
        wire::RotationResult, wire::ClientSeedRequest, wire::CreateRoundRequest,
        wire::VerifyRequest, wire::VerifyResponse, wire::GameDoc, wire::DealDoc, wire::NonceDoc,
        ops::VersionInfo, draws::DrawView, draws::DrawPage, draws::Winner, draws::CreateDrawRequest,
        wire::RotateRequest, tables::CommitmentRequest, tables::ContributionRequest,
        tables::SeatResult)),
    modifiers(&OperatorKey, &ClosedGames, &ProblemTypes),
)]
#[derive(Debug)]
struct ApiDoc;

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

/// Each game type takes only its own parameters: utoipa leaves the variants
/// of the tagged `Game` open, so they are closed here.
struct ClosedGames;

impl utoipa::Modify for ClosedGames {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{AdditionalProperties, Schema};
        let game = openapi
            .components
            .as_mut()
            .and_then(|components| components.schemas.get_mut("Game"));
        if let Some(RefOr::T(Schema::OneOf(one_of))) = game {
            for item in &mut one_of.items {
                if let RefOr::T(Schema::Object(object)) = item {
                    object.additional_properties =
                        Some(Box::new(AdditionalProperties::FreeForm(false)));
                }
            }
        }
    }
}

/// `Problem.type` takes the URIs of [`problems::ProblemKind`], each
/// listed with its status and title: what a backend switches on.
struct ProblemTypes;

impl utoipa::Modify for ProblemTypes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
        let kinds = problems::ProblemKind::ALL;
        let listed: Vec<String> = kinds
            .iter()
            .map(|k| format!("- `{}` ({} {})", k.uri(), k.status().as_u16(), k.title()))
            .collect();
        let schema = ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(format!(
                "The kind of problem: a URI reference resolved against the service, where \
                 `GET` says what it means and what to do. A backend switches on this, never \
                 on `title` or `detail`:\n{}",
                listed.join("\n")
            )))
            .enum_values(Some(kinds.iter().map(|k| k.uri())))
            .examples(["/problems/invalid-request"]);
        let problem = openapi
            .components
            .as_mut()
            .and_then(|components| components.schemas.get_mut("Problem"));
        if let Some(RefOr::T(Schema::Object(object))) = problem {
            object
                .properties
                .insert("type".to_owned(), RefOr::T(Schema::Object(schema.build())));
        }
    }
}

/// The OpenAPI description: [`ApiDoc`] and every documented route.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    for route in documented_routes() {
        doc.paths
            .add_path_operation(&route.path, route.methods, route.operation);
    }
    doc
}

/// The OpenAPI description as YAML (what `openapi.yaml` holds).
pub fn openapi_yaml() -> String {
    openapi().to_yaml().unwrap_or_default()
}
