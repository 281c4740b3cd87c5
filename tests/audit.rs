//! `fairdeal audit`: a fair export passes; every planted fault is caught and
//! named by line.

use fairdeal_test_support::exports;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use exports::fair_export;
use fairdeal::audit::{Report, audit};
use serde_json::Value;

fn run_audit(lines: &[String]) -> Report {
    let text = lines.join("\n") + "\n";
    audit(text.as_bytes(), &mut |_, _| {}).expect("in-memory input")
}

fn kinds(report: &Report) -> Vec<(&'static str, u64)> {
    report.findings.iter().map(|f| (f.kind, f.line)).collect()
}

/// Asserts that `report` has a finding of `kind` at `line` whose detail says
/// `words`.
fn assert_finding(report: &Report, kind: &str, line: u64, words: &str) {
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == kind && f.line == line && f.detail.contains(words)),
        "no {kind} finding at line {line} saying {words:?}: {:?}",
        report.findings
    );
}

fn edit_round(line: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(line).expect("JSON");
    edit(&mut value);
    value.to_string()
}

#[test]
fn a_fair_export_of_many_rounds_passes() {
    let lines = fair_export(40, 50);
    let report = run_audit(&lines);
    assert!(report.passed(), "{:?}", report.findings);
    assert_eq!(report.seed_pairs, 40);
    assert_eq!(report.rounds, 2000);
    assert_eq!(report.rounds_verified, 2000);
    assert_eq!(report.lines, lines.len() as u64);
}

#[test]
fn a_swapped_card_is_found_and_named_with_its_slot() {
    let mut lines = fair_export(3, 8);
    // Line 14 (index 13) is pair 1's nonce 3; swap two hole cards.
    lines[13] = edit_round(&lines[13], |round| {
        let deal = &mut round["deal"];
        let key = if deal.get("deck").is_some() {
            "deck"
        } else {
            "hands"
        };
        if key == "deck" {
            let (a, b) = (deal["deck"][0].clone(), deal["deck"][1].clone());
            deal["deck"][0] = b;
            deal["deck"][1] = a;
        } else {
            let (a, b) = (deal["hands"][0][0].clone(), deal["hands"][1][0].clone());
            deal["hands"][0][0] = b;
            deal["hands"][1][0] = a;
        }
    });
    let report = run_audit(&lines);
    assert_eq!(kinds(&report), vec![("card", 14)]);
    let detail = &report.findings[0].detail;
    assert!(detail.contains("round-000001-000003"), "{detail}");
    assert!(
        detail.contains("wrong card at hands[0][0]") || detail.contains("wrong card at deck[0]"),
        "{detail}"
    );
    assert_eq!(report.rounds_verified, report.rounds - 1);
}

#[test]
fn a_wrong_revealed_seed_fails_the_commitment() {
    let mut lines = fair_export(2, 3);
    let other = "ab".repeat(32);
    // Replace pair 0's seed everywhere it appears, as a dishonest operator would.
    for line in &mut lines[..4] {
        *line = edit_round(line, |record| record["server_seed"] = other.clone().into());
    }
    let report = run_audit(&lines);
    let commitment: Vec<u64> = report
        .findings
        .iter()
        .filter(|f| f.kind == "commitment")
        .map(|f| f.line)
        .collect();
    // The pair's line on its own, then each round.
    assert_eq!(commitment, vec![1, 2, 3, 4]);
    assert!(
        report.findings[0]
            .detail
            .contains("SHA-256 of its server_seed is not its server_seed_hash"),
        "{:?}",
        report.findings
    );
    assert!(
        report.findings[1].detail.contains("wrong commitment"),
        "{:?}",
        report.findings
    );
    assert!(!report.passed());
}

/// A pair that dealt nothing has no round to repeat its seed: its own line
/// is checked against its commitment.
#[test]
fn a_pair_without_rounds_is_held_to_its_commitment() {
    let mut lines = fair_export(2, 1);
    // Pair 0 (line 1) loses its one round (line 2) and says it dealt none.
    lines.remove(1);
    lines[0] = edit_round(&lines[0], |pair| pair["rounds"] = 0.into());
    let last = lines.len() - 1;
    lines[last] = edit_round(&lines[last], |end| end["rounds"] = 1.into());
    assert!(run_audit(&lines).passed(), "the fair version passes");
    lines[0] = edit_round(&lines[0], |pair| {
        pair["server_seed"] = "cd".repeat(32).into()
    });
    let report = run_audit(&lines);
    assert_eq!(kinds(&report), vec![("commitment", 1)]);
    assert_finding(&report, "commitment", 1, "not the one committed to");
    lines[0] = edit_round(&lines[0], |pair| pair["server_seed"] = "not hex".into());
    assert_finding(
        &run_audit(&lines),
        "commitment",
        1,
        "server_seed: server seed must be",
    );
}

