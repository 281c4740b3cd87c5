//! The hex and decimal parsers of the protocol inputs: `ServerSeed::from_hex`,
//! `Commitment::from_hex` and `parse_nonce`.
#![no_main]

use fairdeal_core::{Commitment, ServerSeed, parse_nonce};
use libfuzzer_sys::fuzz_target;

fn is_64_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();

    match ServerSeed::from_hex(text) {
        Ok(seed) => {
            assert!(is_64_hex(text), "accepted {text:?}");
            assert_eq!(seed.reveal_hex(), text.to_ascii_lowercase());
            let commitment = seed.commitment();
            assert_eq!(Commitment::from_hex(&commitment.to_string()), Ok(commitment));
        }
        Err(err) => {
            assert!(!is_64_hex(text), "refused {text:?}: {err}");
            let shown = err.to_string();
            // An error never repeats a (mistyped) secret.
            if text.len() >= 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
                assert!(!shown.contains(text), "error echoes the seed: {shown}");
            }
        }
    }

    match Commitment::from_hex(text) {
        Ok(commitment) => {
            assert!(is_64_hex(text), "accepted {text:?}");
            assert_eq!(commitment.to_string(), text.to_ascii_lowercase());
        }
        Err(err) => {
            assert!(!is_64_hex(text), "refused {text:?}: {err}");
            let _ = err.to_string();
        }
    }

    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match parse_nonce(text) {
        Ok(nonce) => {
            assert!(digits, "accepted {text:?}");
            assert_eq!(text.parse::<u64>(), Ok(nonce));
            assert_eq!(parse_nonce(&nonce.to_string()), Ok(nonce));
        }
        Err(err) => {
            assert!(!digits || text.parse::<u64>().is_err(), "refused {text:?}: {err}");
            let _ = err.to_string();
        }
    }
});
