//! Chi-square and normal tests of shuffled decks.
//!
//! Each test returns its statistic, degrees of freedom and p-value; the
//! distributions come from `statrs`. What is specific to shuffles, and easy to
//! get wrong, is the null distribution of the card × position table: see
//! [`card_position`].

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// One test's result.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    /// What was tested.
    pub name: &'static str,
    /// The test statistic (chi-square, or |z| for a normal test).
    pub statistic: f64,
    /// Degrees of freedom (`None` for a normal test).
    pub df: Option<f64>,
    /// Probability, if the shuffle is fair, of a statistic at least this
    /// extreme.
    pub p_value: f64,
}

/// Upper tail of the chi-square distribution.
pub fn chi_square_sf(statistic: f64, df: f64) -> f64 {
    match ChiSquared::new(df) {
        Ok(dist) => dist.sf(statistic),
        Err(_) => f64::NAN,
    }
}

/// Two-sided p-value of a standard normal z.
pub fn normal_two_sided(z: f64) -> f64 {
    let standard = Normal::standard();
    2.0 * standard.sf(z.abs())
}

/// Pearson's goodness of fit of `observed` counts to `probabilities`
/// (which sum to 1), with `k − 1` degrees of freedom.
pub fn chi_square_gof(name: &'static str, observed: &[u64], probabilities: &[f64]) -> TestResult {
    assert_eq!(observed.len(), probabilities.len());
    let n: u64 = observed.iter().sum();
    let statistic = observed
        .iter()
        .zip(probabilities)
        .map(|(&o, &p)| {
            let expected = p * n as f64;
            (o as f64 - expected).powi(2) / expected
        })
        .sum();
    let df = (observed.len() - 1) as f64;
    TestResult {
        name,
        statistic,
        df: Some(df),
        p_value: chi_square_sf(statistic, df),
    }
}

/// Goodness of fit of `observed` to the uniform distribution over its cells.
pub fn chi_square_uniform(name: &'static str, observed: &[u64]) -> TestResult {
    let p = 1.0 / observed.len() as f64;
    chi_square_gof(name, observed, &vec![p; observed.len()])
}

/// The card × position test over `n_samples` shuffles of `n` distinct cards.
///
/// `counts[card][position]` counts how often each card landed in each
/// position. Each shuffle adds a permutation matrix, so every row and every
/// column of the table sums to `n_samples`: the cells are not independent.
/// Under a uniform shuffle the Pearson statistic X² = Σ (O − E)² / E, with
/// E = n_samples / n, is distributed as (n / (n − 1)) · χ²((n − 1)²): a
/// uniform permutation matrix has covariance 1/(n − 1) times the projection
/// onto the (n − 1)²-dimensional space of tables with zero row and column
/// sums, so E[X²] = n(n − 1), not (n − 1)². Treating X² as χ²((n − 1)²)
/// would flag a fair shuffle every time; this test rescales it.
pub fn card_position(counts: &[Vec<u64>], n_samples: u64) -> TestResult {
    let n = counts.len();
    let expected = n_samples as f64 / n as f64;
    let pearson: f64 = counts
        .iter()
        .flatten()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    let statistic = pearson * (n as f64 - 1.0) / n as f64;
    let df = ((n - 1) * (n - 1)) as f64;
    TestResult {
        name: "card x position",
        statistic,
        df: Some(df),
        p_value: chi_square_sf(statistic, df),
    }
}

/// The card × position statistic of deals that show only the first `m`
/// positions of a shuffled 52-card deck (hold'em and omaha deal a prefix),
/// or all 52. `counts[card][position]`, `m = counts[0].len()`, over
/// `n_samples` deals.
///
/// Each position holds each card with probability 1/52, but a card cannot
/// appear twice in one deal, so Pearson's X² is not chi-square. Per deal, the
/// indicator vector has covariance whose eigenvalues (times 52) are 52/51 on
/// the card × position interaction ((m − 1)·51 dimensions), (52 − m)/51 on the
/// cards' row totals (51 dimensions) and 0 on the position totals (fixed at
/// one card each). So with X_B = 52/(N m) · Σ_c (R_c − N m / 52)² (the row
/// totals' part) and X_A = X² − X_B, the statistic
/// T = 51/52 · X_A + 51/(52 − m) · X_B is asymptotically χ²(51 m) for
/// m < 52. For
/// m = 52 every row total is N, X_B = 0, and T = X² · 51/52 ~ χ²(51²), the
/// permutation-matrix correction of [`card_position`].
pub fn card_position_prefix(counts: &[Vec<u64>], n_samples: u64) -> (f64, f64) {
    let m = counts.first().map_or(0, Vec::len);
    let n = n_samples as f64;
    let expected = n / 52.0;
    let pearson: f64 = counts
        .iter()
        .flatten()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    if m >= 52 {
        return (pearson * 51.0 / 52.0, 51.0 * 51.0);
    }
    let df = 51.0 * m as f64;
    let row_total_expected = n * m as f64 / 52.0;
    let rows: f64 = counts
        .iter()
        .map(|row| (row.iter().sum::<u64>() as f64 - row_total_expected).powi(2))
        .sum::<f64>()
        * 52.0
        / (n * m as f64);
    let interaction = pearson - rows;
    let statistic = interaction * 51.0 / 52.0 + rows * 51.0 / (52.0 - m as f64);
    (statistic, df)
}

