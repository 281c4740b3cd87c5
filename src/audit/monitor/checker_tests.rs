use super::*;
use crate::tlog::key::LogKey;
use serde_json::json;

const ORIGIN: &str = "test.example/log";

fn key() -> LogKey {
    LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key")
}

/// A log of `entries` as an honest service would serve it, with every
/// hash tile.
fn log(entries: Vec<Vec<u8>>) -> LogView {
    LogView::signed(entries, &key(), ORIGIN).expect("a log")
}

fn bytes(entries: &[Value]) -> Vec<Vec<u8>> {
    entries
        .iter()
        .map(|e| serde_json::to_vec(e).expect("JSON"))
        .collect()
}

fn run(entries: &[Value]) -> MonitorReport {
    check(&log(bytes(entries)), None, 0, i64::MAX).expect("checks")
}

fn kinds(report: &MonitorReport) -> Vec<&'static str> {
    report.findings.iter().map(|f| f.kind).collect()
}

fn seed() -> (String, String) {
    let seed = [9u8; 32];
    (hex::encode(seed), hex::encode(Sha256::digest(seed)))
}

fn commit(pair: &str, tenant: Option<&str>) -> Value {
    let (_, hash) = seed();
    let mut entry = json!({"type": "commit", "seed_pair": pair, "server_seed_hash": hash,
                           "next_server_seed_hash": hash, "predecessor": null,
                           "time": "2026-11-23T00:00:00Z"});
    if let Some(tenant) = tenant {
        entry["tenant"] = tenant.into();
    }
    entry
}

fn client_seed(pair: &str, client_seed: &str) -> Value {
    json!({"type": "client_seed", "seed_pair": pair,
           "client_seed_sha256": crate::tlog::entry::client_seed_sha256(client_seed),
           "client_seed_lookalike_sha256": crate::text::lookalike_sha256(client_seed),
           "time": "2026-11-23T00:00:01Z"})
}

fn round(pair: &str, nonce: u64) -> Value {
    json!({"type": "round", "seed_pair": pair, "round": format!("{pair}-{nonce}"),
           "nonce": nonce, "game": {"type": "deck"}, "time": "2026-11-23T00:00:02Z"})
}

fn reveal(pair: &str, successor: &str) -> Value {
    json!({"type": "reveal", "seed_pair": pair, "server_seed": seed().0,
           "successor": successor, "time": "2026-11-23T00:00:03Z"})
}

/// A chain of `length` from a fixed tip: `s_0 … s_N`.
fn chain(length: u64) -> Vec<[u8; 32]> {
    let mut seeds = vec![[4u8; 32]];
    for _ in 0..length {
        let below: [u8; 32] = Sha256::digest(seeds[seeds.len() - 1]).into();
        seeds.push(below);
    }
    seeds.reverse();
    seeds
}

fn chain_commit(pair: &str, seeds: &[[u8; 32]]) -> Value {
    let mut entry = commit(pair, Some("t"));
    entry["server_seed_hash"] = hex::encode(seeds[0]).into();
    entry["chain_length"] = (seeds.len() as u64 - 1).into();
    entry
}

fn round_seed(pair: &str, nonce: u64, seed: &[u8; 32]) -> Value {
    json!({"type": "round_seed", "seed_pair": pair, "round": format!("{pair}-{nonce}"),
           "nonce": nonce, "server_seed": hex::encode(seed), "time": "2026-11-23T00:00:02Z"})
}

fn chain_reveal(pair: &str, seeds: &[[u8; 32]]) -> Value {
    let mut entry = reveal(pair, "next");
    entry["server_seed"] = hex::encode(seeds[seeds.len() - 1]).into();
    entry
}

/// An honest chain pair: rounds dealt, seeds published in order as
/// rounds end (some while later rounds are in play), the tip revealed.
fn honest_chain() -> (Vec<[u8; 32]>, Vec<Value>) {
    let seeds = chain(6);
    let entries = vec![
        chain_commit("c", &seeds),
        client_seed("c", "chained"),
        round("c", 0),
        round("c", 1),
        round_seed("c", 0, &seeds[1]),
        round("c", 2),
        round_seed("c", 1, &seeds[2]),
        round_seed("c", 2, &seeds[3]),
        round("c", 3),
        round_seed("c", 3, &seeds[4]),
        chain_reveal("c", &seeds),
    ];
    (seeds, entries)
}

