//! The shuffles people actually write, and fairdeal-v1's, each as one function
//! over a [`Randomness`] so the same code runs under Monte Carlo sampling and
//! under exact enumeration of every random choice.

use fairdeal_core::{WordSource, uniform};

/// Where a shuffle gets its randomness.
pub trait Randomness {
    /// Outcome `k` with probability `weights[k] / Σ weights`.
    fn pick(&mut self, weights: &[u64]) -> usize;

    /// An index in `0..n`, uniform.
    fn below(&mut self, n: usize) -> usize {
        self.pick(&vec![1; n])
    }

    /// A fair coin.
    fn coin(&mut self) -> bool {
        self.pick(&[1, 1]) == 1
    }

    /// A sort key: 64 random bits when sampling; narrower when enumerating.
    fn key(&mut self) -> u64;
}

/// Monte Carlo randomness drawn from a keystream through fairdeal-v1's own
/// unbiased `uniform`, so any bias seen comes from the shuffle, not the source.
#[derive(Debug)]
pub struct Sampled<S: WordSource> {
    pub source: S,
}

impl<S: WordSource> Randomness for Sampled<S> {
    fn pick(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        if total < 2 {
            return weights.iter().position(|&w| w > 0).unwrap_or(0);
        }
        let mut r = uniform(&mut self.source, total);
        for (k, &w) in weights.iter().enumerate() {
            if r < w {
                return k;
            }
            r -= w;
        }
        unreachable!("r < total")
    }

    fn below(&mut self, n: usize) -> usize {
        if n < 2 {
            return 0;
        }
        uniform(&mut self.source, n as u64) as usize
    }

    fn coin(&mut self) -> bool {
        self.source.next_word() & 1 == 1
    }

    fn key(&mut self) -> u64 {
        (u64::from(self.source.next_word()) << 32) | u64::from(self.source.next_word())
    }
}

/// A shuffle of `items` in place.
pub type ShuffleFn = fn(&mut [usize], &mut dyn Randomness);

/// Fisher–Yates from the end with exactly uniform indices: fairdeal-v1's
/// structure. (The Monte Carlo battery runs fairdeal-v1 itself; this form is
/// for exact enumeration, `uniform` being proven exact separately.)
pub fn fisher_yates(items: &mut [usize], r: &mut dyn Randomness) {
    for i in (1..items.len()).rev() {
        let j = r.below(i + 1);
        items.swap(i, j);
    }
}

