//! The auditor's side: the export format, the replay engine that checks every
//! round of an export, the transparency-log monitor's checks, the statistics
//! reports, and plain hand histories. Pure
//! of databases and HTTP: it reads what the service (or anyone) wrote.

pub mod cross;
pub mod export;
pub mod hand_history;
mod ids;
pub mod monitor;
pub mod replay;
pub mod report;
pub mod table_checks;
pub mod witnessed;

pub use replay::{Finding, Report, add_to_evidence, audit, audit_observed};

/// `text` for a terminal: its control characters escaped (`\u{1b}`), so that
/// what an export or a log holds (ids, labels) cannot move the cursor, clear
/// the screen or hide the verdict. The JSON reports escape by themselves.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}
