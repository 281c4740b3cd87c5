//! The auditor's statistics: fair deals pass at the stated false-alarm rate
//! (family-wise at most 0.001 for a failure), deals from a biased shuffle
//! fail, too little data says so, and the reports render.
//!
//! Every sample here comes from fixed seeds, so each verdict is reproducible.

use fairdeal_test_support::{exports, shuffles};

use exports::fair_export;
use fairdeal::audit::{add_to_evidence, audit};
use fairdeal_core::{Card, ClientSeed, Deal, Game, Keystream, RoundKey, ServerSeed, deal};
use fairdeal_stats::evidence::{Evidence, StatsReport, Verdict};
use shuffles::{Sampled, ShuffleFn};

fn verdict_of<'a>(stats: &'a StatsReport, name: &str) -> &'a fairdeal_stats::evidence::Outcome {
    stats
        .tests
        .iter()
        .find(|t| t.name == name)
        .expect("test exists")
}

#[test]
fn a_fair_export_passes_every_statistical_test() {
    let lines = fair_export(40, 50);
    let report = audit((lines.join("\n") + "\n").as_bytes(), &mut |_, _| {}).expect("audit");
    assert!(report.passed());
    let stats = report.statistics.expect("statistics");
    assert_eq!(stats.tests_run, 7, "every test has enough data");
    // A fair deck fails some test with probability at most 0.001 and warns with
    // probability at most 0.05 (this fixed data set warns once: the 7-card test
    // at p = 0.0015 on 500 hands, inside that 5%).
    for test in &stats.tests {
        assert_ne!(
            test.verdict,
            Verdict::Fail,
            "{} failed on fair data: {test:?}",
            test.name
        );
        assert_ne!(test.verdict, Verdict::Insufficient, "{}", test.name);
    }
    assert!(
        stats
            .tests
            .iter()
            .filter(|t| t.verdict == Verdict::Warn)
            .count()
            <= 1
    );
}

/// Decks from a biased shuffle, recorded as `deck` and `holdem` deals in
/// turn, or as hold'em deals only.
fn biased_evidence(shuffle: ShuffleFn, n: u64) -> Evidence {
    evidence_of(shuffle, n, false)
}

fn evidence_of(shuffle: ShuffleFn, n: u64, holdem_only: bool) -> Evidence {
    let seed = ServerSeed::from_bytes([3; 32]);
    let client = ClientSeed::new("biased").expect("valid");
    let mut randomness = Sampled {
        source: Keystream::new(&RoundKey::derive(&seed, &client, 0)),
    };
    let mut evidence = Evidence::default();
    let mut previous = None;
    for i in 0..n {
        let mut order: Vec<usize> = (0..52).collect();
        shuffle(&mut order, &mut randomness);
        let deck: Vec<Card> = order.into_iter().map(Card::from_deck_index).collect();
        let first = deck[0];
        if let Some(previous) = previous {
            evidence.add_consecutive_first_cards(previous, first);
        }
        previous = Some(first);
        if i % 2 == 0 && !holdem_only {
            add_to_evidence(
                &mut evidence,
                Game::deck(1).expect("valid"),
                &Deal::Deck { deck },
            );
        } else {
            // Lay the biased deck out as hold'em for 6 (round robin, burns).
            let hands: Vec<Vec<Card>> = (0..6).map(|p| vec![deck[p], deck[6 + p]]).collect();
            let board = vec![deck[13], deck[14], deck[15], deck[17], deck[19]];
            let burns = vec![deck[12], deck[16], deck[18]];
            add_to_evidence(
                &mut evidence,
                Game::holdem(6).expect("valid"),
                &Deal::Board {
                    hands,
                    board,
                    burns,
                },
            );
        }
    }
    evidence
}

#[test]
fn deals_from_a_biased_shuffle_fail() {
    let stats = biased_evidence(shuffles::named("random-comparator insertion sort"), 4000).report();
    assert_eq!(stats.verdict, Verdict::Fail, "{stats:#?}");
    assert_eq!(verdict_of(&stats, "card x position").verdict, Verdict::Fail);
    assert_eq!(
        verdict_of(&stats, "starting hands: pair, suited, offsuit").verdict,
        Verdict::Fail
    );
    // The suits stay clumped together: too few red/black runs.
    assert_eq!(verdict_of(&stats, "colour runs").verdict, Verdict::Fail);
}

/// Hold'em deals alone feed the card × position test over the 20 positions
/// they deal: a naive swap is caught from them (and fair deals pass it, in
/// `a_fair_export_passes_every_statistical_test`).
#[test]
fn holdem_deals_from_a_naive_swap_fail_the_card_position_test() {
    let stats = evidence_of(shuffles::named("naive swap"), 8000, true).report();
    let test = verdict_of(&stats, "card x position");
    assert_eq!(test.verdict, Verdict::Fail, "{test:#?}");
    assert_eq!(test.df, Some(51.0 * 20.0));
}

#[test]
fn deals_from_a_naive_swap_fail_the_card_position_test() {
    let stats = biased_evidence(shuffles::named("naive swap"), 8000).report();
    assert_eq!(
        verdict_of(&stats, "card x position").verdict,
        Verdict::Fail,
        "{stats:#?}"
    );
}

