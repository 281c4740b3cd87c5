//! `fairdeal draw` and `fairdeal replay --game shuffle` as a user runs them:
//! the real binary, the published draw vectors (docs/PROTOCOL.md §9).

use std::process::{Command, Output};

const SEED_B: &str = "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c";
const HASH_B: &str = "b034e2041764d657468f5d1371c83fb8dc69fe688a324145b6043894cf1b0c29";
const SEED_C: &str = "8646875b6c41589ec1a43c96cd06abf07e6435e78c3264fe2c2d0fd582caa440";
const L1: &str = "alice\nbob\ncarol\ndave\neve\n";
const L1_SHA256: &str = "4210a2535ad3070b421cf0dc944b60773102330275311b9fb48457490cec5c56";

fn fairdeal(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// Writes `list` to a file in a fresh directory; the directory and path.
fn list_file(list: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("entrants.txt");
    std::fs::write(&path, list).expect("write");
    (dir, path.display().to_string())
}

#[test]
fn vector_d5_draws_dave_alice_bob_and_checks_both_commitments() {
    let (_dir, path) = list_file(L1.as_bytes());
    let args = [
        "draw",
        "--entries",
        &path,
        "--server-seed",
        SEED_B,
        "--client-seed",
        "raffle-2026-12",
        "--winners",
        "3",
        "--commitment",
        HASH_B,
        "--entries-sha256",
        L1_SHA256,
    ];
    let out = fairdeal(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("(matches the commitment)"), "{table}");
    assert!(table.contains("(matches the published list)"), "{table}");
    let winners: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("rank"))
        .skip(1)
        .map(|l| l.split_whitespace().last().expect("a name"))
        .collect();
    assert_eq!(winners, ["dave", "alice", "bob"]);

    let mut json_args = args.to_vec();
    json_args.push("--json");
    let out = fairdeal(&json_args);
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(record["protocol"], "fairdeal-draw-v1");
    assert_eq!(record["entries_sha256"], L1_SHA256);
    assert_eq!(record["winners"][0]["entry"], 3);
    assert_eq!(record["winners"][0]["line_number"], 4);
    assert_eq!(record["winners"][0]["text"], "dave");
}

#[test]
fn a_list_or_seed_that_is_not_the_committed_one_exits_1() {
    let (_dir, path) = list_file(b"alice\nbob\ncarol\ndave\nevE\n");
    let out = fairdeal(&[
        "draw",
        "--entries",
        &path,
        "--server-seed",
        SEED_B,
        "--client-seed",
        "x",
        "--winners",
        "1",
        "--entries-sha256",
        L1_SHA256,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("list mismatch"),
        "{}",
        text(&out.stderr)
    );
    let out = fairdeal(&[
        "draw",
        "--count",
        "10",
        "--server-seed",
        SEED_C,
        "--client-seed",
        "x",
        "--winners",
        "1",
        "--commitment",
        HASH_B,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("commitment mismatch"));
}

#[test]
fn vector_d6_draws_from_four_billion_without_a_list() {
    let out = fairdeal(&[
        "draw",
        "--count",
        "4000000000",
        "--server-seed",
        SEED_C,
        "--client-seed",
        "giveaway",
        "--winners",
        "10",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let entries: Vec<u64> = record["winners"]
        .as_array()
        .expect("winners")
        .iter()
        .map(|w| w["entry"].as_u64().expect("entry"))
        .collect();
    assert_eq!(
        entries,
        [
            2305751845, 393433633, 3302952742, 261692589, 677395071, 3230702655, 3699773728,
            3021546308, 3509481997, 2441410672
        ]
    );
}

#[test]
fn bad_lists_and_flags_exit_2_naming_the_line_or_the_flag() {
    for (list, expected) in [
        (&b"a\r\nb\n"[..], "line 1 contains CR"),
        (b"a\nb\na\n", "line 3 repeats line 1"),
        (b"a\n\nb\n", "line 2 is empty"),
        (b"a\nb", "line 2 does not end with LF"),
        (b"a\n", "--entries: must be 2 to"),
    ] {
        let (_dir, path) = list_file(list);
        let out = fairdeal(&[
            "draw",
            "--entries",
            &path,
            "--server-seed",
            SEED_B,
            "--client-seed",
            "x",
            "--winners",
            "1",
        ]);
        assert_eq!(out.status.code(), Some(2), "{expected}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    let (_dir, path) = list_file(L1.as_bytes());
    let out = fairdeal(&[
        "draw",
        "--entries",
        &path,
        "--server-seed",
        SEED_B,
        "--client-seed",
        "x",
        "--winners",
        "6",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--winners"),
        "{}",
        text(&out.stderr)
    );
    // A list hash with no list to check it against; a list that is not there.
    let out = fairdeal(&[
        "draw",
        "--count",
        "5",
        "--server-seed",
        SEED_B,
        "--client-seed",
        "x",
        "--winners",
        "1",
        "--entries-sha256",
        L1_SHA256,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--entries"),
        "{}",
        text(&out.stderr)
    );
    let out = fairdeal(&[
        "draw",
        "--entries",
        "no-such-file.txt",
        "--server-seed",
        SEED_B,
        "--client-seed",
        "x",
        "--winners",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no-such-file.txt"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn replay_writes_shuffle_s2_as_a_stream_of_indices() {
    let out = fairdeal(&[
        "replay",
        "--server-seed",
        SEED_B,
        "--client-seed",
        "seating",
        "--nonce",
        "3",
        "--game",
        "shuffle",
        "--items",
        "1000000",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    use sha2::Digest;
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&out.stdout)),
        "c42bcc90999218500a25f21cfee65b182838f47965ad30b5ae59185aaf57e6b2"
    );
    assert!(text(&out.stdout).starts_with("148936\n951955\n"));
    for (flags, named) in [
        (&["--items", "0"][..], "--items"),
        (&["--items", "4294967296"], "--items"),
        (&["--items", "ten"], "--items"),
        (&[], "--items"),
        (&["--items", "5", "--players", "2"], "--players"),
    ] {
        let mut args = vec![
            "replay",
            "--server-seed",
            SEED_B,
            "--client-seed",
            "s",
            "--nonce",
            "0",
            "--game",
            "shuffle",
        ];
        args.extend_from_slice(flags);
        let out = fairdeal(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&out.stderr).contains(named),
            "{flags:?}: {}",
            text(&out.stderr)
        );
    }
}
