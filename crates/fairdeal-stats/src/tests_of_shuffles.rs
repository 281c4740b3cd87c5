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
    let samples = n_samples as f64;
    let z = (total_survivors as f64 - samples * mean) / (samples * variance).sqrt();
    TestResult {
        name: "adjacency",
        statistic: z.abs(),
        df: None,
        p_value: normal_two_sided(z),
    }
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
