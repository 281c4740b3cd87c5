//! Probes of the log checker in bounded memory with incremental runs
//! (`audit::monitor`): hostile entries a dishonest
//! operator (who holds the log key) can sign, snapshots that are corrupt or
//! hostile, and resumed runs held against full runs over the same log.
//! Each test FAILS when the defect it probes exists.

use std::sync::Arc;

use fairdeal_test_support::log_server;

use fairdeal::audit::monitor::{LogView, MonitorReport, MonitorState, Snapshot, check, check_from};
use fairdeal::text::lookalike_sha256;
use fairdeal::tlog::entry::client_seed_sha256;
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tree::TileBuilder;
use log_server::{Served, bytes, fairdeal, serve};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const ORIGIN: &str = "probe.example/log";

fn key() -> LogKey {
    LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key")
}

/// A log of `entries` as served, with every hash tile, signed by the
/// operator's own key.
fn log_of(entries: Vec<Vec<u8>>) -> LogView {
    LogView::signed(entries, &key(), ORIGIN).expect("a log")
}

fn log(entries: &[Value]) -> LogView {
    log_of(bytes(entries))
}

fn run(entries: &[Value]) -> MonitorReport {
    check(&log(entries), None, 0, i64::MAX).expect("checks")
}

fn kinds(report: &MonitorReport) -> Vec<&'static str> {
    report.findings.iter().map(|f| f.kind).collect()
}

fn seed() -> (String, String) {
    let seed = [9u8; 32];
    (hex::encode(seed), hex::encode(Sha256::digest(seed)))
}

const TIME: &str = "2026-11-23T00:00:00.000Z";

fn commit(pair: &str, tenant: &str) -> Value {
    let (_, hash) = seed();
    json!({"type": "commit", "seed_pair": pair, "server_seed_hash": hash,
           "next_server_seed_hash": hash, "predecessor": null, "tenant": tenant,
           "time": TIME})
}

fn client_seed(pair: &str, client_seed: &str) -> Value {
    json!({"type": "client_seed", "seed_pair": pair,
           "client_seed_sha256": client_seed_sha256(client_seed),
           "client_seed_lookalike_sha256": lookalike_sha256(client_seed),
           "time": TIME})
}

fn round(pair: &str, nonce: u64) -> Value {
    json!({"type": "round", "seed_pair": pair, "round": format!("{pair}-r{nonce}"),
           "nonce": nonce, "game": {"type": "deck"}, "time": TIME})
}

fn reveal(pair: &str, successor: Option<&str>) -> Value {
    json!({"type": "reveal", "seed_pair": pair, "server_seed": seed().0,
           "successor": successor, "time": TIME})
}

fn uuid(n: u8) -> String {
    uuid::Uuid::from_bytes([n; 16]).hyphenated().to_string()
}

fn details(r: &MonitorReport) -> Vec<(&'static str, Option<u64>, String)> {
    r.findings
        .iter()
        .map(|f| (f.kind, f.index, f.detail.clone()))
        .collect()
}

/// A full run over `entries`, and a run resumed from the snapshot of the
/// first `cut` entries (written and read back as the monitor does).
fn full_and_resumed(entries: &[Value], cut: usize) -> (MonitorReport, MonitorReport, u64) {
    let full = run(entries);
    let (first, snapshot, _) =
        check_from(&log(&entries[..cut]), None, None, 0, i64::MAX).expect("checks");
    let mut written = Vec::new();
    snapshot
        .expect("the first run is accepted")
        .write(&mut written)
        .expect("CBOR");
    let snapshot = Snapshot::read(written.as_slice()).expect("read back");
    let previous = first.state.expect("accepted");
    let (resumed, _, read) =
        check_from(&log(entries), Some(&previous), Some(snapshot), 0, i64::MAX).expect("checks");
    (full, resumed, read)
}

