//! Dealing throughput: the protocol's hot path, and what it costs against the
//! floor (HMAC + the ChaCha20 words a deal needs) and against rand's own
//! `SliceRandom::shuffle` on the same generator.
//!
//! Run: `cargo bench --bench dealing`. Figures are recorded in docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fairdeal_core::{
    ClientSeed, Game, Keystream, RoundKey, ServerSeed, WordSource, deal, fresh_deck, shuffle,
    shuffled_deck,
};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn inputs() -> (ServerSeed, ClientSeed) {
    (
        ServerSeed::from_bytes([7; 32]),
        ClientSeed::new("benchmark client seed").expect("valid"),
    )
}

fn full_deals(c: &mut Criterion) {
    let (seed, client) = inputs();
    let mut group = c.benchmark_group("deal");
    group.throughput(Throughput::Elements(1));
    let holdem = Game::holdem(6).expect("valid");
    let mut nonce = 0u64;
    group.bench_function("holdem-6", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            deal(&seed, &client, black_box(nonce), holdem)
        })
    });
    for decks in [1usize, 8] {
        group.bench_with_input(
            BenchmarkId::new("shuffled-deck", decks),
            &decks,
            |b, &decks| {
                b.iter(|| {
                    nonce = nonce.wrapping_add(1);
                    shuffled_deck(&seed, &client, black_box(nonce), decks)
                })
            },
        );
    }
    // The floor: HMAC round key plus the 51 keystream words a 52-card
    // shuffle reads (rejections add about one word in 10^7), nothing else.
    group.bench_function("floor-hmac-plus-51-words", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            let key = RoundKey::derive(&seed, &client, black_box(nonce));
            let mut keystream = Keystream::new(&key);
            let mut acc = 0u32;
            for _ in 0..51 {
                acc ^= keystream.next_word();
            }
            acc
        })
    });
    group.finish();
}

fn shuffle_only(c: &mut Criterion) {
    let (seed, client) = inputs();
    let key = RoundKey::derive(&seed, &client, 0);
    let mut group = c.benchmark_group("shuffle-52");
    group.throughput(Throughput::Elements(1));
    let mut keystream = Keystream::new(&key);
    let mut deck = fresh_deck(1);
    group.bench_function("fairdeal-v1", |b| {
        b.iter(|| shuffle(black_box(&mut deck), &mut keystream))
    });
    let mut rng = ChaCha20Rng::from_seed(*key.as_bytes());
    group.bench_function("rand-slice-shuffle", |b| {
        b.iter(|| black_box(&mut deck).shuffle(&mut rng))
    });
    group.finish();
}

criterion_group!(benches, full_deals, shuffle_only);
criterion_main!(benches);