/// A pair listed twice would have its rounds counted twice in the
/// statistics.
#[test]
fn a_pair_listed_twice_is_named() {
    // Ids as the service makes them (UUIDs, kept as numbers) and any other.
    for id in [None, Some("01964a2e-5b1c-7d3e-9f00-123456789abc")] {
        let mut lines = fair_export(2, 3);
        if let Some(id) = id {
            lines[0] = edit_round(&lines[0], |pair| pair["id"] = id.into());
            for round in &mut lines[1..4] {
                *round = edit_round(round, |round| round["seed_pair_id"] = id.into());
            }
            assert!(run_audit(&lines).passed(), "a fair export with UUIDs");
        }
        // Pair 0 and its rounds (lines 1 to 4) twice more, before the end
        // line: lines 9 to 12 and 13 to 16.
        let again: Vec<String> = lines[..4].to_vec();
        let end = lines.pop().expect("the end line");
        lines.extend(again.clone());
        lines.extend(again);
        lines.push(edit_round(&end, |end| {
            end["seed_pairs"] = 4.into();
            end["rounds"] = 12.into();
        }));
        let report = run_audit(&lines);
        assert_eq!(
            kinds(&report),
            vec![("record", 9), ("record", 13)],
            "{:?}",
            report.findings
        );
        assert_finding(&report, "record", 9, "listed again (first on line 1)");
        assert_finding(&report, "record", 13, "listed again (first on line 1)");
    }
}

/// What an export holds reaches a terminal with its control characters
/// escaped: an id cannot clear the screen or hide the verdict.
#[test]
fn findings_print_control_characters_escaped() {
    let mut lines = fair_export(1, 2);
    let renamed = edit_round(&lines[1], |round| {
        round["id"] = "\u{1b}[2J\u{1b}]0;pwned\u{7}".into()
    });
    lines[1] = swap_last_cards(&renamed);
    let report = run_audit(&lines);
    assert!(!report.passed());
    let printed: Vec<String> = report.findings.iter().map(ToString::to_string).collect();
    assert!(
        printed.iter().any(|p| p.contains("\\u{1b}[2J")),
        "{printed:?}"
    );
    assert!(
        printed.iter().all(|p| !p.chars().any(char::is_control)),
        "{printed:?}"
    );
}

#[test]
fn a_repeated_or_missing_nonce_is_named() {
    let mut lines = fair_export(1, 6);
    let repeated = lines[3].clone();
    lines.insert(4, repeated); // nonce 2 twice
    let report = run_audit(&lines);
    assert!(
        kinds(&report).contains(&("nonce_repeat", 5)),
        "{:?}",
        report.findings
    );

    let mut lines = fair_export(1, 6);
    lines.remove(3); // nonce 2 gone
    let report = run_audit(&lines);
    assert_finding(&report, "nonce_gap", 4, "nonce 2 is missing");
    // The end line still counts 6 rounds: that disagreement is named too.
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == "record" && f.detail.contains("6 rounds"))
    );

    // Rounds missing at the end of a pair, where no later nonce shows a gap.
    let mut lines = fair_export(2, 6);
    lines.remove(6); // pair 0's last round, nonce 5
    let report = run_audit(&lines);
    assert!(
        kinds(&report).contains(&("missing_rounds", 1)),
        "{:?}",
        report.findings
    );
}

#[test]
fn the_largest_nonce_is_a_finding_not_a_panic() {
    // Untrusted input: a round claims nonce 2^64 - 1, then another follows.
    let mut lines = fair_export(1, 3);
    lines[2] = edit_round(&lines[2], |round| round["nonce"] = u64::MAX.into());
    lines[3] = edit_round(&lines[3], |round| round["nonce"] = u64::MAX.into());
    let report = run_audit(&lines);
    assert!(!report.passed());
    assert!(
        kinds(&report).contains(&("nonce_gap", 3)),
        "{:?}",
        report.findings
    );
    assert!(
        kinds(&report).contains(&("nonce_repeat", 4)),
        "the same nonce again is a repeat: {:?}",
        report.findings
    );
}

