//! Logging: human-readable text or one JSON object per line, to stderr, level
//! from `RUST_LOG` (default `info`). Nothing logged carries a seed: handlers
//! log ids, nonces and game types, and the request trace logs method, path
//! and status only.

use tracing_subscriber::EnvFilter;

/// Log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(format: LogFormat) {
    // PostgreSQL's notices (a migration table that "already exists,
    // skipping" on every start) are its chatter, not the operator's news.
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx::postgres::notice=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
