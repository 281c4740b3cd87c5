//! `fairdeal witness` end to end: the real binary, answering
//! c2sp.org/tlog-witness add-checkpoint requests for logs built here with
//! the crate's own log key and tree code, SQLite and PostgreSQL.
//!
//! PostgreSQL tests run when `TEST_DATABASE_URL` names a server
//! (`postgres://USER@HOST:5432/DB`); each makes a scratch database and
//! drops it. Without the variable they print a note and pass.

use fairdeal_test_support::witness_process;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use fairdeal::tlog::cosignature::CosignatureVerifier;
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tree::{Hash, MemoryHashes, consistency_proof, stored_hashes_of, tree_hash};
use witness_process::WitnessProcess;

const ORIGIN: &str = "example.com/witnessed-log";
const NAME: &str = "witness.example/w1";

// ---------------------------------------------------------------- logs

/// A log: its key and entries (a fork shares the key and a prefix).
struct Log {
    key: LogKey,
    entries: Vec<Vec<u8>>,
    hashes: MemoryHashes,
}

impl Log {
    fn new(seed: u8) -> Self {
        let key = LogKey::from_bytes(&[seed; 32], ORIGIN).expect("log key");
        Self {
            key,
            entries: Vec::new(),
            hashes: MemoryHashes::default(),
        }
    }

    /// Appends `n` entries tagged `tag` (forks differ by their tags).
    fn grow(&mut self, n: usize, tag: &str) -> &mut Self {
        let start = self.entries.len();
        self.entries
            .extend((start..start + n).map(|i| format!("{tag} entry {i}").into_bytes()));
        self.hashes = stored_hashes_of(&self.entries).expect("hashes");
        self
    }

    /// The same key, the first `at` entries, nothing after.
    fn fork(&self, at: usize) -> Self {
        let mut fork = Self {
            key: LogKey::from_bytes(&self.key.seed(), ORIGIN).expect("key"),
            entries: self.entries[..at].to_vec(),
            hashes: MemoryHashes::default(),
        };
        fork.grow(0, "");
        fork
    }

    fn size(&self) -> u64 {
        self.entries.len() as u64
    }

    fn root(&self, size: u64) -> Hash {
        tree_hash(size, &self.hashes).expect("root")
    }

    fn body(&self, size: u64) -> String {
        format!("{ORIGIN}\n{size}\n{}\n", BASE64.encode(self.root(size).0))
    }

    /// The signed checkpoint of the first `size` entries.
    fn checkpoint(&self, size: u64) -> String {
        self.key.sign_note(&self.body(size)).expect("signed")
    }

    fn proof(&self, old: u64, size: u64) -> Vec<Hash> {
        if old == 0 || old == size {
            return Vec::new();
        }
        consistency_proof(size, old, &self.hashes).expect("proof")
    }

    /// An add-checkpoint body from `old` to the whole log.
    fn request(&self, old: u64) -> String {
        let size = self.size();
        body(old, &self.proof(old, size), &self.checkpoint(size))
    }
}

fn body(old: u64, proof: &[Hash], note: &str) -> String {
    let lines: String = proof
        .iter()
        .map(|h| format!("{}\n", BASE64.encode(h.0)))
        .collect();
    format!("old {old}\n{lines}\n{note}")
}

// ---------------------------------------------------------- processes

/// A `fairdeal witness` of the test log (`WitnessProcess`, killed when
/// dropped), and what these tests post to it.
struct Witness(WitnessProcess);

impl std::ops::Deref for Witness {
    type Target = WitnessProcess;
    fn deref(&self) -> &WitnessProcess {
        &self.0
    }
}

impl Witness {
    /// Starts a witness of the log keyed `log` with its data in `dir`.
    fn start(dir: &Path, log: &LogKey, database_url: Option<&str>) -> Self {
        let extra: Vec<&str> = database_url
            .map(|url| vec!["--database-url", url])
            .unwrap_or_default();
        Self(WitnessProcess::start(
            dir,
            "127.0.0.1:0",
            NAME,
            ORIGIN,
            &log.vkey(),
            &extra,
        ))
    }