#[test]
fn an_honest_chain_pair_has_no_finding() {
    let (_, entries) = honest_chain();
    let report = run(&entries);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert!(report.notes.is_empty(), "{:?}", report.notes);
}

/// Each way to publish a chain's seeds wrongly is a finding of its own
/// kind, naming the round.
#[test]
fn a_chain_published_wrongly_is_named() {
    let (seeds, honest) = honest_chain();
    let cases: Vec<(&str, Vec<Value>, &str, &str)> = vec![
        (
            "a seed that does not link",
            {
                let mut e = honest.clone();
                e[6] = round_seed("c", 1, &[7; 32]);
                e
            },
            "chain",
            "round 1 of c: its published seed does not hash to the previous round's seed",
        ),
        (
            "seeds out of order",
            {
                let mut e = honest.clone();
                e.swap(6, 7);
                e
            },
            "order",
            "publishes the seed of round 2 where round 1's was next",
        ),
        (
            "a seed before its round",
            {
                let mut e = honest.clone();
                e.swap(8, 9);
                e
            },
            "order",
            "publishes the seed of round 3 before the round was dealt",
        ),
        (
            "a reveal with a round unpublished",
            {
                let mut e = honest.clone();
                e.remove(9);
                e
            },
            "reveal",
            "revealed with rounds 3 to 3 whose seeds were never published",
        ),
        (
            "a tip of another chain",
            {
                let mut e = honest.clone();
                e[10]["server_seed"] = hex::encode([5u8; 32]).into();
                e
            },
            "reveal",
            "revealed tip does not hash down to its last published seed",
        ),
        (
            "a round past the chain's end",
            {
                let short = &seeds[..3];
                let mut e = vec![chain_commit("c", short), client_seed("c", "x")];
                e.extend((0..3).map(|n| round("c", n)));
                e
            },
            "chain",
            "deals nonce 2 past the end of its chain of 2",
        ),
        (
            "a round seed of a plain pair",
            vec![
                commit("p", Some("t")),
                client_seed("p", "y"),
                round("p", 0),
                round_seed("p", 0, &seeds[1]),
            ],
            "chain",
            "a round seed of p, which was not committed as a chain",
        ),
    ];
    for (what, entries, kind, detail) in cases {
        let report = run(&entries);
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.kind == kind && f.detail.contains(detail)),
            "{what}: {:?}",
            report.findings
        );
    }
}

/// A snapshot is the monitor's own file, but one crafted or damaged
/// with its digest made to match must still never panic the checker:
/// 1,000 copies with one to three bytes changed (a fixed sequence), each
/// read back and, when it reads, resumed over a log that grew.
#[test]
fn a_crafted_snapshot_with_a_matching_digest_never_panics_the_checker() {
    let mut entries = vec![commit("p", Some("t")), client_seed("p", "lucky")];
    entries.extend((0..300).map(|n| round("p", n)));
    entries.push(commit("q", Some("t")));
    entries.push(client_seed("q", "LUCKY"));
    let (first, snapshot, _) =
        check_from(&log(bytes(&entries)), None, None, 0, i64::MAX).expect("checks");
    let previous = first.state.expect("accepted");
    let mut written = Vec::new();
    snapshot
        .expect("accepted")
        .write(&mut written)
        .expect("CBOR");
    let body = written.len() - 32;
    let mut more = entries.clone();
    more.extend((300..320).map(|n| round("p", n)));
    more.push(reveal("p", "r"));
    let grown = log(bytes(&more));
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let mut resumed = 0;
    for _ in 0..1_000 {
        let mut copy = written[..body].to_vec();
        for _ in 0..=next(3) {
            let at = next(copy.len());
            copy[at] = next(256) as u8;
        }
        copy.extend(Sha256::digest(&copy));
        if let Some(snapshot) = Snapshot::read(copy.as_slice()) {
            let (report, _, _) =
                check_from(&grown, Some(&previous), Some(snapshot), 0, i64::MAX).expect("checks");
            resumed += usize::from(report.checkpoint_accepted);
        }
    }
    // Some changes (a finding's text, a count) still read and resume.
    assert!(resumed > 0);
}

/// An accepted run's snapshot, written as to its file and read back.
fn written_and_read_back(snapshot: Option<Snapshot>) -> Snapshot {
    let mut written = Vec::new();
    snapshot
        .expect("accepted")
        .write(&mut written)
        .expect("CBOR");
    Snapshot::read(written.as_slice()).expect("read back")
}

