//! Table pairs (fairdeal-table-v1): each seat's commitment, then its
//! contribution; the table as everyone reads it.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use fairdeal_core::{Contribution, TableError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::AppState;
use super::auth::Operator;
use super::error::ProblemKind;
use super::error::{
    ApiError, DatabaseUnavailable, JsonBodyProblems, OperatorAuthProblems, Problem,
};
use super::extract::{ApiJson, ApiPath};
use super::receipts::{Receipt, receipt};
use super::wire::SeedPair;
use super::wire::tables::{SeatView, TableView, VoidView};
use crate::service::dealer::tables::check_commitment;
use crate::service::store::{PairRow, PairStatus, Phase, SeatRefused, SeatTaken};
use crate::time::{now_ms, timestamp};

/// The table of `pair`, if it is one, as anyone may read it.
pub async fn table_view(state: &AppState, pair: &PairRow) -> Result<Option<TableView>, ApiError> {
    if pair.seats.is_none() {
        return Ok(None);
    }
    let store = state.dealer.store();
    let seats = store.seats(&pair.id).await?;
    let voids = store.voids_like(pair).await?;
    let phase = match pair.status {
        PairStatus::AwaitingContributions => Phase::of(&seats).as_str(),
        PairStatus::Void => "void",
        _ => "complete",
    };
    let void = pair.void_phase.as_deref().map(|phase| VoidView {
        phase: phase.to_owned(),
        stalled_seats: seats
            .iter()
            .filter(|s| match phase {
                "commit" => s.commitment.is_none(),
                _ => s.contribution.is_none(),
            })
            .map(|s| s.label.clone())
            .collect(),
        voided_at: pair.revealed_at.map(timestamp).unwrap_or_default(),
    });
    Ok(Some(TableView {
        protocol: fairdeal_core::TABLE_PROTOCOL,
        phase,
        deadline: pair.phase_deadline.map(timestamp),
        seats: seats
            .into_iter()
            .map(|s| SeatView {
                seat: s.label,
                commitment: s.commitment,
                contribution: s.contribution,
            })
            .collect(),
        void,
        voids: voids.max(0) as u64,
    }))
}

/// The pair as its reader may see it, with its table.
pub async fn pair_view(
    state: &AppState,
    pair: &PairRow,
    owner: bool,
) -> Result<SeedPair, ApiError> {
    let mut view = SeedPair::view(pair, owner);
    view.table = table_view(state, pair).await?;
    Ok(view)
}

/// A seat's commitment.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object: {\"commitment\": \"<64 lowercase hex>\"}")]
pub struct CommitmentRequest {
    /// Lowercase hex SHA-256 of the seat's secret contribution.
    #[schema(
        example = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        pattern = "^[0-9a-f]{64}$"
    )]
    pub commitment: String,
}

/// A seat's contribution.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object: {\"contribution\": \"<text>\"}")]
pub struct ContributionRequest {
    /// The seat's secret: 1 to 64 bytes of UTF-8 without control
    /// characters, whose SHA-256 is the seat's commitment.
    #[schema(
        example = "test",
        min_length = 1,
        max_length = 64,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub contribution: String,
}

/// A seat's commitment or contribution, taken.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatResult {
    /// The pair as it is now (active once the last seat revealed).
    pub seed_pair: SeedPair,
    /// The signed receipt of the seat's log entry (none for a retry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
    /// The receipt of the derived client seed, when this contribution was
    /// the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_seed_receipt: Option<Receipt>,
}

