//! A table pair's wire types (fairdeal-table-v1): the seats a new table is
//! given, checked, and the table as everyone reads it.

use fairdeal_core::{Seats, TableError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::service::http::error::ApiError;

/// The service's rules for seat labels beyond the protocol's: a player must
/// be able to tell the seats apart on the page. No invisible, format or
/// bidi characters and in NFC ([`crate::text::invisible`]), no white space at
/// either end, and no two labels that look alike once folded
/// ([`crate::text::lookalike_fold`]: "Zoë" and "ZOE", "ana" and "аna" with a
/// Cyrillic а).
fn check_distinguishable(labels: &[String]) -> Result<(), ApiError> {
    let mut seen: Vec<String> = Vec::with_capacity(labels.len());
    for (seat, label) in labels.iter().enumerate() {
        let field = format!("seats[{seat}]");
        if let Some(found) = crate::text::invisible(label) {
            return Err(ApiError::invalid(&field, found.to_string()));
        }
        // A label is a path segment of the seat's endpoints, and clients
        // (browsers, curl, HTTP libraries) resolve these two away.
        if label == "." || label == ".." {
            return Err(ApiError::invalid(
                &field,
                "must not be \".\" or \"..\": a seat's label is a segment of its URL \
                 (…/seats/{seat}/commitment), and clients remove these two",
            ));
        }
        let folded = crate::text::lookalike_fold(label);
        if let Some(earlier) = seen.iter().position(|s| *s == folded) {
            return Err(ApiError::invalid(
                &field,
                format!(
                    "looks like seats[{earlier}] (they differ only in case, Unicode form, \
                     accents or letters of another script that look the same); players must \
                     be able to tell the seats apart"
                ),
            ));
        }
        seen.push(folded);
    }
    Ok(())
}

/// The seats of a new table, checked: each label's fault names its field
/// (`seats[2]`).
pub fn parse_seats(labels: Vec<String>) -> Result<Seats, ApiError> {
    let seats = Seats::new(labels).map_err(|err| match &err {
        TableError::Label { seat, rule } => ApiError::invalid(&format!("seats[{seat}]"), rule),
        TableError::DuplicateLabel { seat } => ApiError::invalid(
            &format!("seats[{seat}]"),
            "repeats an earlier seat's label; labels must be distinct",
        ),
        _ => ApiError::invalid("seats", &err),
    })?;
    check_distinguishable(seats.labels())?;
    Ok(seats)
}

/// One seat as everyone sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat's label, as the operator gave it.
    #[schema(example = "alice")]
    pub seat: String,
    /// SHA-256 (lowercase hex) of the seat's contribution, once committed.
    pub commitment: Option<String>,
    /// The seat's contribution, once revealed (only after every seat has
    /// committed).
    pub contribution: Option<String>,
}

/// How a table was voided.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoidView {
    /// `commit` or `reveal`: the phase that ran out.
    pub phase: String,
    /// The seats that had not committed (or revealed) by the deadline.
    pub stalled_seats: Vec<String>,
    pub voided_at: String,
}

/// A table pair's seats and where it stands (fairdeal-table-v1).
#[derive(Debug, Serialize, ToSchema)]
pub struct TableView {
    #[schema(example = "fairdeal-table-v1")]
    pub protocol: &'static str,
    /// `commit`, `reveal`, `complete` (the client seed is derived) or
    /// `void`.
    pub phase: &'static str,
    /// When the current phase ends (a seat still missing then voids the
    /// pair); none once complete or void.
    pub deadline: Option<String>,
    /// In seat order.
    pub seats: Vec<SeatView>,
    /// Set when a seat stalled and voided the pair.
    pub void: Option<VoidView>,
    /// How many of this operator's tables were voided that had the same
    /// seats (in any order) or the same label, this one included:
    /// re-rolling a table by voiding it shows.
    pub voids: u64,
}
