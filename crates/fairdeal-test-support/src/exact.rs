//! Exact permutation distributions by enumerating every random choice a
//! shuffle makes, with rational arithmetic (no floating point).

use fairdeal::stats::{factorial, permutation_rank};

use crate::shuffles::{Randomness, ShuffleFn};

/// A non-negative rational number, kept reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    pub num: u128,
    pub den: u128,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl std::ops::Add for Ratio {
    type Output = Ratio;

    fn add(self, other: Ratio) -> Ratio {
        let g = gcd(self.den, other.den);
        let den = self.den / g * other.den;
        Ratio::new(
            self.num * (den / self.den) + other.num * (den / other.den),
            den,
        )
    }
}

impl std::ops::Mul for Ratio {
    type Output = Ratio;

    fn mul(self, other: Ratio) -> Ratio {
        Ratio::new(self.num * other.num, self.den * other.den)
    }
}

impl Ratio {
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };

    pub fn new(num: u128, den: u128) -> Self {
        let g = gcd(num, den).max(1);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

/// Replays a shuffle along a scripted path of choices, recording each choice
/// point so the next path can be found (an odometer over the decision tree).
struct Scripted {
    script: Vec<usize>,
    trail: Vec<(usize, Vec<u64>)>,
    key_bits: u32,
}

impl Randomness for Scripted {
    fn pick(&mut self, weights: &[u64]) -> usize {
        let depth = self.trail.len();
        let choice = match self.script.get(depth) {
            Some(&k) => k,
            None => weights
                .iter()
                .position(|&w| w > 0)
                .expect("some outcome is possible"),
        };
        self.trail.push((choice, weights.to_vec()));
        choice
    }

    fn key(&mut self) -> u64 {
        self.pick(&vec![1; 1 << self.key_bits]) as u64
    }
}

/// The exact probability of each of the n! orders (indexed by
/// [`permutation_rank`]) after `shuffle` on `0..n`. Sort keys are
/// `key_bits` wide.
pub fn distribution(n: usize, shuffle: ShuffleFn, key_bits: u32) -> Vec<Ratio> {
    let mut probabilities = vec![Ratio::ZERO; factorial(n)];
    let mut script = Vec::new();
    loop {
        let mut chooser = Scripted {
            script: std::mem::take(&mut script),
            trail: Vec::new(),
            key_bits,
        };
        let mut items: Vec<usize> = (0..n).collect();
        shuffle(&mut items, &mut chooser);
        let p = chooser.trail.iter().fold(Ratio::new(1, 1), |p, (k, w)| {
            p * Ratio::new(u128::from(w[*k]), u128::from(w.iter().sum::<u64>()))
        });
        let rank = permutation_rank(&items);
        probabilities[rank] = probabilities[rank] + p;
        // Advance the odometer: the deepest choice with a later possible outcome.
        let next = chooser
            .trail
            .iter()
            .enumerate()
            .rev()
            .find_map(|(depth, (k, w))| (k + 1..w.len()).find(|&o| w[o] > 0).map(|o| (depth, o)));
        match next {
            Some((depth, outcome)) => {
                script = chooser.trail[..depth].iter().map(|(k, _)| *k).collect();
                script.push(outcome);
            }
            None => return probabilities,
        }
    }
}

/// Summary of an exact distribution against the uniform 1/n!.
#[derive(Clone, Debug)]
pub struct ExactSummary {
    pub n: usize,
    pub uniform: bool,
    /// Largest probability times n! (1 when uniform).
    pub max_ratio: f64,
    /// Smallest probability times n! (0 when some order is impossible).
    pub min_ratio: f64,
    /// Total variation distance from uniform.
    pub total_variation: f64,
}

pub fn summarise(probabilities: &[Ratio]) -> ExactSummary {
    let n_orders = probabilities.len();
    let n = (1..)
        .find(|&k| factorial(k) == n_orders)
        .expect("n! entries");
    let target = Ratio::new(1, n_orders as u128);
    let total = probabilities.iter().fold(Ratio::ZERO, |a, &b| a + b);
    assert_eq!(total, Ratio::new(1, 1), "probabilities sum to 1");
    let scaled: Vec<f64> = probabilities
        .iter()
        .map(|p| p.to_f64() * n_orders as f64)
        .collect();
    ExactSummary {
        n,
        uniform: probabilities.iter().all(|&p| p == target),
        max_ratio: scaled.iter().cloned().fold(f64::MIN, f64::max),
        min_ratio: scaled.iter().cloned().fold(f64::MAX, f64::min),
        total_variation: probabilities
            .iter()
            .map(|p| (p.to_f64() - target.to_f64()).abs())
            .sum::<f64>()
            / 2.0,
    }
}
