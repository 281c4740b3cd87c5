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
use axum::response::{IntoResponse, Response};
use axum::routing::{self, MethodFilter, MethodRouter};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use utoipa::OpenApi;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};

use super::dealer::Dealer;
use super::metrics::Metrics;
use super::mirror::NotAcknowledged;
use crate::tlog::key::LogKey;
pub use server::{Limits, raise_open_file_limit, serve, serve_with};

pub mod auth;
pub mod draws;
pub mod error;
pub mod evidence;
pub mod export;
pub mod log;
pub mod ops;
pub mod page;
pub mod problems;
pub mod receipts;
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
    pub tiles: Arc<crate::service::tile_cache::TileCache>,
    /// The witnesses asked to cosign the log's checkpoints (none by
    /// default), and what each last did.
    pub witnesses: Arc<crate::service::witnessing::Witnesses>,
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
    receipts::draw,
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
    let api = api.layer(middleware::from_fn_with_state(state.clone(), acknowledge));
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

/// A request that may write (any method but GET, HEAD and OPTIONS, on any
/// path but those that never append to the log) is
/// refused while the database is behind its log, and answered only once
/// the log entries it appended are in the log mirror (`service::mirror`):
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

/// What the OpenAPI description says besides its paths.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "fairdeal",
        description = "Provably-fair card dealing (protocol fairdeal-v1, docs/PROTOCOL.md). \
                       Operator endpoints need `Authorization: Bearer <API key>`; \
                       every error is RFC 9457 application/problem+json whose `type` \
                       (`/problems/<kind>`) a client switches on. The transparency \
                       log (docs/TRANSPARENCY.md) is served under `/log/`: \
                       `/log/checkpoint` and `/log/key` (below), and its tiles \
                       (c2sp.org/tlog-tiles): `GET /log/tile/<L>/<N>[.p/<W>]` for hash \
                       tiles and `GET /log/tile/entries/<N>[.p/<W>]` for entry bundles, \
                       application/octet-stream, full tiles immutable."
    ),
    components(schemas(error::Problem, receipts::Receipt, receipts::ProvenReceipt,
        transparency::ConsistencyProof, transparency::SameClientSeed, transparency::ClientSeedPair, evidence::PairEvidence, evidence::RoundEntry, evidence::TreeNode, wire::SeedPair, wire::PairPage, wire::CreatePairRequest, wire::Round, wire::RoundPage,
        wire::RotationResult, wire::ClientSeedRequest, wire::CreateRoundRequest,
        wire::VerifyRequest, wire::VerifyResponse, wire::GameDoc, wire::DealDoc, wire::NonceDoc,
        ops::VersionInfo, draws::DrawView, draws::DrawPage, draws::Winner, draws::CreateDrawRequest,
        wire::RotateRequest, tables::CommitmentRequest, tables::ContributionRequest,
        tables::SeatResult, statements::MonitorStatements, statements::MonitorStatement,
        statements::StatementKept, receipts::PairEntry, receipts::DrawEntry)),
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
                    // A name for each variant, so generated clients name
                    // their types by game, not GameType0, GameType1, ….
                    let kind = match object.properties.get("type") {
                        Some(RefOr::T(Schema::Object(tag))) => tag
                            .enum_values
                            .as_ref()
                            .and_then(|values| values.first())
                            .and_then(|value| value.as_str())
                            .map(str::to_owned),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        let mut chars = kind.chars();
                        let capital: String = chars
                            .next()
                            .map(|c| c.to_ascii_uppercase())
                            .into_iter()
                            .chain(chars)
                            .collect();
                        object.title = Some(format!("{capital}Game"));
                    }
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

/// The operation at `path` and `method`, to amend.
fn operation_mut<'a>(
    doc: &'a mut utoipa::openapi::OpenApi,
    path: &str,
    method: &str,
) -> Option<&'a mut utoipa::openapi::path::Operation> {
    let item = doc.paths.paths.get_mut(path)?;
    match method {
        "get" => item.get.as_mut(),
        "post" => item.post.as_mut(),
        "put" => item.put.as_mut(),
        _ => None,
    }
}