/// The Wald–Wolfowitz runs test of colours: in each complete deck, the runs
/// of red and black cards (26 of each). For n₁ = n₂ = 26 a deck's run count
/// has exact mean 2 n₁ n₂/(n₁ + n₂) + 1 = 27 and variance
/// 2 n₁ n₂ (2 n₁ n₂ − n₁ − n₂) / ((n₁ + n₂)² (n₁ + n₂ − 1)) = 1300/102 ≈ 12.75;
/// over many decks the total is normal by the central limit theorem.
/// Too few runs means colours clump (a shuffle that leaves the suits
/// together); too many, that they alternate.
pub fn colour_runs(total_runs: u64, n_decks: u64) -> TestResult {
    let (n1, n2) = (26.0_f64, 26.0_f64);
    let mean = 2.0 * n1 * n2 / (n1 + n2) + 1.0;
    let variance =
        2.0 * n1 * n2 * (2.0 * n1 * n2 - n1 - n2) / ((n1 + n2).powi(2) * (n1 + n2 - 1.0));
    normal_total("colour runs", total_runs, n_decks, mean, variance)
}

/// A normal test of a total over `n_samples` independent samples, each with
/// the given exact `mean` and `variance`: the statistic is |z|.
fn normal_total(
    name: &'static str,
    total: u64,
    n_samples: u64,
    mean: f64,
    variance: f64,
) -> TestResult {
    let samples = n_samples as f64;
    let z = (total as f64 - samples * mean) / (samples * variance).sqrt();
    TestResult {
        name,
        statistic: z.abs(),
        df: None,
        p_value: normal_two_sided(z),
    }
}

/// Red/black runs in a deck (a run is a maximal block of one colour).
pub fn runs_of_colour(deck: &[fairdeal_core::Card]) -> u64 {
    let mut runs = 0;
    let mut previous = None;
    for card in deck {
        let red = card.suit().is_red();
        if previous != Some(red) {
            runs += 1;
        }
        previous = Some(red);
    }
    runs
}

/// The adjacency test: how many cards are still directly followed by their
/// successor in the unshuffled order (card i then card i + 1).
///
/// For a uniform shuffle of n cards, each of the n − 1 successor pairs
/// survives with probability 1/n, and any two survive together with
/// probability 1/(n(n − 1)) (two glued pairs, or one glued triple, leave
/// n − 2 blocks). So the count S per deck has mean (n − 1)/n and variance
/// (n − 1)/n · (1 − 1/n) + (n − 1)(n − 2) · (1/(n(n − 1)) − 1/n²). Over many
/// decks the total is normal by the central limit theorem.
pub fn adjacency(total_survivors: u64, n_samples: u64, n: usize) -> TestResult {
    let nf = n as f64;
    let p = 1.0 / nf;
    let mean = (nf - 1.0) * p;
    let variance =
        (nf - 1.0) * p * (1.0 - p) + (nf - 1.0) * (nf - 2.0) * (1.0 / (nf * (nf - 1.0)) - p * p);
    normal_total("adjacency", total_survivors, n_samples, mean, variance)
}

/// Rank of a permutation of `0..n` in lexicographic order (its Lehmer code),
/// `0..n!`.
pub fn permutation_rank(perm: &[usize]) -> usize {
    let n = perm.len();
    let mut rank = 0;
    for i in 0..n {
        let smaller_later = perm[i + 1..].iter().filter(|&&x| x < perm[i]).count();
        rank = rank * (n - i) + smaller_later;
    }
    rank
}

