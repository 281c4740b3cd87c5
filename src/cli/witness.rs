//! `fairdeal witness`: a c2sp.org/tlog-witness witness for C2SP logs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use tokio::net::TcpListener;

use super::InputError;
use crate::telemetry::{self, LogFormat};
use crate::tlog::cosignature::Cosigner;
use crate::witness::protocol::Logs;
use crate::witness::store::WitnessStore;
use crate::witness::{Witness, http};

#[derive(Debug, Args)]
#[command(after_help = "\
Each --log is the signed-note verifier key (Ed25519, type 0x01) of a log whose
checkpoints' origin is the key's name, as a fairdeal service's GET /log/key gives it:
  --log \"$(curl -s https://deals.example/log/key)\"
or ORIGIN=VKEY for a log whose origin is another, e.g.
  --log 'go.sum database tree=sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8'
Give --log again for another log, or for another key of the same log. For a witness run
beside the service (a demonstration), --log-url reads the key from the service at start
and pins it on first use:
  --log-url https://deals.example

The witness answers POST /add-checkpoint (c2sp.org/tlog-witness) with its cosignature
(c2sp.org/tlog-cosignature, cosignature/v1, Ed25519) and GET /healthz. For each log it
keeps the latest checkpoint it cosigned; several witness processes with one key may
share a PostgreSQL database. Stop with SIGTERM or Ctrl-C.")]
pub struct WitnessOpts {
    /// Address to listen on.
    #[arg(
        long,
        env = "FAIRDEAL_WITNESS_LISTEN",
        default_value = "127.0.0.1:8090",
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,
    /// The witness's name, the key name of its cosignatures: a schemeless
    /// URL such as `witness.example.com/w1`, without white space or '+'.
    #[arg(long, env = "FAIRDEAL_WITNESS_NAME", value_name = "NAME")]
    pub name: String,
    /// The file holding the witness's Ed25519 key (64 hex characters).
    /// Created with mode 0600 when missing. Default: `<data dir>/witness.key`.
    #[arg(long, env = "FAIRDEAL_WITNESS_KEY_FILE", value_name = "PATH")]
    pub key_file: Option<PathBuf>,
    /// A log to witness: its verifier key (its origin the key's name), or
    /// ORIGIN=VKEY (repeatable).
    #[arg(long = "log", value_name = "VKEY|ORIGIN=VKEY")]
    pub logs: Vec<String>,
    /// A fairdeal service whose log to witness, by its URL: the log's
    /// verifier key is read from `<URL>/log/key` at start (waiting for the
    /// service to answer) and pinned on first use (`<data dir>/pinned-logs.json`):
    /// a later start that reads another key refuses to start. Trust on
    /// first use: for a demonstration, or a witness beside the service; an
    /// independent witness takes the key with --log from a channel it trusts.
    #[arg(long = "log-url", value_name = "URL")]
    pub log_urls: Vec<String>,
    /// Seconds to wait for each --log-url service to answer at start.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub log_url_wait: u64,
    /// Directory for the default SQLite database (`witness.db`) and key file.
    #[arg(
        long,
        env = "FAIRDEAL_WITNESS_DATA_DIR",
        default_value = "data",
        value_name = "DIR"
    )]
    pub data_dir: PathBuf,
    /// Database URL: `sqlite://PATH` or `postgres://USER@HOST/DB`. Default:
    /// `witness.db` in the data directory. Its tables are the witness's
    /// own, so it may be the dealing service's database.
    #[arg(
        long,
        env = "FAIRDEAL_WITNESS_DATABASE_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub database_url: Option<String>,
    /// Most database connections this process opens.
    #[arg(long, default_value_t = 5, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Print the witness's cosigner verifier key (creating the key file if
    /// missing) and exit.
    #[arg(long)]
    pub print_vkey: bool,
    /// Log format.
    #[arg(long, env = "FAIRDEAL_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
}

/// Creates the data directory, readable by its owner only.
fn ensure_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating the data directory {}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("restricting {}", dir.display()))?;
    }
    Ok(())
}

/// Reads the key file, or creates it (mode 0600) with a new key.
fn load_or_create_key(path: &Path, name: &str) -> anyhow::Result<Cosigner> {
    if !path.exists() {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            ensure_dir(dir)?;
        }
        let cosigner = Cosigner::generate(name)?;
        let seed = zeroize::Zeroizing::new(hex::encode(*cosigner.seed()));
        match crate::secret_file::write_private(path, &seed) {
            Ok(()) => {
                eprintln!("created the witness key file {}", path.display());
                return Ok(cosigner);
            }
            // Another process made it first: use that one.
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => {
                return Err(err)
                    .with_context(|| format!("creating the key file {}", path.display()));
            }
        }
    }
    Cosigner::read_file(path, name)
}