/// A run keeping a ledger: its report, snapshot, the ledger's bytes
/// it wrote, and whether it resumed.
fn with_ledger(
    view: &LogView,
    previous: Option<&MonitorState>,
    snapshot: Option<Snapshot>,
) -> (MonitorReport, Option<Snapshot>, Vec<u8>, bool) {
    let mut checker =
        LogChecker::new(&view.vkey, None, &view.checkpoint, previous, false).expect("checker");
    checker.keep_ledger();
    let resumed = snapshot.is_some_and(|s| checker.resume(s));
    let from = usize::try_from(checker.read()).expect("small");
    let mut ledger = Vec::new();
    for entry in view.entries.iter().skip(from) {
        checker.entry(entry);
        ledger.extend(checker.take_ledger());
    }
    checker.end_of_entries();
    let (report, _, snapshot) = checker.finish_keeping(0, i64::MAX);
    (report, snapshot, ledger, resumed)
}

#[test]
fn a_ledger_kept_across_a_resumed_run_is_the_ledger_of_one_full_run() {
    // p is revealed before the cut; q is committed and dealt before it
    // and revealed after (its digest crosses the cut in the snapshot);
    // r is committed and revealed after.
    let before = vec![
        commit("p", Some("t")),
        client_seed("p", "p's"),
        round("p", 0),
        reveal("p", "p2"),
        commit("q", Some("t")),
        client_seed("q", "q's"),
        round("q", 0),
    ];
    let after = vec![
        round("q", 1),
        reveal("q", "q2"),
        commit("r", Some("u")),
        client_seed("r", "r's"),
        round("r", 0),
        reveal("r", "r2"),
    ];
    let all: Vec<Value> = before.iter().chain(&after).cloned().collect();
    let (full, _, whole, _) = with_ledger(&log(bytes(&all)), None, None);
    assert!(full.findings.is_empty(), "{:?}", full.findings);
    let records = |mut bytes: &[u8]| {
        std::iter::from_fn(|| crate::audit::cross::PairDigest::read(&mut bytes).expect("a record"))
            .map(|r| (r.pair.to_string(), r.index, r.count))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        records(&whole),
        [
            ("p".to_owned(), 3, 1),
            ("q".to_owned(), 8, 2),
            ("r".to_owned(), 12, 1)
        ]
    );

    let (first, snapshot, start, _) = with_ledger(&log(bytes(&before)), None, None);
    let snapshot = written_and_read_back(snapshot);
    let mark = snapshot.ledger().expect("a ledger kept");
    assert_eq!((mark.pairs, mark.bytes), (1, start.len() as u64));
    assert_eq!(mark, LedgerMark::default().after(&start));
    let previous = first.state.expect("accepted");
    let (_, kept, rest, resumed) = with_ledger(&log(bytes(&all)), Some(&previous), Some(snapshot));
    assert!(resumed);
    assert_eq!(
        [start, rest].concat(),
        whole,
        "the same bytes, in the same order"
    );
    let mark = kept.and_then(|s| s.ledger()).expect("kept");
    assert_eq!((mark.pairs, mark.bytes), (3, whole.len() as u64));

    // A snapshot kept without a ledger is not resumed by a run that
    // keeps one: it reads everything and writes the whole ledger.
    let (_, without, _) =
        check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
    assert!(without.as_ref().is_some_and(|s| s.ledger().is_none()));
    let (_, _, again, resumed) = with_ledger(&log(bytes(&all)), Some(&previous), without);
    assert!(!resumed);
    assert_eq!(again, whole);
}

