//! The API's one error type, answered as RFC 9457 `application/problem+json`;
//! the JSON body extractor that names the field at fault; and the problem
//! responses several endpoints share, declared once for the OpenAPI
//! description.
//!
//! Policy: input mistakes are 400/413/415/422 with the field and the rule;
//! unknown ids 404; state conflicts 409; anything else is logged and answered
//! as an opaque 500 (its detail could name internals, never a seed: no error
//! in this crate carries one).

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, OptionalFromRequest, Path, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use utoipa::openapi::{self, ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{IntoResponses, ToSchema};

pub use super::problems::ProblemKind;

/// An RFC 9457 problem document.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// The kind of problem: a URI reference, `/problems/<kind>`, resolved
    /// against the service (`GET` it for what it means and what to do). A
    /// backend switches on this, never on `title` or `detail`; every value
    /// is listed here.
    #[serde(rename = "type")]
    #[schema(example = "/problems/invalid-request")]
    pub problem_type: &'static str,
    /// A short summary of the problem type: the same for every problem of
    /// one `type`.
    #[schema(example = "Invalid request")]
    pub title: String,
    /// The HTTP status code.
    #[schema(example = 422)]
    pub status: u16,
    /// What went wrong with this request, and the rule that was broken.
    #[schema(example = "game.players: players must be 2 to 22; got 23")]
    pub detail: String,
    /// The request field at fault, as a dotted path, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "game.players")]
    pub field: Option<String>,
    /// Rounds still in play, when rotation is refused because of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds_in_play: Option<Vec<String>>,
    /// The line at fault (from 1, as an editor counts) of an uploaded list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The table seat (its label) the request was about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
}

/// The rarer members of a problem.
#[derive(Debug, Default)]
struct Extra {
    rounds_in_play: Option<Vec<String>>,
    line: Option<u64>,
    seat: Option<String>,
}

/// An error answered to the client.
#[derive(Debug)]
pub struct ApiError {
    kind: ProblemKind,
    detail: String,
    field: Option<String>,
    /// What few problems name besides their field, boxed so that the error
    /// (in every handler's `Result`) stays small.
    extra: Option<Box<Extra>>,
    www_authenticate: bool,
    /// Seconds, for a `Retry-After` header.
    retry_after: Option<u32>,
}

