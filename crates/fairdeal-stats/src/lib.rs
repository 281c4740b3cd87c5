//! # fairdeal-stats: statistical evidence that dealt cards look fair
//!
//! - `tests_of_shuffles`: chi-square and normal tests of shuffled decks (card ×
//!   position with the permutation-matrix correction, adjacency, order
//!   frequencies), shared by the project's shuffle-fairness tests and the audit.
//! - `poker`: hand categories and their exact frequencies, computed by
//!   enumerating every 5- and 7-card hand, and the 169 starting-hand classes.
//! - `evidence`: accumulates dealt rounds and turns them into tests with a
//!   verdict under a stated significance level and a Bonferroni correction.
//!
//! Pure: no I/O. Built at full optimisation even in test builds, because the
//! 7-card enumeration visits 133,784,560 hands.
#![forbid(unsafe_code)]

pub mod evidence;
pub mod poker;
mod tests_of_shuffles;

pub use tests_of_shuffles::*;

/// A p-value as printed in reports: `< 1e-300` for 0 (or an underflow to
/// 0), two significant digits in scientific notation below 0.001
/// (`1.23e-5`), four decimals otherwise (`0.0420`, `1.0000`). NaN prints as
/// `NaN`.
pub fn format_p_value(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".to_owned()
    } else if p < 0.001 {
        format!("{p:.2e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::format_p_value;

    #[test]
    fn p_values_print_as_in_reports() {
        let cases = [
            (0.0, "< 1e-300"),
            (-0.0, "< 1e-300"),
            (5e-324, "4.94e-324"),
            (1.234_567e-5, "1.23e-5"),
            (0.000_999_9, "1.00e-3"),
            (0.000_999, "9.99e-4"),
            (0.001, "0.0010"),
            (0.042, "0.0420"),
            (0.123_456, "0.1235"),
            (0.5, "0.5000"),
            (1.0, "1.0000"),
            (f64::NAN, "NaN"),
        ];
        for (p, expected) in cases {
            assert_eq!(format_p_value(p), expected, "p = {p:e}");
        }
    }
}