#[test]
fn a_run_resumed_from_a_snapshot_reads_only_new_entries_and_finds_what_a_full_run_finds() {
    // Before the cut: p holds "lucky" live, q is committed, r deals
    // rounds across a tile edge.
    let mut before = vec![
        commit("p", Some("t")),
        client_seed("p", "lucky"),
        commit("q", Some("t")),
        commit("r", Some("u")),
        client_seed("r", "r's own"),
    ];
    before.extend((0..695).map(|n| round("r", n)));
    // After it: s of the same tenant gets a lookalike of "lucky" while
    // p is live (deal-shopping across the cut), q is seeded, dealt and
    // revealed (its commitment is before the cut), r is committed again.
    let mut after = vec![
        commit("s", Some("t")),
        client_seed("s", "LUCKY\u{200B}"),
        client_seed("q", "q's own"),
        round("q", 0),
        reveal("q", "q2"),
        commit("r", Some("u")),
    ];
    after.extend((695..1200).map(|n| round("r", n)));
    let all: Vec<Value> = before.iter().chain(&after).cloned().collect();
    let full = check(&log(bytes(&all)), None, 0, i64::MAX).expect("checks");
    assert_eq!(
        kinds(&full),
        ["order", "client_seed_reuse"],
        "{:?}",
        full.findings
    );

    let (first, snapshot, read) =
        check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
    assert_eq!(read, 700);
    let snapshot = written_and_read_back(snapshot);
    let previous = first.state.expect("accepted");
    let (resumed, _, read) = check_from(
        &log(bytes(&all)),
        Some(&previous),
        Some(snapshot),
        0,
        i64::MAX,
    )
    .expect("checks");
    assert_eq!(read, after.len() as u64, "only the new entries are read");
    assert!(resumed.checkpoint_accepted);
    let details = |r: &MonitorReport| -> Vec<(&str, Option<u64>, String)> {
        r.findings
            .iter()
            .map(|f| (f.kind, f.index, f.detail.clone()))
            .collect()
    };
    assert_eq!(details(&resumed), details(&full));
    assert_eq!(
        (
            resumed.pairs,
            resumed.rounds,
            resumed.unrevealed,
            resumed.notes.len()
        ),
        (full.pairs, full.rounds, full.unrevealed, full.notes.len())
    );

    // A log that changed an entry before the cut: the resumed tree does
    // not give its root, and nothing is accepted.
    let (_, snapshot, _) =
        check_from(&log(bytes(&before)), None, None, 0, i64::MAX).expect("checks");
    let mut forked = all.clone();
    forked[10] = round("r", 99);
    let (report, kept, _) =
        check_from(&log(bytes(&forked)), Some(&previous), snapshot, 0, i64::MAX).expect("checks");
    assert!(kinds(&report).contains(&"tree"), "{:?}", report.findings);
    assert!(!report.checkpoint_accepted && kept.is_none());

    // A snapshot of another checkpoint is not resumed: everything is read.
    let (_, other, _) =
        check_from(&log(bytes(&before[..600])), None, None, 0, i64::MAX).expect("checks");
    let (report, _, read) =
        check_from(&log(bytes(&all)), Some(&previous), other, 0, i64::MAX).expect("checks");
    assert_eq!(read, all.len() as u64);
    assert_eq!(details(&report), details(&full));
}