impl ApiError {
    /// A problem of `kind`, with what went wrong in this request.
    pub fn of(kind: ProblemKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
            field: None,
            extra: None,
            www_authenticate: false,
            retry_after: None,
        }
    }

    /// 400: the body is not the JSON this endpoint takes.
    pub fn malformed(detail: impl Into<String>, field: Option<String>) -> Self {
        Self {
            field,
            ..Self::of(ProblemKind::MalformedRequest, detail)
        }
    }

    /// 422: well-formed, but a value breaks a rule.
    pub fn invalid(field: &str, rule: impl std::fmt::Display) -> Self {
        Self {
            field: Some(field.to_owned()),
            ..Self::of(ProblemKind::InvalidRequest, format!("{field}: {rule}"))
        }
    }

    /// 422 from a protocol error, which names its own field.
    pub fn from_core(err: &fairdeal_core::Error) -> Self {
        Self::invalid(err.field().as_str(), err)
    }

    /// 404 naming what was looked for; a long id is cut, not echoed whole.
    pub fn not_found(what: &str, id: &str) -> Self {
        const ECHOED_CHARS: usize = 64;
        let shown: String = id.chars().take(ECHOED_CHARS).collect();
        let detail = if shown.len() < id.len() {
            format!(
                "no {what} with id {shown:?}… ({} bytes; ids are 36 characters)",
                id.len()
            )
        } else {
            format!("no {what} with id {id:?}")
        };
        Self::of(ProblemKind::NotFound, detail)
    }

    /// Names the line (from 1) of an uploaded list at fault.
    pub fn set_line(&mut self, line: u64) {
        self.extra.get_or_insert_default().line = Some(line);
    }

    /// Names the table seat at fault.
    /// (A label is at most 64 bytes; a longer one in a path is cut.)
    pub fn with_seat(mut self, seat: &str) -> Self {
        self.extra.get_or_insert_default().seat = Some(seat.chars().take(64).collect());
        self
    }

    /// 404 with its own explanation.
    pub fn not_found_detail(detail: String) -> Self {
        Self::of(ProblemKind::NotFound, detail)
    }

    /// 415 with its own explanation of what is taken.
    pub fn unsupported(detail: String) -> Self {
        Self::of(ProblemKind::UnsupportedMediaType, detail)
    }

    /// 408 with its own explanation.
    pub fn timeout(detail: String) -> Self {
        Self::of(ProblemKind::RequestTimeout, detail)
    }

    /// 413: a body over a limit.
    pub fn payload_too_large(detail: String) -> Self {
        Self::of(ProblemKind::BodyTooLarge, detail)
    }

    /// 408: the request was not read and answered in time.
    pub fn request_timeout(limit: std::time::Duration) -> Self {
        Self::of(
            ProblemKind::RequestTimeout,
            format!(
                "the request was not read and answered within {} s (a slow body, or a slow \
                 database). A deal may still have been dealt: retry it with the same \
                 Idempotency-Key",
                limit.as_secs_f64()
            ),
        )
    }

    /// 404 for a path that no route serves.
    pub fn no_route() -> Self {
        Self::of(
            ProblemKind::NotFound,
            "no endpoint at this path; openapi.yaml lists them (GET /verify for the page)",
        )
    }

    /// 409: the resource is not in a state that takes this request.
    pub fn conflict(kind: ProblemKind, detail: impl Into<String>) -> Self {
        debug_assert_eq!(kind.status(), StatusCode::CONFLICT);
        Self::of(kind, detail)
    }

    pub fn rounds_in_play(ids: Vec<String>) -> Self {
        Self {
            detail: format!(
                "the seed pair has {} round(s) still in play; revealing its seed now would expose \
                 their undealt cards. Close them (POST /v1/rounds/{{id}}/close) and rotate again",
                ids.len()
            ),
            extra: Some(Box::new(Extra {
                rounds_in_play: Some(ids),
                ..Extra::default()
            })),
            ..Self::of(ProblemKind::RoundsInPlay, "")
        }
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self {
            www_authenticate: true,
            ..Self::of(ProblemKind::Unauthorized, detail)
        }
    }

    pub fn unsupported_media_type() -> Self {
        Self::of(
            ProblemKind::UnsupportedMediaType,
            "the request body must be JSON: send Content-Type: application/json",
        )
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(1),
            ..Self::of(ProblemKind::ServiceUnavailable, detail)
        }
    }

    /// 503 with `Retry-After`: the database is out of reach. Distinct from
    /// a 500: nothing is wrong with the request, and a retry may succeed.
    pub fn database_unavailable() -> Self {
        Self {
            retry_after: Some(1),
            ..Self::of(
                ProblemKind::DatabaseUnavailable,
                "the database did not answer in time; retry after the Retry-After delay. A deal \
                 answered with a 5xx may still have been dealt: retry it with the same \
                 Idempotency-Key to get that round rather than a new one",
            )
        }
    }

    /// 503 with `Retry-After`: the database is behind its log (`why` says
    /// how, and the way out); nothing was written.
    pub fn behind_log(why: String) -> Self {
        Self {
            retry_after: Some(5),
            ..Self::of(ProblemKind::DatabaseBehindLog, why)
        }
    }

    /// 500, or 503 when the cause is the database being out of reach. The
    /// cause is logged here; the client sees nothing of it.
    pub fn internal(err: &anyhow::Error) -> Self {
        if let Some(refused) = crate::service::store::is_behind_log(err) {
            tracing::error!(refusing = %refused, "a write on a database behind its log");
            return Self::behind_log(refused.to_string());
        }
        if crate::service::store::is_unavailable_cause(err) {
            tracing::warn!(error = format!("{err:#}"), "database unavailable");
            return Self::database_unavailable();
        }
        tracing::error!(error = format!("{err:#}"), "internal error");
        Self::of(
            ProblemKind::InternalError,
            "the server failed to complete the request; it has been logged",
        )
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> Self {
        Self::internal(&err)
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(err: sqlx::Error) -> Self {
        Self::internal(&err.into())
    }
}

/// Builds a problem response (also used for rejections outside handlers).
pub fn problem_response(kind: ProblemKind, detail: String) -> Response {
    ApiError::of(kind, detail).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let extra = self.extra.map(|extra| *extra).unwrap_or_default();
        let body = Problem {
            problem_type: self.kind.uri(),
            title: self.kind.title().to_owned(),
            status: self.kind.status().as_u16(),
            detail: self.detail,
            field: self.field,
            rounds_in_play: extra.rounds_in_play,
            line: extra.line,
            seat: extra.seat,
        };
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let mut response = (self.kind.status(), bytes).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.www_authenticate {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"fairdeal operator API\""),
            );
        }
        response
    }
}

