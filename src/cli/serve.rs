//! `fairdeal serve`: the dealing service.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use tokio::net::TcpListener;

use super::InputError;
use super::db::{DatabaseOpts, PoolOpts, parse_positive_seconds};
use crate::service::dealer::Dealer;
use crate::service::http::{self, AppState};
use crate::service::log::integrator;
use crate::service::log::mirror::LogMirror;
use crate::service::log::witness_set::{self, WitnessSet};
use crate::service::log::witnessing::{Guard, LiveWitnesses};
use crate::service::metrics::Metrics;
use crate::service::sealing::MasterKey;
use crate::service::store::Store;
use crate::service::store::WAL_CHECKPOINT_PERIOD;
use crate::telemetry::{self, LogFormat};
use crate::time::now_ms;
use crate::tlog::key::LogKey;

/// Where `serve` listens, and `healthcheck` asks, unless told otherwise
/// (`--listen`, `FAIRDEAL_LISTEN`).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

#[derive(Debug, Args)]
#[command(after_help = "\
Environment:
  FAIRDEAL_MASTER_KEY   the master key as 64 hex characters (instead of a key file;
                        there is deliberately no command-line flag for it)
  FAIRDEAL_LOG_KEY      the transparency log's key as 64 hex characters (likewise)
  RUST_LOG \
             log filter, e.g. info (default), debug, fairdeal=debug

