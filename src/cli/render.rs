//! How a deal looks on a terminal: cards with suit symbols, seats numbered
//! from 1, a long shoe wrapped thirteen cards to a line with positions.

use std::fmt::Write;

use fairdeal_core::Card;

/// Cards with suit symbols, separated by spaces.
pub fn cards(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.pretty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A run of cards wrapped thirteen to a line, each line led by its positions
/// (counted from 1, the top card).
pub fn wrapped(out: &mut String, label: &str, cards_in_order: &[Card], first_position: usize) {
    let _ = writeln!(out, "  {label} ({} cards)", cards_in_order.len());
    for (line_idx, line) in cards_in_order.chunks(13).enumerate() {
        let from = first_position + line_idx * 13 + 1;
        let to = from + line.len() - 1;
        let _ = writeln!(out, "    {:>7}  {}", format!("{from}-{to}"), cards(line));
    }
}

/// A client seed for a terminal: quoted, and, when it holds anything
/// outside printable ASCII, followed by a line that marks each such
/// character with its code point ([`crate::text::marked`]), so that a seed
/// with an invisible character or a letter of another script never shows
/// as the seed it imitates.
pub fn shown_seed(seed: &str) -> String {
    match crate::text::marked(seed) {
        None => format!("{seed:?}"),
        Some(marked) => {
            format!("{seed:?}\n               outside printable ASCII, marked: {marked}")
        }
    }
}

#[cfg(test)]
mod seed_tests {
    use super::shown_seed;

    #[test]
    fn a_seed_with_hidden_or_foreign_characters_is_marked() {
        assert_eq!(shown_seed("player-7f3a9c"), "\"player-7f3a9c\"");
        let hidden = shown_seed("player-7f3a9c\u{200B}");
        assert!(
            hidden.contains("marked: player-7f3a9c\\u{200B}"),
            "{hidden}"
        );
        let cyrillic = shown_seed("dr\u{0430}nd");
        assert!(cyrillic.contains("\\u{0430}"), "{cyrillic}");
        assert_ne!(shown_seed("drand"), cyrillic);
    }
}
