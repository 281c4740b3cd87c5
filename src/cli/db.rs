//! Where the data lives: shared by `serve` and the commands that read its
//! database; the pool's tuning is `serve`'s alone.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use crate::service::store::{Store, permanent_connect_problem};

#[derive(Debug, Args, Clone)]
pub struct DatabaseOpts {
    /// Directory for the embedded SQLite database and the generated master
    /// key file.
    #[arg(
        long,
        env = "FAIRDEAL_DATA_DIR",
        default_value = "data",
        value_name = "DIR",
        global = true
    )]
    pub data_dir: PathBuf,
    /// Database URL: `sqlite://PATH` or `postgres://USER@HOST/DB`. Default: the
    /// SQLite file `fairdeal.db` in the data directory. Several `fairdeal
    /// serve` processes may share one PostgreSQL database.
    #[arg(
        long,
        visible_alias = "database",
        env = "DATABASE_URL",
        value_name = "URL",
        hide_env_values = true,
        global = true
    )]
    pub database_url: Option<String>,
    /// Seconds to keep retrying at start-up while the database cannot be
    /// reached (0: try once). Each failed attempt is logged with the host and
    /// the cause.
    #[arg(
        long,
        env = "FAIRDEAL_DB_WAIT",
        default_value_t = 30.0,
        value_name = "SECONDS",
        value_parser = parse_seconds,
        global = true
    )]
    pub db_wait: f64,
}

/// The connection pool of a long-running process (`serve`): how many
/// connections, and how long a request waits for one. Every other command
/// uses the defaults.
#[derive(Debug, Args, Clone)]
pub struct PoolOpts {
    /// Most database connections this process opens.
    #[arg(
        long,
        env = "FAIRDEAL_MAX_CONNECTIONS",
        default_value_t = 10,
        value_name = "N"
    )]
    pub max_connections: u32,
    /// Seconds a request waits for a database connection before it is
    /// answered 503 (database unavailable) with Retry-After. (SQLite waits at
    /// least 10: there a wait is a queue behind writers, not an outage.)
    #[arg(
        long,
        env = "FAIRDEAL_DB_ACQUIRE_TIMEOUT",
        default_value_t = 2.0,
        value_name = "SECONDS",
        value_parser = parse_seconds
    )]
    pub db_acquire_timeout: f64,
}

impl Default for PoolOpts {
    fn default() -> Self {
        Self {
            max_connections: 10,
            db_acquire_timeout: 2.0,
        }
    }
}

/// A number of seconds from 0 to a day, for a flag.
pub(crate) fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) => Ok(seconds),
        _ => Err(format!(
            "must be a number of seconds from 0 to 86400; got {text:?}"
        )),
    }
}

/// A number of seconds above 0 and up to a day, for a flag.
pub(crate) fn parse_positive_seconds(text: &str) -> Result<f64, String> {
    parse_seconds(text)
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .ok_or_else(|| {
            format!("must be a number of seconds above 0 and at most 86400; got {text:?}")
        })
}

impl DatabaseOpts {
    /// [`DatabaseOpts::open`] for every command but `serve`: the database
    /// must exist and have been set up by `fairdeal serve` already, so that a
    /// mistyped `--data-dir` (or a command run from another directory) is an
    /// error that says where it looked, never a new, empty database that
    /// looks like no data, or takes a key the service never sees.
    pub async fn open_existing(&self) -> anyhow::Result<Store> {
        let sqlite_file = match &self.database_url {
            None => Some(self.data_dir.join("fairdeal.db")),
            Some(url) => url
                .strip_prefix("sqlite://")
                .or_else(|| url.strip_prefix("sqlite:"))
                .map(|path| std::path::PathBuf::from(path.split('?').next().unwrap_or(path))),
        };
        let (flag, looked) = match (&self.database_url, &sqlite_file) {
            (None, Some(file)) => ("--data-dir", file.display().to_string()),
            (Some(_), Some(file)) => ("DATABASE_URL", file.display().to_string()),
            (Some(url), None) => ("DATABASE_URL", redacted_url(url)),
            (None, None) => ("--data-dir", self.data_dir.display().to_string()),
        };
        let missing = |why: &str| -> anyhow::Error {
            super::InputError::new(
                flag,
                format!(
                    "{why} at {looked}: `fairdeal serve` creates and sets up the database, and \
                     every other command uses the one it made; give its data directory \
                     (--data-dir or FAIRDEAL_DATA_DIR) or its DATABASE_URL"
                ),
            )
            .into()
        };
        if let Some(file) = &sqlite_file
            && !file.exists()
        {
            return Err(missing("there is no database"));
        }
        let store = self.connect(&PoolOpts::default()).await?;
        if !store.has_schema().await? {
            return Err(missing(
                "the database has not been set up by `fairdeal serve`",
            ));
        }
        store.migrate().await?;
        Ok(store)
    }

