//! `fairdeal pairs list`: a tenant's seed pairs, straight from the database,
//! as `GET /v1/seed-pairs` lists them for an operator.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::InputError;
use super::db::DatabaseOpts;
use crate::service::keys::DEFAULT_TENANT;
use crate::service::store::{Order, PairFilter, PairRow, PairStatus, parse_listing_cursor};
use crate::time::timestamp;

#[derive(Debug, Args)]
pub struct PairsOpts {
    #[command(subcommand)]
    pub command: PairsCommand,
    #[command(flatten)]
    pub db: DatabaseOpts,
}

#[derive(Debug, Subcommand)]
pub enum PairsCommand {
    /// List a tenant's pairs, oldest first: id, status, label, next nonce,
    /// created. A last line on stderr gives the --after of the next page.
    List {
        /// Whose pairs.
        #[arg(long, default_value = DEFAULT_TENANT)]
        tenant: String,
        /// Only pairs in this status: awaiting_client_seed,
        /// awaiting_contributions (a table), active, revealed or void.
        #[arg(long)]
        status: Option<String>,
        /// Only pairs with this label.
        #[arg(long)]
        label: Option<String>,
        /// Continue after this cursor (from the previous page).
        #[arg(long, value_name = "CURSOR")]
        after: Option<String>,
        /// At most this many pairs.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        limit: u32,
    },
}

pub fn run(opts: PairsOpts) -> anyhow::Result<ExitCode> {
    crate::telemetry::init(crate::telemetry::LogFormat::Text);
    let PairsCommand::List {
        tenant,
        status,
        label,
        after,
        limit,
    } = &opts.command;
    crate::service::keys::check_name(tenant).map_err(|e| InputError::new("--tenant", e))?;
    let status = status
        .as_deref()
        .map(|text| {
            PairStatus::try_from(text.to_owned()).map_err(|_| {
                InputError::new(
                    "--status",
                    format!(
                        "must be awaiting_client_seed, awaiting_contributions, active, revealed \
                         or void; got {text:?}"
                    ),
                )
            })
        })
        .transpose()?;
    let after = after
        .as_deref()
        .map(|text| {
            parse_listing_cursor(text).ok_or_else(|| {
                InputError::new("--after", "must be a cursor printed by an earlier page")
            })
        })
        .transpose()?;
    let filter = PairFilter {
        status,
        label: label.clone(),
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let store = opts.db.open_existing().await?;
        let rows = store
            .tenant_pairs(tenant, &filter, after, Order::Oldest, i64::from(*limit) + 1)
            .await
            .context("listing the pairs")?;
        store.close().await;
        let more = rows.len() > *limit as usize;
        let rows = &rows[..rows.len().min(*limit as usize)];
        for pair in rows {
            println!(
                "{}\t{}\t{}\tnext nonce {}\tcreated {}",
                pair.id,
                pair.status,
                pair.label.as_deref().unwrap_or("-"),
                pair.next_nonce,
                timestamp(pair.created_at)
            );
        }
        if let Some(last) = rows.last().filter(|_| more) {
            eprintln!("more: --after {}", PairRow::listing_cursor(last));
        }
        Ok(ExitCode::SUCCESS)
    })
}
