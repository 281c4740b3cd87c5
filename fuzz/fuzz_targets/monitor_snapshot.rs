//! A monitor's snapshot (`monitor --state`'s STATE.snapshot) as anyone who
//! can write the file could make it: the input, with its SHA-256 appended
//! so that the digest matches, is read back and, when it reads, resumed
//! over a small honest log. Never a panic, whatever the snapshot holds.
//!
//! Seed inputs: with `FUZZ_SNAPSHOT_SEEDS=DIR` set, the first input run
//! writes into DIR the snapshots (CBOR, without their digest) that the
//! checker keeps over the first 2, 150 and 302 entries of that log
//! (`FUZZ_SNAPSHOT_SEEDS=corpus/monitor_snapshot cargo fuzz run
//! monitor_snapshot -- -runs=1`).
#![no_main]

use std::sync::OnceLock;

use fairdeal::audit::monitor::{LogView, MonitorState, Snapshot, check_from};
use fairdeal::tlog::key::LogKey;
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};

const ORIGIN: &str = "fuzz.example/log";

fn entries(n: usize) -> Vec<Vec<u8>> {
    let pair = "00000000-0000-4000-8000-000000000001";
    let mut entries = vec![
        format!(r#"{{"type":"commit","seed_pair":"{pair}","server_seed_hash":"{}","next_server_seed_hash":"{}","time":"2026-11-23T00:00:00Z"}}"#, "ab".repeat(32), "cd".repeat(32)),
        format!(r#"{{"type":"client_seed","seed_pair":"{pair}","client_seed_sha256":"{}","time":"2026-11-23T00:00:00Z"}}"#, "ef".repeat(32)),
    ];
    entries.extend((0..300).map(|n| {
        format!(r#"{{"type":"round","seed_pair":"{pair}","round":"r{n}","nonce":{n},"game":{{"type":"deck"}},"time":"2026-11-23T00:00:00Z"}}"#)
    }));
    entries.truncate(n);
    entries.into_iter().map(String::into_bytes).collect()
}

fn key() -> LogKey {
    LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key")
}

/// The honest log of 302 entries, made once.
fn view() -> &'static LogView {
    static VIEW: OnceLock<LogView> = OnceLock::new();
    VIEW.get_or_init(|| {
        let view = LogView::signed(entries(302), &key(), ORIGIN).expect("a log");
        if let Some(dir) = std::env::var_os("FUZZ_SNAPSHOT_SEEDS") {
            let dir = std::path::PathBuf::from(dir);
            std::fs::create_dir_all(&dir).expect("the seed folder");
            for n in [2, 150, 302] {
                let part = LogView::signed(entries(n), &key(), ORIGIN).expect("a log");
                let (_, snapshot, _) = check_from(&part, None, None, 0, i64::MAX).expect("checks");
                let mut bytes = Vec::new();
                snapshot.expect("a snapshot").write(&mut bytes).expect("written");
                bytes.truncate(bytes.len() - 32);
                std::fs::write(dir.join(format!("seed-after-{n}")), bytes).expect("written");
            }
        }
        view
    })
}

fuzz_target!(|data: &[u8]| {
    let view = view();
    let mut file = data.to_vec();
    file.extend(Sha256::digest(data));
    let Some(snapshot) = Snapshot::read(file.as_slice()) else {
        return;
    };
    // Resumed as if it were the state the snapshot says it is of.
    let state: MonitorState = snapshot.state().clone();
    let _ = check_from(view, Some(&state), Some(snapshot), 0, i64::MAX);
});
