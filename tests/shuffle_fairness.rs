//! Is the fairdeal-v1 shuffle uniform, and would these tests notice if it
//! were not?
//!
//! Two kinds of evidence, for fairdeal-v1 and for the shuffles people actually
//! write:
//!
//! 1. **Monte Carlo battery** (fixed seeds, so deterministic): five tests,
//!    each answering a p-value —
//!    card × position over 20,000 52-card decks (chi-square, (n−1)² = 2601 df,
//!    with the permutation-matrix correction of `stats::card_position`);
//!    the ordered pair of the top two cards over the same decks (2651 df);
//!    adjacency of unshuffled successors over the same decks (normal z);
//!    exact permutation frequencies of 4 cards (24 orders, 24,000 shuffles,
//!    23 df) and of 5 cards (120 orders, 60,000 shuffles, 119 df).
//!    A shuffle is **flagged** when any p-value is below `ALPHA = 1e-6`. For
//!    a uniform shuffle each test falsely flags with probability 1e-6, so the
//!    battery's false-alarm rate is at most 5 × 1e-6 (Bonferroni).
//! 2. **Exact distributions** for n = 3 to 6: every random choice enumerated,
//!    probabilities in rational arithmetic, compared with 1/n!.
//!
//! The biased shuffles must be flagged; fairdeal-v1 must pass. The findings
//! are written to docs/SHUFFLE-EVIDENCE.md, which this test keeps current
//! (run with `FAIRDEAL_BLESS=1` to rewrite it after an intended change).

use fairdeal_test_support::{exact, shuffles, snapshot};

use std::fmt::Write as _;
use std::sync::OnceLock;

use exact::ExactSummary;
use fairdeal::stats::{self, TestResult};
use fairdeal_core::{ClientSeed, Keystream, RoundKey, ServerSeed, shuffle};
use shuffles::{CATALOGUE, Sampled};

/// Per-test significance level; see the module documentation.
const ALPHA: f64 = 1e-6;
const DECKS_52: u64 = 20_000;
const SHUFFLES_4: u64 = 24_000;
const SHUFFLES_5: u64 = 60_000;

/// The fixed seed of every Monte Carlo stream in this file.
fn test_seed() -> ServerSeed {
    ServerSeed::from_bytes(*b"fairdeal shuffle fairness tests!")
}

/// fairdeal-v1 itself: every sample is a real round (its own nonce, its own
/// HMAC round key and keystream) through the protocol crate's `shuffle`.
fn fairdeal_v1_sample(client: &ClientSeed, nonce: u64, n: usize) -> Vec<usize> {
    let mut keystream = Keystream::new(&RoundKey::derive(&test_seed(), client, nonce));
    let mut items: Vec<usize> = (0..n).collect();
    shuffle(&mut items, &mut keystream);
    items
}

/// Runs the battery; `sample(n, i)` returns the i-th shuffle of `0..n`.
fn battery(mut sample: impl FnMut(usize, u64) -> Vec<usize>) -> Vec<TestResult> {
    let mut positions = vec![vec![0u64; 52]; 52];
    let mut top_two = vec![0u64; 52 * 52];
    let mut adjacent = 0u64;
    for i in 0..DECKS_52 {
        let deck = sample(52, i);
        for (pos, &card) in deck.iter().enumerate() {
            positions[card][pos] += 1;
        }
        top_two[deck[0] * 52 + deck[1]] += 1;
        adjacent += deck.windows(2).filter(|w| w[1] == w[0] + 1).count() as u64;
    }
    let ordered_pairs: Vec<u64> = (0..52 * 52)
        .filter(|cell| cell / 52 != cell % 52)
        .map(|cell| top_two[cell])
        .collect();
    let mut small = |n: usize, count: u64| {
        let mut orders = vec![0u64; stats::factorial(n)];
        for i in 0..count {
            orders[stats::permutation_rank(&sample(n, i))] += 1;
        }
        orders
    };
    let orders_4 = small(4, SHUFFLES_4);
    let orders_5 = small(5, SHUFFLES_5);
    vec![
        stats::card_position(&positions, DECKS_52),
        stats::chi_square_uniform("top two cards", &ordered_pairs),
        stats::adjacency(adjacent, DECKS_52, 52),
        stats::chi_square_uniform("orders of 4", &orders_4),
        stats::chi_square_uniform("orders of 5", &orders_5),
    ]
}

/// Width of sort keys in the exact enumeration of the random-key sort (64-bit
/// keys cannot be enumerated; what narrow keys show is the effect of ties).
const EXACT_KEY_BITS: u32 = 2;

struct Findings {
    battery: Vec<TestResult>,
    exact: Vec<ExactSummary>,
}

impl Findings {
    fn flagged(&self) -> bool {
        self.battery.iter().any(|t| t.p_value < ALPHA)
    }
}

