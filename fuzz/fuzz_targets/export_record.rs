//! One export line at a time (`fairdeal::audit::replay::line_problems`, the
//! part of the audit that parses a record and recomputes its deal): any
//! bytes, any line, must give a list of problems, never a panic. Cheaper
//! than `export_line` (which runs the whole audit and its statistics on
//! every input), so it reaches ten million executions.
#![no_main]

use fairdeal::audit::replay::line_problems;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines() {
        let problems = line_problems(line);
        // A blank line has no problem; anything that is not JSON is malformed.
        if line.trim().is_empty() {
            assert!(problems.is_empty());
        } else if serde_json::from_str::<serde_json::Value>(line).is_err() {
            assert_eq!(problems, ["malformed"]);
        }
    }
});