#[test]
fn a_truncated_line_and_a_cut_off_export_are_named() {
    let mut lines = fair_export(2, 4);
    lines[3].truncate(50);
    let report = run_audit(&lines);
    assert_finding(&report, "malformed", 4, "malformed line");

    let mut lines = fair_export(2, 4);
    lines.pop();
    let report = run_audit(&lines);
    assert_eq!(kinds(&report), vec![("truncated", 0)]);
}

#[test]
fn a_round_that_disagrees_with_its_pair_is_named() {
    let mut lines = fair_export(2, 3);
    lines[2] = edit_round(&lines[2], |round| {
        round["client_seed"] = "someone else".into()
    });
    let report = run_audit(&lines);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.line == 3 && f.kind == "record" && f.detail.contains("client_seed")),
        "{:?}",
        report.findings
    );
}

/// One tampered card among 40,000 rounds: found, with its line and slot.
#[test]
fn one_tampered_card_in_a_large_export_is_found() {
    let mut lines = fair_export(400, 100);
    let target = 27_183;
    assert!(lines[target].contains("\"type\":\"round\""));
    lines[target] = swap_last_cards(&lines[target]);
    let report = run_audit(&lines);
    assert_eq!(report.rounds, 40_000);
    assert_eq!(kinds(&report), vec![("card", target as u64 + 1)]);
}

/// Swaps the last two cards of whatever a round's layout ends with.
fn swap_last_cards(line: &str) -> String {
    edit_round(line, |round| {
        let deal = &mut round["deal"];
        let list = ["rest", "burns", "deck"]
            .into_iter()
            .find(|k| deal.get(*k).is_some())
            .expect("a list");
        let cards = deal[list].as_array_mut().expect("cards");
        let n = cards.len();
        cards.swap(n - 1, n - 2);
    })
}

/// The audit reads, checks and takes in an export in pieces that overlap
/// (blocks of about 2 MB, batches of lines within them): faults spread over
/// every piece of a 40,000-round export are each found once, in line order,
/// and so is a gap left by a removed round, which only the order of the
/// lines shows.
#[test]
fn faults_in_every_piece_of_a_large_export_are_each_found_once_in_order() {
    let mut lines = fair_export(400, 100);
    // Every 997th line that is a round, from the first pairs to the last.
    let mut expected = Vec::new();
    for at in (150..lines.len()).step_by(997) {
        if lines[at].contains("\"type\":\"round\"") {
            lines[at] = swap_last_cards(&lines[at]);
            expected.push(("card", at as u64 + 1));
        }
    }
    assert!(expected.len() > 30, "{}", expected.len());
    // A round removed from the middle of pair 250: the next round's line
    // names the missing nonce (and the end line's count disagrees).
    let removed = 250 * 101 + 50;
    assert!(
        lines[removed].contains("\"nonce\":49"),
        "{}",
        lines[removed]
    );
    lines.remove(removed);
    for finding in &mut expected {
        if finding.1 > removed as u64 + 1 {
            finding.1 -= 1;
        }
    }
    expected.push(("nonce_gap", removed as u64 + 1));
    expected.sort_by_key(|&(_, line)| line);
    let report = run_audit(&lines);
    assert_eq!(report.rounds, 39_999);
    let mut found = kinds(&report);
    found.retain(|&(kind, _)| kind != "record");
    assert_eq!(found, expected);
}

/// A reader that gives `good` bytes and then fails, like a disk or a
/// connection that goes away mid-export.
struct FailsAfter<'a> {
    good: &'a [u8],
}

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.good.is_empty() {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.good.len());
        buf[..n].copy_from_slice(&self.good[..n]);
        self.good = &self.good[n..];
        Ok(n)
    }
}

/// A line without end (a hostile source streaming one) ends the audit with
/// that reason once it passes 4 MiB, instead of taking all memory.
#[test]
fn a_line_without_end_is_refused_not_held() {
    struct Endless;
    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b'x');
            Ok(buf.len())
        }
    }
    let mut lines = fair_export(1, 2);
    lines.pop();
    let start = lines.join("\n") + "\n";
    let input = std::io::BufReader::new(std::io::Read::chain(start.as_bytes(), Endless));
    let err = audit(input, &mut |_, _| {}).expect_err("refused");
    assert!(
        err.to_string().contains("a line longer than 4 MiB"),
        "{err}"
    );
}

