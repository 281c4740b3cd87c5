//! fairdeal: the service and command-line tool around `fairdeal-core`.
pub mod cli;
