//! Poker hand categories and their exact frequencies: constants, each proved
//! by a test that enumerates every hand (C(52,5) = 2,598,960 five-card hands
//! and C(52,7) = 133,784,560 seven-card hands), so no run of the audit spends
//! seconds enumerating.

use fairdeal_core::{Card, Rank};
use serde::Serialize;

/// Hand categories, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    HighCard,
    Pair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::Pair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];

    pub fn name(self) -> &'static str {
        [
            "high card",
            "pair",
            "two pair",
            "three of a kind",
            "straight",
            "flush",
            "full house",
            "four of a kind",
            "straight flush",
        ][self as usize]
    }
}

/// Whether a 13-bit rank mask holds five consecutive ranks (ace also low).
fn has_straight(ranks: u16) -> bool {
    let m = (u32::from(ranks) << 1) | (u32::from(ranks) >> 12 & 1);
    m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) != 0
}

/// The best category of 5 to 7 cards given as one 13-bit rank mask per suit
/// (distinct cards).
pub fn category_of_masks(s: [u16; 4]) -> Category {
    if let Some(&flush) = s.iter().find(|m| m.count_ones() >= 5) {
        if has_straight(flush) {
            return Category::StraightFlush;
        }
        // With at most 7 cards, a hand with five of one suit cannot also hold
        // four of a kind or a full house, so it is a flush.
        return Category::Flush;
    }
    let quads = s[0] & s[1] & s[2] & s[3];
    if quads != 0 {
        return Category::FourOfAKind;
    }
    let pairs = (s[0] & s[1])
        | (s[0] & s[2])
        | (s[0] & s[3])
        | (s[1] & s[2])
        | (s[1] & s[3])
        | (s[2] & s[3]);
    let trips =
        (s[0] & s[1] & s[2]) | (s[0] & s[1] & s[3]) | (s[0] & s[2] & s[3]) | (s[1] & s[2] & s[3]);
    let (n_trips, n_pairs) = (trips.count_ones(), pairs.count_ones());
    if n_trips >= 2 || (n_trips == 1 && n_pairs >= 2) {
        return Category::FullHouse;
    }
    if has_straight(s[0] | s[1] | s[2] | s[3]) {
        return Category::Straight;
    }
    match (n_trips, n_pairs) {
        (1, _) => Category::ThreeOfAKind,
        (_, 2..) => Category::TwoPair,
        (_, 1) => Category::Pair,
        _ => Category::HighCard,
    }
}

/// The best category of 5 to 7 distinct cards.
pub fn category(cards: &[Card]) -> Category {
    let mut masks = [0u16; 4];
    for card in cards {
        masks[card.suit() as usize] |= 1 << (card.rank() as u16);
    }
    category_of_masks(masks)
}

#[cfg(test)]
fn bit(idx: usize) -> (usize, u16) {
    (idx / 13, 1 << (idx % 13))
}

/// Counts of each category over every 5-card hand (2,598,960 hands), in
/// [`Category::ALL`] order. Constants, proved by enumeration in the tests.
pub const FIVE_CARD_COUNTS: [u64; 9] = [
    1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40,
];

/// Counts of each best-of-seven category over every 7-card hand
/// (133,784,560 hands). Constants, proved by enumeration in the tests (which
/// takes seconds, so no run of the audit repeats it).
pub const SEVEN_CARD_COUNTS: [u64; 9] = [
    23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184, 224_848, 41_584,
];

/// [`FIVE_CARD_COUNTS`].
pub fn exact_five_card_counts() -> &'static [u64; 9] {
    &FIVE_CARD_COUNTS
}

/// [`SEVEN_CARD_COUNTS`].
pub fn exact_seven_card_counts() -> &'static [u64; 9] {
    &SEVEN_CARD_COUNTS
}

