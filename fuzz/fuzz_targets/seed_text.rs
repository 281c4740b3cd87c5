//! What a seed or a label looks like (`text`): the service's rule, the
//! lookalike fold and the terminal's marking, on any UTF-8. Never a panic;
//! a refused string names a position inside it; an accepted one is NFC and
//! holds no invisible character; folding removes every invisible
//! character; the marking is printable ASCII plus marked characters only,
//! and differs for different strings; a string folds as its lower case
//! unless it holds one of the capitals `case_apart` names.
#![no_main]

use fairdeal::text::{case_apart, invisible, is_invisible, lookalike_fold, marked};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match invisible(text) {
        Some(found) => assert!(found.position < text.chars().count().max(1), "{text:?}"),
        None => assert!(!text.chars().any(is_invisible), "{text:?}"),
    }
    let folded = lookalike_fold(text);
    assert!(!folded.chars().any(is_invisible), "{text:?}");
    if !text.chars().any(case_apart) {
        assert_eq!(folded, lookalike_fold(&text.to_lowercase()), "{text:?}");
    }
    if let Some(shown) = marked(text) {
        assert!(!shown.chars().any(|c| c.is_control() || is_invisible(c)), "{text:?}");
        // Split at the first character, the marking of the halves joins.
        if let Some((at, _)) = text.char_indices().nth(1) {
            let (a, b) = text.split_at(at);
            let part = |s: &str| marked(s).unwrap_or_else(|| s.replace('\\', "\\\\"));
            assert_eq!(part(a) + &part(b), shown, "{text:?}");
        }
    }
});
