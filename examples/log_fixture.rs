//! Writes a transparency log of any size as the static files a fairdeal
//! service serves under `/log/` (C2SP tlog-tiles: key, signed checkpoint,
//! entry bundles, hash tiles), for measuring `fairdeal monitor` and
//! `fairdeal audit --log` on large logs without dealing them first.
//!
//! cargo run --release --example log_fixture -- OUT_DIR ENTRIES [TIME_MS]
//! python3 -m http.server --directory OUT_DIR 8099 &
//! fairdeal monitor http://127.0.0.1:8099 --key "$(cat OUT_DIR/log/key)"
//!
//! The log is honest and varied: pairs of four tenants, each committed,
//! given a client seed, dealt six rounds and revealed (nine in ten open
//! their successor by rotation, the tenth ends its session), a draw every
//! hundred pairs and a table voided in its commit phase every thousand. The
//! monitor should find nothing in it (ids are time-ordered UUIDs, as the
//! service makes them). OUT_DIR/export.ndjson is the export
//! of its pairs (every pair whose entries are all in the log), for
//! `fairdeal audit OUT_DIR/export.ndjson --log URL`. With the same TIME_MS (entries' time,
//! by default now), a log of more entries extends one of fewer: a monitor's
//! incremental run is measured from one to the other.
//!
//! With `--database URL` (`sqlite://PATH` or `postgres://…`) the entries go
//! into a fairdeal service's database instead of files: appended to its
//! empty log as its own events would be (`log_entries`, `log_state`), for
//! the service's integrator to fold into its tree, tiles and checkpoints
//! when it next starts. The database must have been migrated (started
//! once) and its log be empty; the export still goes to OUT_DIR.
//! `benches/monitor/run.sh` uses it to measure a ten-million-entry log
//! served by the service itself.

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use fairdeal::audit::export::{ExportEnd, ExportPair, ExportRound, LogCoverage, RevealedPair};
use serde_json::value::to_raw_value;

use fairdeal::text::lookalike_sha256;
use fairdeal::tlog::entry::{Entry, client_seed_sha256, seat_set};
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tiles::{TILE_WIDTH, TilePath, entry_bundle};
use fairdeal::tlog::tree::{ExpectedTile, TileBuilder};
use fairdeal_core::{ClientSeed, Draw, Game, ServerSeed, deal, draw};
use sha2::{Digest, Sha256};

const ORIGIN: &str = "fixture.example/log";

/// Writes entries as bundles and tiles as they come, or into a database.
struct Writer {
    dir: PathBuf,
    limit: u64,
    tree: TileBuilder,
    bundle: Vec<Vec<u8>>,
    database: Option<Database>,
}

/// A service's database taking the entries, a batch per transaction.
struct Database {
    runtime: tokio::runtime::Runtime,
    pool: Pool,
    /// Entries appended so far (the next entry's index).
    written: i64,
}

enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

/// Entries per transaction.
const DATABASE_BATCH: usize = 8192;

impl Database {
    fn open(url: &str) -> anyhow::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        const NEXT: &str = "SELECT next_index FROM log_state WHERE id = 1";
        let (pool, next) = runtime.block_on(async {
            anyhow::Ok(if url.starts_with("postgres") {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await?;
                let (next,): (i64,) = sqlx::query_as(NEXT).fetch_one(&pool).await?;
                (Pool::Postgres(pool), next)
            } else {
                let pool = sqlx::sqlite::SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await?;
                let (next,): (i64,) = sqlx::query_as(NEXT).fetch_one(&pool).await?;
                (Pool::Sqlite(pool), next)
            })
        })?;
        anyhow::ensure!(
            next == 0,
            "the database's log already holds {next} entries: load into a new service's database"
        );
        Ok(Self {
            runtime,
            pool,
            written: 0,
        })
    }

    /// Appends `entries` in one transaction, with `log_state.next_index`.
    fn append(&mut self, entries: &[Vec<u8>]) -> anyhow::Result<()> {
        let first = self.written;
        let next = first + entries.len() as i64;
        // Multi-row inserts, within both databases' limits on a
        // statement's parameters.
        const ROWS: usize = 500;
        let indexes = |c: usize, n: usize| (0..n).map(move |i| first + (c * ROWS + i) as i64);
        // The same statements on either backend (QueryBuilder writes each
        // one's placeholders).
        macro_rules! append_with {
            ($pool:expr) => {
                self.runtime.block_on(async {
                    let mut tx = $pool.begin().await?;
                    for (c, chunk) in entries.chunks(ROWS).enumerate() {
                        let mut insert =
                            sqlx::QueryBuilder::new("INSERT INTO log_entries (idx, entry) ");
                        insert.push_values(
                            indexes(c, chunk.len()).zip(chunk),
                            |mut row, (i, e)| {
                                row.push_bind(i).push_bind(e.as_slice());
                            },
                        );
                        insert.build().execute(&mut *tx).await?;
                    }
                    sqlx::query("UPDATE log_state SET next_index = $1 WHERE id = 1")
                        .bind(next)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    anyhow::Ok(())
                })?
            };
        }
        match &self.pool {
            Pool::Sqlite(pool) => append_with!(pool),
            Pool::Postgres(pool) => append_with!(pool),
        }
        self.written = next;
        Ok(())
    }
}

