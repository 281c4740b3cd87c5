//! The fields of a fairdeal-chain-v1 pair that a verifier reads from
//! another party: a chain's length, its commitment `s_0`, each round's
//! seed that must hash to the one before, and the tip revealed at the end.
//!
//! From the input: a tip, a declared length (any `u64`, or a small honest
//! one), then a list of operations. Checked on every input:
//! - `fairdeal_core`'s chain functions: `ChainLength::new` accepts exactly
//!   1 to 2^24; the honest chain of the tip links (`check_chain_prefix`,
//!   `chain_links`, each round's fairdeal-v1 commitment is the seed before
//!   it, the last seed is the tip), and one changed or swapped seed is
//!   named at its round;
//! - the export auditor's reading of a pair line's `protocol`,
//!   `chain_length`, `server_seed_hash` and `server_seed`
//!   (`audit::replay::line_problems`): no problem exactly when the
//!   documented rule holds;
//! - the monitor's chain rules (`commit` with `chain_length`, `round`,
//!   `round_seed`, `reveal`) over a log of one chain pair that the
//!   operations write, honest or not, checked by the whole log checker
//!   against the trusted key: an honest log has no finding; where the log
//!   first departs from the protocol, the finding is at that entry and of
//!   the kind the rule names, and no entry before it has one.
#![no_main]

use fairdeal::audit::monitor::LogChecker;
use fairdeal::audit::replay::line_problems;
use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tree;
use fairdeal_core::{
    CHAIN_PROTOCOL, ChainLength, Commitment, MAX_CHAIN_LENGTH, ServerSeed, chain_commitment,
    chain_links, chain_round_seed, chain_seed_at, chain_step, check_chain_prefix,
};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const ORIGIN: &str = "fuzz.example/log";
const PAIR: &str = "00000000-0000-4000-8000-00000000c4a1";
/// Longest chain built here (the honest seeds are computed on each input).
const MAX_BUILT: u64 = 16;
/// Longest declared chain whose tip is revealed: the monitor hashes the
/// tip down `length − published` times (up to 2^24, its designed cost),
/// which would bound the run, not test more.
const MAX_REVEALED: u64 = 64;

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.byte();
        }
        out
    }
}

/// `s_0 … s_n` of the chain whose tip is `tip`.
fn seeds_of(tip: [u8; 32], n: u64) -> Vec<ServerSeed> {
    let mut seeds = vec![ServerSeed::from_bytes(tip)];
    for _ in 0..n {
        seeds.push(chain_step(seeds.last().expect("one")));
    }
    seeds.reverse();
    seeds
}

fn hex32(seed: &ServerSeed) -> String {
    seed.reveal_hex()
}

fn core(seeds: &[ServerSeed], raw: u64, pick: u8, flip: u8) {
    let valid = (1..=MAX_CHAIN_LENGTH).contains(&raw);
    match ChainLength::new(raw) {
        Ok(length) => {
            assert!(valid);
            assert_eq!(length.get(), raw);
            assert_eq!(length.to_string(), raw.to_string());
        }
        Err(err) => {
            assert!(!valid);
            assert_eq!(err.got, raw);
        }
    }
    let n = seeds.len() as u64 - 1;
    let commitment = Commitment::from_bytes(*seeds[0].as_bytes());
    assert_eq!(chain_commitment(&seeds[n as usize], n), Ok(commitment));
    let rounds: Vec<ServerSeed> = seeds[1..].to_vec();
    assert_eq!(check_chain_prefix(&commitment, &rounds), Ok(()));
    let k = u64::from(pick) % n;
    let seed_k = chain_round_seed(&seeds[n as usize], n, k).expect("a round of the chain");
    assert_eq!(seed_k.as_bytes(), rounds[k as usize].as_bytes());
    let before = if k == 0 {
        commitment
    } else {
        Commitment::from_bytes(*rounds[k as usize - 1].as_bytes())
    };
    assert_eq!(seed_k.commitment(), before);
    assert!(chain_links(&seed_k, &before));
    assert_eq!(
        chain_seed_at(&seeds[n as usize], n, k).map(|s| *s.as_bytes()),
        Ok(*seeds[k as usize].as_bytes())
    );
    assert!(chain_round_seed(&seeds[n as usize], n, n).is_err());
    assert!(chain_seed_at(&seeds[n as usize], n, n + 1).is_err());
    assert!(chain_commitment(&seeds[n as usize], 0).is_err());
    // One seed changed is named at its round; so is a swap of two that differ.
    if flip != 0 {
        let mut changed = rounds.clone();
        let mut bytes = *changed[k as usize].as_bytes();
        bytes[usize::from(flip) % 32] ^= flip;
        changed[k as usize] = ServerSeed::from_bytes(bytes);
        assert_eq!(check_chain_prefix(&commitment, &changed), Err(k as usize));
        assert!(!chain_links(&changed[k as usize], &before));
    }
    if k + 1 < n {
        let mut swapped = rounds;
        swapped.swap(k as usize, k as usize + 1);
        assert_eq!(check_chain_prefix(&commitment, &swapped), Err(k as usize));
    }
}