fn assert_same(full: &MonitorReport, resumed: &MonitorReport, what: &str) {
    assert_eq!(details(resumed), details(full), "{what}: findings differ");
    let notes =
        |r: &MonitorReport| -> Vec<String> { r.notes.iter().map(|n| n.detail.clone()).collect() };
    assert_eq!(notes(resumed), notes(full), "{what}: notes differ");
    assert_eq!(
        (
            resumed.pairs,
            resumed.rounds,
            resumed.unrevealed,
            resumed.draws,
            resumed.draws_drawn,
            resumed.tables,
            resumed.table_voids,
            resumed.unused_commitments.clone(),
            resumed.unseeded_draws.clone(),
            resumed.checkpoint_accepted,
        ),
        (
            full.pairs,
            full.rounds,
            full.unrevealed,
            full.draws,
            full.draws_drawn,
            full.tables,
            full.table_voids,
            full.unused_commitments.clone(),
            full.unseeded_draws.clone(),
            full.checkpoint_accepted,
        ),
        "{what}: counts differ"
    );
}

// ---------------------------------------------------------------------------
// (a) cheats that pass
// ---------------------------------------------------------------------------

/// An id that is not a UUID is keyed by the first 16 bytes of its SHA-256;
/// a UUID by its own 16 bytes. The operator picks both, so it can name a
/// UUID pair whose bytes are SHA-256("x")[..16] and then log entries of a
/// pair "x" that was never committed: the checker takes them as the UUID
/// pair's. The old checker (ids as text) named each as an entry of a pair
/// never committed.
#[test]
fn probe_entries_of_an_uncommitted_pair_whose_id_hashes_to_a_uuid_pair_are_found() {
    let alias = "x";
    let digest = Sha256::digest(alias.as_bytes());
    let mut first16 = [0u8; 16];
    first16.copy_from_slice(&digest[..16]);
    let u = uuid::Uuid::from_bytes(first16).hyphenated().to_string();

    // Rounds dealt on pair "x", which has no commitment in the log at all.
    let report = run(&[
        commit(&u, "t"),
        client_seed(&u, "lucky"),
        round(&u, 0),
        round(alias, 1),
        round(alias, 2),
        reveal(&u, None),
    ]);
    let mut passed = Vec::new();
    if report.passed() {
        passed.push(format!(
            "rounds of pair {alias:?}, never committed, passed as rounds of {u}"
        ));
    }

    // A reveal under another name: pair u is never revealed in its own name
    // (its page finds no reveal), the reveal of "x" opens a commitment "x"
    // never made, and the checker reports a clean log.
    let report = run(&[
        commit(&u, "t"),
        client_seed(&u, "lucky"),
        round(&u, 0),
        reveal(alias, None),
    ]);
    if report.passed() {
        passed.push(format!(
            "a reveal of {alias:?} (never committed) passed as {u}'s reveal; unrevealed {}",
            report.unrevealed
        ));
    }
    assert!(passed.is_empty(), "{passed:#?}");
}

/// Two live pairs of one tenant given the very same client seed (equal
/// `client_seed_sha256`): deal-shopping, whatever the lookalike hash says.
/// The new grouping keys a current entry by its lookalike hash only, so a
/// forged lookalike hash on the second entry hides the reuse. The old
/// checker keyed the exact hash too.
#[test]
fn probe_the_same_exact_seed_on_two_live_pairs_is_shopping_whatever_the_lookalike_hash() {
    let a = uuid(1);
    let b = uuid(2);
    let mut forged = client_seed(&b, "lucky");
    forged["client_seed_lookalike_sha256"] = "ab".repeat(32).into();
    let report = run(&[
        commit(&a, "t"),
        client_seed(&a, "lucky"),
        commit(&b, "t"),
        forged,
        round(&a, 0),
        round(&b, 0),
    ]);
    assert!(
        kinds(&report).contains(&"client_seed_reuse"),
        "one client seed (same SHA-256) on two live pairs of one tenant passed: {:?}",
        report.findings
    );
}

fn draw_commit(draw: &str, tenant: &str) -> Value {
    json!({"type": "draw_commit", "draw": draw, "entries_sha256": "cd".repeat(32),
           "entries": 10, "winners": 1, "server_seed_hash": seed().1,
           "client_seed_source_sha256": "ef".repeat(32), "tenant": tenant, "time": TIME})
}

fn draw_client_seed(draw: &str, client_seed: &str, lookalike: Option<&str>) -> Value {
    let mut entry = json!({"type": "draw_client_seed", "draw": draw,
           "client_seed_sha256": client_seed_sha256(client_seed), "time": TIME});
    if let Some(l) = lookalike {
        entry["client_seed_lookalike_sha256"] = l.into();
    }
    entry
}