#[test]
fn the_guided_search_answers_as_a_binary_search_whatever_the_keys_spread() {
    // Fixed pseudo-random bytes: the SHA-256 of a counter.
    let mut counter = 0u64;
    let mut random = move || {
        counter += 1;
        digest16(&[&counter.to_be_bytes()])
    };
    let key = |bytes: [u8; 16], spread: u64| -> [u8; 16] {
        let mut key = bytes;
        key[..8].copy_from_slice(&spread.to_be_bytes());
        key
    };
    let word = |bytes: [u8; 16]| u64::from_be_bytes(bytes[8..].try_into().unwrap_or_default());
    // Evenly spread, clustered at both ends, all but a few with one
    // prefix (only the bytes after the guide differ), and sizes around
    // the point where the guide is used.
    type Shape = (&'static str, usize, fn(u64) -> u64);
    let shapes: [Shape; 4] = [
        ("even", 100_000, |r| r),
        ("clustered", 50_000, |r| {
            if r % 2 == 0 {
                r % 1000
            } else {
                u64::MAX - r % 1000
            }
        }),
        ("one prefix", 20_000, |r| if r % 100 == 0 { r } else { 7 }),
        ("small", 70, |r| r),
    ];
    for (shape, n, spread) in shapes {
        let mut keys: Vec<([u8; 16], u32)> = (0..n)
            .map(|i| {
                let bytes = random();
                (key(bytes, spread(word(bytes))), i as u32)
            })
            .collect();
        keys.sort_unstable_by_key(|k| k.0);
        keys.dedup_by_key(|k| k.0);
        for (at, (k, _)) in keys.iter().enumerate().step_by(7) {
            assert_eq!(search(&keys, k), Ok(at), "{shape}: a key present");
        }
        for _ in 0..20_000 {
            let bytes = random();
            let absent = key(bytes, spread(word(bytes)));
            let expected = keys.binary_search_by(|(k, _)| k.cmp(&absent));
            assert_eq!(search(&keys, &absent), expected, "{shape}: any key");
        }
        let (first, last) = (keys[0].0, keys[keys.len() - 1].0);
        assert_eq!(search(&keys, &first), Ok(0), "{shape}");
        assert_eq!(search(&keys, &last), Ok(keys.len() - 1), "{shape}");
        assert_eq!(search(&keys, &[0; 16]).ok(), None, "{shape}");
        assert_eq!(search(&keys, &[255; 16]), Err(keys.len()), "{shape}");
    }
    let none: [([u8; 16], u32); 0] = [];
    assert_eq!(search(&none, &[1; 16]), Err(0));
    // Ids: UUIDs with a few numbered ids (another class) after them.
    let mut ids: Vec<(Id, ())> = (0..5_000)
        .map(|_| (Id::uuid(random()), ()))
        .chain((0..3).map(|n| (Id::numbered(n), ())))
        .collect();
    ids.sort_unstable_by_key(|id| id.0);
    for probe in (0..2_000)
        .map(|_| Id::uuid(random()))
        .chain(ids.iter().step_by(3).map(|id| id.0))
        .chain((0..5).map(Id::numbered))
    {
        let expected = ids.binary_search_by(|(k, _)| k.cmp(&probe));
        assert_eq!(search(&ids, &probe), expected, "{probe:?}");
    }
}

#[test]
fn a_sorted_map_finds_every_key_across_merges_and_keeps_the_first_value() {
    let mut map = SortedMap::<u64, u64>::default();
    // Keys in a scrambled order, each given twice (the first stands).
    let keys: Vec<u64> = (0..100_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for (value, key) in keys.iter().enumerate() {
        map.insert_new(*key, value as u64);
    }
    for key in &keys {
        map.insert_new(*key, u64::MAX);
    }
    assert!(map.sorted.len() > 90_000, "merged as it grew");
    for (value, key) in keys.iter().enumerate() {
        assert_eq!(map.get(key), Some(value as u64));
        assert!(!map.contains(&key.wrapping_add(1)) || keys.contains(&key.wrapping_add(1)));
    }
    let again = SortedMap::from_records(map.iter());
    assert_eq!(again.iter().count(), keys.len());
    assert!(keys.iter().all(|k| again.get(k) == map.get(k)));
}

#[test]
fn the_streamed_tree_gives_the_root_and_tiles_of_the_stored_hashes() {
    // Sizes around tile edges, and past one level-1 tile (65,536 leaves).
    for size in [
        0usize, 1, 2, 3, 255, 256, 257, 511, 512, 513, 65_535, 65_536, 65_537, 66_000,
    ] {
        let entries: Vec<Vec<u8>> = (0..size).map(|i| i.to_string().into_bytes()).collect();
        let report = check(&log(entries), None, 0, i64::MAX).expect("checks");
        // Every entry is "not JSON" here; only the tree matters.
        assert!(
            report.findings.iter().all(|f| f.kind == "entry"),
            "size {size}: {:?}",
            report.findings.iter().find(|f| f.kind != "entry")
        );
        assert!(report.checkpoint_accepted, "size {size}");
    }
}

#[test]
fn a_changed_hash_tile_or_entry_is_found() {
    let entries: Vec<Vec<u8>> = (0..600).map(|i| i.to_string().into_bytes()).collect();
    let mut view = log(entries.clone());
    view.hash_tiles[1].2[5] ^= 1;
    let report = check(&view, None, 0, i64::MAX).expect("checks");
    assert!(kinds(&report).contains(&"tile"));
    assert!(!report.checkpoint_accepted);
    let mut view = log(entries);
    view.entries[300] = b"changed".to_vec();
    let report = check(&view, None, 0, i64::MAX).expect("checks");
    assert!(kinds(&report).contains(&"tree"));
    assert!(report.state.is_none());
}

#[test]
fn a_client_seed_before_its_commitment_fails_and_facts_keep_the_first_entry() {
    // The re-commitment the log exists to rule out: the client seed,
    // then the commitment.
    let report = run(&[
        client_seed("p", "lucky"),
        commit("p", Some("t")),
        round("p", 0),
        reveal("p", "q"),
    ]);
    assert!(kinds(&report).contains(&"order"), "{:?}", report.findings);
    // A second commitment after the client seed: a finding, and the
    // first one stands.
    let mut second = commit("p", Some("t"));
    second["server_seed_hash"] = "ab".repeat(32).into();
    let view = log(bytes(&[
        commit("p", Some("t")),
        client_seed("p", "lucky"),
        second,
        round("p", 0),
        reveal("p", "q"),
    ]));
    let mut checker =
        LogChecker::new(&view.vkey, None, &view.checkpoint, None, true).expect("checker");
    for entry in &view.entries {
        checker.entry(entry);
    }
    checker.end_of_entries();
    let (report, facts) = checker.finish(0, i64::MAX);
    assert_eq!(kinds(&report), ["order"]);
    assert_eq!(facts["p"].server_seed_hash, seed().1);
    assert_eq!(facts["p"].rounds.len(), 1);
    // A second reveal does not replace the first (nothing is kept of a
    // revealed pair to check it against: the second one is the finding).
    let mut other = reveal("p", "z");
    other["server_seed"] = "11".repeat(32).into();
    let report = run(&[
        commit("p", Some("t")),
        client_seed("p", "lucky"),
        reveal("p", "q"),
        other,
    ]);
    assert_eq!(kinds(&report), ["order"]);
    assert!(report.findings[0].detail.contains("revealed twice"));
}

#[test]
fn lookalike_seeds_on_live_pairs_of_one_tenant_are_one_finding() {
    let seeds = [
        "player-7f3a9c",
        "player-7f3a9c\u{200B}",
        "player-\u{2060}7f3a9c",
        "\u{FEFF}player-7f3a9c",
        "pl\u{0430}yer-7f3a9c",
    ];
    let mut entries = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        entries.push(commit(&format!("p{i}"), Some("t")));
        entries.push(client_seed(&format!("p{i}"), s));
    }
    let report = run(&entries);
    assert_eq!(
        kinds(&report),
        ["client_seed_reuse"],
        "{:?}",
        report.findings
    );
    let detail = &report.findings[0].detail;
    assert!(
        detail.contains("look alike") && detail.contains("p4"),
        "{detail}"
    );
    assert!(report.notes.is_empty());
}

#[test]
fn a_seed_shared_across_tenants_or_after_a_reveal_is_a_note_not_a_failure() {
    let report = run(&[
        commit("a", Some("brand-1")),
        client_seed("a", "lucky7"),
        commit("b", Some("brand-2")),
        client_seed("b", "lucky7"),
    ]);
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.notes.len(), 1);
    let report = run(&[
        commit("a", Some("brand-1")),
        client_seed("a", "lucky7"),
        reveal("a", "x"),
        commit("b", Some("brand-1")),
        client_seed("b", "lucky7"),
    ]);
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.notes.len(), 1);
    // Older entries name no tenant: anyone's, so still a failure.
    let report = run(&[
        commit("a", None),
        client_seed("a", "lucky7"),
        commit("b", Some("brand-2")),
        client_seed("b", "lucky7"),
    ]);
    assert_eq!(kinds(&report), ["client_seed_reuse"]);
}