fn findings() -> &'static [Findings] {
    static FINDINGS: OnceLock<Vec<Findings>> = OnceLock::new();
    FINDINGS.get_or_init(|| {
        std::thread::scope(|scope| {
            let handles: Vec<_> = CATALOGUE
                .iter()
                .map(|&(name, _, shuffle_fn)| {
                    scope.spawn(move || {
                        let battery = if name == "fairdeal-v1" {
                            let clients: Vec<ClientSeed> = ["battery-4", "battery-5", "battery-52"]
                                .iter()
                                .map(|s| ClientSeed::new(*s).expect("valid"))
                                .collect();
                            battery(|n, i| {
                                let client = &clients[match n {
                                    4 => 0,
                                    5 => 1,
                                    _ => 2,
                                }];
                                fairdeal_v1_sample(client, i, n)
                            })
                        } else {
                            let client = ClientSeed::new(name).expect("valid");
                            let mut randomness = Sampled {
                                source: Keystream::new(&RoundKey::derive(&test_seed(), &client, 0)),
                            };
                            battery(|n, _| {
                                let mut items: Vec<usize> = (0..n).collect();
                                shuffle_fn(&mut items, &mut randomness);
                                items
                            })
                        };
                        let exact = (3..=6)
                            .map(|n| {
                                exact::summarise(&exact::distribution(
                                    n,
                                    shuffle_fn,
                                    EXACT_KEY_BITS,
                                ))
                            })
                            .collect();
                        Findings { battery, exact }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("battery thread"))
                .collect()
        })
    })
}

fn findings_of(name: &str) -> &'static Findings {
    let idx = CATALOGUE
        .iter()
        .position(|(n, ..)| *n == name)
        .expect("known candidate");
    &findings()[idx]
}

fn assert_flagged_and_not_exactly_uniform(name: &str) {
    let f = findings_of(name);
    assert!(
        f.flagged(),
        "{name} should be flagged (some p < {ALPHA}); got {:?}",
        f.battery
    );
    for summary in &f.exact {
        assert!(
            !summary.uniform,
            "{name} is exactly uniform for n = {}",
            summary.n
        );
    }
}

#[test]
fn fairdeal_v1_passes_every_test_of_the_battery() {
    let f = findings_of("fairdeal-v1");
    for test in &f.battery {
        assert!(test.p_value >= ALPHA, "fairdeal-v1 failed {test:?}");
    }
}

#[test]
fn fisher_yates_with_exact_indices_is_exactly_uniform() {
    for summary in &findings_of("fairdeal-v1").exact {
        assert!(summary.uniform, "n = {}: {summary:?}", summary.n);
    }
}

#[test]
fn sort_with_a_random_comparator_is_flagged_under_insertion_and_merge_sort() {
    assert_flagged_and_not_exactly_uniform("random-comparator insertion sort");
    assert_flagged_and_not_exactly_uniform("random-comparator merge sort");
}

#[test]
fn bubble_sort_with_a_coin_flip_comparator_is_flagged() {
    assert_flagged_and_not_exactly_uniform("coin-flip bubble sort");
}

#[test]
fn the_naive_swap_is_flagged() {
    assert_flagged_and_not_exactly_uniform("naive swap");
}

#[test]
fn fisher_yates_with_modulo_reduced_bytes_is_flagged() {
    assert_flagged_and_not_exactly_uniform("modulo 8-bit Fisher–Yates");
}

/// The threshold-matrix bubble sort is judged on the evidence: each pass
/// carries a uniformly chosen element to the end of the unsorted part
/// (position k + 1 holds each of the first k + 2 elements with probability
/// 1/(k + 2) by induction) and leaves the others in order, so it is a
/// Fisher–Yates in disguise — the enumeration confirms exact uniformity.
#[test]
fn the_threshold_matrix_bubble_sort_is_exactly_uniform_and_passes() {
    let f = findings_of("threshold-matrix bubble sort");
    for summary in &f.exact {
        assert!(summary.uniform, "n = {}: {summary:?}", summary.n);
    }
    assert!(!f.flagged(), "{:?}", f.battery);
}

/// The random-key sort is uniform except for ties between keys, which a
/// stable sort resolves in the original order. With b-bit keys the distance
/// from uniform is at most the probability of any tie; with 64-bit keys and
/// 52 cards that is below C(52,2) / 2^64 ≈ 7.2e-17.
#[test]
fn the_random_key_sort_is_uniform_up_to_key_ties_and_passes() {
    let f = findings_of("random-key sort");
    assert!(!f.flagged(), "{:?}", f.battery);
    let n = 4;
    for bits in 1..=4u32 {
        let summary = exact::summarise(&exact::distribution(
            n,
            shuffles::named("random-key sort"),
            bits,
        ));
        let tie = tie_probability(n, bits);
        assert!(!summary.uniform, "ties exist with {bits}-bit keys");
        assert!(
            summary.total_variation <= tie + 1e-12,
            "{bits} bits: TV {} > P(tie) {tie}",
            summary.total_variation
        );
    }
}

/// Probability that `n` independent uniform `bits`-bit keys are not all
/// distinct.
fn tie_probability(n: usize, bits: u32) -> f64 {
    let values = 2f64.powi(bits as i32);
    1.0 - (0..n)
        .map(|i| (values - i as f64) / values)
        .product::<f64>()
}

fn evidence_report() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Shuffle evidence\n\n\
         Generated by `tests/shuffle_fairness.rs`, which fails if this file is stale \
         (`FAIRDEAL_BLESS=1 cargo test --test shuffle_fairness` rewrites it). Every number \
         comes from fixed seeds and is reproducible.\n\n\
         ## Monte Carlo battery\n\n\
         Five tests per shuffle: card × position over {DECKS_52} decks of 52 (chi-square, \
         2601 df, scaled by (n−1)/n for the permutation-matrix dependence), the ordered top two \
         cards over the same decks (2651 df), adjacency of unshuffled neighbours (normal z), \
         and exact order frequencies of 4 cards ({SHUFFLES_4} shuffles, 23 df) and 5 cards \
         ({SHUFFLES_5} shuffles, 119 df). A shuffle is flagged when any p-value is below \
         {ALPHA:e}; a uniform shuffle is falsely flagged with probability at most 5 × {ALPHA:e}.\n"
    );
    let _ = writeln!(
        out,
        "| shuffle | card × position | top two | adjacency | orders of 4 | orders of 5 | verdict |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for ((name, ..), f) in CATALOGUE.iter().zip(findings()) {
        let ps: Vec<String> = f
            .battery
            .iter()
            .map(|t| stats::format_p_value(t.p_value))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            name,
            ps.join(" | "),
            if f.flagged() { "**flagged**" } else { "passes" }
        );
    }
    let _ = writeln!(
        out,
        "\n## Exact distributions (n = 3 to 6)\n\n\
         Every random choice enumerated; probabilities exact rationals. `max` and `min` are the \
         most and least likely order's probability times n! (1 and 1 when uniform); TV is the \
         total variation distance from uniform. The random-key sort is enumerated with \
         {EXACT_KEY_BITS}-bit keys so that ties are visible.\n"
    );
    let _ = writeln!(out, "| shuffle | n = 3 | n = 4 | n = 5 | n = 6 |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for ((name, ..), f) in CATALOGUE.iter().zip(findings()) {
        let cells: Vec<String> = f
            .exact
            .iter()
            .map(|s| {
                if s.uniform {
                    "exactly uniform".to_owned()
                } else {
                    format!(
                        "TV {:.4} (max {:.3}, min {:.3})",
                        s.total_variation, s.max_ratio, s.min_ratio
                    )
                }
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", name, cells.join(" | "));
    }
    let _ = writeln!(out, "\n| shuffle | what it does |\n|---|---|");
    for (name, what, _) in &CATALOGUE {
        let _ = writeln!(out, "| {} | {} |", name, what);
    }
    let _ = writeln!(
        out,
        "\n## Verdicts\n\n\
         - **fairdeal-v1** passes the battery, and Fisher–Yates with exact indices is exactly \
         uniform; `uniform` itself is proven exact by exhaustive enumeration of every 8- and \
         16-bit word (`fairdeal-core`, `keystream.rs`).\n\
         - **Random-comparator sorts, the coin-flip bubble sort, the naive swap and modulo \
         reduction** are flagged by the battery and are not uniform for any n from 3 to 6, nor \
         can they be: every path of the sorts and of the modulo shuffle has a dyadic probability \
         (k / 2^m), every path of the naive swap a multiple of n^-n, and 1/n! is neither a dyadic \
         number nor a multiple of n^-n once n > 2.\n\
         - **The threshold-matrix bubble sort** is exactly uniform: each pass carries a uniformly \
         chosen card to the end of the unsorted part and leaves the rest in order, a Fisher–Yates \
         in disguise. It costs n(n−1)/2 random draws instead of n − 1.\n\
         - **The random-key sort** is uniform except when two keys tie; with 64-bit keys and 52 \
         cards that happens with probability below 7.2e-17. It is fair in practice, but its \
         output depends on the sort's tie-breaking and draws 52 × 64 bits: fairdeal-v1 \
         specifies Fisher–Yates instead."
    );
    out
}

#[test]
fn the_published_evidence_is_current() {
    snapshot::assert_file_current(
        "docs/SHUFFLE-EVIDENCE.md",
        &evidence_report(),
        "run `cargo test --test shuffle_fairness`",
    );
}