fn draw_result(draw: &str) -> Value {
    json!({"type": "draw_result", "draw": draw, "winners": [3], "server_seed": seed().0,
           "time": TIME})
}

/// Two draws of one list by one tenant with the same client seed: the
/// operator can publish whichever result it likes (`draw_reuse`). Hidden
/// here (1) by a forged lookalike hash on the second, (2) by leaving the
/// lookalike hash out of the second (an old-format entry after a new one;
/// for draws, unlike pairs, nothing else is said of that).
#[test]
fn probe_draw_reuse_is_found_whatever_the_lookalike_hash_says() {
    let (d1, d2) = (uuid(0x11), uuid(0x12));
    // A seed with a capital: its folded form, and so its lookalike hash,
    // is not its bytes' hash (for "draw-seed" the two hashes coincide).
    let look = lookalike_sha256("Draw-Seed");
    assert_ne!(look, client_seed_sha256("Draw-Seed"));
    let mut passed = Vec::new();
    for (what, second) in [
        (
            "a forged lookalike hash",
            draw_client_seed(&d2, "Draw-Seed", Some(&"ab".repeat(32))),
        ),
        (
            "no lookalike hash",
            draw_client_seed(&d2, "Draw-Seed", None),
        ),
    ] {
        let report = run(&[
            draw_commit(&d1, "t"),
            draw_commit(&d2, "t"),
            draw_client_seed(&d1, "Draw-Seed", Some(&look)),
            second,
            draw_result(&d1),
            draw_result(&d2),
        ]);
        if !kinds(&report).contains(&"draw_reuse") {
            passed.push(format!("{what}: {:?}", report.findings));
        }
    }
    assert!(
        passed.is_empty(),
        "two draws of one list and one tenant with one client seed passed: {passed:#?}"
    );
}

fn table_commit(pair: &str) -> Value {
    let seats: Vec<String> = ["alice", "bob"]
        .iter()
        .map(|l| hex::encode(Sha256::digest(l.as_bytes())))
        .collect();
    let mut entry = commit(pair, "t");
    entry["seats"] = json!(seats);
    entry["seat_set"] = "aa".repeat(32).into();
    entry
}

/// A table's client seed must be derived from every seat's contribution:
/// logged before any seat acted, the operator chose it. The new checker
/// reads an entry it cannot parse into its borrowed fields (here `time` as
/// a number, or a key given twice) as a JSON value, and then forgets the
/// seats: the table is taken as an ordinary pair and its rules go
/// unchecked. The old checker read `seats` from the value.
#[test]
fn probe_a_table_commit_with_an_odd_field_is_still_a_table() {
    let t = uuid(0x21);
    let mut passed = Vec::new();
    for (what, commit) in [
        ("time as a number", {
            let mut c = table_commit(&t);
            c["time"] = 1_700_000_000_000u64.into();
            c
        }),
        ("a duplicate key", {
            // The same entry with "tenant" twice (the second wins).
            let text = serde_json::to_string(&table_commit(&t)).expect("JSON");
            let text = text.replacen("{", "{\"tenant\":\"t\",", 1);
            serde_json::from_str::<Value>(&text).expect("JSON");
            Value::String(text)
        }),
    ] {
        let first = match &commit {
            Value::String(raw) => raw.clone().into_bytes(),
            other => serde_json::to_vec(other).expect("JSON"),
        };
        let mut entries = vec![first];
        entries.extend(bytes(&[
            // No seat committed or revealed: the operator's own client seed.
            client_seed(&t, "operator's choice"),
            round(&t, 0),
            reveal(&t, None),
        ]));
        let report = check(&log_of(entries), None, 0, i64::MAX).expect("checks");
        if !kinds(&report).contains(&"table") {
            passed.push(format!(
                "{what}: tables counted {}, findings {:?}",
                report.tables, report.findings
            ));
        }
    }
    assert!(
        passed.is_empty(),
        "a table seeded before any seat acted passed: {passed:#?}"
    );
}

// ---------------------------------------------------------------------------
// Hostile entries that the checker handles (probes expected to pass)
// ---------------------------------------------------------------------------

