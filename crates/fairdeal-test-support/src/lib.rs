//! What fairdeal's integration tests, benchmarks and examples share, in one
//! place instead of files included by path into each test binary:
//!
//! - [`cases`]: random rounds from fixed seeds, and the Python reference run
//!   on them;
//! - [`shuffles`] and [`exact`]: the shuffle under test and biased ones, and
//!   exact permutation distributions;
//! - [`exports`] and [`export_writer`]: fair exports made from the protocol
//!   library alone;
//! - [`log_server`]: a log served as hostile tiles, and the `fairdeal`
//!   binary run on it;
//! - [`witness_process`]: a `fairdeal witness` process;
//! - [`snapshot`]: files kept equal to what the code generates.

use std::path::PathBuf;

pub mod cases;
pub mod exact;
pub mod export_writer;
pub mod exports;
pub mod log_server;
pub mod shuffles;
pub mod snapshot;
pub mod witness_process;

/// The `fairdeal` binary cargo built for the running integration test
/// (cargo names it in `CARGO_BIN_EXE_fairdeal` when it runs one).
pub fn fairdeal_bin() -> PathBuf {
    std::env::var_os("CARGO_BIN_EXE_fairdeal")
        .map(PathBuf::from)
        .expect("CARGO_BIN_EXE_fairdeal is not set: run the tests with `cargo test`, which builds the binary and names it")
}

/// The repository's root (where `Cargo.toml`, `docs/` and `test-vectors/` are).
pub fn repository_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}
