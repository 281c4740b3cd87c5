//! A checkpoint as a hostile log serves it, against the key a reader trusts:
//! `LogChecker::new` (the signed-note parser, the signature check, the
//! body's origin, size and root). Whatever it is given, a checker that
//! trusts it has verified a signature by the trusted key, and one that does
//! not trust it claims no entries (so nothing more is read).
#![no_main]

use fairdeal::audit::monitor::LogChecker;
use fairdeal::tlog::key::LogKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Made once, not on every input (it derives an Ed25519 key).
    static KEY: std::sync::LazyLock<LogKey> =
        std::sync::LazyLock::new(|| LogKey::from_hex(&"07".repeat(32), "fuzz.example/log").expect("key"));
    let key = &*KEY;
    // As served, and as the body of a note the trusted key signs.
    let signed = key.sign_note(&format!("{text}\n")).ok();
    for note in std::iter::once(text.to_string()).chain(signed) {
        if let Ok(checker) = LogChecker::new(&key.vkey(), None, &note, None, false) {
            if checker.trusted() {
                assert!(fairdeal::tlog::key::verify_note(&note, &key.vkey()).is_ok());
            } else {
                assert_eq!(checker.size(), 0);
            }
        }
    }
});
