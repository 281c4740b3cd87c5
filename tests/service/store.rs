//! The store below the HTTP layer, on a database no server runs on: the
//! integrator's batches, the one SQLite writer connection after cancelled
//! writes, the WAL checkpoint, and the readers' page cache.

use std::time::Duration;

use fairdeal::service::log::integrator;
use fairdeal::service::store::{Integrated, READER_CACHE_KIB, Store};
use fairdeal::tlog::key::LogKey;

use crate::harness::{Backend, TestDatabase, random_master_key_hex, run_sql};

/// Runs `sql` on the store's pool; the rows it changed.
async fn run(store: &Store, sql: &str) -> u64 {
    run_sql(store, sql).await.expect("the statement runs")
}

/// A migrated store with no server and no integrator running.
async fn bare_store(backend: Backend) -> Option<(TestDatabase, Store)> {
    let db = TestDatabase::create(backend).await?;
    let store = db.store(4).await;
    store.migrate().await.expect("migrate");
    Some((db, store))
}

/// Five entries appended (as event transactions would) and not yet
/// integrated.
async fn five_pending_entries(store: &Store) {
    assert_eq!(
        run(
            store,
            "INSERT INTO log_entries (idx, entry) VALUES \
             (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')",
        )
        .await,
        5
    );
    run(store, "UPDATE log_state SET next_index = 5 WHERE id = 1").await;
}