pub fn run(opts: WitnessOpts) -> anyhow::Result<ExitCode> {
    if let Err(err) = Cosigner::from_bytes(&[0; 32], &opts.name) {
        return Err(InputError::new("--name", format!("{err:#}")).into());
    }
    let key_file = opts
        .key_file
        .clone()
        .unwrap_or_else(|| opts.data_dir.join("witness.key"));
    let cosigner = load_or_create_key(&key_file, &opts.name)
        .map_err(|err| InputError::unreadable("--key-file", format!("{err:#}")))?;
    if opts.print_vkey {
        println!("{}", cosigner.vkey());
        return Ok(ExitCode::SUCCESS);
    }
    let mut logs = Logs::new();
    for spec in &opts.logs {
        logs.add_spec(spec)
            .map_err(|err| InputError::new("--log", format!("{err:#}")))?;
    }
    for url in &opts.log_urls {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(InputError::new(
                "--log-url",
                format!("must start with http:// or https://; got {url:?}"),
            )
            .into());
        }
    }
    if logs.is_empty() && opts.log_urls.is_empty() {
        return Err(InputError::new(
            "--log",
            "give at least one log to witness: its verifier key, or ORIGIN=VKEY (or --log-url)",
        )
        .into());
    }
    telemetry::init(opts.log_format);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(serve(opts, logs, cosigner))?;
    Ok(ExitCode::SUCCESS)
}

/// The verifier key of the log the fairdeal service at `url` serves
/// (`<url>/log/key`), waiting up to `wait` for it to answer, checked
/// against the key pinned for `url` in `pins` (and pinned there on first
/// use).
async fn log_key_at(url: &str, wait: u64, pins: &Path) -> anyhow::Result<String> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(5))
        .build()?;
    let address = format!("{}/log/key", url.trim_end_matches('/'));
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(wait);
    let vkey = loop {
        let answer = match client.get(&address).send().await {
            Ok(response) if response.status().is_success() => response
                .text()
                .await
                .map_err(|e| e.without_url().to_string()),
            Ok(response) => Err(format!("it answered {}", response.status())),
            Err(err) => Err(err.without_url().to_string()),
        };
        match answer {
            Ok(text) => break text.trim().to_owned(),
            Err(why) if tokio::time::Instant::now() >= deadline => {
                anyhow::bail!("the log key at {address} could not be read within {wait} s: {why}")
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_secs(1)).await,
        }
    };
    let mut pinned: std::collections::BTreeMap<String, String> = match std::fs::read(pins) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("reading the pinned log keys in {}", pins.display()))?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Default::default(),
        Err(err) => return Err(err).context(format!("reading {}", pins.display())),
    };
    match pinned.get(url) {
        Some(held) if *held == vkey => {}
        Some(held) => anyhow::bail!(
            "the log at {url} now answers the key {vkey:?}, not {held:?} pinned when this witness \
             first read it: another log, or someone in between. Check with the log's operator; \
             to witness the new key, give it with --log (or remove {url} from {})",
            pins.display()
        ),
        None => {
            pinned.insert(url.to_owned(), vkey.clone());
            std::fs::write(pins, serde_json::to_vec_pretty(&pinned)?)
                .with_context(|| format!("pinning the log key in {}", pins.display()))?;
            tracing::info!(url, vkey, "pinned the log key read on first use");
        }
    }
    Ok(vkey)
}

async fn serve(opts: WitnessOpts, mut logs: Logs, cosigner: Cosigner) -> anyhow::Result<()> {
    if !opts.log_urls.is_empty() {
        ensure_dir(&opts.data_dir)?;
        let pins = opts.data_dir.join("pinned-logs.json");
        for url in &opts.log_urls {
            let vkey = log_key_at(url, opts.log_url_wait, &pins).await?;
            logs.add_spec(&vkey)
                .with_context(|| format!("the log key {url} answers"))?;
        }
    }
    let url = match &opts.database_url {
        Some(url) => url.clone(),
        None => {
            ensure_dir(&opts.data_dir)?;
            format!("sqlite://{}", opts.data_dir.join("witness.db").display())
        }
    };
    let store = WitnessStore::open(&url, opts.max_connections).await?;
    for (origin, keys) in logs.origins() {
        for key in keys {
            tracing::info!(origin, vkey = key.vkey(), "witnessing");
        }
    }
    let vkey = cosigner.vkey();
    let witness = Arc::new(Witness::new(logs, cosigner, store.clone()));
    // Before the address is printed: a SIGTERM as soon as it is stops it
    // gracefully.
    let shutdown = super::serve::shutdown_signal();
    let listener = TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("listening on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    println!("fairdeal witness listening on http://{addr}");
    println!("cosigner vkey: {vkey}");
    tracing::info!(%addr, vkey, "listening");
    http::serve(listener, http::router(witness), shutdown)
        .await
        .context("serving")?;
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}
