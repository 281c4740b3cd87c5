//! `fairdeal witnesses`: the set of witnesses every serving process asks to
//! cosign the log's checkpoints (`service::log::witness_set`), listed and
//! changed without a restart: each change is one `witness_set` entry in the
//! log, and every running process follows it within a refresh.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::InputError;
use super::db::{DatabaseOpts, LogMirrorOpts};
use crate::service::log::mirror::{LogMirror, MIRROR_ID_SETTING, Standing};
use crate::service::log::witness_set::{self, Recorded, WitnessSet, parse_witness, vkey_name};
use crate::service::store::Store;

#[derive(Debug, Args)]
#[command(after_help = "\
Every `fairdeal serve` process on the database follows the set within 2 seconds,
without a restart, and each change is logged (a `witness_set` entry holding the
whole new set), so a monitor sees who witnesses the log and a restored database
cannot bring back an older set unseen. Give the log mirror the serving processes
use (--log-mirror or FAIRDEAL_LOG_MIRROR), as for `fairdeal recover`.

A witness is given as VKEY@URL: its cosignature verifier key, as
`fairdeal witness --print-vkey` prints it, then the URL the service posts
checkpoints to (<URL>/add-checkpoint). Example:
  fairdeal witnesses add \"$(fairdeal witness --print-vkey --name witness.example/w1)@https://w1.example\"")]
pub struct WitnessesOpts {
    #[command(subcommand)]
    pub command: WitnessesCommand,
    #[command(flatten)]
    pub db: DatabaseOpts,
    #[command(flatten)]
    pub mirror: LogMirrorOpts,
}

#[derive(Debug, Subcommand)]
pub enum WitnessesCommand {
    /// List the witnesses, the quorum, and the largest checkpoint each
    /// cosigned.
    List,
    /// Add a witness, or give a witness of the same name its new URL or key.
    Add {
        /// The witness: VKEY@URL.
        #[arg(value_name = "VKEY@URL")]
        witness: String,
    },
    /// Remove the witness of this name (the name in its verifier key).
    Remove {
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// How many witnesses must cosign a checkpoint for it to count as
    /// witnessed: a number from 1 to the witnesses' count, or `all`.
    Quorum {
        #[arg(value_name = "K|all")]
        quorum: String,
    },
}

pub fn run(opts: WitnessesOpts) -> anyhow::Result<ExitCode> {
    crate::telemetry::init(crate::telemetry::LogFormat::Text);
    // Input first: a mistake costs no database connection.
    let change = match &opts.command {
        WitnessesCommand::List => None,
        WitnessesCommand::Add { witness } => Some(Change::Add(
            parse_witness(witness).map_err(|rule| InputError::new("VKEY@URL", rule))?,
        )),
        WitnessesCommand::Remove { name } => Some(Change::Remove(name.clone())),
        WitnessesCommand::Quorum { quorum } => Some(Change::Quorum(match quorum.as_str() {
            "all" => None,
            text => Some(text.parse::<u64>().map_err(|_| {
                InputError::new(
                    "K|all",
                    format!("must be a whole number of witnesses or `all`; got {text:?}"),
                )
            })?),
        })),
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        // Only where the service keeps its log: never a new database.
        let store = opts.db.open_existing().await?;
        let held = witness_set::stored(&store).await?.unwrap_or_default();
        let code = match change {
            None => {
                list(&store, &held).await?;
                ExitCode::SUCCESS
            }
            Some(change) => {
                let set = change.apply(&held)?;
                if set == held {
                    println!("unchanged: {}", held.describe());
                } else {
                    write(&opts, &store, &set).await?;
                }
                ExitCode::SUCCESS
            }
        };
        store.close().await;
        Ok(code)
    })
}

/// A change an operator asked for.
enum Change {
    Add(crate::tlog::entry::LoggedWitness),
    Remove(String),
    Quorum(Option<u64>),
}

