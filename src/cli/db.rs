//! Where the data lives: shared by `serve` and `keys`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::service::store::Store;

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
    /// Most database connections this process opens.
    #[arg(
        long,
        env = "FAIRDEAL_MAX_CONNECTIONS",
        default_value_t = 10,
        value_name = "N",
        global = true
    )]
    pub max_connections: u32,
}

impl DatabaseOpts {
    /// Creates the data directory, connects, and applies migrations.
    pub async fn open(&self) -> anyhow::Result<Store> {
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
        let store = Store::connect(&url, self.max_connections.max(1)).await?;
        store.migrate().await?;
        Ok(store)
    }
}