#[test]
fn probe_hostile_entries_the_checker_still_names() {
    let p = uuid(0xab);
    let upper = p.to_uppercase();
    assert_ne!(p, upper);
    // A pair named in upper case is another pair than the lower-case one.
    let report = run(&[commit(&p, "t"), client_seed(&p, "s"), round(&upper, 0)]);
    assert!(kinds(&report).contains(&"order"), "{:?}", report.findings);

    // Revealed, then committed again and dealt.
    let report = run(&[
        commit(&p, "t"),
        client_seed(&p, "s"),
        reveal(&p, None),
        commit(&p, "t"),
        client_seed(&p, "s2"),
        round(&p, 0),
    ]);
    assert!(
        report.findings.len() >= 3,
        "re-commit after reveal: {:?}",
        report.findings
    );

    // Duplicate keys: the last one counts, as it did (nonce 0 then 5).
    let dup = format!(
        "{{\"type\":\"round\",\"seed_pair\":\"{p}\",\"round\":\"r\",\"nonce\":0,\"nonce\":5,\"game\":{{}},\"time\":\"{TIME}\"}}"
    );
    let mut entries = bytes(&[commit(&p, "t"), client_seed(&p, "s")]);
    entries.push(dup.into_bytes());
    let report = check(&log_of(entries), None, 0, i64::MAX).expect("checks");
    assert_eq!(kinds(&report), ["order"], "{:?}", report.findings);

    // Wrong types: a nonce as text is no nonce, and said so.
    let mut r = round(&p, 0);
    r["nonce"] = "0".into();
    let report = run(&[commit(&p, "t"), client_seed(&p, "s"), r]);
    assert_eq!(kinds(&report), ["entry"], "{:?}", report.findings);
    assert!(
        report.findings[0].detail.contains("without a nonce"),
        "{:?}",
        report.findings
    );

    // A successor committed with another commitment than was promised.
    let q = uuid(0x32);
    let mut succ = commit(&q, "t");
    succ["predecessor"] = p.clone().into();
    succ["server_seed_hash"] = "ab".repeat(32).into();
    let report = run(&[
        commit(&p, "t"),
        client_seed(&p, "s"),
        reveal(&p, Some(&q)),
        succ,
    ]);
    assert_eq!(kinds(&report), ["succession"], "{:?}", report.findings);

    // Old-format client seed entries mixed with new ones.
    let a = uuid(0x33);
    let b = uuid(0x34);
    let mut legacy = client_seed(&b, "lucky");
    legacy
        .as_object_mut()
        .expect("object")
        .remove("client_seed_lookalike_sha256");
    let report = run(&[
        commit(&a, "t"),
        client_seed(&a, "lucky"),
        commit(&b, "t"),
        legacy,
    ]);
    assert!(!report.passed(), "{:?}", report.findings);
}

// ---------------------------------------------------------------------------
// Incremental runs
// ---------------------------------------------------------------------------