    /// Posts an add-checkpoint body: (status, content type, body).
    async fn add(&self, body: impl Into<reqwest::Body>) -> (u16, String, String) {
        let response = reqwest::Client::new()
            .post(format!("{}/add-checkpoint", self.url))
            .body(body)
            .send()
            .await
            .expect("add-checkpoint answered");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = response.text().await.expect("body");
        assert_ne!(
            status,
            500,
            "500: {text} / {}",
            std::fs::read_to_string(&self.stderr).unwrap_or_default()
        );
        (status, content_type, text)
    }

    /// Posts and expects a cosignature of `note` that verifies: its time.
    async fn cosigned(&self, request: &str, note: &str) -> u64 {
        let (status, content_type, text) = self.add(request.to_owned()).await;
        assert_eq!(status, 200, "{text}");
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        assert!(text.starts_with(&format!("\u{2014} {NAME} ")), "{text}");
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "{text:?}"
        );
        self.verifier()
            .verify_note(&format!("{note}{text}"))
            .unwrap_or_else(|| panic!("the cosignature {text:?} does not verify"))
    }

    async fn refused(&self, request: &str) -> (u16, String, String) {
        let answer = self.add(request.to_owned()).await;
        assert_ne!(answer.0, 200, "cosigned what it must refuse: {request}");
        answer
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

// ---------------------------------------------------------- PostgreSQL

/// A scratch database on `TEST_DATABASE_URL`'s server, dropped by `drop_it`.
struct ScratchDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    async fn create() -> Option<Self> {
        let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: PostgreSQL witness test (set TEST_DATABASE_URL=postgres://USER@HOST:5432/DB to run it)"
            );
            return None;
        };
        let name = format!("fairdeal_witness_test_{}", uuid::Uuid::new_v4().simple());
        let admin = sqlx::PgPool::connect(&admin_url).await.unwrap_or_else(|e| {
            panic!("TEST_DATABASE_URL is set but PostgreSQL does not answer: {e}")
        });
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&admin)
            .await
            .expect("create a scratch database");
        admin.close().await;
        let base = admin_url.split('?').next().unwrap_or(&admin_url);
        let (server, _) = base.rsplit_once('/').expect("the URL names a database");
        let url = format!("{server}/{name}");
        Some(Self {
            admin_url,
            name,
            url,
        })
    }

    async fn drop_it(self) {
        if let Ok(admin) = sqlx::PgPool::connect(&self.admin_url).await {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            )))
            .execute(&admin)
            .await;
            admin.close().await;
        }
    }
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn the_first_checkpoint_is_cosigned_and_its_line_verifies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(1);
    log.grow(24, "main");
    let witness = Witness::start(dir.path(), &log.key, None);
    // The printed vkey is the one `--print-vkey` gives for the key file.
    let printed = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["witness", "--name", NAME, "--print-vkey", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("print-vkey");
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout).trim(),
        witness.vkey
    );
    let before = unix_now();
    let time = witness.cosigned(&log.request(0), &log.checkpoint(24)).await;
    assert!((before..=unix_now()).contains(&time), "{time}");
    // The cosignature is over the body alone: the log's own line still
    // verifies next to it, and another witness key does not take it.
    let other = fairdeal::tlog::cosignature::Cosigner::from_bytes(&[9; 32], NAME).expect("key");
    let (_, _, line) = witness.add(log.request(24)).await;
    let cosigned = format!("{}{line}", log.checkpoint(24));
    assert!(fairdeal::tlog::key::verify_note(&cosigned, &log.key.vkey()).is_ok());
    assert_eq!(other.verifier().verify_note(&cosigned), None);
    // The key file is the owner's alone.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("witness.key"))
            .expect("key file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Health.
    let health = reqwest::get(format!("{}/healthz", witness.url))
        .await
        .expect("healthz");
    assert_eq!(health.status().as_u16(), 200);
}

