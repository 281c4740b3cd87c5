//! `fairdeal audit --log` and `fairdeal monitor` against logs a dishonest
//! operator serves: correctly signed logs whose entries are out of order or
//! repeated, and checkpoints that claim more entries than exist. Each log
//! is served by a small HTTP server in this process that counts what it was
//! asked for, so a test can tell that nothing past a bad checkpoint was read.

use std::process::Output;
use std::sync::atomic::Ordering;

use fairdeal_test_support::{exports, log_server};

use exports::fair_export;
use fairdeal::tlog::entry::client_seed_sha256;
use fairdeal::tlog::key::LogKey;
use log_server::{bytes, fairdeal, serve, served};
use serde_json::{Value, json};

const ORIGIN: &str = "hostile.example/fairdeal";

fn key(byte: u8) -> LogKey {
    LogKey::from_hex(&format!("{byte:02x}").repeat(32), ORIGIN).expect("key")
}

/// One revealed pair of `rounds` rounds, as export lines, and the log
/// entries that tell its story in order: commit, client seed, rounds,
/// reveal.
fn story(rounds: u64) -> (Vec<String>, Vec<Value>) {
    let export = fair_export(1, rounds);
    let pair: Value = serde_json::from_str(&export[0]).expect("pair");
    let id = pair["id"].as_str().expect("id");
    let time = "2026-11-22T00:00:00Z";
    let mut entries = vec![
        json!({"type": "commit", "seed_pair": id, "server_seed_hash": pair["server_seed_hash"],
               "next_server_seed_hash": "00".repeat(32), "predecessor": null,
               "tenant": "0123456789abcdef0123456789abcdef", "time": time}),
        json!({"type": "client_seed", "seed_pair": id,
               "client_seed_sha256": client_seed_sha256(pair["client_seed"].as_str().expect("seed")),
               "time": time}),
    ];
    for line in &export[1..] {
        let round: Value = serde_json::from_str(line).expect("line");
        if round["type"] == "round" {
            entries.push(
                json!({"type": "round", "seed_pair": id, "round": round["id"],
                                "nonce": round["nonce"], "game": round["game"], "time": time}),
            );
        }
    }
    entries.push(
        json!({"type": "reveal", "seed_pair": id, "server_seed": pair["server_seed"],
                        "successor": "next-pair", "time": time}),
    );
    (export, entries)
}

/// Audits `export` against a log of `entries` signed by the right key.
fn audit_against(export: &[String], entries: &[Value]) -> (Output, String) {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("export.ndjson");
    std::fs::write(&file, export.join("\n") + "\n").expect("write");
    let base = serve(served(log_server::log_files(
        &bytes(entries),
        &key(7),
        ORIGIN,
    )));
    let out = fairdeal(&["audit", file.to_str().expect("path"), "--log", &base, "-q"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

#[test]
fn an_honest_log_passes_and_the_audit_says_what_it_checked() {
    let (export, entries) = story(3);
    let (out, stdout) = audit_against(&export, &entries);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("log: the log's checkpoint of 6 entries")
            && stdout.contains("verified: signature, tree and tiles")
            && stdout.contains("3 of their rounds held against the export"),
        "{stdout}"
    );
}

#[test]
fn a_commitment_after_the_client_seed_fails_the_audit_as_the_monitor() {
    let (export, mut entries) = story(2);
    // client_seed, commit, rounds, reveal: a re-commitment after the fact.
    entries.swap(0, 1);
    let (out, stdout) = audit_against(&export, &entries);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("before its commitment"), "{stdout}");
    let base = serve(served(log_server::log_files(
        &bytes(&entries),
        &key(7),
        ORIGIN,
    )));
    let out = fairdeal(&["monitor", &base]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("before its commitment"), "{stdout}");
}

#[test]
fn a_second_commitment_does_not_replace_the_first() {
    let (export, mut entries) = story(2);
    // The first commitment names another seed; a second one, appended
    // after the client seed, names the seed the export reveals.
    let second = entries[0].clone();
    entries[0]["server_seed_hash"] = "ab".repeat(32).into();
    entries.insert(2, second);
    let (out, stdout) = audit_against(&export, &entries);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("committed twice")
            && stdout.contains("commitment is not the one the log holds"),
        "{stdout}"
    );
}