impl Writer {
    fn file(&self, path: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.dir.join("log").join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        Ok(std::fs::write(path, bytes)?)
    }

    fn tiles(&self, tiles: Vec<ExpectedTile>) -> anyhow::Result<()> {
        if self.database.is_some() {
            return Ok(());
        }
        for tile in tiles {
            let path = TilePath {
                level: Some(tile.level),
                index: tile.index,
                width: tile.width(),
            };
            self.file(&path.path(), &tile.bytes())?;
        }
        Ok(())
    }

    fn flush_bundle(&mut self) -> anyhow::Result<()> {
        if self.bundle.is_empty() {
            return Ok(());
        }
        if let Some(database) = &mut self.database {
            database.append(&self.bundle)?;
            self.bundle.clear();
            return Ok(());
        }
        let first = self.tree.leaves() - self.bundle.len() as u64;
        let path = TilePath {
            level: None,
            index: first / TILE_WIDTH,
            width: self.bundle.len() as u64,
        };
        let bytes = entry_bundle(self.bundle.iter().map(Vec::as_slice))?;
        self.bundle.clear();
        self.file(&path.path(), &bytes)
    }

    /// Appends an entry; false once the log is as long as asked.
    fn push(&mut self, entry: Entry) -> anyhow::Result<bool> {
        if self.tree.leaves() == self.limit {
            return Ok(false);
        }
        let bytes = entry.to_bytes()?;
        let tiles = self.tree.push(&bytes);
        self.bundle.push(bytes);
        let full = match self.database {
            Some(_) => DATABASE_BATCH,
            None => TILE_WIDTH as usize,
        };
        if self.bundle.len() == full {
            self.flush_bundle()?;
        }
        self.tiles(tiles)?;
        Ok(true)
    }
}

