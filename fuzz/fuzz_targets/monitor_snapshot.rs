//! A monitor's snapshot (`monitor --state`'s STATE.snapshot) as anyone who
//! can write the file could make it: the input, with its SHA-256 appended
//! so that the digest matches, is read back and, when it reads, resumed
//! over a small honest log. Never a panic, whatever the snapshot holds.
#![no_main]

use fairdeal::audit::monitor::{LogView, MonitorState, Snapshot, check_from};
use fairdeal::tlog::key::LogKey;
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};

fuzz_target!(|data: &[u8]| {
    let mut file = data.to_vec();
    file.extend(Sha256::digest(data));
    let Some(snapshot) = Snapshot::read(file.as_slice()) else {
        return;
    };
    let origin = "fuzz.example/log";
    let key = LogKey::from_hex(&"07".repeat(32), origin).expect("key");
    let pair = "00000000-0000-4000-8000-000000000001";
    let mut entries = vec![
        format!(r#"{{"type":"commit","seed_pair":"{pair}","server_seed_hash":"{}","next_server_seed_hash":"{}","time":"2026-11-23T00:00:00Z"}}"#, "ab".repeat(32), "cd".repeat(32)),
        format!(r#"{{"type":"client_seed","seed_pair":"{pair}","client_seed_sha256":"{}","time":"2026-11-23T00:00:00Z"}}"#, "ef".repeat(32)),
    ];
    entries.extend((0..300).map(|n| {
        format!(r#"{{"type":"round","seed_pair":"{pair}","round":"r{n}","nonce":{n},"game":{{"type":"deck"}},"time":"2026-11-23T00:00:00Z"}}"#)
    }));
    let view = LogView::signed(entries.into_iter().map(String::into_bytes).collect(), &key, origin)
        .expect("a log");
    // Resumed as if it were the state the snapshot says it is of.
    let state: MonitorState = snapshot.state().clone();
    let _ = check_from(&view, Some(&state), Some(snapshot), 0, i64::MAX);
});