/// The export's pair line with the chain fields chosen by `form`.
fn export_pair(seeds: &[ServerSeed], declared: u64, form: u8) {
    let tip = seeds.last().expect("a tip");
    let protocol = match form & 3 {
        0 => None,
        1 => Some(CHAIN_PROTOCOL),
        2 => Some("fairdeal-v1"),
        _ => Some("fairdeal-chain-v2"),
    };
    let length = (form & 4 != 0).then_some(declared);
    // The commitment: the chain's s_0 (either case), the tip's own
    // fairdeal-v1 commitment, or not a hash.
    let (hash, hash_is_hex) = match (form >> 3) & 3 {
        0 => (hex32(&seeds[0]), true),
        1 => (tip.commitment().to_string(), true),
        2 => (hex32(&seeds[0]).to_uppercase(), true),
        _ => (hex32(&seeds[0])[1..].to_owned(), false),
    };
    let mut line = json!({
        "type": "seed_pair", "cursor": "1", "id": PAIR,
        "server_seed_hash": hash, "server_seed": hex32(tip), "client_seed": "fuzz",
        "rounds": 0, "created_at": "2026-11-29T00:00:00Z", "revealed_at": "2026-11-29T00:00:01Z",
    });
    if let Some(protocol) = protocol {
        line["protocol"] = protocol.into();
    }
    if let Some(length) = length {
        line["chain_length"] = length.into();
    }
    let text = line.to_string();
    let problems = line_problems(&text);
    // The rule (docs/PROTOCOL.md, the export's pair line): a chain_length
    // comes with protocol fairdeal-chain-v1 and is 1 to 2^24, and the
    // commitment is a hash in hex (the tip is held to the rounds' seeds,
    // not to it); without one, no protocol is named and the seed hashes
    // to the commitment.
    let expected_ok = match length {
        Some(length) => {
            protocol == Some(CHAIN_PROTOCOL)
                && (1..=MAX_CHAIN_LENGTH).contains(&length)
                && hash_is_hex
        }
        None => {
            protocol.is_none() && hash_is_hex && hash.to_lowercase() == tip.commitment().to_string()
        }
    };
    assert_eq!(problems.is_empty(), expected_ok, "{text}: {problems:?}");
    assert!(problems.iter().all(|kind| *kind == "commitment"), "{problems:?}");
}

/// What the log departs from the protocol with, first: the entry and the
/// kinds of finding the rules name for it.
struct Departure {
    index: usize,
    kinds: &'static [&'static str],
}