/// 415 unless `what` comes as sent: the API decodes no `Content-Encoding`
/// (gzip, say) but `identity`, and says so rather than read compressed bytes
/// as text.
pub(super) fn identity_encoding(headers: &header::HeaderMap, what: &str) -> Result<(), ApiError> {
    // Every Content-Encoding header, and every coding each one lists.
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let Ok(codings) = value.to_str() else {
            return Err(ApiError::unsupported(format!(
                "Content-Encoding is not text; send {what} uncompressed"
            )));
        };
        for coding in codings.split(',').map(str::trim) {
            if !(coding.is_empty() || coding.eq_ignore_ascii_case("identity")) {
                return Err(ApiError::unsupported(format!(
                    "Content-Encoding {coding:?} is not accepted: send {what} uncompressed"
                )));
            }
        }
    }
    Ok(())
}

/// 415 if `content_type` names a charset other than UTF-8 (or its subset
/// US-ASCII): the API reads `what` as UTF-8 only.
pub(super) fn utf8_charset(content_type: &str, what: &str) -> Result<(), ApiError> {
    let charset = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"').to_ascii_lowercase());
    match charset.as_deref() {
        None | Some("utf-8" | "utf8" | "us-ascii") => Ok(()),
        Some(other) => Err(ApiError::unsupported(format!(
            "{what} must be UTF-8; Content-Type says charset={other}"
        ))),
    }
}

/// A JSON request body, read into `T`: 413 when over the size limit, 415 when
/// not declared as JSON (or compressed, or not UTF-8), 400 naming the path of a syntax or type error
/// (unknown fields included). The one way a handler takes a JSON body.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let headers = request.headers();
        identity_encoding(headers, "the body")?;
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        let is_json = content_type.is_some_and(|v| {
            let mime = v.split(';').next().unwrap_or_default().trim();
            mime.eq_ignore_ascii_case("application/json")
                || (mime.starts_with("application/") && mime.ends_with("+json"))
        });
        if is_json {
            utf8_charset(content_type.unwrap_or_default(), "the body")?;
        }
        let body = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::of(
                        ProblemKind::BodyTooLarge,
                        "the request body is larger than the 16 KiB this API accepts",
                    )
                } else {
                    ApiError::malformed(
                        format!("the request body could not be read: {rejection}"),
                        None,
                    )
                }
            })?;
        if !is_json {
            return Err(ApiError::unsupported_media_type());
        }
        // serde reads a struct from an array too ([x, y] as its fields in
        // order); the only arrays a request body of this API holds are
        // lists of strings ([`ARRAY_FIELDS`]), so any other is refused
        // wherever it stands rather than read that way.
        if let Some(field) = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .as_ref()
            .and_then(|value| first_array(value, String::new()))
        {
            let shown = if field.is_empty() { "the body" } else { &field };
            return Err(ApiError::malformed(
                if ARRAY_FIELDS.contains(&field.as_str()) {
                    format!("{shown}: must be an array of strings")
                } else {
                    format!(
                        "{shown}: an array is not accepted here; send a JSON object or value as the schema says"
                    )
                },
                (!field.is_empty()).then_some(field),
            ));
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&body);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner().to_string();
            match field_at(&path, &inner) {
                Some(field) => ApiError::malformed(format!("{field}: {inner}"), Some(field)),
                None => ApiError::malformed(
                    format!("the request body is not valid JSON for this endpoint: {inner}"),
                    None,
                ),
            }
        })?;
        deserializer.end().map_err(|err| {
            ApiError::malformed(format!("trailing data after the JSON body: {err}"), None)
        })?;
        Ok(ApiJson(value))
    }
}