/// A varied log: tenants, rotations, shared seeds (shopped and not), a
/// table seated and dealt, a table voided three times, draws, legacy seed
/// entries, an unused commitment.
fn varied_log() -> Vec<Value> {
    let mut e = Vec::new();
    let id = |n: u32| {
        uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0000 + n as u128)
            .hyphenated()
            .to_string()
    };
    // Legacy entries first (no tenant, no lookalike hash).
    let l1 = id(1);
    let mut c = commit(&l1, "x");
    c.as_object_mut().expect("object").remove("tenant");
    e.push(c);
    let mut s = client_seed(&l1, "old-seed");
    s.as_object_mut()
        .expect("object")
        .remove("client_seed_lookalike_sha256");
    e.push(s);
    e.push(round(&l1, 0));
    // Pairs of two tenants with rotations.
    for n in 0..40u32 {
        let p = id(100 + n);
        let tenant = if n % 2 == 0 { "t1" } else { "t2" };
        e.push(commit(&p, tenant));
        let seed = if n % 7 == 0 {
            "lucky7".to_owned()
        } else {
            format!("seed-{n}")
        };
        e.push(client_seed(&p, &seed));
        for k in 0..(n as u64 % 9) {
            e.push(round(&p, k));
        }
        if n % 3 != 0 {
            e.push(reveal(&p, None));
        }
    }
    // A new-format entry of the legacy seed while l1 is live: shopping.
    let l2 = id(2);
    e.push(commit(&l2, "t1"));
    e.push(client_seed(&l2, "OLD-SEED"));
    // A rotation.
    let a = id(3);
    let b = id(4);
    e.push(commit(&a, "t1"));
    e.push(client_seed(&a, "rot"));
    e.push(round(&a, 0));
    e.push(reveal(&a, Some(&b)));
    let mut cb = commit(&b, "t1");
    cb["predecessor"] = a.clone().into();
    e.push(cb);
    e.push(client_seed(&b, "rot"));
    e.push(round(&b, 0));
    // A table seated and dealt.
    let t = id(5);
    e.push(table_commit(&t));
    for seat in 0..2 {
        e.push(
            json!({"type": "seat_commitment", "seed_pair": t, "seat": seat,
                      "commitment": "11".repeat(32), "time": TIME}),
        );
    }
    for seat in 0..2 {
        e.push(json!({"type": "seat_contribution", "seed_pair": t, "seat": seat, "time": TIME}));
    }
    e.push(client_seed(&t, "derived"));
    e.push(round(&t, 0));
    // A table voided three times.
    for n in 0..3 {
        let v = id(10 + n);
        e.push(table_commit(&v));
        e.push(json!({"type": "seat_commitment", "seed_pair": v, "seat": 0,
                      "commitment": "11".repeat(32), "time": TIME}));
        e.push(
            json!({"type": "table_void", "seed_pair": v, "phase": "commit",
                      "stalled_seats": [1], "server_seed": seed().0, "time": TIME}),
        );
    }
    // Draws: one run, one seeded and not run, one unseeded, a reuse.
    let look = lookalike_sha256("ds");
    for n in 0..4 {
        e.push(draw_commit(&id(50 + n), "t1"));
    }
    e.push(draw_client_seed(&id(50), "ds", Some(&look)));
    e.push(draw_result(&id(50)));
    e.push(draw_client_seed(&id(51), "ds", Some(&look)));
    e.push(draw_client_seed(
        &id(52),
        "other",
        Some(&lookalike_sha256("other")),
    ));
    // An unused commitment and garbage.
    e.push(commit(&id(60), "t2"));
    e.push(json!({"type": "mystery"}));
    e.push(round(&id(61), 0));
    e
}

/// A resumed run must say exactly what a full run over the same log says,
/// wherever the earlier run stopped.
#[test]
fn probe_resumed_runs_agree_with_full_runs_at_every_cut() {
    let entries = varied_log();
    for cut in 1..entries.len() {
        let (full, resumed, read) = full_and_resumed(&entries, cut);
        assert_eq!(read, (entries.len() - cut) as u64);
        assert_same(&full, &resumed, &format!("cut at {cut}"));
    }
}

/// Deal-shopping split across two runs with old-format entries: the first
/// pair (legacy entry, no lookalike hash) seeded before the snapshot, a
/// lookalike of its seed after it; and the mirror (new before, old after).
/// A reveal after the snapshot that does not open a commitment made before
/// it.
#[test]
fn probe_cheats_split_across_runs_are_found_as_in_a_full_run() {
    let (a, b) = (uuid(0x41), uuid(0x42));
    let mut legacy = client_seed(&a, "lucky");
    legacy
        .as_object_mut()
        .expect("object")
        .remove("client_seed_lookalike_sha256");
    let entries = vec![
        commit(&a, "t"),
        legacy,
        commit(&b, "t"),
        client_seed(&b, "LUCKY"),
    ];
    let (full, resumed, _) = full_and_resumed(&entries, 2);
    assert!(
        kinds(&full).contains(&"client_seed_reuse"),
        "{:?}",
        full.findings
    );
    assert_same(&full, &resumed, "legacy then lookalike");

    let mut bad = reveal(&a, None);
    bad["server_seed"] = "00".repeat(32).into();
    let entries = vec![commit(&a, "t"), client_seed(&a, "s"), round(&a, 0), bad];
    let (full, resumed, _) = full_and_resumed(&entries, 3);
    assert_eq!(kinds(&resumed), ["reveal"]);
    assert_same(&full, &resumed, "a reveal that does not open");
}