/// Fair deals written as a hand history (hold'em with boards, and 5-card hands).
fn fair_history(n: u64) -> String {
    let seed = ServerSeed::from_bytes([9; 32]);
    let client = ClientSeed::new("history").expect("valid");
    let names = |cards: &[Card]| {
        cards
            .iter()
            .map(Card::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::from("# a player's own history\n");
    for nonce in 0..n {
        if nonce % 3 == 2 {
            let Deal::Hands { hands, .. } =
                deal(&seed, &client, nonce, Game::hands(1, 5, 1).expect("valid"))
            else {
                unreachable!()
            };
            out.push_str(&format!("{}\n", names(&hands[0])));
        } else {
            let Deal::Board { hands, board, .. } =
                deal(&seed, &client, nonce, Game::holdem(2).expect("valid"))
            else {
                unreachable!()
            };
            out.push_str(&format!("{} | {}\n", names(&hands[0]), names(&board)));
        }
    }
    out
}

fn hands_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(args)
        .output()
        .expect("runs")
}

/// Runs the binary and insists it exits 0.
fn cli_ok(args: &[&str]) -> std::process::Output {
    let out = hands_cli(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_fair_hand_history_passes_and_a_small_one_says_how_many_hands_it_needs() {
    let dir = tempfile::tempdir().expect("dir");
    let big = dir.path().join("big.txt");
    std::fs::write(&big, fair_history(6000)).expect("write");
    let out = cli_ok(&[
        "audit",
        "--hands",
        big.to_str().expect("path"),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["hands"], 6000);
    assert_eq!(report["statistics"]["verdict"], "pass", "{report:#}");

    let small = dir.path().join("small.txt");
    std::fs::write(&small, fair_history(12)).expect("write");
    let out = hands_cli(&["stats", "--hands", small.to_str().expect("path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "starting hands: 169 classes: not enough data (8 starting hands; \
             needs about 1658 starting hands in all"
        ),
        "{text}"
    );
    assert!(
        text.contains("statistics verdict: NOT ENOUGH DATA"),
        "{text}"
    );
    assert!(
        text.lines()
            .filter(|l| l.starts_with("  "))
            .all(|l| !l.contains("p =")),
        "no meaningless p-value: {text}"
    );
}

#[test]
fn a_malformed_hand_history_is_refused_naming_each_line() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "As Kd | 7h 8h 9c Tc Jd\nAs Xx\n\nQh Qh\n").expect("write");
    let out = hands_cli(&["audit", "--hands", path.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: \"Xx\" is not a card"), "{err}");
    assert!(err.contains("line 4: a card appears twice"), "{err}");
    assert!(err.contains("2 malformed line(s)"), "{err}");
}

#[test]
fn the_html_report_is_one_self_contained_file_with_plots() {
    let dir = tempfile::tempdir().expect("dir");
    let export = dir.path().join("export.ndjson");
    std::fs::write(&export, fair_export(30, 40).join("\n") + "\n").expect("write");
    let out = cli_ok(&[
        "audit",
        export.to_str().expect("path"),
        "--format",
        "html",
        "--quiet",
    ]);
    let html = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(html.starts_with("<!doctype html>"));
    let verdict = html.find("Records: PASS").expect("verdict");
    let first_test = html.find("<section>").expect("a test section");
    assert!(verdict < first_test, "the verdict comes first");
    assert!(
        html.contains("<svg") && html.contains("class=\"heat\""),
        "plots and the heat map are inline SVG"
    );
    assert!(html.contains("<table>"), "numbers underneath");
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));
    // The statistics verdict has a headline of its own.
    assert!(html.contains("Statistics: "), "statistics headline");
    // The heat map says what its axes and colours mean.
    assert!(html.contains("position in the shuffled deck"));
    assert!(html.contains("card, in deck order"));
    assert!(html.contains("residual (observed − expected) / √expected"));
    // Provenance: this build, and exactly the bytes that were read.
    let bytes = std::fs::read(&export).expect("read");
    let sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
    assert!(
        html.contains(&format!("<td>{sha256}</td>")),
        "input SHA-256"
    );
    assert!(
        html.contains(&format!("<td>{} bytes</td>", bytes.len())),
        "input size"
    );
    assert!(html.contains(&format!("fairdeal {}", fairdeal::VERSION)));
    assert!(html.contains("--format html"), "the command");
}

/// A tampered export's records verdict is red, whatever the statistics say.
#[test]
fn each_verdict_in_the_html_report_has_its_own_colour() {
    let dir = tempfile::tempdir().expect("dir");
    let export = dir.path().join("tampered.ndjson");
    let mut lines = fair_export(30, 40);
    lines.pop(); // the end line: the export is cut off
    std::fs::write(&export, lines.join("\n") + "\n").expect("write");
    let out = hands_cli(&[
        "audit",
        export.to_str().expect("path"),
        "--format",
        "html",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let html = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        html.contains("<span class=\"verdict fail\">Records: FAIL"),
        "the records verdict is coloured as a failure"
    );
    let statistics = html.find("Statistics: ").expect("statistics headline");
    let class_start = html[..statistics]
        .rfind("class=\"verdict ")
        .expect("a class");
    assert!(
        !html[class_start..statistics].contains("fail"),
        "the statistics verdict is coloured by itself"
    );
}