/// An optional JSON body: none when the request sends no body at all (no
/// length, or a length of 0), otherwise read as [`ApiJson`].
impl<T: DeserializeOwned, S: Send + Sync> OptionalFromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Option<Self>, ApiError> {
        let headers = request.headers();
        let declared_empty = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|length| length.trim() == "0");
        // No body at all, whatever the Content-Type says: many clients send
        // `Content-Type: application/json` on every request.
        if declared_empty && !headers.contains_key(header::TRANSFER_ENCODING) {
            return Ok(None);
        }
        <Self as FromRequest<S>>::from_request(request, state)
            .await
            .map(Some)
    }
}

/// A query string, read into `T`: 400 when it does not parse. The one way a
/// handler takes query parameters.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

/// How Rust's integer parsing says a number is not digits alone
/// (`std::num::IntErrorKind`'s messages).
const NOT_DIGITS: &[&str] = &[
    "invalid digit found in string",
    "cannot parse integer from empty string",
];

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        // form_urlencoded decodes lossily (bad UTF-8 becomes U+FFFD); a
        // value is refused instead of stored altered.
        if let Some(name) = first_non_utf8_parameter(query) {
            return Err(ApiError::malformed(
                format!("{name}: is not valid UTF-8 once percent-decoded (query string)"),
                Some(name),
            ));
        }
        let deserializer =
            serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        let value = serde_path_to_error::deserialize(deserializer).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner().to_string();
            // A number's parse error says what is wrong but not what is
            // wanted: every number in a query is a count or an index.
            let rule = if NOT_DIGITS.iter().any(|e| inner.starts_with(e)) {
                "must be a whole number written in digits, without a sign: "
            } else if inner.starts_with("number too ") {
                "is out of range: "
            } else {
                ""
            };
            match field_at(&path, &inner) {
                Some(field) => ApiError::malformed(
                    format!("{field}: {rule}{inner} (query string)"),
                    Some(field),
                ),
                None => ApiError::malformed(format!("the query string is invalid: {inner}"), None),
            }
        })?;
        Ok(ApiQuery(value))
    }
}

/// A path parameter, read into `T`: 400 naming the parameter when it is not
/// valid (not UTF-8, say). The one way a handler takes a path parameter.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        // No id, label or kind holds a NUL byte, and PostgreSQL refuses
        // one in text: such a path names nothing.
        if parts.uri.path().to_ascii_lowercase().contains("%00") {
            return Err(ApiError::not_found_detail(
                "nothing here: ids and labels never hold a NUL byte (%00)".to_owned(),
            ));
        }
        let Path(value) =
            Path::<T>::from_request_parts(parts, state)
                .await
                .map_err(|rejection| {
                    use axum::extract::path::ErrorKind;
                    use axum::extract::rejection::PathRejection;
                    // The parameter at fault, by its name in the route.
                    let name = match &rejection {
                        PathRejection::FailedToDeserializePathParams(err) => match err.kind() {
                            ErrorKind::InvalidUtf8InPathParam { key }
                            | ErrorKind::ParseErrorAtKey { key, .. } => key.clone(),
                            _ => "id".to_owned(),
                        },
                        _ => "id".to_owned(),
                    };
                    ApiError::malformed(
                        format!("{name}: must be UTF-8 text; {}", rejection.body_text()),
                        Some(name),
                    )
                })?;
        Ok(ApiPath(value))
    }
}

/// The name of the first query parameter whose name or value does not
/// percent-decode to UTF-8.
fn first_non_utf8_parameter(query: &str) -> Option<String> {
    fn decodes(text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            match bytes[i] {
                b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                },
                b'+' => out.push(b' '),
                b => out.push(b),
            }
            i += 1;
        }
        std::str::from_utf8(&out).is_ok()
    }
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .find(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            !decodes(name) || !decodes(value)
        })
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            form_urlencoded::parse(name.as_bytes())
                .next()
                .map_or_else(String::new, |(name, _)| name.into_owned())
        })
}

/// The dotted path of the first array in `value`, if there is one.
/// The top-level fields of request bodies that are lists of strings: a
/// table's seats.
const ARRAY_FIELDS: &[&str] = &["seats"];

fn first_array(value: &serde_json::Value, path: String) -> Option<String> {
    match value {
        serde_json::Value::Array(items)
            if ARRAY_FIELDS.contains(&path.as_str()) && items.iter().all(|i| i.is_string()) =>
        {
            None
        }
        serde_json::Value::Array(_) => Some(path),
        serde_json::Value::Object(map) => map.iter().find_map(|(key, inner)| {
            let inner_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            first_array(inner, inner_path)
        }),
        _ => None,
    }
}

