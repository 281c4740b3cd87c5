//! The API's one error type, answered as RFC 9457 `application/problem+json`,
//! and the problem responses several endpoints share, declared once for the
//! OpenAPI description. The extractors that answer with it are in
//! `extract.rs`.
//!
//! Policy: input mistakes are 400/413/415/422 with the field and the rule;
//! unknown ids 404; state conflicts 409; anything else is logged and answered
//! as an opaque 500 (its detail could name internals, never a seed: no error
//! in this crate carries one).

use std::collections::BTreeMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::openapi::{self, ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{IntoResponses, ToSchema};

pub use super::problems::catalogue::ProblemKind;

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
    /// With `/problems/client-seed-in-use`: the ids of the tenant's live
    /// seed pairs (for a draw's seed, the draws of the same list) that hold
    /// this client seed or one that looks like it (at most 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holders: Option<Vec<String>>,
    /// The line at fault (from 1, as an editor counts) of an uploaded list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The table seat (its label) the request was about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
    /// The request's id, as its `X-Request-Id` answer header and the
    /// service's log lines give it: quote it when asking the operator.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "5f0c6e1d2b8a4c3e9f7a6b5c4d3e2f1a")]
    pub request_id: Option<String>,
}

/// The rarer members of a problem.
#[derive(Debug, Default)]
struct Extra {
    rounds_in_play: Option<Vec<String>>,
    holders: Option<Vec<String>>,
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

    /// A client seed refused because `holders` hold it (or a lookalike):
    /// named in `holders` and `field`.
    pub fn seed_in_use(holders: &[String], detail: String) -> Self {
        let mut error = Self::conflict(ProblemKind::ClientSeedInUse, detail);
        error.field = Some("client_seed".to_owned());
        error.extra.get_or_insert_default().holders = Some(holders.to_vec());
        error
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

    /// 429 with `Retry-After` (`wait`, in whole seconds, at least 1): the
    /// key is over `limit`.
    pub fn rate_limited(wait: std::time::Duration, limit: super::rate_limit::RateLimit) -> Self {
        let seconds = u32::try_from(wait.as_secs())
            .unwrap_or(u32::MAX)
            .saturating_add(u32::from(wait.subsec_nanos() > 0))
            .max(1);
        Self {
            retry_after: Some(seconds),
            ..Self::of(
                ProblemKind::RateLimited,
                format!(
                    "this API key is over its limit of {} requests at once and {} a second after \
                     them (in this process); nothing was done. Retry after {seconds} s",
                    limit.burst, limit.per_second
                ),
            )
        }
    }

    /// The seconds of its `Retry-After` header, when it has one.
    pub fn retry_after(&self) -> Option<u32> {
        self.retry_after
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(1),
            ..Self::of(ProblemKind::ServiceUnavailable, detail)
        }
    }

    /// 503 `database-unavailable` with `Retry-After`, saying `detail`: the
    /// readiness check's answer when the database is out of reach.
    pub fn database_unreachable(detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(1),
            ..Self::of(ProblemKind::DatabaseUnavailable, detail)
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
            holders: extra.holders,
            line: extra.line,
            seat: extra.seat,
            request_id: super::request_id::current(),
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
    OperatorAuthProblems {
        "401" => "No valid operator key",
        "429" => "The key is over its rate limit (rate-limited): retry after the Retry-After delay; nothing was done",
    }
    /// A public endpoint where an operator sees more: a key that is present
    /// must be valid.
    ViewerAuthProblems {
        "401" => "An Authorization header that is not a valid key",
        "429" => "The key presented is over its rate limit (rate-limited): retry after the Retry-After delay, or read without it",
    }
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
