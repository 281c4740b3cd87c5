//! `fairdeal replay` driven as a user runs it: the real binary, real flags.

use std::process::{Command, Output};

const SEED_B: &str = "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c";
const HASH_B: &str = "b034e2041764d657468f5d1371c83fb8dc69fe688a324145b6043894cf1b0c29";

fn replay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .arg("replay")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 output")
}

fn vector_b(extra: &[&str]) -> Output {
    let mut args = vec![
        "--server-seed",
        SEED_B,
        "--client-seed",
        "🂡 lucky",
        "--nonce",
        "41",
        "--game",
        "holdem",
        "--players",
        "6",
    ];
    args.extend_from_slice(extra);
    replay(&args)
}

#[test]
fn json_output_is_the_documented_record_of_vector_b() {
    let out = vector_b(&["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let record: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    let expected = serde_json::json!({
        "protocol": "fairdeal-v1",
        "server_seed_hash": HASH_B,
        "client_seed": "🂡 lucky",
        "nonce": 41,
        "game": {"type": "holdem", "players": 6},
        "deal": {
            "hands": [["Qc","6c"],["8d","2h"],["6s","7h"],["5h","9h"],["3d","3h"],["7c","Kd"]],
            "board": ["Ad","7s","Qs","Jd","3s"],
            "burns": ["Jh","4s","Kh"]
        }
    });
    assert_eq!(record, expected);
}

#[test]
fn human_output_shows_suit_symbols_seats_and_the_commitment() {
    let out = vector_b(&["--commitment", HASH_B]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("seat 1    Q♣ 6♣"), "{text}");
    assert!(text.contains("board     A♦ 7♠ Q♠   J♦   3♠"), "{text}");
    assert!(text.contains("burns     J♥ 4♠ K♥"), "{text}");
    assert!(text.contains(HASH_B), "{text}");
    assert!(text.contains("matches the published commitment"), "{text}");
}

