//! From dealt rounds to tests with a verdict.
//!
//! Significance: the family of tests is judged at α = 0.001 with a Bonferroni
//! correction for the k tests that have enough data: a test **fails** when
//! p < 0.001 / k, **warns** when p < 0.05 / k, and **passes** otherwise. For a
//! fair deck the chance that any test fails is at most 0.001 (and that any
//! warns at most 0.05). A test whose smallest expected cell count would be
//! below 5 is not run: it says how many samples it needs instead of printing a
//! meaningless p-value. Sparse categories are pooled from the rarest end until
//! each pooled cell expects at least 5.
//!
//! Dependence: several hands of one deal share a deck, so their categories
//! are slightly negatively correlated; that makes the chi-square conservative
//! (fewer false alarms), never anti-conservative. The 7-card test takes one
//! seat per hold'em deal, because seats share the board.

use std::collections::BTreeMap;

use fairdeal_core::Card;
use serde::Serialize;

use crate::poker::{
    self, Category, exact_five_card_counts, exact_seven_card_counts, starting_class,
    starting_class_counts, starting_class_name, starting_kind,
};
use crate::{
    card_position_prefix, chi_square_gof, chi_square_sf, colour_runs, normal_two_sided,
    runs_of_colour,
};

/// Family-wise level at which a test fails.
pub const ALPHA_FAIL: f64 = 0.001;
/// Family-wise level at which a test warns.
pub const ALPHA_WARN: f64 = 0.05;
/// Smallest expected count per cell for a chi-square test to be run.
pub const MIN_EXPECTED: f64 = 5.0;
/// Fewest decks for the runs test's normal approximation (each deck's run
/// count is itself close to normal; twenty make the sum very close).
pub const MIN_RUNS_DECKS: u64 = 20;

/// Counts gathered from dealt rounds.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// `positions[card][position]` over complete single-deck orders.
    positions: Vec<Vec<u64>>,
    full_decks: u64,
    /// Deals that show only the first m positions of one deck (hold'em,
    /// omaha), by m: `[card][position]` counts and the number of deals.
    prefixes: BTreeMap<usize, (Vec<Vec<u64>>, u64)>,
    /// Red/black runs summed over complete single-deck orders.
    colour_runs: u64,
    starting_classes: [u64; 169],
    five_card: [u64; 9],
    seven_card: [u64; 9],
    serial_matches: u64,
    serial_pairs: u64,
}

impl Default for Evidence {
    fn default() -> Self {
        Self {
            positions: vec![vec![0; 52]; 52],
            full_decks: 0,
            prefixes: BTreeMap::new(),
            colour_runs: 0,
            starting_classes: [0; 169],
            five_card: [0; 9],
            seven_card: [0; 9],
            serial_matches: 0,
            serial_pairs: 0,
        }
    }
}

/// pass, warn, fail, or not enough data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Warn,
    Fail,
    Insufficient,
}

/// One cell of a test's table: what was seen against what a fair deck gives.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub label: String,
    pub observed: u64,
    pub expected: f64,
}

/// One test's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub name: &'static str,
    pub what: &'static str,
    /// What one sample is, in the plural ("complete single decks").
    pub unit: &'static str,
    pub samples: u64,
    /// The total number of samples the test needs to run (every expected
    /// count at least 5), when there are fewer.
    pub needed: Option<u64>,
    pub statistic: Option<f64>,
    pub df: Option<f64>,
    pub p_value: Option<f64>,
    pub verdict: Verdict,
    pub cells: Vec<Cell>,
    /// Standardised residuals (O − E)/√E by card and position, for the heat map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residuals: Option<Vec<Vec<f64>>>,
}

/// All tests and the overall verdict.
#[derive(Clone, Debug, Serialize)]
pub struct StatsReport {
    pub alpha_fail: f64,
    pub alpha_warn: f64,
    /// Tests with enough data (the Bonferroni k).
    pub tests_run: usize,
    pub verdict: Verdict,
    pub tests: Vec<Outcome>,
}

impl Evidence {
    /// A complete single-deck order (52 cards, top first).
    pub fn add_full_deck(&mut self, deck: &[Card]) {
        if deck.len() != 52 {
            return;
        }
        for (pos, card) in deck.iter().enumerate() {
            self.positions[card.deck_index()][pos] += 1;
        }
        self.full_decks += 1;
        self.colour_runs += runs_of_colour(deck);
    }

