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
