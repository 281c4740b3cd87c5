//! The one log checker over entries a hostile log holds: the input's lines
//! are the entries of a log whose checkpoint the trusted key signs (so every
//! rule about entries runs: order, duplicates, nonces, seeds, tables,
//! draws). Never a panic; the tree and tiles verify; the report lists at
//! most `MAX_FINDINGS` findings and counts the rest.
#![no_main]

use fairdeal::audit::monitor::{LogChecker, MAX_FINDINGS};
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tree;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let entries: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let stored = tree::stored_hashes_of(&entries).expect("stored hashes");
    let size = entries.len() as u64;
    let root = tree::tree_hash(size, &stored).expect("root");
    let origin = "fuzz.example/log";
    // Made once, not on every input (it derives an Ed25519 key).
    static KEY: std::sync::LazyLock<LogKey> =
        std::sync::LazyLock::new(|| LogKey::from_hex(&"07".repeat(32), "fuzz.example/log").expect("key"));
    let key = &*KEY;
    let note = key
        .sign_note(&format!("{origin}\n{size}\n{root}\n"))
        .expect("sign");
    let mut checker = LogChecker::new(&key.vkey(), None, &note, None, true).expect("a checkpoint");
    assert!(checker.trusted());
    for entry in &entries {
        checker.entry(entry);
        checker.take_tiles();
    }
    checker.end_of_entries();
    checker.take_tiles();
    let (report, _) = checker.finish(0, 1000);
    assert!(report.checkpoint_accepted, "{:?}", report.findings);
    assert!(report.findings.len() <= MAX_FINDINGS);
    assert!(report.notes.len() <= MAX_FINDINGS);
});
