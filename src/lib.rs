//! # fairdeal: the service and command-line tool around `fairdeal-core`
//!
//! ## Layout
//! - `cli`: one module per subcommand, each an `Opts` struct and a `run`.
//! - `render`: how a deal looks on a terminal.
//! - `stats` (the `fairdeal-stats` crate): the statistical tests shared by the
//!   fairness tests and the audit.
//!
//! ## Error policy
//! The protocol crate returns its own narrow `Error` for malformed input and a
//! report value for a failed verification. CLI plumbing uses `anyhow` with
//! context; input mistakes are wrapped in [`cli::InputError`] so the binary can
//! exit with status 2 and a message that names the flag.

pub mod audit;
pub mod cli;
pub mod dealer;
pub mod export;
pub mod hand_history;
pub mod http;
pub mod keys;
pub mod metrics;
pub mod render;
pub mod report;
pub mod sealing;
pub mod store;
pub mod telemetry;

/// The statistics crate, re-exported for the audit and the tests.
pub use fairdeal_stats as stats;
