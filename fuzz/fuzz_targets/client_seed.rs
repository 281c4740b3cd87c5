//! `ClientSeed::new` on arbitrary UTF-8: accepted exactly when the text is
//! 1 to 64 bytes with no control character, and then kept byte for byte.
#![no_main]

use fairdeal_core::{CLIENT_SEED_MAX_LEN, ClientSeed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let follows_rule = (1..=CLIENT_SEED_MAX_LEN).contains(&text.len())
        && !text.chars().any(char::is_control);
    match ClientSeed::new(text) {
        Ok(seed) => {
            assert!(follows_rule, "accepted a seed that breaks the rule: {text:?}");
            assert!((1..=64).contains(&seed.as_str().len()));
            assert!(!seed.as_str().chars().any(char::is_control));
            assert_eq!(seed.as_str(), text);
            assert_eq!(seed.to_string(), text);
            let _ = format!("{seed:?}");
        }
        Err(err) => {
            assert!(!follows_rule, "refused a valid seed: {text:?}: {err}");
            let _ = (err.to_string(), err.field());
        }
    }
});
