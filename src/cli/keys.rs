//! `fairdeal keys`: operator API keys.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::InputError;
use super::db::DatabaseOpts;
use crate::service::store::InsertKey;
use crate::time::{now_ms, timestamp};

#[derive(Debug, Args)]
pub struct KeysOpts {
    #[command(subcommand)]
    pub command: KeysCommand,
    #[command(flatten)]
    pub db: DatabaseOpts,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key; prints it as the only line on stdout (it is shown once:
    /// only its hash is stored).
    Create {
        /// A name for the key: 1-64 letters, digits, '-', '_' or '.'.
        #[arg(long)]
        name: String,
        /// The tenant whose seed pairs the key sees and acts on (same rule
        /// as a name).
        #[arg(long, default_value = crate::service::keys::DEFAULT_TENANT)]
        tenant: String,
    },
    /// List keys: name, tenant, created, active or revoked, last used (to
    /// the minute).
    List,
    /// Revoke the key with this name.
    Revoke {
        /// The key's name.
        name: String,
    },
}

pub fn run(opts: KeysOpts) -> anyhow::Result<ExitCode> {
    // Warnings (such as waiting for the database) to stderr, as text.
    crate::telemetry::init(crate::telemetry::LogFormat::Text);
    if let KeysCommand::Create { name, tenant } = &opts.command {
        crate::service::keys::check_name(name).map_err(|e| InputError::new("--name", e))?;
        crate::service::keys::check_name(tenant).map_err(|e| InputError::new("--tenant", e))?;
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        // Keys are made, listed and revoked only where the service keeps
        // them: never in a new database the service does not use.
        let store = opts.db.open_existing().await?;
        let code = match &opts.command {
            KeysCommand::Create { name, tenant } => {
                let new = crate::service::keys::generate(name, tenant, now_ms())?;
                match store.insert_key(&new.row).await.context("storing the key")? {
                    InsertKey::Inserted => println!("{}", new.key),
                    InsertKey::NameTaken => {
                        store.close().await;
                        return Err(InputError::new(
                            "--name",
                            format!("a key named {name:?} exists already; choose another name (fairdeal keys list shows them)"),
                        )
                        .into());
                    }
                }
                ExitCode::SUCCESS
            }
            KeysCommand::List => {
                for key in store.keys().await? {
                    let state = match key.revoked_at {
                        Some(at) => format!("revoked {}", timestamp(at)),
                        None => "active".to_owned(),
                    };
                    let used = key
                        .last_used_at
                        .map_or("never used".to_owned(), |at| format!("last used {}", timestamp(at)));
                    println!(
                        "{}\ttenant {}\tcreated {}\t{state}\t{used}",
                        key.name,
                        key.tenant,
                        timestamp(key.created_at)
                    );
                }
                ExitCode::SUCCESS
            }
            KeysCommand::Revoke { name } => {
                if store.revoke_key(name, now_ms()).await? {
                    eprintln!("revoked {name:?}");
                    ExitCode::SUCCESS
                } else {
                    eprintln!("error: no active key named {name:?}");
                    ExitCode::FAILURE
                }
            }
        };
        store.close().await;
        Ok(code)
    })
}