Secrets never appear in logs, responses or metrics. Stop with SIGTERM or Ctrl-C:
requests in flight finish first.")]
pub struct ServeOpts {
    /// Address to listen on.
    #[arg(
        long,
        env = "FAIRDEAL_LISTEN",
        default_value = DEFAULT_LISTEN,
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,
    #[command(flatten)]
    pub db: DatabaseOpts,
    #[command(flatten)]
    pub pool: PoolOpts,
    /// The master key that seals unrevealed server seeds, as 64 hex
    /// characters. Prefer a key file; never pass it on a command line.
    #[arg(long, env = "FAIRDEAL_MASTER_KEY", hide_env_values = true, hide = true)]
    pub master_key: Option<String>,
    /// A file holding the master key (64 hex characters). Without this or
    /// FAIRDEAL_MASTER_KEY, `<data dir>/master.key` is used, and created with
    /// mode 0600 on first start. Processes sharing a database must share it.
    #[arg(long, env = "FAIRDEAL_MASTER_KEY_FILE", value_name = "PATH")]
    pub master_key_file: Option<PathBuf>,
    /// Seconds after which a round still in play is closed automatically.
    #[arg(
        long,
        env = "FAIRDEAL_ROUND_TIMEOUT",
        default_value_t = 3600,
        value_name = "SECONDS",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub round_timeout: u64,
    /// Seconds each phase of a table pair may take: every seat must commit
    /// within it of the pair's creation, then reveal within it of the last
    /// commitment; a seat that does not voids the pair.
    #[arg(
        long,
        env = "FAIRDEAL_TABLE_PHASE_TIMEOUT",
        default_value_t = 60.0,
        value_name = "SECONDS",
        value_parser = parse_phase_timeout
    )]
    pub table_phase_timeout: f64,
    /// Log format.
    #[arg(long, env = "FAIRDEAL_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Seconds a client has to send a request's headers once the connection
    /// is ready for them; a slow header and an idle kept-alive connection
    /// are both closed after it.
    #[arg(
        long,
        env = "FAIRDEAL_HEADER_READ_TIMEOUT",
        default_value_t = 10.0,
        value_name = "SECONDS",
        value_parser = parse_positive_seconds
    )]
    pub header_read_timeout: f64,
    /// Seconds to read a request's body and answer it; past it, 408.
    #[arg(
        long,
        env = "FAIRDEAL_REQUEST_TIMEOUT",
        default_value_t = 30.0,
        value_name = "SECONDS",
        value_parser = parse_positive_seconds
    )]
    pub request_timeout: f64,
    /// HTTP connections open at once; a connection beyond it is closed at
    /// once (and counted in fairdeal_connections_refused_total).
    #[arg(
        long,
        env = "FAIRDEAL_MAX_HTTP_CONNECTIONS",
        default_value_t = 10_000,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub max_http_connections: u32,
    /// Requests each API key may make a second in this process, after its
    /// burst; a request over it is answered 429 with Retry-After, before
    /// anything is done. 0: no limit. With several processes behind a load
    /// balancer, a key's limit is this times their number.
    #[arg(
        long,
        env = "FAIRDEAL_RATE_LIMIT",
        default_value_t = 100,
        value_name = "PER_SECOND"
    )]
    pub rate_limit: u32,
    /// Requests each API key may make at once before --rate-limit applies
    /// (default: twice --rate-limit).
    #[arg(
        long,
        env = "FAIRDEAL_RATE_LIMIT_BURST",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub rate_limit_burst: Option<u32>,
    /// The transparency log's origin, which is also its key's name: chosen
    /// on a database's first start (default `fairdeal/log-` and 16 random
    /// hex digits) and kept in the database; any later value must be the
    /// same (published checkpoints name it). The listen address never
    /// matters.
    #[arg(long, env = "FAIRDEAL_LOG_ORIGIN", value_name = "ORIGIN")]
    pub log_origin: Option<String>,
    /// The log's Ed25519 key as 64 hex characters (a seed). Prefer a key
    /// file; never pass it on a command line.
    #[arg(long, env = "FAIRDEAL_LOG_KEY", hide_env_values = true, hide = true)]
    pub log_key: Option<String>,
    /// A file holding the log key (64 hex characters), for an operator who
    /// keeps it outside the database; every process must then be given the
    /// same one. Without this or FAIRDEAL_LOG_KEY the key is the database's,
    /// sealed under the master key (made on first start; a `<data
    /// dir>/log.key` from an older version is taken in once).
    #[arg(long, env = "FAIRDEAL_LOG_KEY_FILE", value_name = "PATH")]
    pub log_key_file: Option<PathBuf>,
    /// Seconds between log checkpoints while entries arrive (at most 60:
    /// players' pages fail an entry that is not in a checkpoint two minutes
    /// after they first see it).
    #[arg(
        long,
        env = "FAIRDEAL_LOG_INTERVAL",
        default_value_t = 1.0,
        value_name = "SECONDS",
        value_parser = parse_log_interval
    )]
    pub log_interval: f64,
    /// MiB of full log tiles kept in memory for readers going through the
    /// log in order (each such request after the first reads the next 16
    /// tiles in one query); 0 reads every tile alone.
    #[arg(
        long,
        env = "FAIRDEAL_LOG_TILE_CACHE_MIB",
        default_value_t = 16,
        value_name = "MIB",
        value_parser = clap::value_parser!(u16)
    )]
    pub log_tile_cache_mib: u16,
    /// A witness to ask for a cosignature of every checkpoint
    /// (c2sp.org/tlog-witness), as `VKEY@URL`: its cosignature verifier key
    /// (`<name>+<key id>+<base64 key>`), then its submission URL (the
    /// service posts to `<URL>/add-checkpoint`). Repeat for several, or
    /// give them space-separated in FAIRDEAL_WITNESSES. At start the set
    /// becomes the database's (a logged change when it differs), which
    /// every process follows; `fairdeal witnesses` changes it without a
    /// restart. Without this flag a process follows the database's set.
    #[arg(
        long = "witness",
        env = "FAIRDEAL_WITNESSES",
        value_delimiter = ' ',
        value_name = "VKEY@URL"
    )]
    pub witnesses: Vec<String>,
    /// How many of the witnesses must cosign a checkpoint for it to count as
    /// witnessed (`GET /v1/log/witnessed-checkpoint`); default: all of them.
    #[arg(long, env = "FAIRDEAL_WITNESS_QUORUM", value_name = "K")]
    pub witness_quorum: Option<usize>,
    /// A monitor whose signed statements about the log this service keeps
    /// and serves to players' pages (`fairdeal monitor --publish`), as its
    /// verifier key (`<name>+<key id>+<base64 key>`, from `fairdeal monitor
    /// --print-vkey`). Repeat for several, or give them space-separated in
    /// FAIRDEAL_MONITORS.
    #[arg(
        long = "monitor",
        env = "FAIRDEAL_MONITORS",
        value_delimiter = ' ',
        value_name = "VKEY"
    )]
    pub monitors: Vec<String>,
    #[command(flatten)]
    pub mirror: super::db::LogMirrorOpts,
    /// The log mirror is new (empty) for a database that already holds a
    /// log: fill it from the database. Only for a first start with a
    /// mirror, or after the old mirror was lost; never after restoring the
    /// database, when the old mirror is what knows what was acknowledged.
    #[arg(long, env = "FAIRDEAL_LOG_MIRROR_NEW")]
    pub log_mirror_new: bool,
}