/// `array.sort(() => Math.random() - 0.5)` with an insertion sort, as
/// JavaScript engines use for short arrays: the comparator is a coin flip.
pub fn random_comparator_insertion_sort(items: &mut [usize], r: &mut dyn Randomness) {
    for i in 1..items.len() {
        let mut j = i;
        // "items[j - 1] > items[j]" answered at random.
        while j > 0 && r.coin() {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The same coin-flip comparator under a top-down merge sort.
pub fn random_comparator_merge_sort(items: &mut [usize], r: &mut dyn Randomness) {
    if items.len() < 2 {
        return;
    }
    let mid = items.len() / 2;
    random_comparator_merge_sort(&mut items[..mid], r);
    random_comparator_merge_sort(&mut items[mid..], r);
    let (mut left, mut right) = (
        items[..mid].iter().copied().peekable(),
        items[mid..].iter().copied().peekable(),
    );
    let mut merged = Vec::with_capacity(items.len());
    while let (Some(&a), Some(&b)) = (left.peek(), right.peek()) {
        // "a <= b" answered at random.
        if r.coin() {
            merged.push(a);
            left.next();
        } else {
            merged.push(b);
            right.next();
        }
    }
    merged.extend(left);
    merged.extend(right);
    items.copy_from_slice(&merged);
}

/// Bubble sort whose comparator is a coin flip.
pub fn coin_flip_bubble_sort(items: &mut [usize], r: &mut dyn Randomness) {
    let n = items.len();
    for pass in 0..n.saturating_sub(1) {
        for k in 0..n - 1 - pass {
            if r.coin() {
                items.swap(k, k + 1);
            }
        }
    }
}

/// The naive swap: for every position i, swap with j drawn from the whole
/// range `0..n` (instead of `0..=i`). n^n equally likely paths onto n!
/// orders, and n! does not divide n^n for n > 2.
pub fn naive_swap(items: &mut [usize], r: &mut dyn Randomness) {
    let n = items.len();
    for i in 0..n {
        let j = r.below(n);
        items.swap(i, j);
    }
}

/// Fisher–Yates with `j = byte % (i + 1)` from a uniform 8-bit source. The
/// 256 byte values are grouped by the index they reduce to (all the shuffle
/// ever uses of the byte), so sampling and enumeration see the same
/// distribution as the literal `byte % (i + 1)`.
pub fn modulo_byte_fisher_yates(items: &mut [usize], r: &mut dyn Randomness) {
    for i in (1..items.len()).rev() {
        let mut weights = vec![0u64; i + 1];
        for byte in 0..256usize {
            weights[byte % (i + 1)] += 1;
        }
        let j = r.pick(&weights);
        items.swap(i, j);
    }
}

/// Tag each card with a random key and sort by key (a stable sort, so ties
/// keep the original order).
pub fn random_key_sort(items: &mut [usize], r: &mut dyn Randomness) {
    let mut tagged: Vec<(u64, usize)> = items.iter().map(|&card| (r.key(), card)).collect();
    tagged.sort_by_key(|&(key, _)| key);
    for (slot, (_, card)) in items.iter_mut().zip(tagged) {
        *slot = card;
    }
}

/// The "threshold matrix" bubble sort: in pass m, at inner index k, swap with
/// probability (k + 1)/(k + 2) while k < len − m − 1, else never.
pub fn threshold_bubble_sort(items: &mut [usize], r: &mut dyn Randomness) {
    let n = items.len();
    for pass in 0..n {
        for k in 0..n.saturating_sub(1) {
            if k < n - pass - 1 && r.pick(&[1, k as u64 + 1]) == 1 {
                items.swap(k, k + 1);
            }
        }
    }
}

/// Every shuffle these tests judge, in the order docs/SHUFFLE-EVIDENCE.md
/// lists them: its name, what it does, and the shuffle. fairdeal-v1 is here in
/// its exact-index form, [`fisher_yates`].
pub const CATALOGUE: [(&str, &str, ShuffleFn); 8] = [
    (
        "fairdeal-v1",
        "Fisher–Yates from the end, j = uniform(i+1) by Lemire rejection over ChaCha20",
        fisher_yates,
    ),
    (
        "random-comparator insertion sort",
        "sort(() => Math.random() - 0.5) under an insertion sort",
        random_comparator_insertion_sort,
    ),
    (
        "random-comparator merge sort",
        "the same coin-flip comparator under a merge sort",
        random_comparator_merge_sort,
    ),
    (
        "coin-flip bubble sort",
        "bubble sort swapping neighbours on a coin flip",
        coin_flip_bubble_sort,
    ),
    (
        "naive swap",
        "for each i, swap with j drawn from the whole range 0..n",
        naive_swap,
    ),
    (
        "modulo 8-bit Fisher–Yates",
        "Fisher–Yates with j = byte % (i+1) from 8-bit values",
        modulo_byte_fisher_yates,
    ),
    (
        "random-key sort",
        "tag each card with a random 64-bit key, stable sort by key",
        random_key_sort,
    ),
    (
        "threshold-matrix bubble sort",
        "pass m, index k: swap with probability (k+1)/(k+2) while k < len-m-1",
        threshold_bubble_sort,
    ),
];

/// The shuffle called `name` in [`CATALOGUE`].
pub fn named(name: &str) -> ShuffleFn {
    CATALOGUE
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|&(.., shuffle)| shuffle)
        .unwrap_or_else(|| panic!("no shuffle is called {name:?}"))
}
