//! Deals N holdem-6 rounds and prints the time per deal, from the seed, from
//! a prepared seed, and from a prepared seed into a `CompactDeal` (what the
//! audit deals): the Rust side of `benches/peers/run.sh`, which times the
//! Node.js and Python peers in the same run.
//!
//! Run: `cargo run --release --example deal_throughput -- [N]`

use std::hint::black_box;
use std::time::Instant;

use fairdeal_core::{ClientSeed, Game, SeedKey, ServerSeed, compact_deal_with, deal, deal_with};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let seed = ServerSeed::from_bytes([7; 32]);
    let client = ClientSeed::new("benchmark client seed").expect("valid");
    let game = Game::holdem(6).expect("valid");
    let started = Instant::now();
    let mut cards = 0;
    for nonce in 0..n {
        cards += black_box(deal(&seed, &client, nonce, game)).n_cards();
    }
    let one_shot = started.elapsed().as_secs_f64() / n as f64;
    let prepared = SeedKey::new(&seed);
    let started = Instant::now();
    for nonce in 0..n {
        cards += black_box(deal_with(&prepared, &client, nonce, game)).n_cards();
    }
    let with_key = started.elapsed().as_secs_f64() / n as f64;
    let started = Instant::now();
    for nonce in 0..n {
        cards += black_box(compact_deal_with(&prepared, &client, nonce, game)).n_cards();
    }
    let inline = started.elapsed().as_secs_f64() / n as f64;
    assert_eq!(cards as u64, 3 * n * 20);
    println!(
        "fairdeal: {n} holdem-6 deals: {:.0} ns/deal from the seed, {:.0} ns/deal from a prepared seed, {:.0} ns/deal inline",
        one_shot * 1e9,
        with_key * 1e9,
        inline * 1e9
    );
}