/// An input that fails after several blocks is the audit's error: no
/// report of the part that was read, and no thread left waiting.
#[test]
fn a_read_error_mid_export_is_the_audits_error() {
    let text = fair_export(200, 50).join("\n") + "\n";
    assert!(text.len() > 4 << 20, "more than two blocks: {}", text.len());
    for cut in [0, 1000, text.len() / 2, text.len() - 10] {
        let input = std::io::BufReader::new(FailsAfter {
            good: &text.as_bytes()[..cut],
        });
        let err = audit(input, &mut |_, _| {}).expect_err("a read error");
        assert_eq!(err.to_string(), "the disk went away", "cut at {cut}");
    }
}

fn audit_cli(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .arg("audit")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("audit runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("finishes")
}

/// A service that answers, sends the first lines of an export and then
/// nothing more (a stalled server): with `--read-timeout 1` the audit gives
/// up, exits 1 and says why, instead of waiting forever.
#[test]
fn a_service_that_stalls_mid_export_ends_the_audit_with_the_reason() {
    use std::io::{BufRead, BufReader};
    use std::net::TcpListener;

    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let first_lines = fair_export(1, 3)[..2].join("\n") + "\n";
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("the audit connects");
        let mut request = BufReader::new(stream.try_clone().expect("clone"));
        let mut line = String::new();
        let mut request_line = String::new();
        while request.read_line(&mut line).expect("request") > 2 {
            if request_line.is_empty() {
                request_line = line.clone();
            }
            line.clear();
        }
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\n\
             transfer-encoding: chunked\r\n\r\n{:x}\r\n{first_lines}\r\n",
            first_lines.len()
        )
        .expect("send");
        stream.flush().expect("flush");
        // Holds the connection open, sending nothing, until the test ends.
        let _ = done_rx.recv_timeout(std::time::Duration::from_secs(30));
        request_line
    });
    // The export's own URL is taken as the service's address too.
    let out = audit_cli(
        &[&format!("{base}/v1/export"), "--read-timeout", "1", "-q"],
        None,
    );
    done_tx.send(()).expect("the server waits");
    let request_line = server.join().expect("server");
    assert!(
        request_line.starts_with("GET /v1/export "),
        "{request_line}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the service sent nothing for 1 s (--read-timeout)"),
        "{stderr}"
    );
    // Out of range is a usage error, named by its flag.
    let out = audit_cli(&[&base, "--read-timeout", "0"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--read-timeout"));
}

#[test]
fn the_cli_exits_0_on_a_fair_export_and_1_naming_each_fault() {
    let dir = tempfile::tempdir().expect("dir");
    let fair = dir.path().join("fair.ndjson");
    let lines = fair_export(5, 10);
    std::fs::write(&fair, lines.join("\n") + "\n").expect("write");
    let out = audit_cli(&[fair.to_str().expect("path")], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("verdict: PASS"), "{text}");
    assert!(text.contains("50 rounds verified"), "{text}");

    let mut bad = lines.clone();
    bad[7].truncate(30);
    let out = audit_cli(&["-", "--format", "json"], Some(&(bad.join("\n") + "\n")));
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["verdict"], "fail");
    assert_eq!(report["findings"][0]["line"], 8);
    assert_eq!(report["findings"][0]["kind"], "malformed");

    let out = audit_cli(&["/no/such/export.ndjson"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read SOURCE: /no/such/export.ndjson")
    );
    // A service that is not there is named with the cause.
    let out = audit_cli(&["http://127.0.0.1:1"], None);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert!(
        stderr.contains("cannot read source: http://127.0.0.1:1/v1/export")
            && stderr.contains("refused"),
        "{stderr}"
    );
    // A directory is input that cannot be read, not an export that fails.
    let out = audit_cli(&[dir.path().to_str().expect("path")], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}

/// The audit reads a round line in the export's own layout without a JSON
/// parser, and any other layout with one. Both must reach the same verdict:
/// the same export with its keys reordered, CRLF line ends and a string
/// written with an escape is audited exactly as the original, tampered card
/// included.
#[test]
fn the_exports_own_layout_and_any_other_audit_alike() {
    let mut lines = fair_export(6, 40);
    let tampered = 77;
    lines[tampered] = edit_round(&lines[tampered], |round| {
        let deal = &mut round["deal"];
        let list = ["deck", "board", "rest"]
            .into_iter()
            .find(|k| deal.get(*k).is_some())
            .expect("a list of cards");
        deal[list].as_array_mut().expect("cards").swap(0, 1);
    });
    // Keys sorted (serde_json's map), which the export never writes.
    let reordered: Vec<String> = lines.iter().map(|l| edit_round(l, |_| {})).collect();
    assert_ne!(reordered[2], lines[2], "the layout differs");
    // The same string with an escape, and CRLF line ends.
    let escaped: Vec<String> = lines
        .iter()
        .map(|l| l.replace("\"player ", "\"\\u0070layer ") + "\r")
        .collect();
    assert!(escaped[2].contains("\\u0070layer"));
    let original = run_audit(&lines);
    assert_eq!(original.rounds, 240);
    assert_eq!(original.rounds_verified, 239);
    assert_eq!(kinds(&original), vec![("card", tampered as u64 + 1)]);
    for other in [run_audit(&reordered), run_audit(&escaped)] {
        assert_eq!(other.rounds_verified, original.rounds_verified);
        assert_eq!(other.findings, original.findings);
        assert_eq!(
            serde_json::to_value(&other.statistics).expect("JSON"),
            serde_json::to_value(&original.statistics).expect("JSON")
        );
    }
}

/// Lines the export's layout nearly matches but JSON does not allow are
/// malformed, as the JSON parser says, not read by the fast path: a nonce
/// with a leading zero, a control character in the round's id, text after the
/// record, a deal cut short.
#[test]
fn near_misses_of_the_exports_layout_are_malformed() {
    let lines = fair_export(1, 3);
    let round = &lines[2];
    assert!(round.contains("\"nonce\":1,"));
    let cases = [
        round.replace("\"nonce\":1,", "\"nonce\":01,"),
        round.replace("\"round-", "\"ro\tund-"),
        format!("{round} x"),
        round.replace("]},\"created_at\"", "],\"created_at\""),
    ];
    for case in cases {
        let mut edited = lines.clone();
        edited[2] = case.clone();
        let report = run_audit(&edited);
        let line_kinds: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.line == 3)
            .map(|f| f.kind)
            .collect();
        assert_eq!(line_kinds, vec!["malformed"], "{case}");
        assert_eq!(report.rounds_verified, 2, "{case}");
    }
    // Trailing white space is JSON: the line still verifies.
    let mut spaced = lines.clone();
    spaced[2] = format!("{round}  ");
    assert_eq!(run_audit(&spaced).rounds_verified, 3);
}

/// The first cards of consecutive rounds are paired for the serial
/// correlation test; a round whose recorded deal holds no card breaks the
/// chain, so the rounds on either side of it are not counted as a pair.
#[test]
fn an_empty_deal_breaks_the_chain_of_consecutive_rounds() {
    fn serial_pairs(report: &Report) -> u64 {
        report
            .statistics
            .as_ref()
            .and_then(|s| s.tests.iter().find(|t| t.name.contains("serial")))
            .map_or(0, |t| t.samples)
    }
    let lines = fair_export(1, 4);
    assert_eq!(serial_pairs(&run_audit(&lines)), 3);
    let mut emptied = lines.clone();
    emptied[3] = edit_round(&lines[3], |round| {
        round["deal"] = serde_json::json!({ "deck": [] });
    });
    let report = run_audit(&emptied);
    assert_eq!(kinds(&report), vec![("layout", 4)]);
    assert_eq!(serial_pairs(&report), 1, "rounds 2 and 4 are not a pair");
}

/// A server that answers every request with an endless body: `monitor`
/// stops reading at 16 MiB and says so, instead of taking all memory.
#[test]
fn the_monitor_refuses_an_endless_answer() {
    use std::io::{BufRead, BufReader};
    use std::net::TcpListener;

    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let mut request = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                while request.read_line(&mut line).unwrap_or(0) > 2 {
                    line.clear();
                }
                let mut stream = stream;
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n");
                let chunk = [b'x'; 64 << 10];
                // Until the monitor hangs up.
                while stream.write_all(&chunk).is_ok() {}
            });
        }
    });
    let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["monitor", &base])
        .output()
        .expect("monitor runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("more than 16 MiB"), "{stderr}");
}