#[tokio::test]
async fn an_extension_with_a_valid_proof_is_cosigned_and_the_same_checkpoint_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(2);
    log.grow(10, "main");
    let witness = Witness::start(dir.path(), &log.key, None);
    witness.cosigned(&log.request(0), &log.checkpoint(10)).await;
    for (old, grow) in [(10, 27), (37, 1), (38, 0), (38, 26)] {
        log.grow(grow, "main");
        let size = log.size();
        assert!(
            witness
                .verifier()
                .verify_note(&log.checkpoint(size))
                .is_none()
        );
        witness
            .cosigned(&log.request(old), &log.checkpoint(size))
            .await;
    }
    // Re-submitting the checkpoint held (old = its size, empty proof).
    witness
        .cosigned(&log.request(64), &log.checkpoint(64))
        .await;
}

#[tokio::test]
async fn every_refusal_has_its_status_and_body() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(3);
    log.grow(10, "main");
    let witness = Witness::start(dir.path(), &log.key, None);
    witness.cosigned(&log.request(0), &log.checkpoint(10)).await;
    log.grow(6, "main");
    let plain = "text/plain; charset=utf-8";

    // Unknown origin: another log's checkpoint (its own key, its own origin).
    let stranger = LogKey::from_bytes(&[33; 32], "example.com/stranger").expect("key");
    let note = stranger
        .sign_note(&log.body(16).replace(ORIGIN, "example.com/stranger"))
        .expect("signed");
    assert_eq!(
        witness.refused(&body(0, &[], &note)).await,
        (
            404,
            plain.to_owned(),
            "unknown log origin \"example.com/stranger\"\n".to_owned()
        )
    );

    // Signed only by an unknown key (same name, other key): 403.
    let impostor = LogKey::from_bytes(&[34; 32], ORIGIN).expect("key");
    let note = impostor.sign_note(&log.body(16)).expect("signed");
    assert_eq!(
        witness.refused(&body(10, &log.proof(10, 16), &note)).await,
        (
            403,
            plain.to_owned(),
            format!("no signature by a trusted key of \"{ORIGIN}\" is on the checkpoint\n")
        )
    );
    // A line by the trusted key that does not verify (another body): 403.
    let good = log.checkpoint(16);
    let (_, sig) = good.rsplit_once("\n\n").expect("signature");
    let bad = format!("{}\n{sig}", log.body(15));
    let (status, _, text) = witness.refused(&body(10, &log.proof(10, 16), &bad)).await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("does not verify"), "{text}");

    // Old size above the checkpoint's: 400.
    assert_eq!(
        witness.refused(&body(17, &[], &good)).await,
        (
            400,
            plain.to_owned(),
            "the old size 17 is above the checkpoint's size 16\n".to_owned()
        )
    );

    // Old size other than the one held: 409 with the held size.
    for old in [0, 5, 12] {
        assert_eq!(
            witness
                .refused(&body(old, &log.proof(old, 16), &good))
                .await,
            (409, "text/x.tlog.size".to_owned(), "10\n".to_owned()),
            "old {old}"
        );
    }

    // A consistency proof that does not verify: 422 (a changed hash, a
    // missing one, none at all, the proof of another size).
    let proof = log.proof(10, 16);
    let mut changed = proof.clone();
    changed[0].0[0] ^= 1;
    for wrong in [changed, proof[1..].to_vec(), Vec::new(), log.proof(9, 16)] {
        let (status, content_type, text) = witness.refused(&body(10, &wrong, &good)).await;
        assert_eq!((status, content_type.as_str()), (422, plain), "{text}");
        assert!(
            text.starts_with("the consistency proof does not verify"),
            "{text}"
        );
    }

    // The held size with another root: 409 (not the size type).
    let other_root = log.fork(5).grow(5, "other").checkpoint(10);
    assert_eq!(
        witness.refused(&body(10, &[], &other_root)).await,
        (
            409,
            plain.to_owned(),
            "the checkpoint has the size of the latest cosigned checkpoint, 10, but another \
             root hash\n"
                .to_owned()
        )
    );

    // A malformed body: 400, naming what is wrong.
    let (status, _, text) = witness.refused("old 10\n").await;
    assert_eq!(status, 400);
    assert!(text.starts_with("malformed request: "), "{text}");

    // After all that, the valid extension is still cosigned.
    witness.cosigned(&log.request(10), &good).await;
}