/// A log that forks after the snapshot: an entry before the accepted size
/// changed, the log shrunk, or the same size with another root. Nothing is
/// accepted, whatever the snapshot.
#[test]
fn probe_a_fork_after_the_snapshot_is_never_accepted() {
    let p = uuid(0x51);
    let mut entries = vec![commit(&p, "t"), client_seed(&p, "s")];
    entries.extend((0..300).map(|n| round(&p, n)));
    let cut = 290;
    let (previous, written) = snapshot_of(&entries[..cut]);

    let mut forked = entries.clone();
    forked[100] = round(&p, 999);
    let mut same_size = entries[..cut].to_vec();
    same_size[5] = round(&p, 998);
    for (what, log_entries) in [
        ("a changed entry", forked),
        ("shrunk", entries[..200].to_vec()),
        ("same size, other root", same_size),
    ] {
        let snapshot = Snapshot::read(written.as_slice()).expect("read");
        let (report, kept, _) = check_from(
            &log(&log_entries),
            Some(&previous),
            Some(snapshot),
            0,
            i64::MAX,
        )
        .expect("checks");
        assert!(
            !report.checkpoint_accepted && kept.is_none() && !report.passed(),
            "{what}: {:?}",
            report.findings
        );
    }
}

/// Every prefix of a snapshot file (a torn write), and garbage, is not
/// used: the run reads the whole log and says what a full run says.
#[test]
fn probe_a_truncated_snapshot_falls_back_to_a_full_run() {
    let entries = varied_log();
    let cut = entries.len() / 2;
    let (previous, written) = snapshot_of(&entries[..cut]);
    let full = run(&entries);
    let step = (written.len() / 300).max(1);
    for len in (0..written.len()).step_by(step) {
        if let Some(s) = Snapshot::read(&written[..len]) {
            let (report, _, _) =
                check_from(&log(&entries), Some(&previous), Some(s), 0, i64::MAX).expect("checks");
            assert_same(&full, &report, &format!("a snapshot cut at {len} bytes"));
        }
    }
}

/// A snapshot with one byte flipped (a bad disk, a stray write) must not
/// make the monitor accuse an honest log. Here the byte is in the hashes of
/// the level-0 tile being filled, which nothing checks when the snapshot
/// is read or resumed (only the leaves and the root are): the next run
/// reports a hash tile "that does not match the entries" — a finding about
/// the log itself — and, since the checkpoint is then not accepted, the
/// state and the snapshot stay as they are and every later run says the
/// same of an honest log.
#[test]
fn probe_a_snapshot_with_a_flipped_byte_does_not_accuse_an_honest_log() {
    let p = uuid(0x61);
    let mut entries = vec![commit(&p, "t"), client_seed(&p, "s")];
    entries.extend((0..400).map(|n| round(&p, n)));
    let cut = 300;
    let (previous, mut written) = snapshot_of(&entries[..cut]);
    // Where the tree's bytes sit in the file: the builder over the same
    // entries gives them.
    let mut builder = TileBuilder::default();
    for entry in bytes(&entries[..cut]) {
        builder.push(&entry);
    }
    let tree_bytes = builder.to_bytes();
    let at = written
        .windows(tree_bytes.len())
        .position(|w| w == tree_bytes.as_slice())
        .expect("the tree's bytes are in the snapshot");
    // The first hash of the level-0 tile being filled: after the leaves
    // (8), the stack (4 + its entries of 36), the level count (4) and the
    // level's length (4).
    let stack = u32::from_be_bytes(tree_bytes[8..12].try_into().expect("4")) as usize;
    let first_filling_hash = 8 + 4 + 36 * stack + 4 + 4;
    written[at + first_filling_hash] ^= 1;

    let full = run(&entries);
    assert!(full.passed(), "{:?}", full.findings);
    if let Some(snapshot) = Snapshot::read(written.as_slice()) {
        let (report, _, _) =
            check_from(&log(&entries), Some(&previous), Some(snapshot), 0, i64::MAX)
                .expect("checks");
        assert!(
            report.passed() && report.checkpoint_accepted,
            "a snapshot one byte off made an honest log fail: {:?}",
            report.findings
        );
    }
}

