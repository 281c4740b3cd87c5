//! `fairdeal recover`: brings a database restored from a backup (or
//! rolled back any other way) back to its log, from the log mirror, so that
//! the service deals and signs again without dealing a known hand or
//! forking the log (`service::dealer::recovery`; docs/OPERATIONS.md,
//! "Restore").

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::db::{DatabaseOpts, LogMirrorOpts};
use crate::service::dealer::Dealer;
use crate::service::log::mirror::{LogMirror, Standing};
use crate::service::sealing::MasterKey;

#[derive(Debug, Args)]
pub struct RecoverOpts {
    #[command(flatten)]
    pub db: DatabaseOpts,
    #[command(flatten)]
    pub mirror: LogMirrorOpts,
    /// The master key, as for `serve` (64 hex characters). Prefer a key file.
    #[arg(long, env = "FAIRDEAL_MASTER_KEY", hide_env_values = true, hide = true)]
    pub master_key: Option<String>,
    /// The master key file, as for `serve`; default `<data dir>/master.key`.
    #[arg(long, env = "FAIRDEAL_MASTER_KEY_FILE", value_name = "PATH")]
    pub master_key_file: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(opts: RecoverOpts) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(recover(opts))
}

async fn recover(opts: RecoverOpts) -> anyhow::Result<ExitCode> {
    let Some(dir) = opts.mirror.dir(&opts.db.data_dir) else {
        return Err(super::InputError::new(
            "--no-log-mirror",
            "recovery reads the log mirror: give it with --log-mirror",
        )
        .into());
    };
    let store = opts.db.open_existing().await?;
    store.migrate().await?;
    let (key, key_origin, new_key_file) = MasterKey::load(
        opts.master_key.as_deref(),
        opts.master_key_file.as_deref(),
        &opts.db.data_dir,
    )?;
    anyhow::ensure!(
        new_key_file.is_none(),
        "no master key was given: recover with the key the database's seeds are sealed under \
         (FAIRDEAL_MASTER_KEY, --master-key-file, or <data dir>/master.key)"
    );
    anyhow::ensure!(
        store.check_key_fingerprint(&key.fingerprint()).await?,
        "this database's seeds were sealed under a different master key than the one from \
         {key_origin}; recover with the original key"
    );
    anyhow::ensure!(
        dir.join("segments").exists(),
        "there is no log mirror at {}: give the one the service used (--log-mirror)",
        dir.display()
    );
    let mirror = LogMirror::open(&dir, store.log_floor().clone())?;
    let dealer = Dealer::new(store.clone(), key);
    let report = dealer.recover(&mirror).await?;
    // What recovery logged (reveals) goes to the mirror before it says done.
    let standing = mirror.standing_of(&store).await?;
    anyhow::ensure!(
        standing == Standing::Current,
        "after recovery the database still stands {standing:?} against the mirror"
    );
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if report.entries_restored == 0 && report.pairs_ended.is_empty() {
        println!(
            "nothing to recover: the database holds all {} mirrored log entries",
            report.mirrored_entries
        );
    } else {
        println!(
            "recovered{}: {} log entries appended again from the mirror (the database held {} of {})",
            if report.resumed {
                " (finishing a recovery cut short)"
            } else {
                ""
            },
            report.entries_restored,
            report.database_entries,
            report.mirrored_entries
        );
        println!(
            "  {} rounds stored again (same ids, nonces and cards)",
            report.rounds_restored.len()
        );
        println!(
            "  {} pairs ended (revealed) and {} revealed by the entry the log held: no hand of theirs is dealt again",
            report.pairs_ended.len(),
            report.reveals_taken_from_log.len()
        );
        for successor in &report.successors_revealed {
            println!(
                "  pair {successor}, opened by a rotation after the backup, revealed with the seed the database held for it"
            );
        }
        if !report.round_seeds_restored.is_empty() {
            println!(
                "  {} chain rounds stored again with the seeds the log published",
                report.round_seeds_restored.len()
            );
        }
        if let Some(set) = &report.witness_set_restored {
            println!("  the witness set the log states last, made the database's again: {set}");
        }
        for (round, why) in &report.rounds_not_restored {
            println!("  round {round} not stored again: {why}");
        }
        for pair in &report.pairs_lost {
            println!(
                "  pair {pair} was committed after the backup: its seed was lost, its commitment stays unrevealed"
            );
        }
        for draw in &report.draws_lost {
            println!(
                "  draw {draw} has entries the database lost: do not draw it again; announce it void"
            );
        }
    }
    store.close().await;
    Ok(ExitCode::SUCCESS)
}
