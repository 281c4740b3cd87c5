//! The Rust crate against an independent implementation written from the
//! specification alone (tools/fairdeal_v1_reference.py, plain Python with its
//! own ChaCha20). Agreement on the vectors and on hundreds of random rounds is
//! evidence that docs/PROTOCOL.md is complete and byte-exact.

use std::io::Write;
use std::process::{Command, Stdio};

use fairdeal_core::{ClientSeed, Game, ServerSeed, deal};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde_json::{Value, json};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tools/fairdeal_v1_reference.py"
);

fn python() -> Command {
    Command::new("python3")
}

#[test]
fn the_reference_implementation_reproduces_every_published_vector() {
    let out = python()
        .args([REFERENCE, "--check"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/test-vectors/fairdeal-v1.json"
        ))
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

/// Client seeds drawn from ASCII, multi-byte letters and 4-byte symbols, so
/// UTF-8 encoding is exercised, not only ASCII.
fn random_client_seed(rng: &mut ChaCha20Rng) -> ClientSeed {
    const ALPHABET: [&str; 12] = [
        "a", "Z", "7", " ", ":", "-", "é", "ß", "中", "🂡", "♠", "\u{a0}",
    ];
    loop {
        let len = 1 + (rng.next_u32() % 20) as usize;
        let text: String = (0..len)
            .map(|_| ALPHABET[(rng.next_u32() % ALPHABET.len() as u32) as usize])
            .collect();
        if let Ok(seed) = ClientSeed::new(text) {
            return seed;
        }
    }
}

fn random_game(rng: &mut ChaCha20Rng) -> Game {
    loop {
        let pick = rng.next_u32();
        let game = match pick % 4 {
            0 => Game::deck(1 + pick / 4 % 8),
            1 => Game::holdem(2 + pick / 4 % 21),
            2 => Game::omaha(2 + pick / 4 % 10),
            _ => Game::hands(
                1 + rng.next_u32() % 12,
                1 + rng.next_u32() % 12,
                1 + pick / 4 % 3,
            ),
        };
        if let Ok(game) = game {
            return game;
        }
    }
}

#[test]
fn the_reference_implementation_agrees_on_300_random_rounds() {
    let mut rng = ChaCha20Rng::from_seed(*b"reference implementation cases!!");
    let mut requests = String::new();
    let mut expected = Vec::new();
    for case in 0..300 {
        let mut seed_bytes = [0u8; 32];
        rng.fill_bytes(&mut seed_bytes);
        let seed = ServerSeed::from_bytes(seed_bytes);
        let client = random_client_seed(&mut rng);
        // Small, large and extreme nonces: the decimal text is part of the key.
        let nonce = match case % 3 {
            0 => u64::from(rng.next_u32() % 1000),
            1 => rng.next_u64(),
            _ => u64::MAX - u64::from(rng.next_u32() % 3),
        };
        let game = random_game(&mut rng);
        let request = json!({
            "server_seed": seed.reveal_hex(),
            "client_seed": client.as_str(),
            "nonce": nonce.to_string(),
            "game": game,
        });
        requests.push_str(&request.to_string());
        requests.push('\n');
        expected.push(json!({
            "server_seed_hash": seed.commitment(),
            "deal": deal(&seed, &client, nonce, game),
        }));
    }
    let mut child = python()
        .arg(REFERENCE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(requests.as_bytes())
        .expect("send requests");
    let out = child.wait_with_output().expect("reference finishes");
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON answer"))
        .collect();
    assert_eq!(answers.len(), expected.len());
    for (i, (answer, expected)) in answers.iter().zip(&expected).enumerate() {
        assert_eq!(
            answer,
            expected,
            "case {i}: {}",
            requests.lines().nth(i).unwrap_or("")
        );
    }
}
