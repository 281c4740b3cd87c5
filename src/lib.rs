//! # fairdeal: the service and command-line tool around `fairdeal-core`
//!
//! ## Layout
//! The folders are the layers; each imports only from the layers below it.
//!
//! - `cli` (top): one module per subcommand, each an `Opts` struct and a
//!   `run`, and `cli::render`, how a deal looks on a terminal.
//! - `service`: the dealing service, top to bottom — `http` (one router per
//!   resource, one JSON extractor, one `ApiError`, wire types), `dealer` (the
//!   seed-pair lifecycle in domain words), `export` (the export generator),
//!   `store` (the one storage seam: SQLite and PostgreSQL), `integrator`
//!   (signs the transparency log's checkpoints), `sealing` (secrets at
//!   rest), `keys` (API keys), `metrics`.
//! - `audit`: the auditor's side, free of databases and HTTP — the export
//!   format, the replay engine, statistics reports, hand histories. The
//!   service writes the export format; nothing here imports the service.
//! - `time`, `telemetry`, `secret_file`, `tlog` (bottom): the clock and
//!   timestamps; logging; files that hold keys; the transparency log's formats (entries, key, tree, tiles),
//!   which the service writes and the auditor reads.
//! - `stats` (the `fairdeal-stats` crate) and `fairdeal-core`: pure crates.
//!
//! ## Error policy
//! The protocol crate returns its own narrow `Error` for malformed input and a
//! report value for a failed verification. The service answers one
//! [`service::http::error::ApiError`] as RFC 9457 problem+json. CLI plumbing
//! uses `anyhow` with context; input mistakes are wrapped in
//! [`cli::InputError`] so the binary can exit with status 2 and a message that
//! names the flag.

/// Runs the same code against whichever pool a two-backend store holds
/// (`service::store::Store`, `witness::store`), inside the store's own
/// `impl`: the body is compiled once per backend, so it must use SQL both
/// dialects accept. Defined before the modules, which use it.
macro_rules! with_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match $store {
            Self::Sqlite($pool, ..) => $body,
            Self::Postgres($pool, ..) => $body,
        }
    };
}

pub mod audit;
pub mod cli;
pub mod secret_file;
pub mod service;
pub mod serving;
pub mod telemetry;
pub mod text;
pub mod time;
pub mod tlog;
pub mod witness;

/// This build's version and the git commit it was built from.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("FAIRDEAL_GIT_COMMIT"),
    ")"
);

/// The statistics crate, re-exported for the audit and the tests.
pub use fairdeal_stats as stats;

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