/// The integrator takes at most a batch per transaction and says whether
/// entries are left; `integrate_now` takes them all, then stops: it does
/// not go on integrating what arrives meanwhile (under a stream of deals
/// that made one checkpoint per commit of deals, and took the writer's
/// turn after each).
async fn the_integrator_takes_a_batch_and_says_what_is_left(backend: Backend) {
    let Some((_db, store)) = bare_store(backend).await else {
        return;
    };
    let key = LogKey::from_hex(&random_master_key_hex(), "test.example/fairdeal").expect("key");
    let sign = |size, root| key.sign_note(&integrator::checkpoint_body(key.origin(), size, &root));
    five_pending_entries(&store).await;
    assert_eq!(
        store.integrate_log(2, sign).await.expect("integrates"),
        Some(Integrated {
            size: 2,
            behind: true
        })
    );
    assert_eq!(
        store.integrate_log(4, sign).await.expect("integrates"),
        Some(Integrated {
            size: 5,
            behind: false
        })
    );
    assert_eq!(store.integrate_log(4, sign).await.expect("nothing"), None);
    assert_eq!(
        integrator::integrate_now(&store, &key, None)
            .await
            .expect("nothing"),
        None
    );
    let checkpoint = store.log_checkpoint().await.expect("read").expect("stored");
    assert_eq!(checkpoint.size, 5);
    assert!(checkpoint.note.starts_with("test.example/fairdeal\n5\n"));
    // The stored hashes are the tree's: the same root as computed from the
    // entries alone.
    let leaves: Vec<&[u8]> = vec![b"zero", b"one", b"two", b"three", b"four"];
    let mut known = fairdeal::tlog::tree::MemoryHashes::default();
    for (n, leaf) in leaves.iter().enumerate() {
        for (i, hash) in fairdeal::tlog::tree::append(n as u64, leaf, &known)
            .expect("append")
            .into_iter()
            .enumerate()
        {
            known.0.insert(
                fairdeal::tlog::tree::first_stored_index(n as u64) + i as u64,
                hash,
            );
        }
    }
    let root = fairdeal::tlog::tree::tree_hash(5, &known).expect("root");
    assert_eq!(checkpoint.root, root.0.to_vec());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_integrator_takes_a_batch_and_says_what_is_left_sqlite() {
    the_integrator_takes_a_batch_and_says_what_is_left(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_integrator_takes_a_batch_and_says_what_is_left_postgres() {
    the_integrator_takes_a_batch_and_says_what_is_left(Backend::Postgres).await;
}

/// Two integrators read the same pending entries (two processes): one
/// stores its checkpoint, the other finds the tree grown and stores
/// nothing; the tree is the one either would have made.
async fn racing_integrators_store_one_checkpoint(backend: Backend) {
    let Some((_db, store)) = bare_store(backend).await else {
        return;
    };
    let key = LogKey::from_hex(&random_master_key_hex(), "test.example/fairdeal").expect("key");
    let sign = |size, root| key.sign_note(&integrator::checkpoint_body(key.origin(), size, &root));
    five_pending_entries(&store).await;
    let (a, b) = tokio::join!(store.integrate_log(10, sign), store.integrate_log(10, sign));
    let outcomes = [a.expect("one"), b.expect("other")];
    let stored: Vec<_> = outcomes.iter().flatten().collect();
    assert!(
        !stored.is_empty() && stored.iter().all(|done| done.size == 5),
        "{outcomes:?}"
    );
    let checkpoints = run(
        &store,
        "UPDATE log_checkpoints SET size = size WHERE size = 5",
    )
    .await;
    assert_eq!(checkpoints, 1);
    let hashes = run(&store, "UPDATE log_hashes SET idx = idx").await;
    // Five leaves stored, plus the interior hashes of the full subtrees
    // 0–1, 2–3 and 0–3.
    assert_eq!(hashes, 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_integrators_store_one_checkpoint_sqlite() {
    racing_integrators_store_one_checkpoint(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_integrators_store_one_checkpoint_postgres() {
    racing_integrators_store_one_checkpoint(Backend::Postgres).await;
}

/// Every SQLite write of a process goes through one connection. A write
/// given up half way (its request's client went away, a timeout) must not
/// leave that connection in a transaction: the next write works, and
/// commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_write_leaves_the_writer_usable() {
    let Some((_db, store)) = bare_store(Backend::Sqlite).await else {
        return;
    };
    for (n, micros) in [0u64, 1, 10, 50, 100, 200, 500, 1000, 5000]
        .into_iter()
        .enumerate()
    {
        let name = format!("cancelled-{n}");
        let _ = tokio::time::timeout(
            Duration::from_micros(micros),
            store.claim_setting(&name, "first"),
        )
        .await;
        // Whether or not the cancelled write committed, this one does, and
        // reads what is stored.
        let stored = tokio::time::timeout(
            Duration::from_secs(10),
            store.claim_setting(&name, "second"),
        )
        .await
        .expect("the writer is not stuck")
        .expect("the write works");
        assert!(stored == "first" || stored == "second", "{stored}");
        let again = store.claim_setting(&name, "third").await.expect("write");
        assert_eq!(again, stored, "the value is stored for good");
    }
}

/// The server checkpoints SQLite's WAL from a reader connection: with no
/// reader in the way, every frame is copied back. PostgreSQL has nothing
/// to checkpoint.
async fn the_wal_is_checkpointed_off_the_writer(backend: Backend) {
    let Some((_db, store)) = bare_store(backend).await else {
        return;
    };
    for n in 0..20 {
        store
            .claim_setting(&format!("setting-{n}"), "value")
            .await
            .expect("write");
    }
    let checkpoint = store.checkpoint_wal().await.expect("checkpoint");
    match backend {
        Backend::Postgres => assert_eq!(checkpoint, None),
        Backend::Sqlite => {
            let (frames, copied) = checkpoint.expect("SQLite has a WAL");
            assert!(frames >= 20, "each commit writes frames: {frames}");
            assert_eq!(copied, frames, "every frame is in the database");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_is_checkpointed_off_the_writer_sqlite() {
    the_wal_is_checkpointed_off_the_writer(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_is_checkpointed_off_the_writer_postgres() {
    the_wal_is_checkpointed_off_the_writer(Backend::Postgres).await;
}

/// Pooled SQLite connections only read, so each keeps a small page cache
/// of its own (memory: each one copies the pages it reads); the writer
/// keeps SQLite's default of 2,000 KiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_readers_keep_a_small_page_cache_and_the_writer_the_default() {
    let Some((_db, store)) = bare_store(Backend::Sqlite).await else {
        return;
    };
    let Store::Sqlite(pool, writer, _) = &store else {
        panic!("a SQLite store");
    };
    for _ in 0..4 {
        let reader: i64 = sqlx::query_scalar("PRAGMA cache_size")
            .fetch_one(pool)
            .await
            .expect("pragma");
        assert_eq!(
            reader,
            -i64::from(READER_CACHE_KIB),
            "KiB, as SQLite says it"
        );
    }
    let mut writer = writer.lock().await;
    let written: i64 = sqlx::query_scalar("PRAGMA cache_size")
        .fetch_one(&mut *writer)
        .await
        .expect("pragma");
    assert_eq!(written, -2000);
}