    /// The cards a deal took from the top of one shuffled deck, in order
    /// (hold'em and omaha: hole cards round robin, burns and board), for the
    /// card × position test over the positions dealt.
    pub fn add_dealt_prefix(&mut self, order: &[Card]) {
        let m = order.len();
        if m == 52 {
            return self.add_full_deck(order);
        }
        if m == 0 || m > 52 {
            return;
        }
        let (counts, deals) = self
            .prefixes
            .entry(m)
            .or_insert_with(|| (vec![vec![0; m]; 52], 0));
        for (pos, card) in order.iter().enumerate() {
            counts[card.deck_index()][pos] += 1;
        }
        *deals += 1;
    }

    /// A hold'em starting hand.
    pub fn add_starting_hand(&mut self, a: Card, b: Card) {
        if a != b {
            self.starting_classes[starting_class(a, b)] += 1;
        }
    }

    /// A five-card hand.
    pub fn add_five_card_hand(&mut self, cards: &[Card]) {
        if cards.len() == 5 {
            self.five_card[poker::category(cards) as usize] += 1;
        }
    }

    /// Seven cards (hole cards and board).
    pub fn add_seven_card_hand(&mut self, cards: &[Card]) {
        if cards.len() == 7 {
            self.seven_card[poker::category(cards) as usize] += 1;
        }
    }

    /// The first card of two consecutive rounds of one pair.
    pub fn add_consecutive_first_cards(&mut self, previous: Card, next: Card) {
        self.serial_pairs += 1;
        if previous == next {
            self.serial_matches += 1;
        }
    }

    /// Adds another accumulator's counts.
    pub fn merge(&mut self, other: &Evidence) {
        for (row, other_row) in self.positions.iter_mut().zip(&other.positions) {
            for (a, b) in row.iter_mut().zip(other_row) {
                *a += b;
            }
        }
        self.full_decks += other.full_decks;
        self.colour_runs += other.colour_runs;
        for (m, (counts, deals)) in &other.prefixes {
            let (mine, my_deals) = self
                .prefixes
                .entry(*m)
                .or_insert_with(|| (vec![vec![0; *m]; 52], 0));
            for (row, other_row) in mine.iter_mut().zip(counts) {
                for (a, b) in row.iter_mut().zip(other_row) {
                    *a += b;
                }
            }
            *my_deals += deals;
        }
        for (a, b) in self.starting_classes.iter_mut().zip(other.starting_classes) {
            *a += b;
        }
        for (a, b) in self.five_card.iter_mut().zip(other.five_card) {
            *a += b;
        }
        for (a, b) in self.seven_card.iter_mut().zip(other.seven_card) {
            *a += b;
        }
        self.serial_matches += other.serial_matches;
        self.serial_pairs += other.serial_pairs;
    }

    /// Runs every test.
    pub fn report(&self) -> StatsReport {
        let mut tests = vec![
            self.card_position_test(),
            self.starting_kinds_test(),
            self.starting_classes_test(),
            categories_test(
                "5-card hand categories",
                "each 5-card hand of a `hands` deal, against the 2,598,960 five-card hands",
                "5-card hands",
                &self.five_card,
                exact_five_card_counts,
            ),
            categories_test(
                "7-card best hand",
                "seat 1's hole cards and the board of each hold'em deal, against the 133,784,560 seven-card hands",
                "7-card hands",
                &self.seven_card,
                exact_seven_card_counts,
            ),
            self.serial_test(),
            self.colour_runs_test(),
        ];
        let k = tests.iter().filter(|t| t.p_value.is_some()).count();
        for test in &mut tests {
            if let Some(p) = test.p_value {
                test.verdict = if p < ALPHA_FAIL / k as f64 {
                    Verdict::Fail
                } else if p < ALPHA_WARN / k as f64 {
                    Verdict::Warn
                } else {
                    Verdict::Pass
                };
            }
        }
        let verdict = if tests.iter().any(|t| t.verdict == Verdict::Fail) {
            Verdict::Fail
        } else if tests.iter().any(|t| t.verdict == Verdict::Warn) {
            Verdict::Warn
        } else if k == 0 {
            Verdict::Insufficient
        } else {
            Verdict::Pass
        };
        StatsReport {
            alpha_fail: ALPHA_FAIL,
            alpha_warn: ALPHA_WARN,
            tests_run: k,
            verdict,
            tests,
        }
    }