/// OpenAPI links from each operation that makes a resource to those that
/// read or act on it (so that generated clients and stateful testers follow
/// a session: pair, client seed, deal, close, receipts, rotation, draws):
/// (path, method, status, link name, target operation id, id expression).
const LINKS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "/v1/seed-pairs",
        "post",
        "201",
        "GetPair",
        "seed_pairs_get",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs",
        "post",
        "201",
        "SetClientSeed",
        "seed_pairs_set_client_seed",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs",
        "post",
        "201",
        "PairReceipt",
        "receipts_pair",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs/{id}/client-seed",
        "put",
        "200",
        "DealRound",
        "rounds_create",
        "$request.path.id",
    ),
    (
        "/v1/seed-pairs/{id}/client-seed",
        "put",
        "200",
        "ListRounds",
        "seed_pairs_rounds",
        "$request.path.id",
    ),
    (
        "/v1/seed-pairs/{id}/client-seed",
        "put",
        "200",
        "SameClientSeed",
        "transparency_same_client_seed",
        "$request.path.id",
    ),
    (
        "/v1/seed-pairs/{id}/client-seed",
        "put",
        "200",
        "Rotate",
        "seed_pairs_rotate",
        "$request.path.id",
    ),
    (
        "/v1/seed-pairs/{id}/rounds",
        "post",
        "201",
        "GetRound",
        "rounds_get",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs/{id}/rounds",
        "post",
        "201",
        "CloseRound",
        "rounds_close",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs/{id}/rounds",
        "post",
        "201",
        "RoundReceipt",
        "receipts_round",
        "$response.body#/id",
    ),
    (
        "/v1/seed-pairs/{id}/rounds",
        "post",
        "201",
        "RotatePair",
        "seed_pairs_rotate",
        "$request.path.id",
    ),
    (
        "/v1/rounds/{id}/close",
        "post",
        "200",
        "GetClosedRound",
        "rounds_get",
        "$request.path.id",
    ),
    (
        "/v1/rounds/{id}/close",
        "post",
        "200",
        "ClosedRoundReceipt",
        "receipts_round",
        "$request.path.id",
    ),
    (
        "/v1/seed-pairs/{id}/rotate",
        "post",
        "200",
        "GetRevealed",
        "seed_pairs_get",
        "$response.body#/revealed/id",
    ),
    (
        "/v1/seed-pairs/{id}/rotate",
        "post",
        "200",
        "RevealedRounds",
        "seed_pairs_rounds",
        "$response.body#/revealed/id",
    ),
    (
        "/v1/seed-pairs/{id}/rotate",
        "post",
        "200",
        "DealOnSuccessor",
        "rounds_create",
        "$response.body#/current/id",
    ),
    (
        "/v1/draws",
        "post",
        "201",
        "GetDraw",
        "draws_get",
        "$response.body#/id",
    ),
    (
        "/v1/draws",
        "post",
        "201",
        "SetDrawClientSeed",
        "draws_set_client_seed",
        "$response.body#/id",
    ),
    (
        "/v1/draws/{id}/client-seed",
        "put",
        "200",
        "RunDraw",
        "draws_run",
        "$request.path.id",
    ),
    (
        "/v1/draws/{id}/run",
        "post",
        "200",
        "GetDrawn",
        "draws_get",
        "$request.path.id",
    ),
];

// No link from a new draw to its entries: a draw committed by its list's
// hash alone has none to serve (404), which a link would promise.

/// What the generated description needs besides the routes: the links, and
/// a rotation's body marked optional (an empty body keeps a table's seats).
fn amend(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::link::LinkBuilder;
    use utoipa::openapi::{RefOr, Required};
    for (path, method, status, name, target, id) in LINKS {
        if let Some(operation) = operation_mut(doc, path, method)
            && let Some(RefOr::T(response)) = operation.responses.responses.get_mut(*status)
        {
            response.links.insert(
                (*name).to_owned(),
                RefOr::T(
                    LinkBuilder::new()
                        .operation_id(*target)
                        .parameter("id", *id)
                        .build(),
                ),
            );
        }
    }
    if let Some(operation) = operation_mut(doc, "/v1/seed-pairs/{id}/rotate", "post")
        && let Some(RefOr::T(body)) = operation.request_body.as_mut()
    {
        body.required = Some(Required::False);
    }
    formats_and_enums(doc);
}

/// Ids are UUIDs and times RFC 3339 in every answer: `id`, `*_id` and
/// `*_ids` strings get `format: uuid`, `*_at` strings `format: date-time`;
/// and the text fields that take a few values list them.
fn formats_and_enums(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::{KnownFormat, Schema, SchemaFormat, SchemaType, Type};
    const ENUMS: &[(&str, &str, &[&str])] = &[
        (
            "TableView",
            "phase",
            &["commit", "reveal", "complete", "void"],
        ),
        ("VoidView", "phase", &["commit", "reveal"]),
    ];
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    let is_string = |t: &SchemaType| match t {
        SchemaType::Type(Type::String) => true,
        SchemaType::Array(types) => types.contains(&Type::String),
        _ => false,
    };
    for (name, schema) in components.schemas.iter_mut() {
        let RefOr::T(Schema::Object(object)) = schema else {
            continue;
        };
        // Requests keep plain strings: a path or body id that is not a
        // UUID is answered 404 like any unknown id.
        if name.ends_with("Request") {
            continue;
        }
        for (field, property) in object.properties.iter_mut() {
            let RefOr::T(Schema::Object(property)) = property else {
                continue;
            };
            if !is_string(&property.schema_type) {
                continue;
            }
            let format = if field == "id" || field.ends_with("_id") {
                Some(SchemaFormat::Custom("uuid".to_owned()))
            } else if field.ends_with("_at") {
                Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))
            } else {
                None
            };
            if format.is_some() && property.format.is_none() {
                property.format = format;
            }
            if let Some((_, _, values)) = ENUMS.iter().find(|(s, f, _)| s == name && f == field) {
                property.enum_values = Some(values.iter().map(|v| (*v).into()).collect());
            }
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
    amend(&mut doc);
    doc
}

/// The OpenAPI description as YAML (what `openapi.yaml` holds).
pub fn openapi_yaml() -> String {
    openapi().to_yaml().unwrap_or_default()
}
