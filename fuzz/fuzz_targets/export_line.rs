//! The auditor's replay of an export (`fairdeal::audit::audit`) on arbitrary
//! bytes: NDJSON lines of any shape must end in a report, never a panic.
#![no_main]

use fairdeal::audit::audit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // An in-memory reader never fails (invalid UTF-8 is a malformed line);
    // the audit's one error then is a line over its 4 MiB limit.
    let report = match audit(data, &mut |_, _| {}) {
        Ok(report) => report,
        Err(err) => {
            assert!(err.to_string().contains("a line longer than"), "{err}");
            return;
        }
    };
    assert!(report.findings.len() as u64 <= report.problems);
    assert!(report.rounds_verified <= report.rounds);
    let _ = serde_json::to_string(&report).expect("a report serializes");
    for finding in &report.findings {
        let _ = finding.to_string();
    }
});
