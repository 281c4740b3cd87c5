//! The OpenAPI description: what `ApiDoc` says besides the paths (the
//! schemas, the operator key, the problem types), every documented route's
//! operation from [`documented_routes!`](super), and the amendments utoipa
//! cannot express (closed game variants, formats, enums, links). `fairdeal
//! openapi` prints it; a test keeps `openapi.yaml` equal to it.

use utoipa::OpenApi;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};

use super::documented_routes;
use super::{
    draws, error, evidence, ops, problems, receipts, statements, tables, transparency, wire,
};

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
        statements::StatementKept, receipts::PairEntry, draws::DrawEntry, wire::cursor::ListOrder)),
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
                 on `title` or `detail`. The kinds today:\n{}\n\n{OPEN_VALUES} Handle a kind \
                 you do not know by the problem's `status`.",
                listed.join("\n")
            )))
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
/// the bodies a request may leave out marked optional.
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
    // Bodies a request may leave out: a create with none makes a plain
    // pair, a rotation with none keeps a table's seats. Described as the
    // object alone (not "or null"), so that a generated client called
    // without one sends none.
    for path in ["/v1/seed-pairs/{id}/rotate", "/v1/seed-pairs"] {
        if let Some(operation) = operation_mut(doc, path, "post")
            && let Some(RefOr::T(body)) = operation.request_body.as_mut()
        {
            body.required = Some(Required::False);
        }
    }
    // The pair and draw listings' first cursors, replaced by `cursor`
    // (CHANGELOG.md, "Deprecated"): still taken within /v1. A pair's
    // rounds keep `after` as a seek to a nonce.
    for path in ["/v1/seed-pairs", "/v1/draws"] {
        if let Some(operation) = operation_mut(doc, path, "get") {
            for parameter in operation.parameters.iter_mut().flatten() {
                if let RefOr::T(parameter) = parameter
                    && parameter.name == "after"
                {
                    parameter.deprecated = Some(utoipa::openapi::Deprecated::True);
                }
            }
        }
    }
    formats_and_enums(doc);
    open_enums(doc);
}

/// What an open field's description says of its values (CHANGELOG.md,
/// "Versions and what may change").
const OPEN_VALUES: &str = "New values may be added within /v1 (CHANGELOG.md): a client must \
     take one it does not know as it is, never fail on it.";

/// The answers' fields whose values a later release may add to: a string
/// whose description lists the values of today (a generated client then
/// reads a new one as text, not as an error). Where a request takes the
/// same values (a listing's `status` filter), the parameter keeps the
/// closed list: a client sends only what it knows, and the server
/// refuses anything else.
const OPEN_ENUMS: [&str; 3] = ["DrawStatus", "PairStatus", "RoundStatus"];

fn open_enums(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::Schema;
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    let mut closed = std::collections::BTreeMap::new();
    for name in OPEN_ENUMS {
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(name)
            && let Some(values) = object.enum_values.take()
        {
            closed.insert(format!("#/components/schemas/{name}"), {
                let mut copy = object.clone();
                copy.enum_values = Some(values.clone());
                copy
            });
            let listed: Vec<String> = values
                .iter()
                .map(|v| format!("`{}`", v.as_str().unwrap_or_default()))
                .collect();
            let said = object.description.take().unwrap_or_default();
            object.description = Some(format!(
                "{said} One of {} today. {OPEN_VALUES}",
                listed.join(", ")
            ));
        }
    }
    for item in doc.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            for parameter in operation.parameters.iter_mut().flatten() {
                let RefOr::T(parameter) = parameter else {
                    continue;
                };
                if let Some(RefOr::Ref(reference)) = &parameter.schema
                    && let Some(schema) = closed.get(&reference.ref_location)
                {
                    parameter.schema = Some(RefOr::T(Schema::Object(schema.clone())));
                }
            }
        }
    }
}

/// Ids are UUIDs and times RFC 3339 in every answer: `id`, `*_id` and
/// `*_ids` strings get `format: uuid` (but a request's id, which a client
/// may choose), `*_at` strings `format: date-time`; and the text fields
/// that take a few values list them (open: [`OPEN_VALUES`]).
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
            let format = if (field == "id" || field.ends_with("_id")) && field != "request_id" {
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
                let listed: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
                let said = property.description.take().unwrap_or_default();
                property.description = Some(format!(
                    "{said} One of {} today. {OPEN_VALUES}",
                    listed.join(", ")
                ));
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
