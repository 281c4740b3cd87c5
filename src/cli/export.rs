//! `fairdeal export`: the same NDJSON as `GET /v1/export`, straight from a
//! database, to stdout.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use tokio::sync::mpsc;

use super::InputError;
use super::db::DatabaseOpts;

#[derive(Debug, Args)]
pub struct ExportOpts {
    #[command(flatten)]
    pub db: DatabaseOpts,
    /// Resume after the pair whose line carried this cursor.
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// Also each drawn draw's entrant list (when the service holds it), in
    /// `draw_lines` records after its `draw` line, for the audit to hash.
    #[arg(long)]
    pub draw_lines: bool,
}

pub fn run(opts: ExportOpts) -> anyhow::Result<ExitCode> {
    // Warnings (such as waiting for the database) to stderr, as text.
    crate::telemetry::init(crate::telemetry::LogFormat::Text);
    let after = match opts.after.as_deref() {
        Some(text) => crate::audit::export::parse_cursor(text)
            .map_err(|rule| InputError::new("--after", rule))?,
        None => 0,
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let store = opts.db.open_existing().await?;
        let (tx, mut rx) = mpsc::channel::<String>(1024);
        let producer = {
            let store = store.clone();
            let options = crate::service::export::ExportOptions {
                draw_lines: opts.draw_lines,
            };
            tokio::spawn(
                async move { crate::service::export::export(&store, after, options, tx).await },
            )
        };
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let written: std::io::Result<()> = async {
            while let Some(line) = rx.recv().await {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            out.flush()
        }
        .await;
        match written {
            // The reader has all it wanted (`| head`): stop, as a filter does.
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                producer.abort();
                store.close().await;
                return Ok(ExitCode::SUCCESS);
            }
            other => other?,
        }
        producer.await.context("the export task")??;
        store.close().await;
        Ok(ExitCode::SUCCESS)
    })
}