#[tokio::test]
async fn a_fork_of_the_same_size_is_refused_once_one_is_cosigned() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut honest = Log::new(4);
    honest.grow(20, "main");
    let witness = Witness::start(dir.path(), &honest.key, None);
    witness
        .cosigned(&honest.request(0), &honest.checkpoint(20))
        .await;
    honest.grow(12, "main");
    // The log key signs two views of 32 entries, both extending 20.
    let mut fork = honest.fork(20);
    fork.grow(12, "fork");
    assert_ne!(honest.root(32).0, fork.root(32).0);
    witness
        .cosigned(&honest.request(20), &honest.checkpoint(32))
        .await;
    // The fork with its own valid proof from 20: the witness holds 32 now.
    let (status, content_type, text) = witness.refused(&fork.request(20)).await;
    assert_eq!(
        (status, content_type.as_str(), text.as_str()),
        (409, "text/x.tlog.size", "32\n")
    );
    // Retrying from 32 as told: the same size with another root.
    let (status, content_type, text) = witness.refused(&fork.request(32)).await;
    assert_eq!(
        (status, content_type.as_str()),
        (409, "text/plain; charset=utf-8")
    );
    assert!(text.contains("another root hash"), "{text}");
    // The honest view goes on being cosigned.
    honest.grow(3, "main");
    witness
        .cosigned(&honest.request(32), &honest.checkpoint(35))
        .await;
}

#[tokio::test]
async fn a_fork_at_a_larger_size_cannot_prove_itself_consistent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut honest = Log::new(5);
    honest.grow(20, "main");
    let witness = Witness::start(dir.path(), &honest.key, None);
    witness
        .cosigned(&honest.request(0), &honest.checkpoint(20))
        .await;
    // A view that rewrote entries 15.. and grew to 30: its own proof from
    // 20 leads to its own tree of 20, not the one cosigned.
    let mut fork = honest.fork(15);
    fork.grow(15, "fork");
    let note = fork.checkpoint(30);
    let (status, _, text) = witness.refused(&body(20, &fork.proof(20, 30), &note)).await;
    assert_eq!(status, 422, "{text}");
    // Nor does the honest log's proof fit the fork's root.
    honest.grow(10, "main");
    let (status, _, text) = witness
        .refused(&body(20, &honest.proof(20, 30), &note))
        .await;
    assert_eq!(status, 422, "{text}");
    // A fork that only appends differently is an extension: cosigned.
    let mut appended = honest.fork(20);
    appended.grow(10, "appended");
    witness
        .cosigned(&appended.request(20), &appended.checkpoint(30))
        .await;
    // And then the honest 30 is the same size with another root.
    let (status, _, _) = witness.refused(&honest.request(30)).await;
    assert_eq!(status, 409);
}

