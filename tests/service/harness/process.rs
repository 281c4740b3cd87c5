//! The real `fairdeal` binary as a child process: start it on port 0, read
//! where it listens, stop it with SIGTERM or kill it with SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use super::database::{TestDatabase, random_master_key_hex};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// How to reach one database, for every process of a test.
#[derive(Clone, Debug)]
pub struct Deployment {
    pub data_dir: PathBuf,
    pub database_url: String,
    pub master_key_hex: String,
}

impl Deployment {
    /// The test's database and directory, with a new master key.
    pub fn new(db: &TestDatabase) -> Self {
        Self {
            data_dir: db.dir.path().to_owned(),
            database_url: db.url.clone(),
            master_key_hex: random_master_key_hex(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .arg("--data-dir")
            .arg(&self.data_dir)
            .env("DATABASE_URL", &self.database_url)
            .env("FAIRDEAL_MASTER_KEY", &self.master_key_hex)
            .env_remove("FAIRDEAL_MASTER_KEY_FILE")
            .env_remove("FAIRDEAL_LISTEN");
        command
    }

    /// Runs `fairdeal ARGS…` against this deployment to completion.
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().expect("fairdeal runs")
    }

    /// Sets the database up as `fairdeal serve`'s first start does (the
    /// other commands use only a database the service made).
    pub fn set_up(&self) {
        let url = self.database_url.clone();
        std::thread::spawn(move || {
            tokio::runtime::Runtime::new()
                .expect("runtime")
                .block_on(async {
                    let store = fairdeal::service::store::Store::connect(&url, 1)
                        .await
                        .expect("connect");
                    store.migrate().await.expect("migrate");
                    store.close().await;
                });
        })
        .join()
        .expect("set up");
    }

    /// `fairdeal keys create --name NAME` (on a database set up first, as
    /// the service would have): the key.
    pub fn create_key(&self, name: &str) -> String {
        self.set_up();
        let out = self.run(&["keys", "create", "--name", name]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1, "the key is the only line on stdout");
        lines[0].to_owned()
    }

    /// Starts `fairdeal serve` on an ephemeral port, logging to `log_path`.
    pub fn serve(&self, log_path: &Path, extra_env: &[(&str, &str)]) -> Server {
        let log = std::fs::File::create(log_path).expect("log file");
        let mut command = self.command(&["serve", "--listen", "127.0.0.1:0"]);
        command
            .env("FAIRDEAL_LOG_FORMAT", "json")
            // Tests deal as fast as the service answers, with one key: no
            // per-key limit unless a test sets one (`extra_env`).
            .env("FAIRDEAL_RATE_LIMIT", "0")
            .stdout(Stdio::piped())
            .stderr(log);
        for (key, value) in extra_env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        let Some(base) = first.strip_prefix("fairdeal listening on ") else {
            let _ = child.kill();
            let log = std::fs::read_to_string(log_path).unwrap_or_default();
            panic!("the server did not start: {first:?}\n{log}");
        };
        let base = base.to_owned();
        let mut printed = vec![first.clone()];
        if let Some(Ok(second)) = lines.next() {
            printed.push(second);
        }
        Server {
            child,
            base,
            printed,
        }
    }

    /// Runs `fairdeal ARGS…` with extra environment variables to completion.
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let mut command = self.command(args);
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("fairdeal runs")
    }

    /// Runs `fairdeal serve` expecting it to refuse to start.
    pub fn serve_refused(&self, master_key_hex: &str) -> (ExitStatus, String) {
        let out = self
            .command(&["serve", "--listen", "127.0.0.1:0"])
            .env("FAIRDEAL_MASTER_KEY", master_key_hex)
            .output()
            .expect("serve runs");
        (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

pub struct Server {
    child: Child,
    pub base: String,
    /// What the server printed on stdout at start.
    pub printed: Vec<String>,
}

impl Server {
    /// SIGTERM, then wait: a graceful stop.
    pub fn terminate(mut self) -> ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        self.child.wait().expect("server exits")
    }

    /// SIGKILL: a crash at whatever moment this is.
    pub fn crash(mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `fairdeal monitor BASE --json ARGS…` (off the async workers) and
/// returns its output and JSON report.
pub async fn run_monitor(base: &str, args: &[String]) -> (std::process::Output, serde_json::Value) {
    let mut all = vec![base.to_owned(), "--json".to_owned()];
    all.extend_from_slice(args);
    let out = tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .arg("monitor")
            .args(&all)
            .output()
            .expect("the binary runs")
    })
    .await
    .expect("joined");
    let report = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, report)
}

/// `fairdeal audit EXPORT --log BASE --format json` with `export` written
/// to a file, and `args` after: exit code and JSON report.
pub async fn run_audit_log(
    base: &str,
    export: &str,
    args: &[&str],
) -> (Option<i32>, serde_json::Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("export.ndjson");
    std::fs::write(&path, export).expect("write");
    let mut all = vec![
        "audit".to_owned(),
        path.display().to_string(),
        "--log".to_owned(),
        base.to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
        "--quiet".to_owned(),
    ];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let out = tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .args(&all)
            .output()
            .expect("the binary runs")
    })
    .await
    .expect("joined");
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null),
    )
}

/// Waits until `base`'s log checkpoint covers `size` entries.
pub async fn log_reaches(base: &str, size: u64) {
    let client = reqwest::Client::new();
    for _ in 0..400 {
        if let Ok(response) = client.get(format!("{base}/log/checkpoint")).send().await
            && let Ok(text) = response.text().await
            && text.lines().nth(1).and_then(|l| l.parse::<u64>().ok()) >= Some(size)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{base}'s log did not reach {size} entries within ten seconds");
}
