//! The restore drill (docs/OPERATIONS.md, "Restore"), through the real
//! binary: a backup taken, hands dealt after it, the database restored (a
//! SQLite file copy, a PostgreSQL dump restored, a restore under a running
//! process), then `fairdeal recover`. No hand dealt before the restore is
//! dealt again from an unrevealed seed, no checkpoint inconsistent with a
//! published one is signed, and a monitor holding state from before the
//! restore accepts the recovered log and flags a skipped recovery.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fairdeal::tlog::cosignature::Cosigner;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{
    Backend, Client, Deployment, Reply, Server, TestDatabase, log_reaches, run_monitor,
};
use crate::witness_process::WitnessProcess;

const BEHIND: &str = "/problems/database-behind-log";

/// A consistent copy of the database, taken while the service runs:
/// SQLite's `VACUUM INTO`, or `pg_dump`.
async fn back_up(db: &TestDatabase) -> PathBuf {
    let path = db.dir.path().join("backup");
    match db.backend {
        Backend::Sqlite => {
            let pool = sqlx::SqlitePool::connect(&db.url).await.expect("connect");
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "VACUUM INTO '{}'",
                path.display()
            )))
            .execute(&pool)
            .await
            .expect("VACUUM INTO");
            pool.close().await;
        }
        Backend::Postgres => {
            let out = std::process::Command::new("pg_dump")
                .args(["-Fc", "-f"])
                .arg(&path)
                .arg(&db.url)
                .output()
                .expect("pg_dump runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    path
}

/// Puts the backup back: the SQLite file copied over the database (its
/// WAL gone), or `pg_restore --clean` into the same database.
fn restore(db: &TestDatabase, backup: &Path) {
    match db.backend {
        Backend::Sqlite => {
            let file = db.dir.path().join("fairdeal.db");
            for side in ["fairdeal.db-wal", "fairdeal.db-shm"] {
                let _ = std::fs::remove_file(db.dir.path().join(side));
            }
            std::fs::copy(backup, file).expect("copy the backup");
        }
        Backend::Postgres => {
            let out = std::process::Command::new("pg_restore")
                .args([
                    "--clean",
                    "--if-exists",
                    "--no-owner",
                    "--single-transaction",
                    "-d",
                ])
                .arg(&db.url)
                .arg(backup)
                .output()
                .expect("pg_restore runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn holdem() -> Value {
    json!({"type": "holdem", "players": 2})
}

/// Waits until `/readyz` answers `status`; its last answer.
async fn readiness(client: &Client, status: StatusCode) -> Value {
    for _ in 0..200 {
        let ready = client.get("/readyz").await;
        if ready.status == status {
            return ready.json;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/readyz did not answer {status} within ten seconds");
}

/// Waits until `/readyz` refuses with a detail that says `words`.
async fn refusal_says(client: &Client, words: &str) {
    for _ in 0..200 {
        let ready = client.get("/readyz").await;
        if ready.status == StatusCode::SERVICE_UNAVAILABLE
            && ready.json["detail"]
                .as_str()
                .is_some_and(|d| d.contains(words))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/readyz did not refuse saying {words:?} within ten seconds");
}

/// `reply` is the refusal of a database behind its log: 503, typed.
fn assert_behind(reply: &Reply) {
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.text
    );
    assert_eq!(reply.json["type"], BEHIND, "{}", reply.text);
}

/// The log's checkpoint size as served.
async fn checkpoint_size(client: &Client) -> u64 {
    let text = client.get("/log/checkpoint").await.text;
    text.lines()
        .nth(1)
        .and_then(|l| l.parse().ok())
        .unwrap_or_else(|| panic!("a checkpoint: {text:?}"))
}

/// Checkpoints every 50 ms.
const FAST_LOG: [(&str, &str); 1] = [("FAIRDEAL_LOG_INTERVAL", "0.05")];

/// A drill's database, deployment, operator key, server log and monitor
/// state file.
struct Drill {
    db: TestDatabase,
    deployment: Deployment,
    key: String,
    log_path: PathBuf,
    monitor_state: PathBuf,
}

impl Drill {
    /// `fairdeal serve` on the drill's deployment with `env`, and an
    /// operator's client of it.
    fn serve(&self, env: &[(&str, &str)]) -> (Server, Client) {
        let server = self.deployment.serve(&self.log_path, env);
        let client = Client::new(&server.base).with_key(&self.key);
        (server, client)
    }

    async fn set_up(backend: Backend) -> Option<Self> {
        let db = TestDatabase::create(backend).await?;
        let deployment = Deployment::new(&db);
        let key = deployment.create_key("backend");
        let log_path = db.dir.path().join("serve.log");
        let monitor_state = db.dir.path().join("monitor.json");
        Some(Self {
            db,
            deployment,
            key,
            log_path,
            monitor_state,
        })
    }
}

/// A witness for a drill: its key, and the port it will listen on.
struct DrillWitness {
    home: PathBuf,
    port: u16,
    /// `--witness` for it.
    flag: String,
}

impl DrillWitness {
    const NAME: &str = "witness.example/drill";

    fn new(db: &TestDatabase) -> Self {
        let home = db.dir.path().join("witness");
        std::fs::create_dir_all(&home).expect("dir");
        let cosigner = Cosigner::generate(Self::NAME).expect("key");
        std::fs::write(home.join("witness.key"), hex::encode(*cosigner.seed())).expect("key file");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a port")
            .port();
        let flag = format!("{}@http://127.0.0.1:{port}", cosigner.vkey());
        Self { home, port, flag }
    }

    /// The witness, running, for the log `client` serves.
    async fn start(&self, client: &Client) -> WitnessProcess {
        let checkpoint = client.get("/log/checkpoint").await.text;
        let origin = checkpoint.lines().next().expect("origin");
        let log_vkey = client.get("/log/key").await.text.trim().to_owned();
        WitnessProcess::start(
            &self.home,
            &format!("127.0.0.1:{}", self.port),
            Self::NAME,
            origin,
            &log_vkey,
            &[],
        )
    }
}

/// What was dealt after the backup on `pair`: each round's id, nonce and
/// cards.
struct Dealt {
    id: String,
    nonce: Value,
    deal: Value,
}

/// Three hands on `pair`, each closed: what the restore will lose.
async fn hands_to_lose(client: &Client, pair: &str) -> Vec<Dealt> {
    let mut lost = Vec::new();
    for _ in 0..3 {
        let dealt = client.deal(pair, holdem()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
        client.close(&dealt.id()).await;
        lost.push(Dealt {
            id: dealt.id(),
            nonce: dealt.json["nonce"].clone(),
            deal: dealt.json["deal"].clone(),
        });
    }
    lost
}

/// `fairdeal monitor BASE --state STATE` exits with `code`.
async fn monitor_exits(base: &str, state: &Path, code: i32) {
    let args = ["--state".to_owned(), state.display().to_string()];
    let (out, report) = run_monitor(base, &args).await;
    assert_eq!(out.status.code(), Some(code), "{report:#}");
}

/// `fairdeal recover --json` against the deployment: its report.
fn recover(deployment: &Deployment) -> Value {
    let out = deployment.run(&["recover", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// What a drill did before the restore.
struct BeforeRestore<'a> {
    /// A pair with hands dealt after the backup, and one without.
    touched: &'a str,
    untouched: &'a str,
    /// A pair made after the backup.
    later: &'a str,
    /// The hands dealt on `touched` after the backup.
    lost: &'a [Dealt],
    /// A draw seeded and run after the backup.
    draw: Option<&'a str>,
    /// A monitor's state, and the checkpoint size published.
    monitor_state: &'a Path,
    published: u64,
}

/// Everything the drill checks once the database is restored and the
/// service serves it: refusal, recovery, the same cards, no second deal,
/// and a monitor from before the restore satisfied.
async fn refused_then_recovered(
    deployment: &Deployment,
    client: &Client,
    before: BeforeRestore<'_>,
) {
    let BeforeRestore {
        touched,
        untouched,
        later,
        lost,
        draw,
        monitor_state,
        published,
    } = before;
    // Refused: readiness, deals, and the stale checkpoint.
    let ready = readiness(client, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(ready["type"], BEHIND, "{ready}");
    assert!(
        ready["detail"]
            .as_str()
            .is_some_and(|d| d.contains("fairdeal recover")),
        "the way out is named: {ready}"
    );
    for pair in [touched, untouched] {
        let refused = client.deal(pair, holdem()).await;
        assert_behind(&refused);
        assert!(refused.header("retry-after").is_some());
    }
    let metrics = client.get("/metrics").await.text;
    assert!(metrics.contains("fairdeal_writes_refused 1"), "{metrics}");
    // A player's verification is not a write: it goes on.
    let verified = client
        .post_json(
            "/v1/verify",
            &json!({"server_seed": "00".repeat(32), "client_seed": "x", "nonce": 0, "game": {"type": "deck"}}),
        )
        .await;
    assert_eq!(verified.status, StatusCode::OK, "{}", verified.text);
    let checkpoint = client.get("/log/checkpoint").await;
    assert_eq!(
        checkpoint.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        checkpoint.text
    );

    // A recovery killed before its transaction committed left its marker:
    // every process refuses while it is there, and the next run does the
    // whole recovery.
    std::fs::write(
        deployment.data_dir.join("log-mirror").join("RECOVERING"),
        "{}",
    )
    .expect("marker");
    refusal_says(client, "recovering").await;
    // One recovery at a time: another, running, holds the lock.
    let lock = std::fs::File::create(deployment.data_dir.join("log-mirror").join("RECOVER.lock"))
        .expect("the lock file");
    lock.lock().expect("locked");
    let second = deployment.run(&["recover"]);
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains("another `fairdeal recover` is running"),
        "{said}"
    );
    drop(lock);
    let report = recover(deployment);
    assert_eq!(report["resumed"], false, "{report:#}");
    assert_eq!(
        report["rounds_restored"],
        json!(lost.iter().map(|d| d.id.clone()).collect::<Vec<_>>()),
        "{report:#}"
    );
    assert_eq!(report["pairs_ended"], json!([touched]), "{report:#}");
    assert_eq!(report["pairs_lost"], json!([later]), "{report:#}");
    assert_eq!(
        report["rounds_not_restored"].as_array().map(Vec::len),
        Some(1),
        "the round on the pair made after the backup: {report:#}"
    );
    assert_eq!(
        report["draws_lost"],
        json!(draw.into_iter().collect::<Vec<_>>()),
        "{report:#}"
    );
    // The service resumes by itself.
    readiness(client, StatusCode::OK).await;
    let metrics = client.get("/metrics").await.text;
    assert!(metrics.contains("fairdeal_writes_refused 0"), "{metrics}");

    // A draw whose client seed and result were lost is never drawn again
    // with another seed.
    if let Some(draw) = draw {
        let reseeded = client
            .put_json(
                &format!("/v1/draws/{draw}/client-seed"),
                &json!({"client_seed": "another beacon"}),
            )
            .await;
        assert_eq!(reseeded.status, StatusCode::CONFLICT, "{}", reseeded.text);
        assert_eq!(reseeded.json["type"], "/problems/draw-lost-in-restore");
        let shown = client.get(&format!("/v1/draws/{draw}")).await;
        assert!(
            shown.json["lost_in_restore_at"].is_u64(),
            "the draw says it is void: {}",
            shown.text
        );
        let rerun = client.post(&format!("/v1/draws/{draw}/run")).await;
        assert_eq!(rerun.status, StatusCode::CONFLICT, "{}", rerun.text);
        assert_eq!(rerun.json["type"], "/problems/draw-lost-in-restore");
    }

    // The lost hands are back: same ids, nonces and cards, revealed.
    for dealt in lost {
        let round = client.get(&format!("/v1/rounds/{}", dealt.id)).await;
        assert_eq!(round.status, StatusCode::OK, "{}", round.text);
        assert_eq!(round.json["nonce"], dealt.nonce);
        assert_eq!(round.json["deal"], dealt.deal, "{}", round.text);
    }
    let pair = client.get(&format!("/v1/seed-pairs/{touched}")).await;
    assert_eq!(pair.json["status"], "revealed", "{}", pair.text);
    // No hand of the touched pair is dealt again, whatever the retry.
    let again = client.deal(touched, holdem()).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);
    // A pair the lost entries never touched goes on.
    let next = client.deal(untouched, holdem()).await;
    assert_eq!(next.status, StatusCode::CREATED, "{}", next.text);
    assert_eq!(next.json["nonce"], 0);

    // The log went on from what was published: a monitor holding state
    // from before the restore accepts it.
    let size = checkpoint_size(client).await;
    assert!(size > published, "{size} > {published}");
    monitor_exits(client.base(), monitor_state, 0).await;
}

/// The drill: a backup, four hands after it (three on a pair from before,
/// one on a pair made after), the service stopped, the backup restored,
/// the service started again: refused until `fairdeal recover`, then the
/// same cards and no second deal. On PostgreSQL a witness cosigns
/// throughout: it never sees an inconsistent checkpoint.
async fn a_restored_backup_never_deals_a_known_hand_again(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let log_path = db.dir.path().join("serve.log");
    let monitor_state = db.dir.path().join("monitor.json");
    // A witness on PostgreSQL (not on SQLite: both ways are drilled).
    let witnessed = backend == Backend::Postgres;
    let witness = DrillWitness::new(&db);
    let mut env = vec![("FAIRDEAL_LOG_INTERVAL", "0.05")];
    if witnessed {
        env.push(("FAIRDEAL_WITNESSES", witness.flag.as_str()));
    }
    let server = deployment.serve(&log_path, &env);
    let client = Client::new(&server.base).with_key(&key);
    let _witness = match witnessed {
        true => Some(witness.start(&client).await),
        false => None,
    };

    let touched = client.active_pair("restore drill").await;
    let untouched = client.active_pair("left alone").await;
    let first = client.deal(&touched, holdem()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let draw = client
        .send(
            client
                .request(
                    reqwest::Method::POST,
                    "/v1/draws?winners=1&client_seed_source=the%20drill",
                )
                .header("content-type", "text/plain")
                .body("ann\nbo\ncy\n"),
        )
        .await;
    assert_eq!(draw.status, StatusCode::CREATED, "{}", draw.text);
    let draw = draw.id();
    let backup = back_up(&db).await;
    // A second witness added after the backup (it never answers): the
    // restored database holds the older set.
    let second = Cosigner::generate("witness.example/second")
        .expect("key")
        .vkey();
    let added = deployment.run(&["witnesses", "add", &format!("{second}@http://127.0.0.1:9")]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    // The draw seeded and run after the backup.
    let seeded = client
        .put_json(
            &format!("/v1/draws/{draw}/client-seed"),
            &json!({"client_seed": "beacon round 1"}),
        )
        .await;
    assert_eq!(seeded.status, StatusCode::OK, "{}", seeded.text);
    let run = client.post(&format!("/v1/draws/{draw}/run")).await;
    assert_eq!(run.status, StatusCode::OK, "{}", run.text);

    let lost = hands_to_lose(&client, &touched).await;
    let later = client.active_pair("after the backup").await;
    let on_later = client.deal(&later, holdem()).await;
    assert_eq!(on_later.status, StatusCode::CREATED, "{}", on_later.text);
    let entries = 15;
    log_reaches(&server.base, entries).await;
    if witnessed {
        wait_cosigned(&client, entries).await;
    }
    let published = checkpoint_size(&client).await;
    monitor_exits(&server.base, &monitor_state, 0).await;
    assert!(server.terminate().success());

    restore(&db, &backup);
    let server = deployment.serve(&log_path, &env);
    let client = Client::new(&server.base).with_key(&key);
    // The backup's set is back in the database, but nothing changes it
    // before recovery, and recovery brings back the set the log states.
    let listed = witnesses_listed(&deployment);
    assert!(!listed.contains("witness.example/second"), "{listed}");
    let third = Cosigner::generate("witness.example/third")
        .expect("key")
        .vkey();
    let refused = deployment.run(&["witnesses", "add", &format!("{third}@http://127.0.0.1:9")]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("fairdeal recover"), "{said}");
    refused_then_recovered(
        &deployment,
        &client,
        BeforeRestore {
            touched: &touched,
            untouched: &untouched,
            later: &later,
            lost: &lost,
            draw: Some(&draw),
            monitor_state: &monitor_state,
            published,
        },
    )
    .await;
    let listed = witnesses_listed(&deployment);
    assert!(listed.contains("witness.example/second"), "{listed}");
    if witnessed {
        // The witness cosigns the recovered log: it never saw a fork.
        let size = checkpoint_size(&client).await;
        wait_cosigned(&client, size).await;
    }
}

/// `fairdeal witnesses list`'s output.
fn witnesses_listed(deployment: &Deployment) -> String {
    let out = deployment.run(&["witnesses", "list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Waits until `/readyz` says the witness cosigned `size` entries or more.
async fn wait_cosigned(client: &Client, size: u64) {
    for _ in 0..400 {
        let text = client.get("/readyz").await.text;
        if text.contains("cosigned the latest checkpoint") && checkpoint_size(client).await >= size
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let text = client.get("/readyz").await.text;
    panic!("the witness did not cosign {size} entries: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sqlite_file_copy_restored_never_deals_a_known_hand_again() {
    a_restored_backup_never_deals_a_known_hand_again(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_postgres_dump_restored_never_deals_a_known_hand_again() {
    a_restored_backup_never_deals_a_known_hand_again(Backend::Postgres).await;
}

/// A dump restored under a running process (its tiles and pairs in
/// memory): the next deal is refused before it commits, and recovery
/// brings the same process back without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_restore_under_a_running_process_is_refused_then_recovered() {
    let Some(drill) = Drill::set_up(Backend::Postgres).await else {
        return;
    };
    let Drill {
        db,
        deployment,
        key,
        monitor_state,
        ..
    } = &drill;
    let env = FAST_LOG;
    let (server, client) = drill.serve(&env);
    // A second process on the same database and mirror, which checkpoints
    // (and so passes over the mirror) only every 30 s: it learns what the
    // first acknowledged only from the mirror, before its own writes.
    let idle = deployment.serve(
        &db.dir.path().join("idle.log"),
        &[("FAIRDEAL_LOG_INTERVAL", "30")],
    );
    let idle_client = Client::new(&idle.base).with_key(key);
    let touched = client.active_pair("restore drill").await;
    let untouched = client.active_pair("left alone").await;
    client.deal(&touched, holdem()).await;
    let backup = back_up(db).await;
    let lost = hands_to_lose(&client, &touched).await;
    let later = client.active_pair("after the backup").await;
    client.deal(&later, holdem()).await;
    log_reaches(&server.base, 11).await;
    let published = checkpoint_size(&client).await;
    monitor_exits(&server.base, monitor_state, 0).await;

    restore(db, &backup);
    // The first deal after the restore, on the other process, before any
    // pass noticed: refused inside its transaction (the index it would
    // take is one the log used), so nonce 1 is not dealt again.
    let refused = idle_client.deal(&touched, holdem()).await;
    assert_behind(&refused);
    let store = db.store(1).await;
    let rounds = store
        .rounds_of_pair(&touched, None, fairdeal::service::store::Order::Oldest, 100)
        .await
        .expect("rounds");
    assert_eq!(rounds.len(), 1, "only nonce 0, from before the backup");
    store.close().await;
    drop(idle);
    refused_then_recovered(
        deployment,
        &client,
        BeforeRestore {
            touched: &touched,
            untouched: &untouched,
            later: &later,
            lost: &lost,
            draw: None,
            monitor_state,
            published,
        },
    )
    .await;
    drop(server);
}

/// A database that holds a log with an empty mirror is refused at start
/// (unless the operator says the mirror is new); an operator who skips
/// recovery that way after a restore is caught by a monitor holding state
/// from before.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_skipped_recovery_is_refused_at_start_and_flagged_by_a_monitor() {
    let Some(drill) = Drill::set_up(Backend::Sqlite).await else {
        return;
    };
    let Drill {
        db,
        deployment,
        monitor_state,
        ..
    } = &drill;
    let env = FAST_LOG;
    let (server, client) = drill.serve(&env);
    let pair = client.active_pair("skipped").await;
    client.deal(&pair, holdem()).await;
    let backup = back_up(db).await;
    for _ in 0..2 {
        client.deal(&pair, holdem()).await;
    }
    log_reaches(&server.base, 5).await;
    monitor_exits(&server.base, monitor_state, 0).await;
    assert!(server.terminate().success());

    restore(db, &backup);
    std::fs::remove_dir_all(db.dir.path().join("log-mirror")).expect("mirror removed");
    let refused = deployment.run_with_env(&["serve", "--listen", "127.0.0.1:0"], &env);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("the log mirror at") && stderr.contains("--log-mirror-new"),
        "{stderr}"
    );

    // Told the mirror is new, it starts: and deals nonce 1 again, which is
    // why a monitor must hold state. Its checkpoint forks from the one the
    // monitor holds.
    let mut told = env.to_vec();
    told.push(("FAIRDEAL_LOG_MIRROR_NEW", "true"));
    let (server, client) = drill.serve(&told);
    for _ in 0..3 {
        let dealt = client.deal(&pair, holdem()).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    }
    log_reaches(&server.base, 5).await;
    monitor_exits(&server.base, monitor_state, 1).await;
}

/// Entries the service's log holds (its metrics say).
async fn log_entries(client: &Client) -> u64 {
    let metrics = client.get("/metrics").await.text;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("fairdeal_log_entries "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no fairdeal_log_entries: {metrics}"))
}

/// A rotation and a chain round's close after the backup: the rotated
/// pair takes its reveal from the log, its successor (whose seed the
/// database held as the pair's next) is revealed, and the chain round the
/// database held gets the seed its close published.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rotation_and_a_chain_close_after_the_backup_are_recovered() {
    let Some(drill) = Drill::set_up(Backend::Sqlite).await else {
        return;
    };
    let Drill {
        db,
        deployment,
        monitor_state,
        ..
    } = &drill;
    let env = FAST_LOG;
    let (server, client) = drill.serve(&env);
    let rotated = client.active_pair("rotated after the backup").await;
    let chain = client
        .post_json(
            "/v1/seed-pairs",
            &json!({"protocol": "fairdeal-chain-v1", "chain_length": 6}),
        )
        .await
        .id();
    let seeded = client
        .put_json(
            &format!("/v1/seed-pairs/{chain}/client-seed"),
            &json!({"client_seed": "a chain"}),
        )
        .await;
    assert_eq!(seeded.status, StatusCode::OK, "{}", seeded.text);
    let chain_round = client.deal(&chain, holdem()).await;
    assert_eq!(
        chain_round.status,
        StatusCode::CREATED,
        "{}",
        chain_round.text
    );
    let chain_round = chain_round.id();
    let backup = back_up(db).await;

    let lost = hands_to_lose(&client, &rotated).await;
    let rotation = client.rotate(&rotated, "the next session").await;
    assert_eq!(rotation.status, StatusCode::OK, "{}", rotation.text);
    let successor = rotation.json["current"]["id"]
        .as_str()
        .expect("a successor")
        .to_owned();
    let on_successor = client.deal(&successor, holdem()).await;
    assert_eq!(
        on_successor.status,
        StatusCode::CREATED,
        "{}",
        on_successor.text
    );
    client.close(&chain_round).await;
    // A chain round dealt after the backup and still in play: recovery
    // deals it again, and ending its pair publishes its seed (no round of
    // a revealed pair is left without one).
    let in_play = client.deal(&chain, holdem()).await;
    assert_eq!(in_play.status, StatusCode::CREATED, "{}", in_play.text);
    let in_play = in_play.id();
    let entries = log_entries(&client).await;
    log_reaches(&server.base, entries).await;
    monitor_exits(&server.base, monitor_state, 0).await;
    assert!(server.terminate().success());

    restore(db, &backup);
    let (server, client) = drill.serve(&env);
    readiness(&client, StatusCode::SERVICE_UNAVAILABLE).await;
    let report = recover(deployment);
    assert_eq!(
        report["reveals_taken_from_log"],
        json!([rotated]),
        "{report:#}"
    );
    assert_eq!(
        report["successors_revealed"],
        json!([successor]),
        "{report:#}"
    );
    assert_eq!(report["pairs_lost"], json!([]), "{report:#}");
    assert_eq!(
        report["round_seeds_restored"],
        json!([chain_round]),
        "{report:#}"
    );
    let mut restored: Vec<String> = lost.iter().map(|d| d.id.clone()).collect();
    restored.push(in_play.clone());
    assert_eq!(report["rounds_restored"], json!(restored), "{report:#}");
    assert_eq!(
        report["rounds_not_restored"][0][0],
        on_successor.id(),
        "{report:#}"
    );
    assert!(
        report["rounds_not_restored"][0][1]
            .as_str()
            .is_some_and(|why| why.contains("a rotation's successor")),
        "{report:#}"
    );
    readiness(&client, StatusCode::OK).await;
    // The chain round is public with its seed, as its close made it.
    let round = client.get(&format!("/v1/rounds/{chain_round}")).await;
    assert!(round.json["server_seed"].is_string(), "{}", round.text);
    assert_eq!(round.json["status"], "closed", "{}", round.text);
    let round = client.get(&format!("/v1/rounds/{in_play}")).await;
    assert_eq!(round.json["status"], "closed", "{}", round.text);
    assert!(round.json["server_seed"].is_string(), "{}", round.text);
    assert_eq!(round.json["nonce"], 1, "{}", round.text);
    // The rotated pair's lost hands are back, and no seed of it deals.
    for dealt in &lost {
        let round = client.get(&format!("/v1/rounds/{}", dealt.id)).await;
        assert_eq!(round.json["deal"], dealt.deal, "{}", round.text);
    }
    let again = client.deal(&rotated, holdem()).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);
    // The log holds the successor's commit and now its reveal: a monitor
    // from before the restore accepts it.
    let size = log_entries(&client).await;
    log_reaches(&server.base, size).await;
    monitor_exits(&server.base, monitor_state, 0).await;
}

/// A mirror that cannot be written: the write it could not acknowledge is
/// refused and says why (nothing acknowledged can be lost), and once the
/// mirror is back the retry with the same Idempotency-Key answers the round
/// that was dealt, not a second one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mirror_that_cannot_be_written_refuses_until_it_can() {
    let Some(drill) = Drill::set_up(Backend::Sqlite).await else {
        return;
    };
    let (_server, client) = drill.serve(&FAST_LOG);
    let pair = client.active_pair("mirror away").await;
    let segments = drill.db.dir.path().join("log-mirror").join("segments");
    let away = drill.db.dir.path().join("log-mirror").join("segments.away");
    std::fs::rename(&segments, &away).expect("moved away");
    std::fs::write(&segments, "not a directory").expect("a file in its place");
    let deal = || {
        client
            .request(
                reqwest::Method::POST,
                &format!("/v1/seed-pairs/{pair}/rounds"),
            )
            .header("idempotency-key", "mirror-away-1")
            .json(&json!({"game": holdem()}))
    };
    let refused = client.send(deal()).await;
    assert_behind(&refused);
    assert!(
        refused.json["detail"]
            .as_str()
            .is_some_and(|d| d.contains("mirror cannot be written")),
        "{}",
        refused.text
    );
    refusal_says(&client, "mirror cannot be written").await;

    std::fs::remove_file(&segments).expect("file removed");
    std::fs::rename(&away, &segments).expect("moved back");
    readiness(&client, StatusCode::OK).await;
    // The first attempt was refused either after its transaction committed
    // (its entry not mirrored: the retry replays that round) or before it
    // began (a pass had already found the mirror unwritable: nothing was
    // kept, and the retry deals). Either way nonce 0 is dealt once.
    let retried = client.send(deal()).await;
    assert!(retried.status.is_success(), "{}", retried.text);
    assert_eq!(retried.json["nonce"], 0, "{}", retried.text);
    let next = client.deal(&pair, holdem()).await;
    assert_eq!(next.status, StatusCode::CREATED, "{}", next.text);
    assert_eq!(next.json["nonce"], 1, "{}", next.text);
}

/// One mirror per database: a process given another mirror is refused at
/// start, and one told the old mirror was lost (`--log-mirror-new` on an
/// empty one) takes the log over, after which every process still on the
/// old mirror refuses writes: no entry is acknowledged only where a
/// recovery would not read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_mirror_for_one_database_is_refused() {
    let Some(drill) = Drill::set_up(Backend::Sqlite).await else {
        return;
    };
    let (_first, client) = drill.serve(&FAST_LOG);
    let pair = client.active_pair("one mirror").await;
    let dealt = client.deal(&pair, holdem()).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);

    let other = drill
        .db
        .dir
        .path()
        .join("other-mirror")
        .display()
        .to_string();
    let mut elsewhere = FAST_LOG.to_vec();
    elsewhere.push(("FAIRDEAL_LOG_MIRROR", other.as_str()));
    let refused = drill
        .deployment
        .run_with_env(&["serve", "--listen", "127.0.0.1:0"], &elsewhere);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("mirrored by the log mirror with id")
            && stderr.contains("--log-mirror-new"),
        "{stderr}"
    );

    elsewhere.push(("FAIRDEAL_LOG_MIRROR_NEW", "true"));
    let second_log = drill.db.dir.path().join("second.log");
    let second = drill.deployment.serve(&second_log, &elsewhere);
    let second_client = Client::new(&second.base).with_key(&drill.key);
    refusal_says(&client, "another log mirror").await;
    let refused = client.deal(&pair, holdem()).await;
    assert_behind(&refused);
    let dealt = second_client.deal(&pair, holdem()).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    assert_eq!(dealt.json["nonce"], 1, "{}", dealt.text);
}

/// Without a mirror, a witness is what knows the database went back: a
/// restored database whose log is behind the witness's checkpoint refuses
/// every write before the first (no hand dealt again, no forking checkpoint
/// signed), and says why and what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_mirror_a_witness_ahead_of_a_restored_database_stops_every_write() {
    let Some(drill) = Drill::set_up(Backend::Sqlite).await else {
        return;
    };
    let witness = DrillWitness::new(&drill.db);
    let env = [
        ("FAIRDEAL_LOG_INTERVAL", "0.05"),
        ("FAIRDEAL_NO_LOG_MIRROR", "true"),
        ("FAIRDEAL_WITNESSES", witness.flag.as_str()),
    ];
    let (server, client) = drill.serve(&env);
    let _witness = witness.start(&client).await;
    let pair = client.active_pair("no mirror").await;
    let first = client.deal(&pair, holdem()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let backup = back_up(&drill.db).await;
    let lost = hands_to_lose(&client, &pair).await;
    let entries = log_entries(&client).await;
    wait_cosigned(&client, entries).await;
    assert!(server.terminate().success());

    restore(&drill.db, &backup);
    let (_server, client) = drill.serve(&env);
    let ready = readiness(&client, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(ready["type"], BEHIND, "{ready}");
    assert!(
        ready["detail"]
            .as_str()
            .is_some_and(|d| d.contains("a witness holds a checkpoint")),
        "{ready}"
    );
    let again = client.deal(&pair, holdem()).await;
    assert_behind(&again);
    let created = client.post_json("/v1/seed-pairs", &json!({})).await;
    assert_eq!(
        created.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        created.text
    );
    let checkpoint = client.get("/log/checkpoint").await;
    assert_eq!(
        checkpoint.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        checkpoint.text
    );
    // Nothing was dealt: the pair's rounds are the one from before the
    // backup, and none of the lost hands' nonces was dealt again.
    let rounds = client.get(&format!("/v1/seed-pairs/{pair}/rounds")).await;
    let listed = rounds.json["rounds"].as_array().expect("rounds").len();
    assert_eq!(listed, 1, "{}", rounds.text);
    assert_eq!(lost.len(), 3);
}