impl Change {
    /// The set after the change, checked.
    fn apply(self, held: &WitnessSet) -> Result<WitnessSet, InputError> {
        let set = match self {
            Change::Add(witness) => held.with(witness),
            Change::Remove(name) => held.without(&name).ok_or_else(|| {
                InputError::new(
                    "NAME",
                    format!(
                        "names no witness of the set ({}); `fairdeal witnesses list` lists them",
                        held.describe()
                    ),
                )
            })?,
            Change::Quorum(quorum) => WitnessSet {
                quorum,
                ..held.clone()
            },
        };
        set.check().map_err(|(_, rule)| {
            InputError::new(
                "K|all",
                rule.replace(
                    "is taken only with witnesses",
                    "needs witnesses: add one first",
                ),
            )
        })?;
        Ok(set)
    }
}

/// Records `set`, above the log mirror's floor, and mirrors its entry
/// before saying so.
async fn write(opts: &WitnessesOpts, store: &Store, set: &WitnessSet) -> anyhow::Result<()> {
    let mirror = open_mirror(opts, store).await?;
    let recorded = witness_set::record(store, set).await.map_err(|err| {
        match crate::service::store::is_behind_log(&err) {
            Some(_) => err.context(
                "the database is behind its log (restored from a backup?): run `fairdeal \
                 recover` first",
            ),
            None => err.context("recording the witness set"),
        }
    })?;
    if let Some(mirror) = &mirror {
        mirror.flush(store).await.map_err(|why| {
            anyhow::anyhow!(
                "the change is in the database but not yet in the log mirror: {why}; the \
                 serving processes mirror it on their next pass"
            )
        })?;
    }
    match recorded {
        Recorded::Logged(index) => println!(
            "the witness set is now {} (log entry {index}); every serving process follows it \
             within {} s",
            set.describe(),
            crate::service::log::witnessing::REFRESH.as_secs()
        ),
        Recorded::Unchanged => println!("unchanged: {}", set.describe()),
    }
    Ok(())
}

/// The log mirror the serving processes use, caught up, with the database
/// standing current against it; `None` for a database whose log has no
/// mirror.
async fn open_mirror(opts: &WitnessesOpts, store: &Store) -> anyhow::Result<Option<LogMirror>> {
    let bound = store.setting(MIRROR_ID_SETTING).await?;
    let Some(dir) = opts.mirror.dir(&opts.db.data_dir) else {
        return Ok(None);
    };
    if !dir.join("segments").exists() {
        return match bound {
            Some(id) => Err(InputError::new(
                "--log-mirror",
                format!(
                    "there is no log mirror at {}, and this database's log is mirrored (mirror \
                     id {id}): give the directory the serving processes use",
                    dir.display()
                ),
            )
            .into()),
            None => Ok(None),
        };
    }
    let mirror = LogMirror::open(&dir, store.log_floor().clone())?;
    match mirror.standing_of(store).await? {
        Standing::Current => Ok(Some(mirror)),
        standing => anyhow::bail!(
            "no change is written: {}",
            standing
                .refusal()
                .unwrap_or_else(|| format!("the database stands {standing:?} against its log"))
        ),
    }
}

/// Prints the set and what each witness last cosigned.
async fn list(store: &Store, set: &WitnessSet) -> anyhow::Result<()> {
    if set.witnesses.is_empty() {
        println!("no witnesses: checkpoints are signed by the log alone");
        return Ok(());
    }
    let sizes = store.witnessed_sizes().await?;
    for witness in &set.witnesses {
        let cosigned = sizes
            .iter()
            .find(|(vkey, _)| *vkey == witness.vkey)
            .map_or("nothing cosigned yet".to_owned(), |(_, size)| {
                format!("cosigned up to {size} entries")
            });
        println!(
            "{}  {}  {cosigned}\n  {}",
            vkey_name(&witness.vkey),
            witness.url,
            witness.vkey
        );
    }
    println!(
        "quorum: {} of {}{}",
        set.quorum(),
        set.witnesses.len(),
        if set.quorum.is_none() { " (all)" } else { "" }
    );
    Ok(())
}