#[test]
fn a_repeated_round_or_reveal_is_a_finding() {
    let (export, mut entries) = story(2);
    let round = entries[2].clone();
    entries.insert(3, round);
    let (out, stdout) = audit_against(&export, &entries);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("a gap or a repeat"), "{stdout}");
}

#[test]
fn a_forged_checkpoint_of_a_vast_log_is_refused_before_any_entry_is_read() {
    let (export, entries) = story(1);
    let honest = log_server::log_files(&bytes(&entries), &key(7), ORIGIN);
    let dir = tempfile::tempdir().expect("dir");
    let state = dir.path().join("state.json");
    let base_served = served(honest);
    let base = serve(base_served.clone());
    // A first run remembers the honest key and checkpoint.
    let out = fairdeal(&["monitor", &base, "--state", state.to_str().expect("path")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let before = base_served.bundle_requests.load(Ordering::SeqCst);
    assert!(before > 0);
    let remembered = std::fs::read_to_string(&state).expect("state");
    // The server now serves another key, and a checkpoint signed by it that
    // claims 2^40 (then 2^64 - 1) entries.
    for size in [1u64 << 40, u64::MAX] {
        let forger = key(8);
        let note = forger
            .sign_note(&format!("{ORIGIN}\n{size}\n{}=\n", "A".repeat(43)))
            .expect("sign");
        base_served.files.lock().expect("lock").extend([
            ("/log/key".to_owned(), forger.vkey().into_bytes()),
            ("/log/checkpoint".to_owned(), note.into_bytes()),
        ]);
        let out = fairdeal(&["monitor", &base, "--state", state.to_str().expect("path")]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(
            stdout.contains("the log key changed") && stdout.contains("does not verify"),
            "{stdout}"
        );
        // The audit with the key published out of band refuses it too.
        let file = dir.path().join("export.ndjson");
        std::fs::write(&file, export.join("\n") + "\n").expect("write");
        let out = fairdeal(&[
            "audit",
            file.to_str().expect("path"),
            "--log",
            &base,
            "--log-key",
            &key(7).vkey(),
            "-q",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("did NOT verify"), "{stdout}");
    }
    assert_eq!(
        base_served.bundle_requests.load(Ordering::SeqCst),
        before,
        "no entry bundle was read after a checkpoint that did not verify"
    );
    assert_eq!(
        std::fs::read_to_string(&state).expect("state"),
        remembered,
        "a checkpoint that did not verify is never remembered"
    );
}

#[test]
fn a_signed_checkpoint_claiming_entries_that_are_not_served_is_a_finding() {
    // Signed by the served key (a first run trusts it), but claiming more
    // entries than the log serves: evidence against the log, reported as
    // a finding in a report (exit 1), not an error reading it.
    let (_, entries) = story(1);
    let mut files = log_server::log_files(&bytes(&entries), &key(7), ORIGIN);
    for size in [5u64, (1u64 << 63) - 1] {
        let forged = key(7)
            .sign_note(&format!("{ORIGIN}\n{size}\n{}=\n", "A".repeat(43)))
            .expect("sign");
        files[1].1 = forged.into_bytes();
        let base = serve(served(files.clone()));
        let out = fairdeal(&["monitor", &base, "--json"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        let report: Value = serde_json::from_str(&stdout).expect("a JSON report");
        assert!(
            report["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .any(|f| f["kind"] == "tree"
                    && f["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("not served"))),
            "{stdout}"
        );
    }
}

/// A key given on the command line that is not the one the state file
/// trusted is a finding, and the state file keeps the key it had.
#[test]
fn a_key_other_than_the_remembered_one_is_a_finding() {
    let (_, entries) = story(1);
    let dir = tempfile::tempdir().expect("dir");
    let state = dir.path().join("state.json");
    let base = serve(served(log_server::log_files(
        &bytes(&entries),
        &key(7),
        ORIGIN,
    )));
    let out = fairdeal(&["monitor", &base, "--state", state.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let remembered = std::fs::read_to_string(&state).expect("state");
    let other = serve(served(log_server::log_files(
        &bytes(&entries),
        &key(9),
        ORIGIN,
    )));
    let out = fairdeal(&[
        "monitor",
        &other,
        "--state",
        state.to_str().expect("path"),
        "--key",
        &key(9).vkey(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("not the one the state file trusted"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&state).expect("state"), remembered);
}

/// A bundle that does not hold the entries the checkpoint says: a million
/// empty entries (counted, never split), or bytes that are not a bundle.
/// The monitor and the audit name it and read no further.
#[test]
fn a_bundle_of_the_wrong_size_or_shape_is_named_not_split() {
    let (export, entries) = story(2);
    let files = log_server::log_files(&bytes(&entries), &key(7), ORIGIN);
    // Five entries: commit, client seed, two rounds, reveal.
    let bundle = "/log/tile/entries/000.p/5";
    assert!(
        files.iter().any(|(path, _)| path == bundle),
        "{bundle} served"
    );
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("export.ndjson");
    std::fs::write(&file, export.join("\n") + "\n").expect("write");
    for (hostile, finding) in [
        (
            vec![0u8; 2_000_000],
            format!("{} holds 1000000 entries, not 5", &bundle[5..]),
        ),
        (
            vec![0, 9, 1],
            format!("{} is not an entry bundle", &bundle[5..]),
        ),
    ] {
        let served = served(files.clone());
        served
            .files
            .lock()
            .expect("lock")
            .insert(bundle.to_owned(), hostile);
        let base = serve(served);
        let out = fairdeal(&["monitor", &base]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains(&finding), "{finding}: {stdout}");
        let out = fairdeal(&["audit", file.to_str().expect("path"), "--log", &base, "-q"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains(&finding), "{finding}: {stdout}");
    }
}

/// A checkpoint signed by the log's own key over bundles that parse, with
/// hash tiles that do not match them: the first tile shown wrong ends the
/// reading with that finding (nothing after it can be authenticated),
/// instead of reading on through the entries the checkpoint claims.
#[test]
fn a_tree_shown_wrong_stops_the_reading_at_once() {
    let (_, entries) = story(1);
    let entry = bytes(&entries)[0].clone();
    let bundle = fairdeal::tlog::tiles::entry_bundle(std::iter::repeat_n(entry.as_slice(), 256))
        .expect("bundle");
    let bundles = 64u64;
    let size = bundles * 256;
    let signer = key(7);
    let mut files = vec![
        ("/log/key".to_owned(), signer.vkey().into_bytes()),
        (
            "/log/checkpoint".to_owned(),
            signer
                .sign_note(&format!("{ORIGIN}\n{size}\n{}=\n", "A".repeat(43)))
                .expect("sign")
                .into_bytes(),
        ),
    ];
    for index in 0..bundles {
        for level in [None, Some(0)] {
            let path = fairdeal::tlog::tiles::TilePath {
                level,
                index,
                width: 256,
            }
            .path();
            let body = if level.is_none() {
                bundle.clone()
            } else {
                vec![0; 256 * 32]
            };
            files.push((format!("/log/{path}"), body));
        }
    }
    let log = served(files);
    let base = serve(log.clone());
    let out = fairdeal(&["monitor", &base, "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("a JSON report");
    let findings = report["findings"].as_array().expect("findings");
    let tiles: Vec<&str> = findings
        .iter()
        .filter(|f| f["kind"] == "tile")
        .filter_map(|f| f["detail"].as_str())
        .collect();
    assert!(
        tiles.len() == 1
            && tiles[0].contains("hash tile 0/0 does not match the entries")
            && tiles[0].contains("reading stopped after 256 of the 16384"),
        "{stdout}"
    );
    assert!(
        !findings.iter().any(|f| f["kind"] == "tree"),
        "said once: {stdout}"
    );
    // The reader fetches a few bundles ahead of the checker, no more.
    let read = log.bundle_requests.load(Ordering::SeqCst);
    assert!(
        read < 24,
        "{read} of {bundles} bundles read after the tree was shown wrong"
    );
}