#[tokio::test]
async fn a_restarted_witness_keeps_its_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut honest = Log::new(6);
    honest.grow(20, "main");
    let first = Witness::start(dir.path(), &honest.key, None);
    let vkey = first.vkey.clone();
    first
        .cosigned(&honest.request(0), &honest.checkpoint(20))
        .await;
    // Killed, not stopped: the state was durable before the answer.
    drop(first);
    let again = Witness::start(dir.path(), &honest.key, None);
    assert_eq!(again.vkey, vkey, "the key file is kept");
    assert_eq!(
        again.refused(&honest.request(0)).await,
        (409, "text/x.tlog.size".to_owned(), "20\n".to_owned())
    );
    let mut fork = honest.fork(10);
    fork.grow(10, "fork");
    let (status, _, _) = again.refused(&fork.request(20)).await;
    assert_eq!(status, 409);
    honest.grow(5, "main");
    again
        .cosigned(&honest.request(20), &honest.checkpoint(25))
        .await;
    drop(again);
    let third = Witness::start(dir.path(), &honest.key, None);
    assert_eq!(
        third.refused(&honest.request(20)).await,
        (409, "text/x.tlog.size".to_owned(), "25\n".to_owned())
    );
}

/// Two witness processes with one key and one database race, many times,
/// to cosign two forks of the same size extending what they hold: exactly
/// one is cosigned each time, and the other refused with the new size.
async fn race_two_witnesses(database_url: Option<&str>, rounds: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut held = Log::new(7);
    held.grow(8, "main");
    // One key file, one database; the second process reads the first's key.
    let a = Witness::start(dir.path(), &held.key, database_url);
    let b = Witness::start(dir.path(), &held.key, database_url);
    assert_eq!(a.vkey, b.vkey);
    a.cosigned(&held.request(0), &held.checkpoint(8)).await;
    for round in 0..rounds {
        let old = held.size();
        let grow = 1 + round % 4;
        let mut left = held.fork(old as usize);
        left.grow(grow, &format!("left {round}"));
        let mut right = held.fork(old as usize);
        right.grow(grow, &format!("right {round}"));
        let (left_request, right_request) = (left.request(old), right.request(old));
        // Alternate which process gets which view; sometimes one process
        // gets both.
        let (to_left, to_right) = match round % 3 {
            0 => (&a, &b),
            1 => (&b, &a),
            _ => (&a, &a),
        };
        let (l, r) = tokio::join!(
            to_left.add(left_request.clone()),
            to_right.add(right_request.clone())
        );
        let size = old + grow as u64;
        let winner = match (l.0, r.0) {
            (200, 409) => {
                assert_eq!(r.2, format!("{size}\n"), "round {round}");
                left
            }
            (409, 200) => {
                assert_eq!(l.2, format!("{size}\n"), "round {round}");
                right
            }
            other => panic!("round {round}: both or neither cosigned: {other:?} {l:?} {r:?}"),
        };
        let (winning_note, line) = if l.0 == 200 {
            (winner.checkpoint(size), l.2)
        } else {
            (winner.checkpoint(size), r.2)
        };
        assert!(
            a.verifier()
                .verify_note(&format!("{winning_note}{line}"))
                .is_some()
        );
        // Both processes now refuse the loser at that size.
        for witness in [&a, &b] {
            let loser_note = if l.0 == 200 {
                right_request.clone()
            } else {
                left_request.clone()
            };
            let (status, _, _) = witness.refused(&loser_note).await;
            assert_eq!(status, 409);
        }
        held = winner;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_witnesses_on_one_postgres_database_never_cosign_two_forks() {
    let Some(database) = ScratchDatabase::create().await else {
        return;
    };
    // The race in a task of its own, so that the scratch database is
    // dropped even when it fails.
    let url = database.url.clone();
    let outcome = tokio::spawn(async move { race_two_witnesses(Some(&url), 60).await }).await;
    database.drop_it().await;
    if let Err(err) = outcome {
        std::panic::resume_unwind(err.into_panic());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_witnesses_on_one_sqlite_file_never_cosign_two_forks() {
    race_two_witnesses(None, 30).await;
}

#[tokio::test]
async fn garbage_bodies_and_hostile_sizes_get_400() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(8);
    log.grow(5, "main");
    let witness = Witness::start(dir.path(), &log.key, None);
    witness.cosigned(&log.request(0), &log.checkpoint(5)).await;
    let note = log.checkpoint(5);
    let hash = BASE64.encode([7u8; 32]);
    let max = i64::MAX as u64;
    let huge_size_note = log
        .key
        .sign_note(&format!(
            "{ORIGIN}\n18446744073709551615\n{}\n",
            BASE64.encode([1u8; 32])
        ))
        .expect("signed");
    let garbage: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n".to_vec(),
        b"old\n\n".to_vec(),
        b"old 5".to_vec(),
        b"old 5\n".to_vec(),
        b"old 5\n\n".to_vec(),
        b"old 5\n\n\n".to_vec(),
        format!("old  5\n\n{note}").into_bytes(),
        format!("old 5 \n\n{note}").into_bytes(),
        format!("old +5\n\n{note}").into_bytes(),
        format!("old 05\n\n{note}").into_bytes(),
        format!("OLD 5\n\n{note}").into_bytes(),
        format!("old 18446744073709551615\n\n{note}").into_bytes(),
        format!("old 18446744073709551616\n\n{note}").into_bytes(),
        format!("old {}\n\n{note}", max + 1).into_bytes(),
        format!("old 0\n\n{huge_size_note}").into_bytes(),
        format!("old 5\n{}\n{note}", format!("{hash}\n").repeat(64)).into_bytes(),
        format!("old 5\n{hash}=\n\n{note}").into_bytes(),
        format!("old 5\n{}\n\n{note}", &hash[..43]).into_bytes(),
        format!("old 5\n\n{}", note.replace('\u{2014}', "-")).into_bytes(),
        format!("old 5\n\n{}", note.trim_end()).into_bytes(),
        format!("old 5\n\n{}", note.replace("\n\n", "\n")).into_bytes(),
        format!("old 5\n\n{}", note.replace('\n', "\r\n")).into_bytes(),
        format!("old 5\r\n\n{note}").into_bytes(),
        format!("old 5\n\n{note}\0").into_bytes(),
        format!("old 5\n\n{}", note.replacen(ORIGIN, &"o".repeat(600), 1)).into_bytes(),
        vec![0xff, 0xfe, b'\n', b'\n'],
        (0u8..=255).cycle().take(4000).collect(),
        format!("old 5\n\n{}", "x\n".repeat(100)).into_bytes(),
        format!("old 5\n\n{}{}", note, "\u{2014} a AAAAAAAA\n".repeat(120)).into_bytes(),
    ];
    for body in garbage {
        let (status, content_type, text) = witness.add(body.clone()).await;
        assert_eq!(
            status,
            400,
            "{:?}: {text}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        );
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        assert!(text.ends_with('\n') && text.len() > 1, "{text:?}");
    }
    // Sizes at the edge, validly signed: a proof to the largest tree
    // checks (and fails) without panicking.
    let edge = log
        .key
        .sign_note(&format!("{ORIGIN}\n{max}\n{}\n", BASE64.encode([1u8; 32])))
        .expect("signed");
    let proof = vec![Hash([3; 32]); 63];
    let (status, _, text) = witness.add(body(5, &proof, &edge)).await;
    assert_eq!(status, 422, "{text}");
    let (status, _, text) = witness.add(body(5, &proof[..1], &edge)).await;
    assert_eq!(status, 422, "{text}");
    // A body over the limit is refused before it is read whole.
    let (status, _, _) = witness.add(vec![b'a'; 1 << 20]).await;
    assert_eq!(status, 413);
    // The witness still holds 5 and still works.
    witness.cosigned(&log.request(5), &note).await;
    let health = reqwest::get(format!("{}/healthz", witness.url))
        .await
        .expect("healthz");
    assert_eq!(health.status().as_u16(), 200);
}

#[tokio::test]
async fn a_real_checksum_database_checkpoint_is_witnessed() {
    // Any C2SP log, not only fairdeal's: the Go checksum database, whose
    // origin holds spaces and whose key is named otherwise.
    const GO_ORIGIN: &str = "go.sum database tree";
    const GO_VKEY: &str = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8";
    const GO_NOTE: &str = "go.sum database tree\n63096908\n8lHrQPRYe4KT4WQ9/Qk8/taKnD6IRHbFgfN7vQE2Y54=\n\n\u{2014} sum.golang.org Az3gri/oVBN1jAhNZ/iS+W31psFAWRT20/GyrhpU6taFwulQGetBkH5S7wpGXdS935jiIGiUUAXBVHzT/P6fYhqAmAk=\n";
    let dir = tempfile::tempdir().expect("temp dir");
    let stderr = std::fs::File::create(dir.path().join("stderr.txt")).expect("file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["witness", "--listen", "127.0.0.1:0", "--name", NAME])
        .arg("--data-dir")
        .arg(dir.path())
        .arg("--log")
        .arg(format!("{GO_ORIGIN}={GO_VKEY}"))
        .env_remove("FAIRDEAL_WITNESS_DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("start");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        out.read_line(&mut line).expect("read");
        lines.push(line.trim().to_owned());
    }
    let url = lines[0]
        .strip_prefix("fairdeal witness listening on ")
        .expect("url");
    let vkey = lines[1].strip_prefix("cosigner vkey: ").expect("vkey");
    let response = reqwest::Client::new()
        .post(format!("{url}/add-checkpoint"))
        .body(format!("old 0\n\n{GO_NOTE}"))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 200);
    let line = response.text().await.expect("body");
    let verifier = CosignatureVerifier::from_vkey(vkey).expect("vkey");
    assert!(verifier.verify_note(&format!("{GO_NOTE}{line}")).is_some());
    // A changed size no longer carries the log's signature.
    let response = reqwest::Client::new()
        .post(format!("{url}/add-checkpoint"))
        .body(format!(
            "old 63096908\n\n{}",
            GO_NOTE.replace("63096908", "63096909")
        ))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 403);
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test]
async fn sixteen_post_quantum_sized_signatures_are_accepted() {
    // signed-note: a verifier MUST accept at least 16 signatures, and
    // post-quantum signatures can be nearly 5 kB each. A log's checkpoint
    // that carries 16 such lines besides its own is cosigned.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(10);
    log.grow(3, "pq");
    let witness = Witness::start(dir.path(), &log.key, None);
    let foreign: String = (0u8..16)
        .map(|i| {
            format!(
                "\u{2014} pq.example/cosigner-{i} {}\n",
                BASE64.encode(vec![i; 4 + 4996])
            )
        })
        .collect();
    let note = format!("{}{foreign}", log.checkpoint(3));
    witness.cosigned(&body(0, &[], &note), &note).await;
}

#[tokio::test]
async fn a_delete_character_in_an_extension_line_is_no_control_character() {
    // signed-note forbids the ASCII control characters below U+0020 other
    // than newline; U+007F is not among them.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = Log::new(11);
    log.grow(4, "del");
    let witness = Witness::start(dir.path(), &log.key, None);
    let note = log
        .key
        .sign_note(&format!("{}ext\u{7f}ension\n", log.body(4)))
        .expect("signed");
    witness.cosigned(&body(0, &[], &note), &note).await;
}

#[tokio::test]
async fn an_oversized_body_gets_413_with_one_line_of_text() {
    // docs/WITNESS.md: every refusal body is one line of text ending in \n.
    let dir = tempfile::tempdir().expect("temp dir");
    let log = Log::new(12);
    let witness = Witness::start(dir.path(), &log.key, None);
    let (status, content_type, text) = witness.add(vec![b'a'; 1 << 20]).await;
    assert_eq!(status, 413, "{text}");
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "{text:?}"
    );
}
