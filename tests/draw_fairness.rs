//! Are fairdeal-draw-v1 draws uniform, and would these tests notice if they
//! were not?
//!
//! Each test counts where winners land (winner-position frequencies) and
//! answers a chi-square p-value. A draw is **flagged** when a p-value is
//! below `ALPHA = 1e-6`; a uniform draw is falsely flagged by one test with
//! probability 1e-6, so with the four tests run on fairdeal's draw the
//! false-alarm rate is at most 4 × 1e-6 (Bonferroni). Every sample is a real
//! draw (its own nonce, round key and keystream) from a fixed seed, so the
//! outcome is the same on every run.
//!
//! Next to it, the draw people write by hand — `word mod remaining` instead
//! of rejection — over the same keystream. Over bytes it is flagged at
//! n = 100 (56 entrants get 3/256, the other 44 get 2/256); over 32-bit
//! words its bias is invisible for small n but not for large ones: at
//! n = 3 × 2^30 the first third of the list wins twice as often as the
//! others. Both are flagged by the very tests fairdeal's draw passes.

use fairdeal::stats::{self, TestResult};
use fairdeal_core::{ClientSeed, Draw, Keystream, RoundKey, ServerSeed, WordSource, draw_winners};

const ALPHA: f64 = 1e-6;

fn keystream(nonce: u64) -> Keystream {
    let seed = ServerSeed::from_bytes(*b"fairdeal draw fairness tests ok!");
    let client = ClientSeed::new("draw fairness").expect("valid");
    Keystream::new(&RoundKey::derive(&seed, &client, nonce))
}

/// The hand-written draw: the same steps as fairdeal-draw-v1, but
/// `j = word mod (i + 1)` over `bits`-bit words (no rejection).
fn modulo_draw(source: &mut Keystream, n: u32, k: u32, bits: u32) -> Vec<u32> {
    let mut moved = std::collections::HashMap::new();
    let mut winners = Vec::new();
    for step in 0..k {
        let i = n - 1 - step;
        let word = if bits == 32 {
            u64::from(source.next_word())
        } else {
            u64::from(source.next_word()) & ((1 << bits) - 1)
        };
        let j = (word % (u64::from(i) + 1)) as u32;
        let at_i = moved.remove(&i).unwrap_or(i);
        let at_j = if j == i {
            at_i
        } else {
            moved.insert(j, at_i).unwrap_or(j)
        };
        winners.push(at_j);
    }
    winners
}

/// A draw of `k` of `n` as a function of the sample number.
type Drawer = dyn Fn(u64, u32, u32) -> Vec<u32>;

fn fair() -> Box<Drawer> {
    Box::new(|nonce, n, k| {
        draw_winners(
            &mut keystream(nonce),
            Draw::new(n.into(), k.into()).expect("valid"),
        )
    })
}

fn modulo(bits: u32) -> Box<Drawer> {
    Box::new(move |nonce, n, k| modulo_draw(&mut keystream(nonce), n, k, bits))
}

/// Winner 1 and winner 10 of 10 winners of 100, over 40,000 draws: each
/// entrant's count at each rank (100 cells, 99 df, 400 expected a cell).
fn small_list(draw: &Drawer) -> [TestResult; 2] {
    const DRAWS: u64 = 40_000;
    let mut first = vec![0u64; 100];
    let mut last = vec![0u64; 100];
    for nonce in 0..DRAWS {
        let winners = draw(nonce, 100, 10);
        first[winners[0] as usize] += 1;
        last[winners[9] as usize] += 1;
    }
    [
        stats::chi_square_uniform("winner 1 of 100 entrants", &first),
        stats::chi_square_uniform("winner 10 of 100 entrants", &last),
    ]
}

/// Winner 1 of n = 3 × 2^30 entrants, over 6,000 draws, by which sixth of
/// the list it is in (6 cells, 5 df, 1,000 expected a cell).
fn large_list(draw: &Drawer) -> TestResult {
    const DRAWS: u64 = 6_000;
    const N: u32 = 3 << 30;
    let mut sixths = vec![0u64; 6];
    for nonce in 0..DRAWS {
        let winner = draw(nonce, N, 1)[0];
        sixths[(u64::from(winner) * 6 / u64::from(N)) as usize] += 1;
    }
    stats::chi_square_uniform("winner 1 of 3 x 2^30 entrants, by sixth", &sixths)
}

/// Every cell of the same draw over all ranks: k = n = 6 over 30,000
/// draws, rank × entrant (a permutation each: 36 cells with the
/// permutation-matrix correction).
fn whole_permutation(draw: &Drawer) -> TestResult {
    const DRAWS: u64 = 30_000;
    let mut counts = vec![vec![0u64; 6]; 6];
    for nonce in 0..DRAWS {
        for (rank, entrant) in draw(nonce, 6, 6).into_iter().enumerate() {
            counts[entrant as usize][rank] += 1;
        }
    }
    stats::card_position(&counts, DRAWS)
}

fn flagged(results: &[TestResult]) -> bool {
    results.iter().any(|r| r.p_value < ALPHA)
}

#[test]
fn fairdeal_draws_pass_every_test() {
    let draw = fair();
    let mut results = small_list(&draw).to_vec();
    results.push(large_list(&draw));
    results.push(whole_permutation(&draw));
    assert!(!flagged(&results), "{results:#?}");
    // Not vacuous: the statistics were computed on real counts.
    assert!(results.iter().all(|r| r.statistic > 0.0 && r.p_value > 0.0));
}

#[test]
fn the_modulo_draw_over_bytes_is_flagged_on_a_small_list() {
    let results = small_list(&modulo(8));
    assert!(flagged(&results), "{results:#?}");
}

#[test]
fn the_modulo_draw_over_32_bit_words_is_flagged_on_a_large_list() {
    let draw = modulo(32);
    let result = large_list(&draw);
    assert!(result.p_value < ALPHA, "{result:#?}");
    // …and its bias is too small to see on a small list, which is why
    // rejection matters most for large draws.
    assert!(!flagged(&small_list(&draw)));
}