/// A hostile snapshot (its tree genuine, its memory not) must not panic
/// the monitor: here a live table whose lists of seats and of their
/// commitments disagree in length, which `Snapshot::read` does not check.
#[test]
fn probe_a_hostile_snapshot_does_not_panic() {
    let t = uuid(0x71);
    let entries = vec![table_commit(&t)];
    let (first, snapshot, _) = check_from(&log(&entries), None, None, 0, i64::MAX).expect("checks");
    let previous = first.state.expect("accepted");
    let mut written = Vec::new();
    snapshot
        .expect("snapshot")
        .write(&mut written)
        .expect("CBOR");
    let mut value: ciborium::Value = ciborium::from_reader(written.as_slice()).expect("CBOR");
    fn field<'a>(map: &'a mut ciborium::Value, name: &str) -> &'a mut ciborium::Value {
        let ciborium::Value::Map(entries) = map else {
            panic!("not a map")
        };
        &mut entries
            .iter_mut()
            .find(|(k, _)| k.as_text() == Some(name))
            .unwrap_or_else(|| panic!("no {name}"))
            .1
    }
    let memory = field(&mut value, "memory");
    let live = field(memory, "live");
    let ciborium::Value::Map(pairs) = live else {
        panic!("live is not a map")
    };
    let table = field(&mut pairs[0].1, "table");
    *field(table, "commitments") = ciborium::Value::Array(Vec::new());
    let mut hostile = Vec::new();
    ciborium::into_writer(&value, &mut hostile).expect("CBOR");

    let mut more = entries.clone();
    more.push(json!({"type": "seat_commitment", "seed_pair": t, "seat": 0,
                     "commitment": "11".repeat(32), "time": TIME}));
    let outcome = std::panic::catch_unwind(|| {
        let snapshot = Snapshot::read(hostile.as_slice())?;
        check_from(&log(&more), Some(&previous), Some(snapshot), 0, i64::MAX).ok()
    });
    assert!(outcome.is_ok(), "a hostile snapshot panicked the checker");
}

/// A state file and a snapshot out of step (the snapshot newer, or of
/// another log) mean a full run.
#[test]
fn probe_a_snapshot_out_of_step_with_the_state_means_a_full_run() {
    let entries = varied_log();
    let (_, newer, _) = check_from(&log(&entries[..60]), None, None, 0, i64::MAX).expect("checks");
    let (older, _, _) = check_from(&log(&entries[..30]), None, None, 0, i64::MAX).expect("checks");
    let previous = older.state.expect("accepted");
    let full = run(&entries);
    let (report, _, read) =
        check_from(&log(&entries), Some(&previous), newer, 0, i64::MAX).expect("checks");
    assert_eq!(read, entries.len() as u64);
    assert_same(&full, &report, "a newer snapshot");
    // The snapshot of another log of the same size (one entry differs):
    // its state is not ours, so it is refused and everything is read.
    let mut changed = entries[..30].to_vec();
    changed[3] = round(&uuid(0x99), 0);
    let (_, theirs, _) = check_from(&log(&changed), None, None, 0, i64::MAX).expect("checks");
    let (report, _, read) =
        check_from(&log(&entries), Some(&previous), theirs, 0, i64::MAX).expect("checks");
    assert_eq!(read, entries.len() as u64);
    assert_same(&full, &report, "another log's snapshot");
}

// ---------------------------------------------------------------------------
// (c) a client seed shared by pairs of many tenants
// ---------------------------------------------------------------------------

fn shared_seed_log(pairs: usize, distinct_tenants: bool) -> LogView {
    let look = lookalike_sha256("lucky");
    let exact = client_seed_sha256("lucky");
    let mut entries = Vec::with_capacity(pairs * 2);
    for n in 0..pairs {
        let p = uuid::Uuid::from_u128(n as u128 + 1)
            .hyphenated()
            .to_string();
        let tenant = if distinct_tenants {
            format!("{n:032x}")
        } else {
            "0".repeat(32)
        };
        let mut c = commit(&p, &tenant);
        c["tenant"] = tenant.into();
        entries.push(serde_json::to_vec(&c).expect("JSON"));
        entries.push(
            serde_json::to_vec(&json!({"type": "client_seed", "seed_pair": p,
                "client_seed_sha256": exact, "client_seed_lookalike_sha256": look,
                "time": TIME}))
            .expect("JSON"),
        );
    }
    log_of(entries)
}

