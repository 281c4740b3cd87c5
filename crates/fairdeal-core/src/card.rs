//! Cards, their two-character names, and the unshuffled deck order.

use core::fmt;
use core::str::FromStr;

use crate::Error;

/// Suits in deck order: clubs, diamonds, hearts, spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// `c`, ♣
    Clubs,
    /// `d`, ♦
    Diamonds,
    /// `h`, ♥
    Hearts,
    /// `s`, ♠
    Spades,
}

impl Suit {
    /// All four, in deck order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The letter used in card names: `c d h s`.
    pub fn letter(self) -> char {
        ['c', 'd', 'h', 's'][self as usize]
    }

    /// The suit symbol: `♣ ♦ ♥ ♠`.
    pub fn symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self as usize]
    }

    /// Diamonds and hearts.
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }
}

/// Ranks in deck order, deuce to ace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    #[allow(missing_docs)]
    Two,
    #[allow(missing_docs)]
    Three,
    #[allow(missing_docs)]
    Four,
    #[allow(missing_docs)]
    Five,
    #[allow(missing_docs)]
    Six,
    #[allow(missing_docs)]
    Seven,
    #[allow(missing_docs)]
    Eight,
    #[allow(missing_docs)]
    Nine,
    #[allow(missing_docs)]
    Ten,
    #[allow(missing_docs)]
    Jack,
    #[allow(missing_docs)]
    Queen,
    #[allow(missing_docs)]
    King,
    #[allow(missing_docs)]
    Ace,
}

const RANK_LETTERS: [char; 13] = [
    '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A',
];

impl Rank {
    /// All thirteen, in deck order.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The character used in card names: `2`–`9`, `T J Q K A`.
    pub fn letter(self) -> char {
        RANK_LETTERS[self as usize]
    }
}

/// One card face. Copies in a multi-deck shoe are indistinguishable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// Cards in one deck.
    pub const PER_DECK: usize = 52;

    /// The card of this rank and suit.
    pub fn new(rank: Rank, suit: Suit) -> Self {
        Self(suit as u8 * 13 + rank as u8)
    }

    /// Position of this card in an unshuffled deck, `0..52`.
    pub fn deck_index(self) -> usize {
        usize::from(self.0)
    }

    /// The card at `deck_index` (taken modulo 52) of an unshuffled deck.
    pub fn from_deck_index(deck_index: usize) -> Self {
        Self((deck_index % Self::PER_DECK) as u8)
    }

    /// One unshuffled deck, as a constant: copied rather than computed card
    /// by card where a deal starts.
    pub(crate) const ONE_DECK: [Card; Card::PER_DECK] = {
        let mut deck = [Card(0); Card::PER_DECK];
        let mut i = 0;
        while i < Card::PER_DECK {
            deck[i] = Card(i as u8);
            i += 1;
        }
        deck
    };

    /// The rank.
    pub fn rank(self) -> Rank {
        Rank::ALL[usize::from(self.0 % 13)]
    }

    /// The suit.
    pub fn suit(self) -> Suit {
        Suit::ALL[usize::from(self.0 / 13)]
    }

    /// Rank letter and suit symbol, e.g. `T♦`.
    pub fn pretty(self) -> String {
        format!("{}{}", self.rank().letter(), self.suit().symbol())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().letter(), self.suit().letter())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Card {
    type Err = Error;

    /// Parses `Td`, `As`, `2c`: rank character then suit letter, exactly as
    /// written by `Display` (upper-case rank, lower-case suit).
    fn from_str(text: &str) -> Result<Self, Error> {
        // Two ASCII bytes; anything else (a multi-byte character included)
        // is not a card. Matched by byte: an audit parses millions.
        let &[rank, suit] = text.as_bytes() else {
            return Err(Error::CardSyntax);
        };
        let rank = match rank {
            b'2'..=b'9' => rank - b'2',
            b'T' => 8,
            b'J' => 9,
            b'Q' => 10,
            b'K' => 11,
            b'A' => 12,
            _ => return Err(Error::CardSyntax),
        };
        let suit = match suit {
            b'c' => 0,
            b'd' => 1,
            b'h' => 2,
            b's' => 3,
            _ => return Err(Error::CardSyntax),
        };
        Ok(Card(suit * 13 + rank))
    }
}

/// The unshuffled order of `n_decks` decks: copy after copy, each in suit
/// order `c d h s` and within a suit rank order `2`…`A`.
pub fn fresh_deck(n_decks: usize) -> Vec<Card> {
    (0..n_decks * Card::PER_DECK)
        .map(Card::from_deck_index)
        .collect()
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::Card;
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

    impl Serialize for Card {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }

    impl<'de> Deserialize<'de> for Card {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            // A visitor, not a `String` or `Cow` (serde's `Cow` is always
            // owned): a card is parsed where it lies, without allocating —
            // an audit reads millions of them.
            struct CardName;
            impl de::Visitor<'_> for CardName {
                type Value = Card;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a card name such as Td")
                }
                fn visit_str<E: de::Error>(self, text: &str) -> Result<Card, E> {
                    text.parse().map_err(E::custom)
                }
            }
            deserializer.deserialize_str(CardName)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deck_order_is_suits_cdhs_then_ranks_2_to_a() {
        let deck: Vec<String> = fresh_deck(1).iter().map(Card::to_string).collect();
        assert_eq!(deck[0], "2c");
        assert_eq!(deck[12], "Ac");
        assert_eq!(deck[13], "2d");
        assert_eq!(deck[26], "2h");
        assert_eq!(deck[51], "As");
        assert_eq!(fresh_deck(6).len(), 312);
        assert_eq!(fresh_deck(2)[52], Card::new(Rank::Two, Suit::Clubs));
    }

    #[test]
    fn every_card_name_round_trips() {
        for card in fresh_deck(1) {
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
        }
    }

    #[test]
    fn malformed_card_names_are_rejected() {
        for bad in ["", "T", "Tdd", "td", "TD", "1c", "10c", "Tx", "♦T"] {
            assert_eq!(bad.parse::<Card>(), Err(Error::CardSyntax), "{bad:?}");
        }
    }

    #[test]
    fn pretty_names_use_suit_symbols() {
        assert_eq!("Td".parse::<Card>().map(Card::pretty), Ok("T♦".to_owned()));
        assert!("Th".parse::<Card>().is_ok_and(|c| c.suit().is_red()));
        assert!("Ts".parse::<Card>().is_ok_and(|c| !c.suit().is_red()));
    }
}