#[test]
fn thousands_of_pairs_sharing_a_seed_are_one_finding() {
    let mut entries = Vec::new();
    for i in 0..3000 {
        entries.push(commit(&format!("p{i}"), Some("t")));
        entries.push(client_seed(&format!("p{i}"), "lucky"));
    }
    let report = run(&entries);
    assert_eq!(kinds(&report), ["client_seed_reuse"]);
    assert!(report.findings[0].detail.contains("and 2980 more"));
}

#[test]
fn a_nonce_after_the_last_one_is_a_finding_not_a_wrap() {
    let report = run(&[
        commit("p", Some("t")),
        client_seed("p", "s"),
        round("p", 0),
        round("p", u64::MAX),
        round("p", 0),
    ]);
    let details: Vec<&str> = report.findings.iter().map(|f| f.detail.as_str()).collect();
    assert_eq!(details.len(), 2, "{details:?}");
    assert!(details[1].contains("after nonce 2^64 - 1"), "{details:?}");
}

#[test]
fn an_entry_without_its_pair_or_nonce_is_named_as_such() {
    let mut nameless = round("p", 1);
    nameless["seed_pair"] = "".into();
    let mut no_nonce = round("p", 1);
    no_nonce["nonce"] = "1".into();
    let mut no_pair = client_seed("p", "s");
    no_pair.as_object_mut().expect("object").remove("seed_pair");
    let report = run(&[
        commit("p", Some("t")),
        client_seed("p", "s"),
        round("p", 0),
        nameless,
        no_nonce,
        no_pair,
        round("p", 1),
    ]);
    let details: Vec<&str> = report.findings.iter().map(|f| f.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "a round entry that names no seed pair (its seed_pair is missing or empty)",
            "a round entry of pair p without a nonce (its nonce is missing or not a whole number \
             from 0 to 2^64 - 1)",
            "a client_seed entry that names no seed pair (its seed_pair is missing or empty)",
        ],
        "{details:?}"
    );
    assert_eq!(kinds(&report), ["entry"; 3]);
    // A round of a pair never committed names the pair as a pair.
    let report = run(&[round("q", 0)]);
    assert_eq!(
        report.findings[0].detail,
        "a round of pair q before its commitment"
    );
}

