//! Dealing throughput: the protocol's hot path, and what it costs against the
//! floor (HMAC + the ChaCha20 words a deal needs) and against rand's own
//! `SliceRandom::shuffle` on the same generator.
//!
//! Run: `cargo bench --bench dealing`. Figures are recorded in docs/PERFORMANCE.md.

use std::hint::black_box;

use chacha20::ChaCha20Rng;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fairdeal_core::{
    ClientSeed, Draw, Game, Keystream, RoundKey, SeedKey, ServerSeed, WordSource,
    compact_deal_with, deal, deal_with, draw_winners, fresh_deck, shuffle, shuffled_deck,
};
use rand::seq::SliceRandom;
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
    // The same with the seed prepared once, as a pair's many rounds allow.
    let prepared = SeedKey::new(&seed);
    group.bench_function("holdem-6-prepared-seed", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            deal_with(&prepared, &client, black_box(nonce), holdem)
        })
    });
    // The deal the audit makes: the same cards held inline (`CompactDeal`),
    // no allocation. (The service deals inline too, preparing the seed each
    // round.)
    group.bench_function("holdem-6-compact", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            compact_deal_with(&prepared, &client, black_box(nonce), holdem)
        })
    });
    // The floor of a deck with a prepared seed: the round key from the
    // seed's keyed HMAC state (two compressions), the first keystream refill
    // (64 words, of which a deck reads 51) and Fisher-Yates over 52 card
    // indices in a byte array on the stack: no layout, no allocation.
    group.bench_function("floor-prepared-key-keystream-shuffle", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            let mut keystream = Keystream::new(&prepared.round_key(&client, black_box(nonce)));
            let mut deck: [u8; 52] = core::array::from_fn(|i| i as u8);
            shuffle(&mut deck, &mut keystream);
            deck
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
    // The cipher's own speed, in bulk: 4096 bytes (64 refills' worth).
    let mut bulk = ChaCha20Rng::from_seed(*key.as_bytes());
    let mut buffer = [0u8; 4096];
    group.bench_function("chacha20-4096-bytes", |b| {
        b.iter(|| rand_core::Rng::fill_bytes(&mut bulk, black_box(&mut buffer)))
    });
    // What the words cost: 64 keystream words (one refill of the buffer).
    let mut words = Keystream::new(&key);
    group.bench_function("keystream-64-words", |b| {
        b.iter(|| (0..64).fold(0u32, |acc, _| acc ^ words.next_word()))
    });
    group.finish();
}

/// fairdeal-draw-v1 at list scale: shuffling 10^6 and 10^7 list positions
/// (u32 indices in place) against rand's `SliceRandom::shuffle` over the same
/// ChaCha20 generator and the same array; and drawing 10 winners of 4·10^9,
/// which touches ten positions, not the list.
fn lists(c: &mut Criterion) {
    let (seed, client) = inputs();
    let key = RoundKey::derive(&seed, &client, 0);
    let mut group = c.benchmark_group("list");
    group.sample_size(10);
    for n in [1_000_000u32, 10_000_000] {
        let mut items: Vec<u32> = (0..n).collect();
        group.throughput(Throughput::Elements(u64::from(n)));
        group.bench_with_input(
            BenchmarkId::new("fairdeal-draw-v1-shuffle", n),
            &n,
            |b, _| {
                b.iter(|| {
                    let mut keystream = Keystream::new(&key);
                    shuffle(black_box(items.as_mut_slice()), &mut keystream);
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("rand-slice-shuffle", n), &n, |b, _| {
            b.iter(|| {
                let mut rng = ChaCha20Rng::from_seed(*key.as_bytes());
                black_box(items.as_mut_slice()).shuffle(&mut rng);
            })
        });
    }
    group.throughput(Throughput::Elements(10));
    let draw = Draw::new(4_000_000_000, 10).expect("valid");
    let prepared = SeedKey::new(&seed);
    let mut nonce = 0u64;
    group.bench_function("draw-10-of-4e9", |b| {
        b.iter(|| {
            nonce = nonce.wrapping_add(1);
            let key = prepared.round_key(&client, black_box(nonce));
            draw_winners(&mut Keystream::new(&key), draw)
        })
    });
    group.finish();
}

criterion_group!(benches, full_deals, shuffle_only, lists);
criterion_main!(benches);
