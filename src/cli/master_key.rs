//! `fairdeal master-key`: makes a master key file, for several processes on
//! one PostgreSQL database (each given the same file) or a container's
//! secret, before any of them starts.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::service::sealing::MasterKey;

#[derive(Debug, Args)]
#[command(after_help = "\
The file holds 64 hex characters, readable by its owner only (mode 0600).
Give every process the same file (--master-key-file, or its contents as
FAIRDEAL_MASTER_KEY). Keep a copy apart from the database's backups: without
it, no unrevealed seed can be opened. The key itself is never printed.")]
pub struct MasterKeyOpts {
    /// Where to write the new key: a file that does not exist yet.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

pub fn run(opts: MasterKeyOpts) -> anyhow::Result<ExitCode> {
    if opts.out.exists() {
        return Err(super::InputError::new(
            "--out",
            format!(
                "{} exists already; a master key file is never overwritten (the seeds sealed \
                 under the key it holds could no longer be opened): choose another path",
                opts.out.display()
            ),
        )
        .into());
    }
    let key = MasterKey::generate()?;
    key.write_new(&opts.out)?;
    println!(
        "wrote a new master key to {} (fingerprint {})",
        opts.out.display(),
        key.fingerprint()
    );
    Ok(ExitCode::SUCCESS)
}
