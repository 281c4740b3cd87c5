//! Command-line interface: one module per subcommand.

use std::fmt;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fairdeal_core::{Field, GameParam};

pub mod audit;
pub mod db;
pub mod draw;
pub mod export;
pub mod healthcheck;
pub mod keys;
pub mod master_key;
pub mod monitor;
pub mod pairs;
pub mod recover;
pub mod render;
pub mod replay;
pub mod serve;
pub mod witness;
pub mod witnesses;

/// fairdeal: provably-fair card dealing (protocol fairdeal-v1).
#[derive(Debug, Parser)]
#[command(name = "fairdeal", version = crate::VERSION, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the dealing service (HTTP API).
    Serve(serve::ServeOpts),
    /// Bring a database restored from a backup back to its log, from the
    /// log mirror: lost entries appended again, their rounds stored again,
    /// touched pairs ended (docs/OPERATIONS.md, "Restore").
    Recover(recover::RecoverOpts),
    /// Ask a running server whether it is ready (GET /readyz; --live:
    /// /healthz), for an orchestrator's health check: exit 0 or 1.
    Healthcheck(healthcheck::HealthcheckOpts),
    /// Manage operator API keys.
    Keys(keys::KeysOpts),
    /// Make a master key file (mode 0600) to give every process of one
    /// database, before the first starts.
    MasterKey(master_key::MasterKeyOpts),
    /// List a tenant's seed pairs (as GET /v1/seed-pairs).
    Pairs(pairs::PairsOpts),
    /// Recompute a deal offline from its seeds and nonce (or, with `--game
    /// shuffle --items N`, a list shuffle).
    Replay(replay::ReplayOpts),
    /// Recompute a draw (raffle) offline from its entrant list and seeds.
    Draw(draw::DrawOpts),
    /// Write every revealed seed pair and its rounds as NDJSON (as GET /v1/export).
    Export(export::ExportOpts),
    /// Replay every round of an export: commitments, cards, nonce sequences, statistics.
    #[command(after_help = audit::AUDIT_HELP)]
    Audit(audit::AuditOpts),
    /// Statistical tests of an export or a hand history (no verification verdict).
    #[command(after_help = audit::STATS_HELP)]
    Stats(audit::AuditOpts),
    /// Read and check a transparency log: signatures, tree, consistency, and
    /// what its entries promise (deal-shopping, unrevealed commitments).
    Monitor(monitor::MonitorOpts),
    /// The witnesses every serving process asks to cosign the log: list,
    /// add, remove, quorum (logged; followed without a restart).
    Witnesses(witnesses::WitnessesOpts),
    /// Witness C2SP transparency logs (c2sp.org/tlog-witness): cosign checkpoints proved consistent.
    Witness(witness::WitnessOpts),
    /// Print the OpenAPI description of the HTTP API (what openapi.yaml holds).
    Openapi,
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(opts) => serve::run(opts),
        Command::Recover(opts) => recover::run(opts),
        Command::Healthcheck(opts) => healthcheck::run(opts),
        Command::Keys(opts) => keys::run(opts),
        Command::MasterKey(opts) => master_key::run(opts),
        Command::Pairs(opts) => pairs::run(opts),
        Command::Replay(opts) => replay::run(opts),
        Command::Draw(opts) => draw::run(opts),
        Command::Export(opts) => export::run(opts),
        Command::Audit(opts) => audit::run(opts, audit::Mode::Audit),
        Command::Stats(opts) => audit::run(opts, audit::Mode::Stats),
        Command::Monitor(opts) => monitor::run(opts),
        Command::Witnesses(opts) => witnesses::run(opts),
        Command::Witness(opts) => witness::run(opts),
        Command::Openapi => {
            print!("{}", crate::service::http::openapi_yaml());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A mistake in what the user typed: the binary exits with status 2.
#[derive(Debug)]
pub struct InputError {
    /// The flag at fault, e.g. `--server-seed`.
    pub flag: &'static str,
    /// The rule broken.
    pub message: String,
    /// How the message begins: `invalid` (the flag's value breaks a rule)
    /// or `cannot read` (what it names could not be read).
    verb: &'static str,
}

impl InputError {
    /// An error for a flag.
    pub fn new(flag: &'static str, message: impl fmt::Display) -> Self {
        Self {
            flag,
            message: message.to_string(),
            verb: "invalid",
        }
    }

    /// What `flag` names (a file, a service) could not be read: also exit
    /// 2, but not said to be invalid.
    pub fn unreadable(flag: &'static str, message: impl fmt::Display) -> Self {
        Self {
            verb: "cannot read",
            ..Self::new(flag, message)
        }
    }

    /// Maps a protocol error to the flag that carries its field.
    pub fn from_core(err: &fairdeal_core::Error) -> Self {
        let flag = match err.field() {
            Field::ServerSeed => "--server-seed",
            Field::ServerSeedHash => "--commitment",
            Field::ClientSeed => "--client-seed",
            Field::Nonce => "--nonce",
            Field::GameType => "--game",
            Field::Game(GameParam::Players) => "--players",
            Field::Game(GameParam::Cards) => "--cards",
            Field::Game(GameParam::Decks) => "--decks",
            // Card names come from hand histories.
            Field::Card => "--hands",
        };
        Self::new(flag, err)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.verb, self.flag, self.message)
    }
}

impl std::error::Error for InputError {}

/// `err` and every error below it, as one line: an HTTP client's error
/// says "error sending request" and leaves the cause (refused, no such
/// host) to its sources.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod chain_tests {
    #[test]
    fn a_cause_already_written_is_not_written_again() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let err = anyhow::Error::new(io)
            .context("talking: refused")
            .context("giving up");
        assert_eq!(
            super::error_chain(err.as_ref()),
            "giving up: talking: refused"
        );
        let err = anyhow::anyhow!("inner").context("outer");
        assert_eq!(super::error_chain(err.as_ref()), "outer: inner");
    }
}
