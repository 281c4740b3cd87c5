//! The auditor's replay of an export (`fairdeal::audit::audit`) on arbitrary
//! bytes: NDJSON lines of any shape must end in a report, never a panic.
#![no_main]

use fairdeal::audit::audit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // An in-memory reader fails only on invalid UTF-8, which the audit
    // reports as a malformed line: so the result is always a report.
    let report = audit(data, &mut |_, _| {}).expect("reading memory cannot fail");
    assert!(report.findings.len() as u64 <= report.problems);
    assert!(report.rounds_verified <= report.rounds);
    let _ = serde_json::to_string(&report).expect("a report serializes");
    for finding in &report.findings {
        let _ = finding.to_string();
    }
});
