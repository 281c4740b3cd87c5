//! Random rounds from the Rust library, as JSON requests with their expected
//! answers, to cross-check independent implementations (Python, JavaScript).

use chacha20::ChaCha20Rng;
use fairdeal_core::{ClientSeed, Game, ServerSeed, deal};
use rand_core::{Rng, SeedableRng};
use serde_json::{Value, json};

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

/// `n` rounds: the requests as NDJSON (nonce as a decimal string) and the
/// answers `{server_seed_hash, deal}` the library gives.
pub fn random_rounds(n: usize) -> (String, Vec<Value>) {
    let mut rng = ChaCha20Rng::from_seed(*b"reference implementation cases!!");
    let mut requests = String::new();
    let mut expected = Vec::new();
    for case in 0..n {
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
    (requests, expected)
}

/// Feeds `requests` to a command's stdin and compares its NDJSON answers.
pub fn assert_command_agrees(
    command: &mut std::process::Command,
    requests: &str,
    expected: &[Value],
) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the implementation runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(requests.as_bytes())
        .expect("send requests");
    let out = child.wait_with_output().expect("it finishes");
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON answer"))
        .collect();
    assert_eq!(answers.len(), expected.len());
    for (i, (answer, expected)) in answers.iter().zip(expected).enumerate() {
        assert_eq!(
            answer,
            expected,
            "case {i}: {}",
            requests.lines().nth(i).unwrap_or("")
        );
    }
}
