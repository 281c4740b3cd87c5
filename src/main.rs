//! The `fairdeal` binary: parse the command line, dispatch, map the outcome to
//! an exit code (0 success, 1 a check failed or the command failed at run
//! time, 2 bad input).

use std::process::ExitCode;

use clap::Parser;
use fairdeal::cli::{self, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", cli::error_chain(err.as_ref()));
            if err.is::<cli::InputError>() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