fn monitor(seeds: &[ServerSeed], declared: u64, built: u64, ops: &[u8]) {
    let time = "2026-11-23T00:00:00Z";
    let mut entries = vec![
        json!({"type": "commit", "seed_pair": PAIR, "server_seed_hash": hex32(&seeds[0]),
               "next_server_seed_hash": "ab".repeat(32), "predecessor": null, "tenant": "t",
               "chain_length": declared, "time": time}),
        json!({"type": "client_seed", "seed_pair": PAIR,
               "client_seed_sha256": fairdeal::tlog::entry::client_seed_sha256("fuzz"),
               "client_seed_lookalike_sha256": fairdeal::text::lookalike_sha256("fuzz"),
               "time": time}),
    ];
    let mut departure = (!(1..=MAX_CHAIN_LENGTH).contains(&declared)).then_some(Departure {
        index: 0,
        kinds: &["chain"],
    });
    let (mut dealt, mut published, mut revealed) = (0u64, 0u64, false);
    for &op in ops.iter().take(48) {
        let index = entries.len();
        let honest = departure.is_none() && !revealed;
        let arg = op >> 2;
        match op & 3 {
            // A round: the next nonce, or one off it.
            0 => {
                let nonce = match arg & 7 {
                    0..=4 => dealt,
                    5 => dealt + 1,
                    6 => dealt.saturating_sub(1),
                    _ => u64::from(arg),
                };
                if honest && nonce >= built && nonce < declared {
                    // Past the chain built here, honest or not cannot be
                    // told: not written.
                    continue;
                }
                entries.push(json!({"type": "round", "seed_pair": PAIR,
                    "round": format!("r{nonce}"), "nonce": nonce,
                    "game": {"type": "deck"}, "time": time}));
                if honest {
                    if nonce != dealt {
                        departure = Some(Departure { index, kinds: &["order", "chain"] });
                    } else if nonce >= declared {
                        departure = Some(Departure { index, kinds: &["chain"] });
                    } else {
                        dealt += 1;
                    }
                } else if revealed && departure.is_none() {
                    departure = Some(Departure { index, kinds: &["order"] });
                }
            }
            // A round's seed: the next one, or wrong in one way.
            1 => {
                let k = published;
                if honest && k + 1 > built {
                    continue;
                }
                let right = seeds.get(k as usize + 1).map(hex32).unwrap_or_else(|| "00".repeat(32));
                let (nonce, seed, links) = match arg & 7 {
                    0..=3 => (k, right, true),
                    4 => (k + 1, right, true),
                    5 => {
                        let mut bytes = hex::decode(&right).expect("hex");
                        bytes[usize::from(arg) % 32] ^= 1 | (arg & 0xfe);
                        (k, hex::encode(bytes), false)
                    }
                    6 => {
                        let upper = right.to_uppercase();
                        let same = upper == right;
                        (k, upper, same)
                    }
                    _ => (k, hex32(&seeds[k as usize]), false),
                };
                entries.push(json!({"type": "round_seed", "seed_pair": PAIR,
                    "round": format!("r{nonce}"), "nonce": nonce, "server_seed": seed,
                    "time": time}));
                if honest {
                    if nonce != published || published >= dealt {
                        departure = Some(Departure { index, kinds: &["order"] });
                    } else if !links {
                        departure = Some(Departure { index, kinds: &["chain"] });
                    } else {
                        published += 1;
                    }
                } else if revealed && departure.is_none() {
                    departure = Some(Departure { index, kinds: &["order"] });
                }
            }
            // The tip revealed (right or changed), once the chain is built whole.
            2 => {
                if (honest && declared != built) || declared > MAX_REVEALED {
                    continue;
                }
                let tip = seeds.last().expect("a tip");
                let (seed, right) = match arg & 3 {
                    0 | 1 => (hex32(tip), true),
                    2 => (hex32(&seeds[seeds.len() - 2]), false),
                    _ => (hex32(tip)[2..].to_owned(), false),
                };
                entries.push(json!({"type": "reveal", "seed_pair": PAIR, "server_seed": seed,
                    "successor": "next", "time": time}));
                if honest {
                    if published < dealt || !right {
                        departure = Some(Departure { index, kinds: &["reveal"] });
                    }
                    revealed = true;
                } else if revealed && departure.is_none() {
                    departure = Some(Departure { index, kinds: &["order"] });
                }
            }
            _ => {}
        }
        if departure.is_some() && revealed {
            break;
        }
    }
    let entries: Vec<Vec<u8>> = entries
        .iter()
        .map(|e| serde_json::to_vec(e).expect("JSON"))
        .collect();
    let stored = tree::stored_hashes_of(&entries).expect("stored hashes");
    let size = entries.len() as u64;
    let root = tree::tree_hash(size, &stored).expect("root");
    let key = key();
    let note = key
        .sign_note(&format!("{ORIGIN}\n{size}\n{root}\n"))
        .expect("signed");
    let mut checker = LogChecker::new(&key.vkey(), None, &note, None, false).expect("a checkpoint");
    for entry in &entries {
        checker.entry(entry);
        checker.take_tiles();
    }
    checker.end_of_entries();
    checker.take_tiles();
    let (report, _) = checker.finish(0, i64::MAX);
    assert!(report.checkpoint_accepted);
    let described = || {
        entries
            .iter()
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    };
    match departure {
        None => assert!(
            report.findings.is_empty(),
            "an honest chain log has findings: {:?}\n{}",
            report.findings,
            described()
        ),
        Some(Departure { index, kinds }) => {
            let index = index as u64;
            assert!(
                report
                    .findings
                    .iter()
                    .all(|f| f.index.is_none_or(|i| i >= index)),
                "a finding before entry {index}, the first departure: {:?}\n{}",
                report.findings,
                described()
            );
            assert!(
                report
                    .findings
                    .iter()
                    .any(|f| f.index == Some(index) && kinds.contains(&f.kind)),
                "entry {index} departs from the protocol ({kinds:?}) unnamed: {:?}\n{}",
                report.findings,
                described()
            );
        }
    }
}

/// The log's key, made once, not on every input (it derives an Ed25519
/// key).
fn key() -> &'static LogKey {
    static KEY: std::sync::LazyLock<LogKey> =
        std::sync::LazyLock::new(|| LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("key"));
    &KEY
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let flags = input.byte();
    let tip: [u8; 32] = input.bytes();
    let raw = u64::from_be_bytes(input.bytes());
    let small = u64::from(input.byte()) % MAX_BUILT + 1;
    let (pick, flip) = (input.byte(), input.byte());
    let small_seeds = seeds_of(tip, small);
    core(&small_seeds, raw, pick, flip);

    // The declared length: any u64, or the small one (then the chain built
    // is the whole chain, and its tip may be revealed).
    let declared = if flags & 1 == 1 { raw } else { small };
    let built = declared.clamp(1, MAX_BUILT);
    let seeds = if built == small { small_seeds } else { seeds_of(tip, built) };
    export_pair(&seeds, declared, flags >> 1);
    monitor(&seeds, declared, built, input.0);
});
