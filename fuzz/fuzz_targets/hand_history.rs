//! The plain hand-history reader of `fairdeal audit --hands`: one line with
//! `parse_line`, the whole input with `read`.
#![no_main]

use fairdeal::audit::hand_history::{parse_line, read};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((hole, board)) = parse_line(text) {
            assert!(
                matches!((hole.len(), board.len()), (2, 0) | (2, 5) | (5, 0)),
                "{text:?}"
            );
            let mut all: Vec<_> = hole.iter().chain(&board).copied().collect();
            all.sort();
            assert!(all.windows(2).all(|w| w[0] != w[1]), "{text:?}");
        }
    }
    // Reading memory cannot fail: the result is evidence or the bad lines.
    match read(data).expect("reading memory cannot fail") {
        Ok((_evidence, hands)) => assert!(hands <= data.len() as u64),
        Err(bad) => {
            assert!(!bad.is_empty());
            assert!(bad.windows(2).all(|w| w[0].line < w[1].line));
        }
    }
});
