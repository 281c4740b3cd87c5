//! Upgrading a database that already holds pairs and rounds: migration 0010
//! (table pairs) rebuilds SQLite's `seed_pairs` and changes PostgreSQL's
//! checks, 0011 makes the idempotency keys' unique constraint a partial
//! index (rebuilding SQLite's `rounds`); every row survives, foreign keys
//! and unique keys still hold, and the service goes on dealing, rotating
//! and exporting the old pairs.

use std::borrow::Cow;

use fairdeal::service::store::Store;
use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{Backend, TestDatabase, run_sql as run, serve_app};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

async fn upgrade(backend: Backend) {
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let store = db.store(4).await;
    // The schema as it was before table pairs.
    let dir = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let mut before =
        sqlx::migrate::Migrator::new(std::path::Path::new(&format!("{ROOT}/migrations/{dir}")))
            .await
            .expect("read the migrations");
    before.migrations = Cow::Owned(
        before
            .migrations
            .iter()
            .filter(|m| m.version < 10)
            .cloned()
            .collect(),
    );
    match &store {
        Store::Sqlite(pool, ..) => before.run(pool).await,
        Store::Postgres(pool, _) => before.run(pool).await,
    }
    .expect("migrate to 0009");
    // A revealed pair with a round, its active successor, a pair awaiting
    // its client seed (sealed bytes are placeholders: nothing opens them).
    run(
        &store,
        "INSERT INTO seed_pairs (id, status, server_seed_hash, server_seed, next_server_seed_hash, \
           client_seed, next_nonce, created_at, revealed_at, reveal_seq) \
         VALUES ('old', 'revealed', 'h0', 'seed', 'h1', 'c', 1, 1, 2, 1); \
         INSERT INTO seed_pairs (id, status, server_seed_hash, server_seed_sealed, next_server_seed_hash, \
           next_server_seed_sealed, client_seed, next_nonce, created_at, predecessor_id) \
         VALUES ('new', 'active', 'h1', 'x', 'h2', 'y', 'c', 0, 2, 'old'); \
         UPDATE seed_pairs SET successor_id = 'new' WHERE id = 'old'; \
         INSERT INTO seed_pairs (id, status, server_seed_hash, server_seed_sealed, next_server_seed_hash, \
           next_server_seed_sealed, created_at, label) \
         VALUES ('waiting', 'awaiting_client_seed', 'h3', 'x', 'h4', 'y', 3, 'table-1'); \
         INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at, \
           idempotency_key) \
         VALUES ('r0', 'old', 0, '{\"type\":\"deck\"}', '{}', 'closed', 1, 'hand-1');",
    )
    .await
    .expect("rows of the old schema");

    store.migrate().await.expect("migrate to the latest");

    let count = |sql: &'static str| {
        let store = store.clone();
        async move {
            match &store {
                Store::Sqlite(pool, ..) => sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await,
                Store::Postgres(pool, _) => sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await,
            }
            .expect("count")
        }
    };
    assert_eq!(count("SELECT COUNT(*) FROM seed_pairs").await, 3);
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM seed_pairs WHERE id = 'new' AND predecessor_id = 'old' \
             AND status = 'active' AND seats IS NULL"
        )
        .await,
        1
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM seed_pairs WHERE successor_id = 'new' AND reveal_seq = 1")
            .await,
        1
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM rounds WHERE seed_pair_id = 'old'").await,
        1
    );
    // The rebuilt tables still enforce their keys and their checks.
    for (sql, rule) in [
        (
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at) \
             VALUES ('orphan', 'no-such-pair', 0, '{}', '{}', 'closed', 1)",
            "a round of a missing pair is refused",
        ),
        (
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at, \
               idempotency_key) VALUES ('again', 'old', 5, '{}', '{}', 'closed', 1, 'hand-1')",
            "an idempotency key is still unique on its pair",
        ),
        (
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at) \
             VALUES ('r0', 'old', 6, '{}', '{}', 'closed', 1)",
            "a round id is still unique",
        ),
        (
            "INSERT INTO rounds (id, seed_pair_id, nonce, game, deal, status, created_at) \
             VALUES ('dup-nonce', 'old', 0, '{}', '{}', 'closed', 1)",
            "a nonce is still unique on its pair",
        ),
        (
            "UPDATE seed_pairs SET status = 'void' WHERE id = 'new'",
            "a void pair must have its seed in the clear and a phase",
        ),
        (
            "UPDATE seed_pairs SET status = 'awaiting_contributions' WHERE id = 'waiting'",
            "a table awaiting contributions has seats and a deadline",
        ),
        (
            "UPDATE seed_pairs SET status = 'open' WHERE id = 'waiting'",
            "a status is one of the five",
        ),
    ] {
        assert!(run(&store, sql).await.is_err(), "{rule}");
    }
    for index in [
        "seed_pairs_reveal_seq",
        "seed_pairs_by_tenant",
        "seed_pairs_by_tenant_label",
        "seed_pairs_client_seed",
        "seed_pairs_phase_deadline",
        "rounds_pair_idempotency_unique",
        "rounds_in_play",
    ] {
        let sql = match backend {
            Backend::Sqlite => {
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = $1"
            }
            Backend::Postgres => "SELECT COUNT(*) FROM pg_indexes WHERE indexname = $1",
        };
        let n: i64 = match &store {
            Store::Sqlite(pool, ..) => sqlx::query_scalar(sql).bind(index).fetch_one(pool).await,
            Store::Postgres(pool, _) => sqlx::query_scalar(sql).bind(index).fetch_one(pool).await,
        }
        .expect("index lookup");
        assert_eq!(n, 1, "index {index} after the upgrade");
    }
    // The idempotency keys' index holds only the rounds that have one.
    let sql = match backend {
        Backend::Sqlite => {
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'rounds_pair_idempotency_unique' \
             AND sql LIKE '%WHERE idempotency_key IS NOT NULL%'"
        }
        Backend::Postgres => {
            "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'rounds_pair_idempotency_unique' \
             AND indexdef LIKE '%WHERE (idempotency_key IS NOT NULL)%'"
        }
    };
    assert_eq!(count(sql).await, 1, "a partial index");

    // The service runs on the upgraded database: the old pairs read as
    // before, the export still holds the old revealed pair, and tables work.
    let app = serve_app(db, store).await;
    let old = app.public.get("/v1/seed-pairs/old").await.success();
    assert_eq!(old["status"], "revealed");
    assert_eq!(old["successor_id"], "new");
    assert!(old.get("table").is_none());
    let export = app.public.get("/v1/export").await;
    assert!(export.text.contains("\"id\":\"old\""), "{}", export.text);
    let table = app
        .operator
        .post_json("/v1/seed-pairs", &json!({"seats": ["a", "b"]}))
        .await;
    assert_eq!(table.status, StatusCode::CREATED, "{}", table.text);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgraded_sqlite_database_keeps_every_row_and_its_keys() {
    upgrade(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgraded_postgres_database_keeps_every_row_and_its_keys() {
    upgrade(Backend::Postgres).await;
}