    /// Card × position over every table with enough deals: complete decks
    /// (52 positions) and each prefix length m of hold'em and omaha deals.
    /// The tables are independent, so their statistics (each χ² with its df,
    /// see [`card_position_prefix`]) add up.
    fn card_position_test(&self) -> Outcome {
        let needed = (MIN_EXPECTED * 52.0).ceil() as u64;
        let deals = self.full_decks + self.prefixes.values().map(|(_, n)| n).sum::<u64>();
        let mut outcome = Outcome::empty(
            "card x position",
            "where each card lands: complete single-deck orders (deck and hands deals of one deck) \
             and the dealt positions of hold'em and omaha deals, burns included",
            "deals of one table (complete decks, or hold'em and omaha deals of one size)",
            deals,
        );
        let mut tables: Vec<(&Vec<Vec<u64>>, u64)> = Vec::new();
        if self.full_decks >= needed {
            tables.push((&self.positions, self.full_decks));
        }
        tables.extend(
            self.prefixes
                .values()
                .filter(|(_, n)| *n >= needed)
                .map(|(counts, n)| (counts, *n)),
        );
        let Some(&(shown, shown_deals)) = tables.first() else {
            let largest = self
                .prefixes
                .values()
                .map(|(_, n)| *n)
                .chain([self.full_decks])
                .max()
                .unwrap_or(0);
            outcome.samples = largest;
            outcome.needed = Some(needed);
            return outcome;
        };
        let (statistic, df) = tables
            .iter()
            .map(|(counts, n)| card_position_prefix(counts, *n))
            .fold((0.0, 0.0), |(s, d), (s1, d1)| (s + s1, d + d1));
        // The heat map shows complete decks (52 × 52), when they count.
        if self.full_decks >= needed {
            let expected = shown_deals as f64 / 52.0;
            outcome.residuals = Some(
                shown
                    .iter()
                    .map(|row| {
                        row.iter()
                            .map(|&o| (o as f64 - expected) / expected.sqrt())
                            .collect()
                    })
                    .collect(),
            );
        }
        outcome.set(statistic, Some(df), chi_square_sf(statistic, df));
        outcome
    }

    fn colour_runs_test(&self) -> Outcome {
        let mut outcome = Outcome::empty(
            "colour runs",
            "runs of red and black cards in complete single-deck orders (Wald-Wolfowitz: \
             exact mean 27 and variance 1300/102 per deck)",
            "complete single decks",
            self.full_decks,
        );
        if self.full_decks < MIN_RUNS_DECKS {
            outcome.needed = Some(MIN_RUNS_DECKS);
            return outcome;
        }
        let result = colour_runs(self.colour_runs, self.full_decks);
        let mean = 27.0 * self.full_decks as f64;
        outcome.cells = vec![Cell {
            label: "runs, all decks together".to_owned(),
            observed: self.colour_runs,
            expected: mean,
        }];
        outcome.set(result.statistic, None, result.p_value);
        outcome
    }

    fn starting_kinds_test(&self) -> Outcome {
        let exact = starting_class_counts();
        let mut kinds = [0u64; 3];
        let mut kind_weights = [0u64; 3];
        for class in 0..169 {
            kinds[starting_kind(class)] += self.starting_classes[class];
            kind_weights[starting_kind(class)] += exact[class];
        }
        let labels = ["pair", "suited", "offsuit"];
        pooled_test(
            "starting hands: pair, suited, offsuit",
            "hold'em hole cards of every seat, against 1/17, 4/17, 12/17",
            "starting hands",
            labels.iter().map(|s| (*s).to_owned()).collect(),
            &kinds,
            &kind_weights,
            false,
        )
    }

    fn starting_classes_test(&self) -> Outcome {
        let exact = starting_class_counts();
        let labels = (0..169).map(starting_class_name).collect();
        pooled_test(
            "starting hands: 169 classes",
            "hold'em hole cards of every seat, against 6, 4 or 12 in 1,326",
            "starting hands",
            labels,
            &self.starting_classes,
            &exact,
            false,
        )
    }

    fn serial_test(&self) -> Outcome {
        let mut outcome = Outcome::empty(
            "serial correlation",
            "the first card of consecutive rounds of a pair is the same (probability 1/52 if rounds are independent)",
            "pairs of consecutive rounds",
            self.serial_pairs,
        );
        let p = 1.0 / 52.0;
        let needed = (MIN_EXPECTED / p).ceil() as u64;
        if self.serial_pairs < needed {
            outcome.needed = Some(needed);
            return outcome;
        }
        let n = self.serial_pairs as f64;
        // The match indicators of consecutive pairs are pairwise independent
        // under the null, so the variance is exactly n p (1 − p).
        let z = (self.serial_matches as f64 - n * p) / (n * p * (1.0 - p)).sqrt();
        outcome.cells = vec![
            Cell {
                label: "same first card".to_owned(),
                observed: self.serial_matches,
                expected: n * p,
            },
            Cell {
                label: "different".to_owned(),
                observed: self.serial_pairs - self.serial_matches,
                expected: n * (1.0 - p),
            },
        ];
        outcome.statistic = Some(z.abs());
        outcome.p_value = Some(normal_two_sided(z));
        outcome
    }
}