#[test]
fn a_seed_that_does_not_match_the_commitment_exits_1_and_deals_nothing() {
    let wrong = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925";
    let out = vector_b(&["--commitment", wrong, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.contains("commitment mismatch"), "{err}");
    assert!(err.contains(wrong) && err.contains(HASH_B), "{err}");
}

#[test]
fn a_six_deck_shoe_is_listed_in_full_with_positions() {
    let out = replay(&[
        "--server-seed",
        "8646875b6c41589ec1a43c96cd06abf07e6435e78c3264fe2c2d0fd582caa440",
        "--client-seed",
        "table-7",
        "--nonce",
        "18446744073709551615",
        "--game",
        "deck",
        "--decks",
        "6",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(312 cards)"), "{text}");
    assert!(
        text.contains("1-13  3♣ 8♠ 2♣ 8♥ 5♠ 2♦ 5♥ Q♥ 3♠ J♣ 5♠ 9♠ 7♥"),
        "{text}"
    );
    assert!(text.contains("300-312"), "{text}");
}

/// `(flag, value)` changes to valid `replay` flags.
type Changes<'a> = &'a [(&'a str, &'a str)];

/// Valid `replay` flags with `changes` applied: each `(flag, value)` replaces
/// that flag's value, or is added when the flag is not among the defaults.
fn replay_args(changes: Changes<'_>) -> Vec<String> {
    let mut args: Vec<(String, String)> = [
        ("--server-seed", SEED_B),
        ("--client-seed", "x"),
        ("--nonce", "0"),
        ("--game", "deck"),
    ]
    .iter()
    .map(|(flag, value)| ((*flag).to_owned(), (*value).to_owned()))
    .collect();
    for (flag, value) in changes {
        match args.iter_mut().find(|(f, _)| f == flag) {
            Some(arg) => arg.1 = (*value).to_owned(),
            None => args.push(((*flag).to_owned(), (*value).to_owned())),
        }
    }
    args.into_iter().flat_map(|(f, v)| [f, v]).collect()
}

/// Each bad input exits 2 with one message naming the flag and the rule, and
/// never echoes a server seed.
#[test]
fn bad_input_names_the_flag_and_the_rule() {
    let short_seed = &SEED_B[..63];
    let not_hex_seed = format!("{short_seed}g");
    let long_client_seed = "x".repeat(65);
    #[rustfmt::skip]
    let cases: &[(Changes, &str, &str)] = &[
        (&[("--server-seed", short_seed)],                                  "--server-seed", "got 63 characters"),
        (&[("--server-seed", &not_hex_seed)],                               "--server-seed", "hexadecimal"),
        (&[("--client-seed", "")],                                          "--client-seed", "it is empty"),
        (&[("--client-seed", &long_client_seed)],                           "--client-seed", "65 bytes"),
        (&[("--client-seed", "a\tb")],                                      "--client-seed", "U+0009"),
        (&[("--nonce", "-1")],                                              "--nonce",       "unsigned 64-bit"),
        (&[("--nonce", "18446744073709551616")],                            "--nonce",       "at most 18446744073709551615"),
        (&[("--game", "poker")],                                            "--game",        "deck, holdem, omaha, hands"),
        (&[("--game", "holdem"), ("--players", "23")],                      "--players",     "2 to 22; got 23"),
        (&[("--game", "holdem")],                                           "--players",     "holdem needs players"),
        (&[("--game", "omaha"), ("--players", "12")],                       "--players",     "2 to 11; got 12"),
        (&[("--game", "hands"), ("--players", "4"), ("--cards", "14")],     "--cards",       "at most 52 x decks = 52; got 56"),
        (&[("--game", "hands"), ("--players", "four"), ("--cards", "1")],   "--players",     "whole number"),
        (&[("--decks", "9")],                                               "--decks",       "1 to 8; got 9"),
        (&[("--players", "2")],                                             "--players",     "deck does not take players"),
        (&[("--commitment", "abc")],                                        "--commitment",  "64 hexadecimal"),
    ];
    for (changes, flag, rule) in cases {
        let args = replay_args(changes);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = replay(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("invalid {flag}:")), "{args:?}: {err}");
        assert!(err.contains(rule), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains(&SEED_B[..16]), "the seed leaked into: {err}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn version_names_the_release_and_the_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .arg("--version")
        .output()
        .expect("the binary runs");
    let text = stdout(&out);
    assert!(out.status.success());
    assert!(
        text.starts_with(&format!("fairdeal {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
}

#[test]
fn stats_help_speaks_of_statistics_alone() {
    let help = |command: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args([command, "--help"])
            .output()
            .expect("the binary runs");
        stdout(&out)
    };
    let (stats, audit) = (help("stats"), help("audit"));
    assert!(stats.contains("not judged"), "{stats}");
    assert!(!stats.contains("every round verified"), "{stats}");
    assert!(audit.contains("every round verified"), "{audit}");
}

/// Each subcommand's help lists its own flags: the connection pool's
/// tuning is `serve`'s alone, the database's place is everyone's.
#[test]
fn each_commands_help_lists_only_its_own_flags() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args(args)
            .arg("--help")
            .output()
            .expect("the binary runs");
        stdout(&out)
    };
    let serve = help(&["serve"]);
    for flag in [
        "--max-connections",
        "--db-acquire-timeout",
        "--db-wait",
        "--data-dir",
    ] {
        assert!(serve.contains(flag), "serve: {flag}");
    }
    for command in [
        &["keys"][..],
        &["keys", "list"],
        &["pairs"],
        &["export"],
        &["recover"],
    ] {
        let text = help(command);
        assert!(text.contains("--data-dir"), "{command:?}: {text}");
        for flag in ["--max-connections", "--db-acquire-timeout"] {
            assert!(!text.contains(flag), "{command:?} lists {flag}: {text}");
        }
    }
}

#[test]
fn a_table_round_is_replayed_from_its_seats_contributions() {
    // docs/PROTOCOL.md §11: vector T1's seats, dealt with vector B's seed.
    let table = |seats: &[&str], extra: &[&str]| {
        let mut args = vec!["--server-seed", SEED_B, "--nonce", "0", "--game", "holdem"];
        for seat in seats {
            args.extend(["--table-seat", seat]);
        }
        args.extend_from_slice(extra);
        replay(&args)
    };
    let t1 = ["alice=correct horse", "bob=battery staple"];
    let out = table(&t1, &["--players", "2", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let record: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(
        record["client_seed"],
        "6f5ec864678f55c6381c03ae74e25d4ae760e6771afbc065c72b1893cf1cea95"
    );
    assert_eq!(
        record["deal"],
        serde_json::json!({"hands": [["Kd", "6h"], ["Qs", "Qh"]],
            "board": ["Kh", "3s", "Js", "As", "6s"], "burns": ["5h", "6d", "5s"]})
    );
    let text = table(&t1, &["--players", "2"]);
    assert!(
        stdout(&text).contains("derived from the table's seats"),
        "{}",
        stdout(&text)
    );
    // Seat order matters: swapped seats derive another seed.
    let swapped = table(
        &["bob=battery staple", "alice=correct horse"],
        &["--players", "2", "--json"],
    );
    let swapped: serde_json::Value = serde_json::from_str(&stdout(&swapped)).expect("JSON");
    assert_ne!(swapped["client_seed"], record["client_seed"]);

    for (seats, extra, words) in [
        (
            &["alice"][..],
            &["--players", "2"][..],
            "LABEL=CONTRIBUTION",
        ),
        (&["alice=x"][..], &["--players", "2"][..], "2 to 22 seats"),
        (&["a=x", "a=y"][..], &["--players", "2"][..], "repeats"),
        (&["a=x", "b="][..], &["--players", "2"][..], "seat \"b\""),
        (
            &t1[..],
            &["--players", "2", "--client-seed", "x"][..],
            "cannot be used with",
        ),
    ] {
        let out = table(seats, extra);
        assert_eq!(out.status.code(), Some(2), "{seats:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(words), "{seats:?}: {}", stderr(&out));
    }
}

#[test]
fn a_table_is_replayed_from_the_pair_as_the_api_shows_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("pair.json");
    // Vector T1 as the API shows a table pair (a label may hold `=`).
    let pair = serde_json::json!({"id": "p", "table": {"seats": [
        {"seat": "alice", "commitment": "…", "contribution": "correct horse"},
        {"seat": "bob", "commitment": "…", "contribution": "battery staple"}]}});
    std::fs::write(&path, pair.to_string()).expect("write");
    let file = path.to_str().expect("path");
    let args = [
        "--server-seed",
        SEED_B,
        "--nonce",
        "0",
        "--game",
        "holdem",
        "--players",
        "2",
    ];
    let out = replay(&[&args[..], &["--table-json", file, "--json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let record: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(
        record["client_seed"],
        "6f5ec864678f55c6381c03ae74e25d4ae760e6771afbc065c72b1893cf1cea95"
    );
    let incomplete = serde_json::json!([{"seat": "a=b", "contribution": "x"}, {"seat": "c", "contribution": null}]);
    std::fs::write(&path, incomplete.to_string()).expect("write");
    let out = replay(&[&args[..], &["--table-json", file]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not complete"), "{}", stderr(&out));
    let labelled = serde_json::json!([{"seat": "a=b", "contribution": "x"}, {"seat": "c", "contribution": "y"}]);
    std::fs::write(&path, labelled.to_string()).expect("write");
    let out = replay(&[&args[..], &["--table-json", file]].concat());
    assert!(out.status.success(), "a label with = : {}", stderr(&out));
}

/// A fairdeal-chain-v1 round (vector C1, round 2) replayed with the chain's
/// commitment: the seed reaches it in three steps and deals the vector's
/// cards; a seed of the wrong round does not, and exits 1.
#[test]
fn a_chain_round_is_replayed_against_the_chain_commitment() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/test-vectors/fairdeal-chain-v1.json"
    ))
    .expect("vectors");
    let vectors: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let c1 = &vectors["vectors"][0];
    let round = &c1["rounds"][2];
    let commitment = c1["commitment"].as_str().expect("commitment");
    let args = |seed: &str| -> Vec<String> {
        [
            "--server-seed",
            seed,
            "--client-seed",
            round["client_seed"].as_str().expect("client seed"),
            "--nonce",
            "2",
            "--game",
            "holdem",
            "--players",
            "2",
            "--chain-commitment",
            commitment,
            "--json",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let given: Vec<String> = args(round["server_seed"].as_str().expect("seed"));
    let out = replay(&given.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(record["protocol"], "fairdeal-chain-v1");
    assert_eq!(record["chain_commitment"], commitment);
    assert_eq!(record["deal"], round["deal"]);
    // Round 3's seed given as round 2's: four steps, not three.
    let wrong: Vec<String> = args(c1["seeds"][4].as_str().expect("seed"));
    let out = replay(&wrong.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("chain mismatch"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    // A malformed chain commitment names its flag.
    let mut bad = args(round["server_seed"].as_str().expect("seed"));
    let at = bad.iter().position(|a| a == commitment).expect("given");
    bad[at] = "abc".to_owned();
    let out = replay(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--chain-commitment"),
        "{}",
        stderr(&out)
    );
    // The chain's commitment given as the round's own (--commitment, as a
    // pair's server_seed_hash reads): named for what it is, with the flags
    // that check it.
    let mut mistaken = args(round["server_seed"].as_str().expect("seed"));
    let at = mistaken
        .iter()
        .position(|a| a == "--chain-commitment")
        .expect("given");
    mistaken[at] = "--commitment".to_owned();
    let out = replay(&mistaken.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("fairdeal-chain-v1 chain in which the given seed is round 2's")
            && said.contains("Give it as --chain-commitment, with --nonce 2")
            && !said.contains("prove nothing"),
        "{said}"
    );
}
