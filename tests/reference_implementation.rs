//! The Rust crate against two independent implementations written from the
//! specification alone: tools/fairdeal_v1_reference.py (plain Python, its own
//! ChaCha20) and web/fairdeal-v1.mjs (the browser verifier: WebCrypto plus its
//! own ChaCha20, run here under Node). Agreement on the vectors and on hundreds
//! of random rounds is evidence that docs/PROTOCOL.md is complete and
//! byte-exact, and that the page a player opens computes what the server does.

#[path = "support/cases.rs"]
mod cases;

use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn the_python_reference_reproduces_every_published_vector() {
    let out = Command::new("python3")
        .arg(format!("{ROOT}/tools/fairdeal_v1_reference.py"))
        .arg("--check")
        .arg(format!("{ROOT}/test-vectors/fairdeal-v1.json"))
        .output()
        .expect("python3 runs (it is on every project machine)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("5 passed, 0 failed"), "{text}");
}

#[test]
fn the_python_reference_agrees_on_300_random_rounds() {
    let (requests, expected) = cases::random_rounds(300);
    cases::assert_command_agrees(
        Command::new("python3").arg(format!("{ROOT}/tools/fairdeal_v1_reference.py")),
        &requests,
        &expected,
    );
}

/// `node --test web/tests/`: the browser implementation's own suite (published
/// vectors, RFC 8439, input rules, tamper detection).
#[test]
fn the_browser_implementation_passes_its_node_test_suite() {
    let out = Command::new("node")
        .args(["--test", "web/tests/"])
        .current_dir(ROOT)
        .output()
        .expect("node runs (it is on every project machine)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("# fail 0"), "{text}");
    assert!(!text.contains("# pass 0"), "{text}");
}

#[test]
fn the_browser_implementation_agrees_on_300_random_rounds() {
    let (requests, expected) = cases::random_rounds(300);
    cases::assert_command_agrees(
        Command::new("node").arg(format!("{ROOT}/web/tests/deal-cli.mjs")),
        &requests,
        &expected,
    );
}
