//! The auditor's side: the export format, the replay engine that checks every
//! round of an export, the transparency-log monitor's checks, the statistics
//! reports, and plain hand histories. Pure
//! of databases and HTTP: it reads what the service (or anyone) wrote.

pub mod export;
pub mod hand_history;
pub mod monitor;
pub mod replay;
pub mod report;
pub mod table_checks;

pub use replay::{Finding, Report, add_to_evidence, audit, audit_observed};