/// The request field a deserialization error is about, as a dotted path: the
/// path where it happened (without the `?` of a place serde could not name),
/// and, for the errors serde raises at the enclosing object (a missing,
/// unknown or duplicate field), the field it quotes.
fn field_at(path: &str, message: &str) -> Option<String> {
    let mut parts: Vec<&str> = path
        .split('.')
        .filter(|part| !part.is_empty() && *part != "?")
        .collect();
    let quoted = ["missing field `", "unknown field `", "duplicate field `"]
        .iter()
        .find_map(|prefix| message.strip_prefix(prefix)?.split('`').next());
    if let Some(name) = quoted
        && parts.last() != Some(&name)
    {
        parts.push(name);
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

/// A problem+json response in the OpenAPI description.
fn problem_doc(description: &str) -> RefOr<openapi::response::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/problem+json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Problem")))
                .build(),
        )
        .build()
        .into()
}

/// Declares a set of problem responses shared by several endpoints, once.
macro_rules! shared_problems {
    ($($(#[$doc:meta])* $name:ident { $($status:literal => $description:literal),+ $(,)? })+) => {
        $(
            $(#[$doc])*
            #[derive(Debug)]
            pub struct $name;

            impl IntoResponses for $name {
                fn responses() -> BTreeMap<String, RefOr<openapi::response::Response>> {
                    BTreeMap::from([$(($status.to_owned(), problem_doc($description))),+])
                }
            }
        )+
    };
}

shared_problems! {
    /// An operator endpoint without a valid key.
    OperatorAuthProblems { "401" => "No valid operator key" }
    /// A public endpoint where an operator sees more: a key that is present
    /// must be valid.
    ViewerAuthProblems { "401" => "An Authorization header that is not a valid key" }
    /// What [`ApiJson`] refuses.
    JsonBodyProblems {
        "400" => "Malformed body",
        "413" => "Body over 16 KiB",
        "415" => "Body not JSON, compressed, or not UTF-8",
    }
    /// What [`ApiQuery`] refuses.
    QueryProblems { "400" => "Bad query parameters" }
    /// A seed pair id in the path that names no pair.
    PairNotFound { "404" => "No such pair" }
    /// A round id in the path that names no round.
    RoundNotFound { "404" => "No such round" }
    /// A draw id in the path that names no published draw.
    DrawNotFound { "404" => "No such draw" }
    /// Every endpoint that reads or writes the database.
    DatabaseUnavailable { "503" => "The database is unavailable (database-unavailable), or behind its transparency log after a restore (database-behind-log): retry after the Retry-After delay (with the same Idempotency-Key for a deal)" }
    /// A client seed that breaks the protocol's rules.
    InvalidClientSeed { "422" => "Invalid client seed" }
}

#[cfg(test)]
mod tests {
    use super::field_at;

    #[test]
    fn query_values_that_are_not_utf8_are_named() {
        use super::first_non_utf8_parameter as bad;
        assert_eq!(
            bad("winners=1&client_seed_source=%FF"),
            Some("client_seed_source".to_owned())
        );
        assert_eq!(bad("label=%C3%A9&x=%e2%82%ac"), None);
        assert_eq!(bad("a=100%25&b=%&c=%4&d=+"), None);
        assert_eq!(bad("%FF=1"), Some("\u{FFFD}".to_owned()));
        assert_eq!(bad(""), None);
    }

    #[test]
    fn the_field_comes_from_the_path_or_the_quoted_name() {
        let cases = [
            (".", "missing field `game`", Some("game")),
            ("game", "missing field `type`", Some("game.type")),
            (
                "extra",
                "unknown field `extra`, expected `game`",
                Some("extra"),
            ),
            (".", "duplicate field `limit`", Some("limit")),
            ("game.?", "key must be a string", Some("game")),
            ("?", "EOF while parsing an object", None),
            (".", "invalid type: sequence, expected struct", None),
            ("limit", "invalid digit found in string", Some("limit")),
        ];
        for (path, message, field) in cases {
            assert_eq!(
                field_at(path, message).as_deref(),
                field,
                "{path} {message}"
            );
        }
    }
}
