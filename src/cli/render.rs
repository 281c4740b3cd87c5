//! How a deal looks on a terminal: cards with suit symbols, seats numbered
//! from 1, a long shoe wrapped thirteen cards to a line with positions.

use std::fmt::Write;

use fairdeal_core::{Card, Commitment, Deal, PROTOCOL};

use super::replay::ReplayInput;

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

/// The human form of `fairdeal replay`.
pub fn replay_table(
    input: &ReplayInput,
    commitment: &Commitment,
    deal: &Deal,
    commitment_checked: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{PROTOCOL} replay");
    let _ = writeln!(out, "  game         {}", input.game);
    let _ = writeln!(
        out,
        "  commitment   {commitment}{}",
        if commitment_checked {
            "  (matches the published commitment)"
        } else {
            "  (SHA-256 of the server seed)"
        }
    );
    let _ = writeln!(
        out,
        "  client seed  {}",
        shown_seed(input.client_seed.as_str())
    );
    let _ = writeln!(out, "  nonce        {}", input.nonce);
    let _ = writeln!(out);
    match deal {
        Deal::Deck { deck } => wrapped(&mut out, "deck, top first", deck, 0),
        Deal::Board {
            hands,
            board,
            burns,
        } => {
            for (seat, hand) in hands.iter().enumerate() {
                let _ = writeln!(out, "  seat {:<3}  {}", seat + 1, cards(hand));
            }
            let _ = writeln!(
                out,
                "  board     {}   {}   {}   (flop, turn, river)",
                cards(&board[..3]),
                cards(&board[3..4]),
                cards(&board[4..])
            );
            let _ = writeln!(out, "  burns     {}", cards(burns));
        }
        Deal::Hands { hands, rest } => {
            for (seat, hand) in hands.iter().enumerate() {
                let _ = writeln!(out, "  player {:<3}  {}", seat + 1, cards(hand));
            }
            let dealt: usize = hands.iter().map(Vec::len).sum();
            if !rest.is_empty() {
                wrapped(&mut out, "rest, next card first", rest, dealt);
            }
        }
    }
    out
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