#[test]
fn a_checkpoint_that_does_not_verify_is_not_read_further() {
    let mut view = log(bytes(&[commit("p", Some("t"))]));
    let forged = format!("{ORIGIN}\n1099511627776\n{}\n", "A".repeat(43) + "=");
    view.checkpoint = LogKey::from_hex(&"08".repeat(32), ORIGIN)
        .expect("key")
        .sign_note(&forged)
        .expect("sign");
    let checker =
        LogChecker::new(&view.vkey, None, &view.checkpoint, None, false).expect("checker");
    assert!(!checker.trusted());
    assert_eq!(checker.size(), 0);
    // A key remembered from before wins over the one served.
    let previous = MonitorState {
        origin: ORIGIN.into(),
        vkey: view.vkey.clone(),
        size: 0,
        root: String::new(),
    };
    let other = LogKey::from_hex(&"08".repeat(32), ORIGIN).expect("key");
    let checker = LogChecker::new(
        &other.vkey(),
        None,
        &view.checkpoint,
        Some(&previous),
        false,
    )
    .expect("checker");
    assert!(!checker.trusted());
}

#[test]
fn too_many_findings_are_counted_not_listed() {
    let mut entries = vec![commit("p", Some("t")), client_seed("p", "s")];
    entries.extend((0..(MAX_FINDINGS as u64 + 50)).map(|_| round("p", 7)));
    let report = run(&entries);
    assert_eq!(report.findings.len(), MAX_FINDINGS);
    assert_eq!(report.findings_not_listed, 50);
    assert!(!report.passed());
}

#[test]
fn witness_sets_are_read_and_a_malformed_one_is_named() {
    use crate::tlog::cosignature::Cosigner;
    let a = Cosigner::from_bytes(&[1; 32], "witness.example/a")
        .expect("key")
        .vkey();
    let b = Cosigner::from_bytes(&[2; 32], "witness.example/b")
        .expect("key")
        .vkey();
    let set = |witnesses: Value, quorum: Value| json!({"type": "witness_set", "witnesses": witnesses, "quorum": quorum, "time": "t"});
    let honest = [
        set(json!([{"vkey": a, "url": "http://127.0.0.1:1"}]), json!(1)),
        set(
            json!([{"vkey": a, "url": "https://a.example"}, {"vkey": b, "url": "https://b.example"}]),
            json!(1),
        ),
        set(json!([]), json!(0)),
    ];
    assert!(
        kinds(&run(&honest)).is_empty(),
        "{:?}",
        run(&honest).findings
    );
    let a_twice =
        json!([{"vkey": a, "url": "https://a.example"}, {"vkey": a, "url": "https://b.example"}]);
    for (bad, said) in [
        (
            set(json!([{"vkey": a, "url": "https://a.example"}]), json!(2)),
            "quorum 2",
        ),
        (set(json!([]), json!(1)), "quorum 1"),
        (set(a_twice, json!(1)), "twice"),
        (
            set(
                json!([{"vkey": "nobody", "url": "https://a.example"}]),
                json!(1),
            ),
            "not a cosignature",
        ),
        (
            set(json!([{"vkey": a, "url": "ftp://a.example"}]), json!(1)),
            "not http(s)",
        ),
        (set(json!([{"vkey": a}]), json!(1)), "no vkey or url"),
        (set(json!("a"), json!(1)), "without its witnesses"),
        (set(json!([]), json!(-1)), "without its witnesses"),
    ] {
        let report = run(std::slice::from_ref(&bad));
        assert_eq!(kinds(&report), ["witnesses"], "{bad}");
        assert!(
            report.findings[0].detail.contains(said),
            "{bad}: {:?}",
            report.findings
        );
    }
}