/// Commit a table seat to its contribution.
///
/// Once per seat, while seats are committing: the same commitment again is
/// a retry (200, nothing changes), another one is 409. The last seat to
/// commit starts the reveal phase and its deadline.
#[utoipa::path(put, path = "/v1/seed-pairs/{id}/seats/{seat}/commitment", tag = "tables",
    security(("operator_key" = [])),
    params(
        ("id" = String, Path, description = "Table pair id"),
        ("seat" = String, Path, description = "The seat's label"),
    ),
    request_body = CommitmentRequest,
    responses(
        (status = 200, description = "Committed", body = SeatResult, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        (status = 404, description = "No such pair, or no such seat at the table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a table collecting commitments, past the deadline (the pair is void), or the seat committed to another value", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The commitment is not 64 lowercase hex digits", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn commit(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath((id, seat)): ApiPath<(String, String)>,
    request: Result<ApiJson<CommitmentRequest>, ApiError>,
) -> Result<Response, ApiError> {
    let ApiJson(request) = request.map_err(|err| err.with_seat(&seat))?;
    check_commitment(&request.commitment)
        .map_err(|rule| ApiError::invalid("commitment", rule).with_seat(&seat))?;
    operator
        .pair(&state, &id)
        .await
        .map_err(|err| err.with_seat(&seat))?;
    let outcome = state
        .dealer
        .commit_seat(&id, &seat, &request.commitment)
        .await?;
    answer(&state, &id, &seat, outcome, "commitment").await
}

/// Reveal a table seat's contribution.
///
/// Only once every seat has committed (409 before, naming the seats still
/// to commit), and it must hash to the seat's commitment (422 otherwise;
/// nothing changes). The last contribution derives the pair's client seed
/// (docs/PROTOCOL.md §11) and makes the pair active.
#[utoipa::path(put, path = "/v1/seed-pairs/{id}/seats/{seat}/contribution", tag = "tables",
    security(("operator_key" = [])),
    params(
        ("id" = String, Path, description = "Table pair id"),
        ("seat" = String, Path, description = "The seat's label"),
    ),
    request_body = ContributionRequest,
    responses(
        (status = 200, description = "Revealed (the pair is active once every seat has)", body = SeatResult, headers(("Idempotent-Replayed" = String, description = "`true` when this answers a retry: nothing new was made"))),
        DatabaseUnavailable,
        JsonBodyProblems,
        OperatorAuthProblems,
        (status = 404, description = "No such pair, or no such seat at the table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a table collecting contributions, a seat has not committed yet, or past the deadline (the pair is void)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The contribution breaks its rules or does not hash to the seat's commitment", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn contribute(
    State(state): State<AppState>,
    operator: Operator,
    ApiPath((id, seat)): ApiPath<(String, String)>,
    request: Result<ApiJson<ContributionRequest>, ApiError>,
) -> Result<Response, ApiError> {
    let ApiJson(request) = request.map_err(|err| err.with_seat(&seat))?;
    let contribution = Contribution::new(request.contribution).map_err(|err| {
        let rule = match err {
            TableError::Contribution { rule } => rule,
            other => other.to_string(),
        };
        ApiError::invalid("contribution", rule).with_seat(&seat)
    })?;
    operator
        .pair(&state, &id)
        .await
        .map_err(|err| err.with_seat(&seat))?;
    let outcome = state.dealer.reveal_seat(&id, &seat, &contribution).await?;
    answer(&state, &id, &seat, outcome, "contribution").await
}

/// The answer to a seat's commitment or contribution (`what`).
async fn answer(
    state: &AppState,
    id: &str,
    seat: &str,
    outcome: Result<SeatTaken, SeatRefused>,
    what: &str,
) -> Result<Response, ApiError> {
    let taken = match outcome {
        Ok(taken) => taken,
        Err(refused) => return Err(refusal(state, id, seat, refused, what).await),
    };
    if !taken.retried {
        state.metrics.event(if what == "commitment" {
            "seat_commitment"
        } else {
            "seat_contribution"
        });
        tracing::info!(seed_pair = %id, seat = taken.seat.position, status = %taken.pair.status, "table seat's {what} taken");
    }
    let client_seed_receipt = match (what, taken.pair.status, taken.retried) {
        ("contribution", PairStatus::Active, false) => {
            receipt(state, taken.pair.client_seed_log_index).await?
        }
        _ => None,
    };
    let response = Json(SeatResult {
        seed_pair: pair_view(state, &taken.pair, true).await?,
        receipt: receipt(state, taken.log_index).await?,
        client_seed_receipt,
    })
    .into_response();
    Ok(if taken.retried {
        super::replayed(response)
    } else {
        response
    })
}

/// The problem for a refused commitment or contribution. A phase found over
/// voids the pair first, so the answer says what is true afterwards.
async fn refusal(
    state: &AppState,
    id: &str,
    seat: &str,
    refused: SeatRefused,
    what: &str,
) -> ApiError {
    let not_a_seat = || {
        ApiError::not_found_detail(format!(
            "seed pair {id} has no seat {:?}",
            seat.chars().take(64).collect::<String>()
        ))
        .with_seat(seat)
    };
    match refused {
        SeatRefused::NotFound => ApiError::not_found("seed pair", id).with_seat(seat),
        SeatRefused::NotATable => ApiError::conflict(
            ProblemKind::NotATable,
            format!(
                "seed pair {id} is not a table pair: it has no seats (create one with \"seats\")"
            ),
        )
        .with_seat(seat),
        SeatRefused::UnknownSeat => not_a_seat(),
        SeatRefused::NotCollecting(status) => ApiError::conflict(
            ProblemKind::TableNotCollecting,
            format!("seed pair {id} is {status}; seats commit and reveal only while it awaits contributions"),
        )
        .with_seat(seat),
        SeatRefused::PastDeadline(deadline) => {
            match state.dealer.void_if_due(id, now_ms()).await {
                Ok(Some(pair)) => tracing::info!(seed_pair = %pair.id, phase = pair.void_phase.as_deref().unwrap_or(""), "table voided: a seat stalled past its deadline"),
                Ok(None) => {}
                Err(err) => tracing::warn!(seed_pair = %id, error = format!("{err:#}"), "voiding a table past its deadline failed"),
            }
            ApiError::conflict(
                ProblemKind::PastTheDeadline,
                format!(
                    "seed pair {id}'s phase ended at {}; the table is void (its server seed is revealed) and takes no {what}",
                    timestamp(deadline)
                ),
            )
            .with_seat(seat)
        }
        SeatRefused::NotEveryoneCommitted(missing) => ApiError::conflict(
            ProblemKind::SeatsStillCommitting,
            format!(
                "seed pair {id}: contributions are taken only once every seat has committed; not yet committed: {}",
                missing.join(", ")
            ),
        )
        .with_seat(seat),
        SeatRefused::CommitPhaseOver => ApiError::conflict(
            ProblemKind::CommitPhaseOver,
            format!("seed pair {id}: every seat has committed; reveal contributions now"),
        )
        .with_seat(seat),
        SeatRefused::AlreadyCommitted(held) => ApiError::conflict(
            ProblemKind::SeatAlreadyCommitted,
            format!("seat {seat:?} of seed pair {id} already committed to {held}; a seat commits once"),
        )
        .with_seat(seat),
        SeatRefused::Mismatch { commitment } => ApiError::invalid(
            "contribution",
            format!("its SHA-256 is not seat {seat:?}'s commitment {commitment}; nothing was changed"),
        )
        .with_seat(seat),
    }
}