/// Enumerates every `k`-card hand (k = 5 or 7), in parallel over the first
/// card: the proof of the constants above.
#[cfg(test)]
fn enumerate(k: usize) -> [u64; 9] {
    use rayon::prelude::*;

    fn walk(start: usize, left: usize, masks: [u16; 4], counts: &mut [u64; 9]) {
        if left == 0 {
            counts[category_of_masks(masks) as usize] += 1;
            return;
        }
        for idx in start..=52 - left {
            let (suit, b) = bit(idx);
            let mut next = masks;
            next[suit] |= b;
            walk(idx + 1, left - 1, next, counts);
        }
    }
    (0..=52 - k)
        .into_par_iter()
        .map(|first| {
            let mut counts = [0u64; 9];
            let (suit, b) = bit(first);
            let mut masks = [0u16; 4];
            masks[suit] |= b;
            walk(first + 1, k - 1, masks, &mut counts);
            counts
        })
        .reduce(
            || [0u64; 9],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// The 169 hold'em starting-hand classes: 13 pairs (`AA`), 78 suited (`AKs`)
/// and 78 offsuit (`AKo`), indexed 0..169.
pub fn starting_class(a: Card, b: Card) -> usize {
    let (hi, lo) = if a.rank() >= b.rank() { (a, b) } else { (b, a) };
    let (h, l) = (hi.rank() as usize, lo.rank() as usize);
    if h == l {
        return h;
    }
    // Index of the unordered rank pair (h > l) among the 78.
    let pair_idx = h * (h - 1) / 2 + l;
    if hi.suit() == lo.suit() {
        13 + pair_idx
    } else {
        13 + 78 + pair_idx
    }
}

/// The name of a starting-hand class: `AA`, `AKs`, `72o`.
pub fn starting_class_name(class: usize) -> String {
    let letter = |rank_idx: usize| Rank::ALL[rank_idx].letter();
    if class < 13 {
        return format!("{0}{0}", letter(class));
    }
    let (idx, suffix) = if class < 13 + 78 {
        (class - 13, 's')
    } else {
        (class - 91, 'o')
    };
    let h = (1..13).find(|&h| h * (h + 1) / 2 > idx).unwrap_or(12);
    let l = idx - h * (h - 1) / 2;
    format!("{}{}{suffix}", letter(h), letter(l))
}

/// How many of the 1,326 two-card hands fall in each class (6, 4 or 12),
/// by enumeration.
pub fn starting_class_counts() -> [u64; 169] {
    let mut counts = [0u64; 169];
    for a in 0..52 {
        for b in a + 1..52 {
            counts[starting_class(Card::from_deck_index(a), Card::from_deck_index(b))] += 1;
        }
    }
    counts
}

/// 0 pair, 1 suited, 2 offsuit.
pub fn starting_kind(class: usize) -> usize {
    match class {
        0..13 => 0,
        13..91 => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        text.split_whitespace()
            .map(|c| c.parse().expect("card"))
            .collect()
    }

    #[test]
    fn categories_of_known_hands() {
        let cases = [
            ("As Ks Qs Js Ts", Category::StraightFlush),
            ("5d 4d 3d 2d Ad", Category::StraightFlush),
            ("9c 9d 9h 9s 2c", Category::FourOfAKind),
            ("9c 9d 9h 2s 2c", Category::FullHouse),
            ("9c 9d 9h 2s 2c 2d 7h", Category::FullHouse),
            ("2h 7h 9h Jh Kh", Category::Flush),
            ("5c 4d 3h 2s Ac", Category::Straight),
            ("Tc Jd Qh Ks Ac", Category::Straight),
            ("Jc Qd Kh As 2c", Category::HighCard),
            ("7c 7d 7h Ks 2c", Category::ThreeOfAKind),
            ("7c 7d Kh Ks 2c", Category::TwoPair),
            ("7c 7d Kh Ks 2c 2d 9h", Category::TwoPair),
            ("7c 7d Kh Qs 2c", Category::Pair),
            ("2h 3h 4h 5h 7h 6c 6d", Category::Flush),
            ("2h 3h 4h 5h 6h 6c 6d", Category::StraightFlush),
            ("Ah Kh Qh Jh 9h Tc 2d", Category::Flush),
        ];
        for (hand, expected) in cases {
            assert_eq!(category(&cards(hand)), expected, "{hand}");
        }
    }

    #[test]
    fn starting_classes_are_169_with_6_4_12_combinations() {
        let counts = starting_class_counts();
        assert_eq!(counts.iter().sum::<u64>(), 1326);
        assert!(counts[..13].iter().all(|&c| c == 6));
        assert!(counts[13..91].iter().all(|&c| c == 4));
        assert!(counts[91..].iter().all(|&c| c == 12));
        assert_eq!(starting_class_name(12), "AA");
        let aks = starting_class("As".parse().expect("card"), "Ks".parse().expect("card"));
        assert_eq!(starting_class_name(aks), "AKs");
        let seven_two = starting_class("2c".parse().expect("card"), "7d".parse().expect("card"));
        assert_eq!(starting_class_name(seven_two), "72o");
        let names: std::collections::BTreeSet<String> = (0..169).map(starting_class_name).collect();
        assert_eq!(names.len(), 169);
    }

    /// Class names spell the ranks as card names do (`Td` gives `T`).
    #[test]
    fn class_names_use_the_card_rank_letters() {
        for a in 0..52 {
            for b in a + 1..52 {
                let (a, b) = (Card::from_deck_index(a), Card::from_deck_index(b));
                let (hi, lo) = if a.rank() >= b.rank() { (a, b) } else { (b, a) };
                let (hi_name, lo_name) = (hi.to_string(), lo.to_string());
                let expected = match (hi.rank() == lo.rank(), hi.suit() == lo.suit()) {
                    (true, _) => format!("{}{}", &hi_name[..1], &lo_name[..1]),
                    (false, true) => format!("{}{}s", &hi_name[..1], &lo_name[..1]),
                    (false, false) => format!("{}{}o", &hi_name[..1], &lo_name[..1]),
                };
                assert_eq!(starting_class_name(starting_class(a, b)), expected);
            }
        }
        assert_eq!(starting_class_name(starting_class_of("Td", "9d")), "T9s");
    }

    fn starting_class_of(a: &str, b: &str) -> usize {
        starting_class(a.parse().expect("card"), b.parse().expect("card"))
    }

    /// Enumerating every hand gives the constants the audit uses (and the
    /// textbook counts).
    #[test]
    fn five_card_enumeration_gives_the_constants() {
        assert_eq!(FIVE_CARD_COUNTS.iter().sum::<u64>(), 2_598_960);
        assert_eq!(enumerate(5), FIVE_CARD_COUNTS);
    }

    #[test]
    fn seven_card_enumeration_gives_the_constants() {
        assert_eq!(SEVEN_CARD_COUNTS.iter().sum::<u64>(), 133_784_560);
        assert_eq!(enumerate(7), SEVEN_CARD_COUNTS);
    }
}