/// A client seed shared by live pairs of many tenants (a group's members
/// by tenant are a map, not a list searched from the start: linear work)
/// is one note and no finding; of one tenant, one finding naming the pairs.
/// (Its cost is measured, not asserted: docs/PERFORMANCE.md.)
#[test]
fn probe_a_seed_shared_by_many_tenants_is_one_note_and_of_one_tenant_one_finding() {
    let n = 20_000;
    let report = check(&shared_seed_log(n, true), None, 0, i64::MAX).expect("checks");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.notes.len(), 1);
    assert!(
        report.notes[0]
            .detail
            .contains(&format!("and {} more", n - 20))
    );
    let report = check(&shared_seed_log(n, false), None, 0, i64::MAX).expect("checks");
    let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, ["client_seed_reuse"]);
}

// ---------------------------------------------------------------------------
// The command line: --check-api on a resumed run
// ---------------------------------------------------------------------------

/// The state and the snapshot file a first run over `entries` leaves.
fn snapshot_of(entries: &[Value]) -> (MonitorState, Vec<u8>) {
    let (first, snapshot, _) = check_from(&log(entries), None, None, 0, i64::MAX).expect("checks");
    let mut written = Vec::new();
    snapshot
        .expect("snapshot")
        .write(&mut written)
        .expect("CBOR");
    (first.state.expect("accepted"), written)
}

fn log_files(entries: &[Vec<u8>]) -> Vec<(String, Vec<u8>)> {
    log_server::log_files(entries, &key(), ORIGIN)
}

/// With --check-api every pair and round the log names is read back from
/// the API. A resumed run reads only the entries after its snapshot, and
/// so reads back only theirs: a round deleted from the database after the
/// first run is found by a full run and missed by every resumed one.
#[test]
fn probe_check_api_on_a_resumed_run_finds_what_a_full_run_finds() {
    let p = uuid(0x81);
    let entries = vec![commit(&p, "t"), client_seed(&p, "lucky"), round(&p, 0)];
    let served = Arc::new(Served::default());
    let base = serve(served.clone());
    let api = |served: &Served, rounds: &[u64]| {
        let mut files = served.files.lock().expect("lock");
        files.retain(|path, _| !path.starts_with("/v1/"));
        files.insert(
            format!("/v1/seed-pairs/{p}"),
            serde_json::to_vec(&json!({"server_seed_hash": seed().1,
                "next_server_seed_hash": seed().1, "client_seed": "lucky",
                "server_seed": null}))
            .expect("JSON"),
        );
        for &n in rounds {
            files.insert(
                format!("/v1/rounds/{p}-r{n}"),
                serde_json::to_vec(&json!({"nonce": n, "game": {"type": "deck"},
                    "seed_pair_id": p}))
                .expect("JSON"),
            );
        }
    };
    let publish = |served: &Served, entries: &[Value]| {
        let mut files = served.files.lock().expect("lock");
        files.retain(|path, _| !path.starts_with("/log/"));
        files.extend(log_files(&bytes(entries)));
    };
    publish(&served, &entries);
    api(&served, &[0]);
    let dir = tempfile::tempdir().expect("dir");
    let state = dir.path().join("state.json");
    let state = state.to_str().expect("path");
    let first = fairdeal(&["monitor", &base, "--state", state, "--check-api", "--json"]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stdout)
    );
    // The log grows by a round; round 0's row is deleted.
    let mut grown = entries.clone();
    grown.push(round(&p, 1));
    publish(&served, &grown);
    api(&served, &[1]);
    let full = fairdeal(&["monitor", &base, "--check-api", "--json"]);
    assert_eq!(
        full.status.code(),
        Some(1),
        "a full run finds the deleted row: {}",
        String::from_utf8_lossy(&full.stdout)
    );
    let resumed = fairdeal(&["monitor", &base, "--state", state, "--check-api", "--json"]);
    let out = String::from_utf8_lossy(&resumed.stdout);
    // --check-api reads every pair and round back: it reads the whole log.
    assert!(out.contains("\"resumed_from\": null"), "{out}");
    assert_eq!(
        resumed.status.code(),
        full.status.code(),
        "a resumed run with --check-api misses the round deleted from the API: {out}"
    );
}