    /// Creates the data directory, connects with `pool`, and applies
    /// migrations: what `serve` does on its first start.
    pub async fn open(&self, pool: &PoolOpts) -> anyhow::Result<Store> {
        let store = self.connect(pool).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Creates the data directory (for the SQLite default) and connects,
    /// waiting up to `--db-wait` for the database.
    async fn connect(&self, pool: &PoolOpts) -> anyhow::Result<Store> {
        if !self.data_dir.exists() {
            std::fs::create_dir_all(&self.data_dir).with_context(|| {
                format!("creating the data directory {}", self.data_dir.display())
            })?;
            // Only the service's user reads the database and the key file.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&self.data_dir, std::fs::Permissions::from_mode(0o700))
                    .with_context(|| format!("restricting {}", self.data_dir.display()))?;
            }
        }
        let url = match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.data_dir.join("fairdeal.db").display()),
        };
        let acquire_timeout = Duration::from_secs_f64(pool.db_acquire_timeout.max(0.1));
        let deadline = Instant::now() + Duration::from_secs_f64(self.db_wait);
        let store = loop {
            match Store::connect_with_timeout(&url, pool.max_connections.max(1), acquire_timeout)
                .await
            {
                Ok(store) => break store,
                // Waiting cannot make a database exist or a password right.
                Err(err) if let Some(problem) = permanent_connect_problem(&err, &url) => {
                    anyhow::bail!(problem);
                }
                Err(err) if Instant::now() < deadline => {
                    tracing::warn!(
                        error = format!("{err:#}"),
                        "waiting for the database; retrying (--db-wait)"
                    );
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(err) => {
                    return Err(err.context(format!(
                        "gave up on the database after {} s (--db-wait)",
                        self.db_wait
                    )));
                }
            }
        };
        Ok(store)
    }
}

/// A database URL without its password, to name it in a message.
fn redacted_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            let user = credentials.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Where the log mirror is (`service::log::mirror`): shared by `serve`,
/// `recover` and `witnesses`.
#[derive(Debug, Args, Clone)]
pub struct LogMirrorOpts {
    /// The log mirror: a directory where every transparency-log entry is
    /// written once before anything that appended it is answered, so that a
    /// restored database never deals a hand or signs a checkpoint again
    /// (docs/OPERATIONS.md, "Restore"). Default: `<data dir>/log-mirror`. In
    /// production give every process the same directory on storage that is
    /// not backed up, snapshotted or restored with the database.
    #[arg(long, env = "FAIRDEAL_LOG_MIRROR", value_name = "DIR", global = true)]
    pub log_mirror: Option<PathBuf>,
    /// Run without a log mirror: a database restored from a backup is then
    /// caught only behind the last checkpoint a witness or monitor holds,
    /// and the hands acknowledged since would be dealt again.
    #[arg(
        long,
        env = "FAIRDEAL_NO_LOG_MIRROR",
        conflicts_with = "log_mirror",
        global = true
    )]
    pub no_log_mirror: bool,
}

impl LogMirrorOpts {
    /// The mirror's directory, if there is one.
    pub fn dir(&self, data_dir: &std::path::Path) -> Option<PathBuf> {
        if self.no_log_mirror {
            return None;
        }
        Some(
            self.log_mirror
                .clone()
                .unwrap_or_else(|| data_dir.join("log-mirror")),
        )
    }
}
