//! The database and the master key are everything a process needs: the
//! transparency log's key is kept in the database, sealed under the master
//! key, and its origin is chosen once and kept there. Processes in other
//! directories, on other ports, start with `DATABASE_URL` and the master key
//! alone; a later `--log-origin` that differs is refused; a `log.key` file
//! from an older version is taken in once; a start that fails writes no file.

use std::path::Path;
use std::process::Command;

use fairdeal::service::store::Store;

use crate::harness::{
    Backend, Client, Deployment, TestDatabase, log_reaches, run_monitor, run_sql,
};

async fn vkey_of(base: &str) -> String {
    reqwest::get(format!("{base}/log/key"))
        .await
        .expect("the key is served")
        .text()
        .await
        .expect("text")
        .trim()
        .to_owned()
}

/// The files a process left in `dir`.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

async fn any_process_starts_with_the_database_and_the_master_key_alone(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let first_dir = tempfile::tempdir().expect("dir");
    let second_dir = tempfile::tempdir().expect("dir");
    let first = Deployment {
        data_dir: first_dir.path().to_owned(),
        ..Deployment::new(&db)
    };
    let second = Deployment {
        data_dir: second_dir.path().to_owned(),
        ..first.clone()
    };
    let logs = db.dir.path();
    // The one thing they share besides the database: the log mirror
    // (docs/OPERATIONS.md, "Several processes").
    let mirror = logs.join("shared-mirror").display().to_string();
    let shared = [("FAIRDEAL_LOG_MIRROR", mirror.as_str())];
    let a = first.serve(&logs.join("a.log"), &shared);
    let vkey = vkey_of(&a.base).await;
    assert!(vkey.starts_with("fairdeal/log-"), "{vkey}");
    // Another directory, another port: the same log, the same key.
    let b = second.serve(&logs.join("b.log"), &shared);
    assert_eq!(vkey_of(&b.base).await, vkey);
    let key = first.create_key("backend");
    let to_b = Client::new(&b.base).with_key(&key);
    to_b.active_pair("from b").await;
    log_reaches(&a.base, 2).await;
    let (out, report) = run_monitor(&a.base, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert!(a.terminate().success() && b.terminate().success());
    for dir in [first_dir.path(), second_dir.path()] {
        assert!(
            !files_in(dir).iter().any(|f| f.ends_with(".key")),
            "no key file on a process's disk: {:?}",
            files_in(dir)
        );
    }
    // Started again, listening elsewhere: the same log.
    let again = second.serve(&logs.join("c.log"), &shared);
    assert_eq!(vkey_of(&again.base).await, vkey);
    assert!(again.terminate().success());
    // A --log-origin other than the database's is refused, saying why.
    let out = first.run_with_env(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--log-origin",
            "other.example/fairdeal",
        ],
        &shared,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("never changes") && stderr.contains(vkey.split('+').next().unwrap_or("")),
        "{stderr}"
    );
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_process_starts_with_the_database_and_the_master_key_alone_on_sqlite() {
    any_process_starts_with_the_database_and_the_master_key_alone(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_process_starts_with_the_database_and_the_master_key_alone_on_postgres() {
    any_process_starts_with_the_database_and_the_master_key_alone(Backend::Postgres).await;
}

async fn a_log_key_file_from_an_older_version_is_taken_in_once(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let logs = db.dir.path();
    let old_key = "5e".repeat(32);
    let old_origin = "127.0.0.1:8080/fairdeal";
    // The older version: the key in <data dir>/log.key, the origin from the
    // listen address, neither in the database. Its log has entries and
    // checkpoints.
    let old = deployment.serve(
        &logs.join("old.log"),
        &[
            ("FAIRDEAL_LOG_KEY", old_key.as_str()),
            ("FAIRDEAL_LOG_ORIGIN", old_origin),
        ],
    );
    let vkey = vkey_of(&old.base).await;
    let key = deployment.create_key("backend");
    let client = Client::new(&old.base).with_key(&key);
    let pair = client.active_pair("before the upgrade").await;
    client
        .deal(&pair, serde_json::json!({"type": "deck"}))
        .await
        .success();
    log_reaches(&old.base, 3).await;
    assert!(old.terminate().success());
    let store = Store::connect(&db.url, 1).await.expect("connects");
    run_sql(
        &store,
        "DELETE FROM settings WHERE name IN ('log_origin', 'log_key_sealed')",
    )
    .await
    .expect("the settings the older version lacked");
    drop(store);
    std::fs::write(deployment.data_dir.join("log.key"), &old_key).expect("write");

    // The upgrade: started with nothing but the database and the master key.
    let new = deployment.serve(&logs.join("new.log"), &[]);
    assert_eq!(
        vkey_of(&new.base).await,
        vkey,
        "the same log key and origin"
    );
    assert!(vkey.starts_with(&format!("{old_origin}+")));
    client
        .at(&new.base)
        .deal(&pair, serde_json::json!({"type": "deck"}))
        .await
        .success();
    log_reaches(&new.base, 4).await;
    let (out, report) = run_monitor(&new.base, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["rounds"], 2);
    assert!(new.terminate().success());
    // Taken in once: without the file, the database's key still signs.
    std::fs::remove_file(deployment.data_dir.join("log.key")).expect("remove");
    let later = deployment.serve(&logs.join("later.log"), &[]);
    assert_eq!(vkey_of(&later.base).await, vkey);
    assert!(later.terminate().success());
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_key_file_from_an_older_version_is_taken_in_once_on_sqlite() {
    a_log_key_file_from_an_older_version_is_taken_in_once(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_key_file_from_an_older_version_is_taken_in_once_on_postgres() {
    a_log_key_file_from_an_older_version_is_taken_in_once(Backend::Postgres).await;
}

/// A restored database started without its master key: refused, and no
/// key file is left behind in the data directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_fails_writes_no_file() {
    let Some(db) = TestDatabase::create(Backend::Sqlite).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let started = deployment.serve(&db.dir.path().join("first.log"), &[]);
    assert!(started.terminate().success());
    let empty = tempfile::tempdir().expect("dir");
    let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(empty.path())
        .env("DATABASE_URL", &db.url)
        .env_remove("FAIRDEAL_MASTER_KEY")
        .env_remove("FAIRDEAL_MASTER_KEY_FILE")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("sealed under a master key"), "{stderr}");
    assert_eq!(files_in(empty.path()), Vec::<String>::new());
}

/// `keys create` (like every command but `serve`) run where there is no
/// database says where it looked, exits 2, and makes no database and no
/// directory: a key made there would be one the service never sees.
#[test]
fn commands_other_than_serve_never_make_a_database() {
    let empty = tempfile::tempdir().expect("dir");
    let nowhere = empty.path().join("no-such-dir");
    for args in [
        &["keys", "create", "--name", "backend"][..],
        &["keys", "list"][..],
        &["pairs", "list"][..],
        &["export"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args(args)
            .arg("--data-dir")
            .arg(&nowhere)
            .env_remove("DATABASE_URL")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&nowhere.join("fairdeal.db").display().to_string())
                && stderr.contains("fairdeal serve"),
            "{args:?}: {stderr}"
        );
        assert!(!nowhere.exists(), "{args:?} made {}", nowhere.display());
    }
}