fn seed(kind: &str, n: u64) -> ServerSeed {
    let mut hash = Sha256::new();
    hash.update(kind.as_bytes());
    hash.update(n.to_be_bytes());
    ServerSeed::from_bytes(hash.finalize().into())
}

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let database = match args.iter().position(|arg| arg == "--database") {
        Some(at) if at + 1 < args.len() => {
            let url = args.remove(at + 1);
            args.remove(at);
            Some(Database::open(&url)?)
        }
        Some(_) => anyhow::bail!("--database takes the service's database URL"),
        None => None,
    };
    let (dir, entries, at) = match &args[..] {
        [dir, entries] => (dir, entries, fairdeal::time::now_ms()),
        [dir, entries, at] => (dir, entries, at.parse()?),
        _ => anyhow::bail!("usage: log_fixture [--database URL] OUT_DIR ENTRIES [TIME_MS]"),
    };
    let limit: u64 = entries.parse()?;
    let key = LogKey::from_hex(&"0f".repeat(32), ORIGIN)?;
    let mut out = Writer {
        dir: Path::new(dir).to_owned(),
        limit,
        tree: TileBuilder::default(),
        bundle: Vec::new(),
        database,
    };
    // Ids in the service's form: time-ordered UUIDs (version 7, the
    // millisecond first), here a millisecond a pair from TIME_MS and the
    // pair's number last, so that the same arguments give the same log and
    // a longer log extends a shorter one. Pairs, draws and tables differ
    // in the variant's digit.
    let time = fairdeal::time::timestamp(at);
    let uuid = |p: u64, kind: char| {
        let ms = (at as u64).wrapping_add(p) & 0xffff_ffff_ffff;
        format!(
            "{:08x}-{:04x}-7000-{kind}000-{p:012x}",
            ms >> 16,
            ms & 0xffff
        )
    };
    let pair_id = |p: u64| uuid(p, '8');
    // The export of the same pairs (`fairdeal audit export.ndjson --log`):
    // every pair whose entries are all in the log, with its rounds' deals.
    std::fs::create_dir_all(dir)?;
    let mut export = BufWriter::new(std::fs::File::create(Path::new(dir).join("export.ndjson"))?);
    let game: Game = serde_json::from_value(serde_json::json!({"type": "holdem", "players": 6}))?;
    let mut exported = 0u64;
    let mut p = 0u64;
    'log: loop {
        let (current, next) = (seed("pair", p), seed("pair", p + 1));
        let tenant = format!("{:032x}", p % 4);
        let opens_successor = !(p + 1).is_multiple_of(10);
        let commit = Entry::Commit {
            seed_pair: pair_id(p),
            server_seed_hash: current.commitment().to_string(),
            next_server_seed_hash: next.commitment().to_string(),
            predecessor: (!p.is_multiple_of(10)).then(|| pair_id(p - 1)),
            tenant: Some(tenant.clone()),
            seats: None,
            seat_set: None,
            chain_length: None,
            time: time.clone(),
        };
        let client_seed = format!("player {p}");
        let mut events = vec![
            commit,
            Entry::ClientSeed {
                seed_pair: pair_id(p),
                client_seed_sha256: client_seed_sha256(&client_seed),
                client_seed_lookalike_sha256: Some(lookalike_sha256(&client_seed)),
                time: time.clone(),
            },
        ];
        for nonce in 0..6 {
            events.push(Entry::Round {
                seed_pair: pair_id(p),
                round: format!("{:08x}-0000-4000-8000-{p:012x}", nonce + 1),
                nonce,
                game: serde_json::to_value(game)?,
                time: time.clone(),
            });
        }
        events.push(Entry::Reveal {
            seed_pair: pair_id(p),
            server_seed: current.reveal_hex(),
            successor: opens_successor.then(|| pair_id(p + 1)),
            time: time.clone(),
        });
        if p % 100 == 99 {
            let (id, server) = (uuid(p, '9'), seed("draw", p));
            let client = ClientSeed::new(format!("beacon {p}"))?;
            let winners = draw(&server, &client, 0, Draw::new(1000, 3)?);
            events.push(Entry::DrawCommit {
                draw: id.clone(),
                entries_sha256: hex::encode(Sha256::digest(id.as_bytes())),
                entries: 1000,
                winners: 3,
                server_seed_hash: server.commitment().to_string(),
                client_seed_source_sha256: hex::encode(Sha256::digest(b"beacon")),
                tenant: Some(tenant.clone()),
                time: time.clone(),
            });
            events.push(Entry::DrawClientSeed {
                draw: id.clone(),
                client_seed_sha256: client_seed_sha256(client.as_str()),
                client_seed_lookalike_sha256: Some(lookalike_sha256(client.as_str())),
                time: time.clone(),
            });
            events.push(Entry::DrawResult {
                draw: id,
                winners,
                server_seed: server.reveal_hex(),
                time: time.clone(),
            });
        }
        if p % 1000 == 999 {
            let (id, server) = (uuid(p, 'a'), seed("table", p));
            let labels = vec![format!("north {p}"), format!("south {p}")];
            events.push(Entry::Commit {
                seed_pair: id.clone(),
                server_seed_hash: server.commitment().to_string(),
                next_server_seed_hash: seed("table next", p).commitment().to_string(),
                predecessor: None,
                tenant: Some(tenant),
                seats: Some(labels.iter().map(|l| client_seed_sha256(l)).collect()),
                seat_set: Some(seat_set(&labels)),
                chain_length: None,
                time: time.clone(),
            });
            events.push(Entry::TableVoid {
                seed_pair: id,
                phase: "commit".to_owned(),
                stalled_seats: vec![0, 1],
                server_seed: server.reveal_hex(),
                time: time.clone(),
            });
        }
        for event in events {
            if !out.push(event)? {
                break 'log;
            }
        }
        // Every entry of the pair is in: its export lines.
        let pair = RevealedPair {
            id: &pair_id(p),
            server_seed_hash: &current.commitment().to_string(),
            server_seed: &current.reveal_hex(),
            client_seed: &client_seed,
        };
        let line = ExportPair::new(pair, p as i64, 6, time.clone(), time.clone());
        writeln!(export, "{}", serde_json::to_string(&line)?)?;
        let client = ClientSeed::new(client_seed.clone())?;
        for nonce in 0..6 {
            let dealt = deal(&current, &client, nonce, game);
            let round = ExportRound::new(
                pair,
                format!("{:08x}-0000-4000-8000-{p:012x}", nonce + 1),
                nonce,
                to_raw_value(&game)?,
                to_raw_value(&dealt)?,
                time.clone(),
            );
            writeln!(export, "{}", serde_json::to_string(&round)?)?;
        }
        exported += 1;
        p += 1;
    }
    writeln!(
        export,
        "{}",
        serde_json::to_string(
            &ExportEnd::new(exported, exported * 6).covering(LogCoverage {
                from: 0,
                size: limit
            })
        )?
    )?;
    export.flush()?;
    out.flush_bundle()?;
    if out.database.is_some() {
        eprintln!("{limit} entries ({p} pairs) appended to the database's log");
        return Ok(());
    }
    let partial = out.tree.partial_tiles();
    out.tiles(partial)?;
    let checkpoint = key.sign_note(&format!("{ORIGIN}\n{limit}\n{}\n", out.tree.root()))?;
    out.file("checkpoint", checkpoint.as_bytes())?;
    out.file("key", format!("{}\n", key.vkey()).as_bytes())?;
    eprintln!("{limit} entries ({p} pairs) written under {dir}/log");
    Ok(())
}