/// The `keys create` command that reaches this server's database, spelled
/// the way this process was started (through cargo, or the binary itself).
fn key_command_hint(data_dir: &std::path::Path) -> String {
    // `cargo run` sets CARGO for the program it runs; otherwise the
    // program as it was started (a path, or a name on PATH).
    let program = if std::env::var_os("CARGO").is_some() {
        "cargo run --release -- ".to_owned()
    } else {
        let started = std::env::args()
            .next()
            .unwrap_or_else(|| "fairdeal".to_owned());
        format!("{started} ")
    };
    let data_dir = if data_dir == std::path::Path::new("data") {
        String::new()
    } else {
        format!(" --data-dir {}", data_dir.display())
    };
    format!("{program}keys create --name NAME{data_dir}")
}

/// Completes on SIGTERM or Ctrl-C. The SIGTERM handler is installed when
/// this is called, not when first polled, so a signal that arrives as soon
/// as the server says it listens still stops it gracefully.
pub(super) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let terminate = async {
            match terminate {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {},
            () = terminate => {},
        }
        tracing::info!("shutting down: finishing requests in flight");
    }
}

pub fn run(opts: ServeOpts) -> anyhow::Result<std::process::ExitCode> {
    telemetry::init(opts.log_format);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(serve(opts))?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// The log's origin when the database has none and `--log-origin` is not
/// given: one of its own, the same whatever address the service listens on.
fn default_origin() -> anyhow::Result<String> {
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
    Ok(format!("fairdeal/log-{}", hex::encode(id)))
}

/// The transparency log's origin and key, as the database keeps them: the
/// database and the master key are all a process needs.
///
/// - The origin is chosen once (`--log-origin`, else [`default_origin`]; a
///   database whose log predates this takes the name of its verifier key)
///   and kept in the database; a later `--log-origin` that differs is
///   refused, since published checkpoints name it.
/// - The key is FAIRDEAL_LOG_KEY or `--log-key-file` when given (then every
///   process must be given the same one); otherwise the database's, sealed
///   under the master key; a `<data dir>/log.key` from before is taken in
///   once; a new database makes its own. Either way it must be the key the
///   log was first signed with.
async fn log_identity(
    opts: &ServeOpts,
    store: &Store,
    key: &MasterKey,
) -> anyhow::Result<(LogKey, String)> {
    let origin = match store.setting("log_origin").await? {
        Some(origin) => origin,
        None => {
            let proposed = match store.setting("log_verifier_key").await? {
                Some(vkey) => vkey.split('+').next().unwrap_or_default().to_owned(),
                None => match &opts.log_origin {
                    Some(origin) => origin.clone(),
                    None => default_origin()?,
                },
            };
            store.claim_setting("log_origin", &proposed).await?
        }
    };
    if let Some(asked) = &opts.log_origin
        && *asked != origin
    {
        anyhow::bail!(
            "this database's transparency log has the origin {origin:?}, and --log-origin (or \
             FAIRDEAL_LOG_ORIGIN) asks for {asked:?}: every published checkpoint names the \
             origin, so it never changes; drop the option, or give {origin:?}"
        );
    }
    let (log_key, source) = match LogKey::given(
        opts.log_key.as_deref(),
        opts.log_key_file.as_deref(),
        &origin,
    )? {
        Some(given) => given,
        None => {
            let sealed = match store.setting("log_key_sealed").await? {
                Some(sealed) => sealed,
                None => {
                    let file = opts.db.data_dir.join("log.key");
                    let (candidate, note) = if file.exists() {
                        (
                            LogKey::read_file(&file, &origin)?,
                            format!("taken in from {}", file.display()),
                        )
                    } else {
                        (LogKey::generate(&origin)?, "made".to_owned())
                    };
                    let sealed = hex::encode(key.seal_log_key(&candidate.seed())?);
                    let stored = store.claim_setting("log_key_sealed", &sealed).await?;
                    if stored == sealed {
                        tracing::info!(
                            "the log key was {note} and is now kept in the database, sealed under the master key"
                        );
                    }
                    stored
                }
            };
            let bytes = hex::decode(&sealed).context("the database's sealed log key is not hex")?;
            let seed = key.open_log_key(&bytes).map_err(|_| {
                anyhow::anyhow!(
                    "the database's log key does not open with the master key from this process"
                )
            })?;
            (
                LogKey::from_bytes(&seed, &origin)?,
                "the database (sealed)".to_owned(),
            )
        }
    };
    let logged_as = store
        .claim_setting("log_verifier_key", &log_key.vkey())
        .await?;
    if logged_as != log_key.vkey() {
        anyhow::bail!(
            "this database's transparency log is signed by {logged_as}, but this process has {} \
             (log key from {source}, origin {origin:?}); start without FAIRDEAL_LOG_KEY and \
             --log-key-file to use the database's key, or give the one the log was signed with",
            log_key.vkey()
        );
    }
    Ok((log_key, source))
}

/// The log mirror, opened and checked against the database. A database
/// that holds a log with an empty mirror is refused unless the operator
/// says the mirror is new; a database behind the mirror starts, refusing
/// every write (`/readyz` says why) until `fairdeal recover`.
async fn open_mirror(opts: &ServeOpts, store: &Store) -> anyhow::Result<Option<Arc<LogMirror>>> {
    let Some(dir) = opts.mirror.dir(&opts.db.data_dir) else {
        if opts.log_mirror_new {
            return Err(
                InputError::new("--log-mirror-new", "is taken only with a log mirror").into(),
            );
        }
        tracing::warn!(
            "no log mirror: a database restored from a backup is caught only by witnesses and monitors, behind the last checkpoint they hold"
        );
        return Ok(None);
    };
    if opts.mirror.log_mirror.is_none() {
        tracing::warn!(
            mirror = %dir.display(),
            "the log mirror is in the data directory: it catches a database file copied back, not a \
             snapshot or copy of the whole directory; in production give --log-mirror on storage \
             that is not backed up or restored with the database (docs/OPERATIONS.md, Restore)"
        );
    }
    let mirror = LogMirror::open(&dir, store.log_floor().clone())?;
    // One mirror per database: a process on another one would acknowledge
    // entries that a recovery from the first never sees.
    let take_over = opts.log_mirror_new && mirror.count() == 0;
    if let Some(bound) = mirror.bind(store, take_over).await? {
        anyhow::bail!(
            "this database's log is mirrored by the log mirror with id {bound}, but the log mirror at {} \
             has id {}: every process must be given the same mirror (--log-mirror, on shared \
             storage that is not backed up or restored with the database). If that mirror was \
             lost, start once with an empty mirror and --log-mirror-new: processes still on the \
             old one then refuse writes",
            dir.display(),
            mirror.id()
        );
    }
    let (entries, _) = store.log_sizes().await?;
    match (mirror.count(), entries, opts.log_mirror_new) {
        (0, 0, _) => {}
        (0, entries, false) => anyhow::bail!(
            "this database holds a transparency log of {entries} entries, but the log mirror at {} \
             is empty. If the database was restored from a backup, give the mirror that was in \
             use (--log-mirror): only it knows what was acknowledged since the backup. If this \
             is the first start with a mirror, or the old mirror was lost, start once with \
             --log-mirror-new to fill it from the database",
            dir.display()
        ),
        (0, _, true) => {
            let filled = mirror.fill_from(store).await?;
            tracing::info!(entries = filled, mirror = %dir.display(), "log mirror filled from the database");
        }
        (held, _, true) => {
            return Err(InputError::new(
                "--log-mirror-new",
                format!(
                    "is only for an empty mirror; {} holds {held} entries",
                    dir.display()
                ),
            )
            .into());
        }
        _ => {}
    }
    if let Err(why) = mirror.flush(store).await {
        tracing::error!(refusing = %why, "starting with every write refused");
    }
    Ok(Some(Arc::new(mirror)))
}

/// The witness set given with `--witness` and `--witness-quorum`, checked
/// (each `VKEY@URL`, no witness twice, a quorum from 1 to their number);
/// `None` when neither is given.
fn witness_flags(opts: &ServeOpts) -> Result<Option<WitnessSet>, InputError> {
    if opts.witnesses.iter().all(String::is_empty) && opts.witness_quorum.is_none() {
        return Ok(None);
    }
    WitnessSet::parse(&opts.witnesses, opts.witness_quorum)
        .map(Some)
        .map_err(|(flag, rule)| InputError::new(flag, rule))
}

/// The witnesses this process asks: the database's set, which `flagged`
/// (the set given at start) becomes first when it differs (a logged
/// change); while the database has none, `flagged` or none.
async fn follow_witnesses(
    store: &Store,
    flagged: Option<WitnessSet>,
) -> anyhow::Result<LiveWitnesses> {
    if let Some(set) = &flagged {
        match witness_set::record(store, set).await {
            Ok(witness_set::Recorded::Logged(index)) => tracing::info!(
                witnesses = %set.describe(),
                log_index = index,
                "the witness set given at start is the database's now (every process follows it)"
            ),
            Ok(witness_set::Recorded::Unchanged) => {}
            Err(err) if crate::service::store::is_behind_log(&err).is_some() => tracing::error!(
                refusing = format!("{err:#}"),
                "the witness set given at start is not recorded: the database is behind its log"
            ),
            Err(err) => return Err(err.context("recording the witness set given at start")),
        }
    }
    Ok(match store.setting(witness_set::SETTING).await? {
        Some(text) => {
            let set = WitnessSet::from_setting(&text)
                .context("the database's witness set does not read")?;
            tracing::info!(witnesses = %set.describe(), "witnesses");
            LiveWitnesses::new(set.build(None)?, Some(text))
        }
        None => LiveWitnesses::new(flagged.unwrap_or_default().build(None)?, None),
    })
}

async fn serve(opts: ServeOpts) -> anyhow::Result<()> {
    let flagged = witness_flags(&opts)?;
    let store = opts.db.open(&opts.pool).await?;
    let (key, key_origin, new_key_file) = MasterKey::load(
        opts.master_key.as_deref(),
        opts.master_key_file.as_deref(),
        &opts.db.data_dir,
    )?;
    if let Some(path) = &new_key_file {
        // A new key is written only for a database that has none yet, and
        // before the database takes it (a key the database took must never
        // be lost); if another process's key won meanwhile, the file goes.
        if store.setting("master_key_fingerprint").await?.is_some() {
            anyhow::bail!(
                "this database's seeds are sealed under a master key, and none was given: \
                 start with it (FAIRDEAL_MASTER_KEY, --master-key-file, or {} as it was)",
                path.display()
            );
        }
        key.write_new(path)?;
    }
    if !store.check_key_fingerprint(&key.fingerprint()).await? {
        if let Some(path) = &new_key_file {
            let _ = std::fs::remove_file(path);
        }
        anyhow::bail!(
            "this database's seeds were sealed under a different master key than the one from {key_origin}; \
             start with the original key (FAIRDEAL_MASTER_KEY or --master-key-file)"
        );
    }
    let filled = store.fill_client_seed_lookalikes().await?;
    if filled > 0 {
        tracing::info!(
            seeds = filled,
            "stored the lookalike form of active pairs' and draws' client seeds"
        );
    }
    let (log_key, log_key_origin) = log_identity(&opts, &store, &key).await?;
    let log_key = Arc::new(log_key);
    let mirror = open_mirror(&opts, &store).await?;
    integrator::integrate_now(&store, &log_key, mirror.as_deref())
        .await
        .context("signing the log's first checkpoint")?;
    tracing::info!(database = store.backend(), master_key = %key_origin, log = %log_key.vkey(), log_key = %log_key_origin, "database ready");
    let witnesses = Arc::new(follow_witnesses(&store, flagged).await?);
    let dealer = Arc::new(
        Dealer::new(store.clone(), key)
            .with_table_phase(Duration::from_secs_f64(opts.table_phase_timeout))
            .with_mirror(mirror.clone()),
    );
    let state = AppState {
        dealer: dealer.clone(),
        metrics: Arc::new(Metrics::new()),
        log: log_key.clone(),
        log_size_seen: Default::default(),
        tiles: Arc::new(crate::service::log::tile_cache::TileCache::with_budget(
            usize::from(opts.log_tile_cache_mib) << 20,
        )),
        witnesses: witnesses.clone(),
        monitors: Arc::new(
            crate::service::http::statements::Monitors::new(&opts.monitors)
                .map_err(|rule| InputError::new("--monitor", rule))?,
        ),
    };
    let guard = match state.dealer.mirror() {
        Some(_) => Guard::Mirror,
        None => {
            // Without a mirror, the witnesses are what knows a database
            // went back: asked before the first request, not after it.
            crate::service::log::witnessing::first_round(
                &store,
                &witnesses.current(),
                &state.metrics,
            )
            .await;
            Guard::Witnesses
        }
    };
    let log_interval = Duration::from_secs_f64(opts.log_interval);
    let integrating = tokio::spawn(integrator::run(
        store.clone(),
        log_key,
        mirror,
        log_interval,
    ));
    let witnessing = tokio::spawn(crate::service::log::witnessing::run(
        store.clone(),
        witnesses,
        state.metrics.clone(),
        log_interval,
        guard,
    ));
    let checkpointing = {
        let store = store.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(WAL_CHECKPOINT_PERIOD);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                match store.checkpoint_wal().await {
                    Ok(None) => return,
                    Ok(Some(_)) => {}
                    Err(err) => tracing::warn!(error = %err, "WAL checkpoint failed"),
                }
            }
        })
    };
    let shutdown = shutdown_signal();
    let listener = TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("listening on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    println!("fairdeal listening on http://{addr}");
    println!(
        "create an operator API key with: {}",
        key_command_hint(&opts.db.data_dir)
    );
    tracing::info!(%addr, "listening");

    let voiding = dealer.clone();
    let timeout_ms = i64::try_from(opts.round_timeout.saturating_mul(1000)).unwrap_or(i64::MAX);
    let closer = tokio::spawn(async move {
        let period = Duration::from_secs((opts.round_timeout / 4).clamp(1, 30));
        let mut ticker = tokio::time::interval(period);
        loop {
            ticker.tick().await;
            if dealer.refusal().is_some() {
                // The database is behind its log: nothing is written.
                continue;
            }
            dealer.catch_up_with_mirror();
            match dealer.close_stale_rounds(timeout_ms, now_ms()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(rounds = n, "closed rounds left in play past the timeout"),
                Err(err) => tracing::warn!(error = format!("{err:#}"), "auto-close failed"),
            }
            // List uploads cut off by a crash or a lost client leave drafts.
            match dealer.discard_stale_uploads(now_ms()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(drafts = n, "deleted list uploads that never finished"),
                Err(err) => tracing::warn!(error = format!("{err:#}"), "draft sweep failed"),
            }
        }
    });
    // Tables whose seats stalled are voided within a second of their
    // deadline (a seat's late request voids its table at once).
    let voider = {
        let dealer = voiding;
        let metrics = state.metrics.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_secs(1));
            loop {
                ticker.tick().await;
                if dealer.refusal().is_some() {
                    continue;
                }
                dealer.catch_up_with_mirror();
                match dealer.void_expired_tables(now_ms()).await {
                    Ok(voided) => (0..voided).for_each(|_| metrics.event("table_void")),
                    Err(err) => {
                        tracing::warn!(error = format!("{err:#}"), "voiding stalled tables failed")
                    }
                }
            }
        })
    };
    let limits = http::Limits {
        header_read_timeout: Duration::from_secs_f64(opts.header_read_timeout),
        request_timeout: Duration::from_secs_f64(opts.request_timeout),
        max_connections: opts.max_http_connections as usize,
        rate_limit: std::num::NonZeroU32::new(opts.rate_limit).map(|per_second| {
            let burst = opts
                .rate_limit_burst
                .and_then(std::num::NonZeroU32::new)
                .unwrap_or(per_second.saturating_mul(std::num::NonZeroU32::MIN.saturating_add(1)));
            http::RateLimit { per_second, burst }
        }),
    };
    match http::raise_open_file_limit() {
        Ok(files) if files < u64::from(opts.max_http_connections) + 64 => tracing::warn!(
            open_files = files,
            max_http_connections = opts.max_http_connections,
            "the open-file limit is below the connection cap; lower --max-http-connections"
        ),
        Ok(files) => tracing::debug!(open_files = files, "open-file limit"),
        Err(err) => tracing::warn!(error = %err, "could not raise the open-file limit"),
    }
    http::serve_with(listener, state, limits, shutdown).await?;
    integrating.abort();
    witnessing.abort();
    checkpointing.abort();
    closer.abort();
    voider.abort();
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// A phase timeout: seconds, 0.1 to 86,400.
fn parse_phase_timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("must be a number of seconds; got {text:?}"))?;
    if (0.1..=86_400.0).contains(&seconds) {
        Ok(seconds)
    } else {
        Err(format!("must be 0.1 to 86400 seconds; got {seconds}"))
    }
}

/// `--log-interval`: above 0 and at most 60 seconds.
fn parse_log_interval(text: &str) -> Result<f64, String> {
    parse_positive_seconds(text)
        .ok()
        .filter(|seconds| *seconds <= 60.0)
        .ok_or_else(|| {
            format!(
                "must be a number of seconds above 0 and at most 60 (players' pages fail an entry not in a checkpoint within two minutes); got {text:?}"
            )
        })
}