/// n! for small n.
pub fn factorial(n: usize) -> usize {
    (1..=n).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_tail_matches_known_values() {
        // χ²(1) > 3.841 has probability 0.05; χ²(10) > 23.209 has 0.01.
        assert!((chi_square_sf(3.841_458_820_694_124, 1.0) - 0.05).abs() < 1e-9);
        assert!((chi_square_sf(23.209_251_158_954_356, 10.0) - 0.01).abs() < 1e-9);
        assert!((normal_two_sided(1.959_963_984_540_054) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn permutation_rank_is_a_bijection() {
        let mut seen = vec![false; 24];
        let mut perm = [0usize, 1, 2, 3];
        // All 24 orders via Heap's algorithm.
        fn heap(k: usize, perm: &mut [usize; 4], seen: &mut Vec<bool>) {
            if k == 1 {
                seen[permutation_rank(perm)] = true;
                return;
            }
            for i in 0..k {
                heap(k - 1, perm, seen);
                let j = if k.is_multiple_of(2) { i } else { 0 };
                perm.swap(j, k - 1);
            }
        }
        heap(4, &mut perm, &mut seen);
        assert!(seen.iter().all(|&s| s));
        assert_eq!(permutation_rank(&[0, 1, 2, 3]), 0);
        assert_eq!(permutation_rank(&[3, 2, 1, 0]), 23);
    }
}

#[cfg(test)]
mod colour_and_prefix_tests {
    use super::*;
    use fairdeal_core::{Card, fresh_deck};

    #[test]
    fn runs_are_counted_by_colour() {
        // The fresh deck is clubs, diamonds, hearts, spades: black, red, black.
        assert_eq!(runs_of_colour(&fresh_deck(1)), 3);
        let alternating: Vec<Card> = (0..26)
            .flat_map(|i| [Card::from_deck_index(i), Card::from_deck_index(26 + i)])
            .collect();
        // 0..13 clubs (black), 13..26 diamonds (red), 26..39 hearts (red),
        // 39..52 spades (black): pairs (c, h) then (d, s) alternate colours.
        // The one meeting of two reds (h12 then d13) joins two runs: 51.
        assert_eq!(runs_of_colour(&alternating), 51);
        // The expected total passes; three runs per deck fails.
        assert!(colour_runs(27 * 400, 400).p_value > 0.99);
        assert!(colour_runs(3 * 400, 400).p_value < 1e-100);
    }

    /// Fair hold'em-6 prefixes (m = 20) from fairdeal-v1 with fixed seeds:
    /// over 200 replicates of 300 deals, T averages its df (1020; the mean
    /// of 200 draws has standard deviation √(2·1020/200) ≈ 3.2, and the
    /// bound is 6 of those: a false alarm below 1e-8), and about 5% of the
    /// p-values fall below 0.05 (binomial(200, 0.05): 2 to 22 holds with
    /// probability above 0.999).
    #[test]
    fn the_prefix_statistic_is_chi_square_on_fair_deals() {
        use fairdeal_core::{ClientSeed, ServerSeed, shuffled_deck};
        let seed = ServerSeed::from_bytes([7; 32]);
        let client = ClientSeed::new("prefix calibration").expect("valid");
        let (m, deals, replicates) = (20usize, 300u64, 200u64);
        let mut statistics = Vec::new();
        let mut below_5_percent = 0;
        for r in 0..replicates {
            let mut counts = vec![vec![0u64; m]; 52];
            for d in 0..deals {
                let deck = shuffled_deck(&seed, &client, r * deals + d, 1);
                for (pos, card) in deck.iter().take(m).enumerate() {
                    counts[card.deck_index()][pos] += 1;
                }
            }
            let (statistic, df) = card_position_prefix(&counts, deals);
            assert_eq!(df, 1020.0);
            if chi_square_sf(statistic, df) < 0.05 {
                below_5_percent += 1;
            }
            statistics.push(statistic);
        }
        let mean = statistics.iter().sum::<f64>() / replicates as f64;
        assert!((mean - 1020.0).abs() < 19.2, "mean {mean}");
        assert!((2..=22).contains(&below_5_percent), "{below_5_percent}");
    }

    #[test]
    fn the_prefix_statistic_reduces_to_the_full_deck_correction() {
        // Any counts of 52 positions: the same statistic and df as card_position.
        let counts: Vec<Vec<u64>> = (0..52)
            .map(|c| (0..52).map(|p| 10 + ((c * 7 + p * 3) % 5) as u64).collect())
            .collect();
        let full = card_position(&counts, 624);
        let (statistic, df) = card_position_prefix(&counts, 624);
        assert!((statistic - full.statistic).abs() < 1e-9);
        assert_eq!(Some(df), full.df);
    }
}
