//! Monitors' signed statements about the log (`crate::tlog::statement`):
//! a monitor the service was told of (`serve --monitor VKEY`) posts its
//! latest, and anyone reads them, so that a player's page can show what the
//! monitors the player keeps found. The service checks a statement before
//! keeping it (the monitor's signature, this log's origin, a checkpoint this
//! log signed) but cannot make one: all it can do is withhold it, which a
//! page that keeps the monitor shows as no statement.

use axum::Json;
use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::header;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, DatabaseUnavailable, Problem};
use super::extract::{identity_encoding, utf8_charset};
use crate::tlog::statement::{MAX_NOTE_BYTES, Statement};

/// The monitors whose statements the service keeps and serves: their
/// verifier keys (`<name>+<key id>+<base64(0x01 ‖ key)>`, signed-note
/// Ed25519 keys).
#[derive(Debug, Default)]
pub struct Monitors {
    vkeys: Vec<String>,
}

impl Monitors {
    /// The monitors of `vkeys`, each checked; the error names the rule.
    pub fn new(vkeys: &[String]) -> Result<Self, String> {
        let mut list: Vec<String> = Vec::new();
        for vkey in vkeys.iter().map(|v| v.trim()).filter(|v| !v.is_empty()) {
            crate::tlog::key::check_vkey(vkey).map_err(|e| {
                format!(
                    "{:?}: {e:#} (<name>+<key id>+<base64 key>)",
                    vkey.chars().take(80).collect::<String>()
                )
            })?;
            let name = vkey.split('+').next().unwrap_or_default();
            if list.iter().any(|v| v.split('+').next() == Some(name)) {
                return Err(format!("names the monitor {name:?} twice"));
            }
            list.push(vkey.to_owned());
        }
        Ok(Self { vkeys: list })
    }

    pub fn is_empty(&self) -> bool {
        self.vkeys.is_empty()
    }

    /// The monitor whose key signed `note`, with the statement read.
    fn verifying(&self, note: &str) -> Option<(&str, Statement)> {
        self.vkeys.iter().find_map(|vkey| {
            Statement::verify(note, vkey)
                .ok()
                .map(|s| (vkey.as_str(), s))
        })
    }
}

/// A statement kept.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorStatement {
    /// The monitor's verifier key.
    pub monitor: String,
    /// The size of the checkpoint it checked up to.
    pub size: u64,
    /// The signed statement (a signed note), as the monitor signed it.
    pub note: String,
}

/// The statements the service holds, one a monitor.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorStatements {
    pub statements: Vec<MonitorStatement>,
}

/// What became of a posted statement.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatementKept {
    /// The monitor's verifier key.
    pub monitor: String,
    /// The statement's checkpoint size.
    pub size: u64,
    /// False when a statement of a larger checkpoint, or of the same one
    /// and not older, is kept already (the posted one was dropped).
    pub kept: bool,
}

/// Post a monitor's signed statement about this log.
///
/// The body is the statement, a signed note (`text/plain`, UTF-8, at most
/// 1 MiB) by one of the monitors the service was started with
/// (`serve --monitor VKEY`), about this log's origin and a checkpoint this
/// log signed. The latest statement of each monitor is kept and served by
/// `GET /v1/log/monitor-statements`; an older one than the one kept is
/// answered `kept: false`. No key is needed: the monitor's signature is
/// the authority.
#[utoipa::path(post, path = "/v1/log/monitor-statements", tag = "transparency log",
    request_body(content = String, content_type = "text/plain", description = "The signed statement"),
    security(()),
    responses(
        (status = 200, description = "The statement was checked", body = StatementKept),
        (status = 413, description = "Over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not text/plain in UTF-8, or compressed", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a statement of this log's checkpoint by a monitor this service publishes", body = Problem, content_type = "application/problem+json"),
        DatabaseUnavailable,
    ))]
pub async fn post(
    State(state): State<AppState>,
    request: Request,
) -> Result<Json<StatementKept>, ApiError> {
    let headers = request.headers();
    identity_encoding(headers, "the statement")?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mime = content_type.split(';').next().unwrap_or_default().trim();
    if !mime.eq_ignore_ascii_case("text/plain") {
        return Err(ApiError::unsupported(
            "a monitor statement is posted as text/plain (UTF-8)".to_owned(),
        ));
    }
    utf8_charset(&content_type, "the statement")?;
    let bytes = to_bytes(request.into_body(), MAX_NOTE_BYTES)
        .await
        .map_err(|_| {
            ApiError::payload_too_large(format!(
                "a monitor statement is at most {MAX_NOTE_BYTES} bytes"
            ))
        })?;
    let note = std::str::from_utf8(&bytes)
        .map_err(|_| ApiError::unsupported("the statement is not UTF-8".to_owned()))?;
    let invalid = |rule: String| ApiError::invalid("statement", rule);
    if state.monitors.is_empty() {
        return Err(invalid(
            "this service publishes no monitor's statements (it was started without --monitor)"
                .to_owned(),
        ));
    }
    let (monitor, statement) = state.monitors.verifying(note).ok_or_else(|| {
        invalid(
            "is not a statement signed by a monitor this service publishes (serve --monitor), \
             or not a fairdeal-monitor-statement/v1 note"
                .to_owned(),
        )
    })?;
    if statement.origin != state.log.origin() {
        return Err(invalid(format!(
            "is about the log {:?}, not this one ({:?})",
            statement.origin.chars().take(80).collect::<String>(),
            state.log.origin()
        )));
    }
    let store = state.dealer.store();
    let checkpoint = store
        .log_checkpoint_of_size(statement.size)
        .await?
        .ok_or_else(|| {
            invalid(format!(
                "names a checkpoint of {} entries, which this log never signed",
                statement.size
            ))
        })?;
    if BASE64.encode(&checkpoint.root) != statement.root {
        return Err(invalid(format!(
            "names a root for {} entries that is not this log's (a statement about another history)",
            statement.size
        )));
    }
    let kept = store
        .store_monitor_statement(
            monitor,
            statement.size,
            statement.time,
            note,
            crate::time::now_ms(),
        )
        .await?;
    Ok(Json(StatementKept {
        monitor: monitor.to_owned(),
        size: statement.size,
        kept,
    }))
}

/// The monitors' statements about this log.
///
/// The latest signed statement each monitor the service publishes (is
/// started with) posted:
/// "checked this log up to size N: these findings". A reader verifies each
/// with the monitor's own key, which it takes from the monitor, not from
/// here, and holds the checkpoint named to the log's.
#[utoipa::path(get, path = "/v1/log/monitor-statements", tag = "transparency log",
    security(()),
    responses(
        (status = 200, description = "The statements", body = MonitorStatements),
        DatabaseUnavailable,
    ))]
pub async fn list(State(state): State<AppState>) -> Result<Json<MonitorStatements>, ApiError> {
    let statements = state
        .dealer
        .store()
        .monitor_statements()
        .await?
        .into_iter()
        // Only the monitors the service is started with now.
        .filter(|(monitor, _, _)| state.monitors.vkeys.contains(monitor))
        .map(|(monitor, size, note)| MonitorStatement {
            monitor,
            size,
            note,
        })
        .collect();
    Ok(Json(MonitorStatements { statements }))
}