impl Outcome {
    fn empty(name: &'static str, what: &'static str, unit: &'static str, samples: u64) -> Self {
        Self {
            name,
            what,
            unit,
            samples,
            needed: None,
            statistic: None,
            df: None,
            p_value: None,
            verdict: Verdict::Insufficient,
            cells: Vec::new(),
            residuals: None,
        }
    }

    fn set(&mut self, statistic: f64, df: Option<f64>, p_value: f64) {
        self.statistic = Some(statistic);
        self.df = df;
        self.p_value = Some(p_value);
    }
}

fn categories_test(
    name: &'static str,
    what: &'static str,
    unit: &'static str,
    observed: &[u64; 9],
    exact: fn() -> &'static [u64; 9],
) -> Outcome {
    if observed.iter().all(|&o| o == 0) {
        // Nothing to test.
        return Outcome::empty(name, what, unit, 0);
    }
    let labels = Category::ALL.iter().map(|c| c.name().to_owned()).collect();
    pooled_test(name, what, unit, labels, observed, exact(), true)
}

/// Chi-square of `observed` against probabilities `weights / Σ weights`,
/// pooling the rarest cells (from the end when `pool_from_end`, else by
/// probability) until each expects at least [`MIN_EXPECTED`].
fn pooled_test(
    name: &'static str,
    what: &'static str,
    unit: &'static str,
    labels: Vec<String>,
    observed: &[u64],
    weights: &[u64],
    pool_from_end: bool,
) -> Outcome {
    let n: u64 = observed.iter().sum();
    let total: u64 = weights.iter().sum();
    let mut outcome = Outcome::empty(name, what, unit, n);
    let p_of = |w: u64| w as f64 / total as f64;
    let min_p = weights.iter().map(|&w| p_of(w)).fold(f64::MAX, f64::min);
    // Cells in pooling order: the rarest (or the last) merge first.
    let mut cells: Vec<(String, u64, u64)> = labels
        .into_iter()
        .zip(observed.iter().copied())
        .zip(weights.iter().copied())
        .map(|((label, o), w)| (label, o, w))
        .collect();
    if pool_from_end {
        // Merge the last (strongest, rarest) category into the one below it
        // until it expects at least MIN_EXPECTED.
        while cells.len() >= 2
            && cells
                .last()
                .is_some_and(|last| p_of(last.2) * (n as f64) < MIN_EXPECTED)
        {
            let (_, o, w) = cells.pop().unwrap_or_default();
            if let Some(prev) = cells.last_mut() {
                if !prev.0.ends_with(" or better") {
                    prev.0.push_str(" or better");
                }
                prev.1 += o;
                prev.2 += w;
            }
        }
    }
    let all_enough = cells.iter().all(|c| p_of(c.2) * n as f64 >= MIN_EXPECTED);
    if cells.len() < 2 || !all_enough {
        // Without pooling (or with too little to pool): how many samples would
        // let the plain test run with every cell expecting at least 5.
        let needed = if pool_from_end {
            // Two cells, the commonest against the rest.
            let max_p = weights.iter().map(|&w| p_of(w)).fold(0.0, f64::max);
            (MIN_EXPECTED / (1.0 - max_p).min(max_p)).ceil() as u64
        } else {
            (MIN_EXPECTED / min_p).ceil() as u64
        };
        outcome.needed = Some(needed.max(n + 1));
        return outcome;
    }
    let probabilities: Vec<f64> = cells.iter().map(|c| p_of(c.2)).collect();
    let counts: Vec<u64> = cells.iter().map(|c| c.1).collect();
    let result = chi_square_gof(name, &counts, &probabilities);
    outcome.cells = cells
        .iter()
        .map(|(label, o, w)| Cell {
            label: label.clone(),
            observed: *o,
            expected: p_of(*w) * n as f64,
        })
        .collect();
    outcome.set(result.statistic, result.df, result.p_value);
    outcome
}
