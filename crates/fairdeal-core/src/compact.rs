//! A deal held inline: the cards of one round without a heap allocation.
//!
//! [`Deal`] is the general record (it also holds what a tampered record
//! says: hands of unequal length, a short board). A deal fairdeal-v1
//! computes always has its game's shape, so it can live in one fixed array
//! in dealt order, and its hands, board and burns are read from that array
//! by position. The service and the audit deal many rounds a second; this is
//! the form they deal into.

use core::fmt;

use crate::game::shuffle;
use crate::{Card, ClientSeed, Deal, Game, Keystream, Layout, SeedKey};

/// The most cards a deal can hold: eight decks.
pub const MAX_CARDS: usize = 8 * Card::PER_DECK;

/// One round's cards in dealt order ([`Deal::dealt_order`]), held inline.
///
/// Built only by [`compact_deal_with`], so it always has its game's shape.
#[derive(Clone)]
pub struct CompactDeal {
    game: Game,
    len: u16,
    cards: [Card; MAX_CARDS],
}

/// Equal when the game and the cards dealt are (the array's unused tail
/// does not count).
impl PartialEq for CompactDeal {
    fn eq(&self, other: &Self) -> bool {
        self.game == other.game && self.dealt_order() == other.dealt_order()
    }
}

impl Eq for CompactDeal {}

impl fmt::Debug for CompactDeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactDeal")
            .field("game", &self.game)
            .field("cards", &self.dealt_order())
            .finish()
    }
}

/// Deals one round of fairdeal-v1 from a prepared seed into a
/// [`CompactDeal`]: the same cards as [`crate::deal_with`], without
/// allocating.
pub fn compact_deal_with(
    seed: &SeedKey,
    client_seed: &ClientSeed,
    nonce: u64,
    game: Game,
) -> CompactDeal {
    let n = game.decks() as usize * Card::PER_DECK;
    let mut cards = [Card::from_deck_index(0); MAX_CARDS];
    for deck in cards[..n].chunks_exact_mut(Card::PER_DECK) {
        deck.copy_from_slice(&Card::ONE_DECK);
    }
    let mut keystream = Keystream::new(&seed.round_key(client_seed, nonce));
    shuffle(&mut cards[..n], &mut keystream);
    CompactDeal {
        game,
        len: game.dealt_cards() as u16,
        cards,
    }
}

impl CompactDeal {
    /// A recorded deal in this form, when it is laid out as `game` says
    /// (the number of hands, of cards in each, of board cards, burns and
    /// rest); `None` otherwise. Its cards are not checked: a record may hold
    /// any cards.
    pub fn from_deal(game: Game, deal: &Deal) -> Option<Self> {
        let n = game.dealt_cards() as usize;
        let mut cards = [Card::from_deck_index(0); MAX_CARDS];
        let mut round_robin = |hands: &[Vec<Card>]| -> Option<usize> {
            let players = game.players()? as usize;
            let per = game.cards_per_player()? as usize;
            if hands.len() != players || hands.iter().any(|hand| hand.len() != per) {
                return None;
            }
            for (seat, hand) in hands.iter().enumerate() {
                for (k, &card) in hand.iter().enumerate() {
                    cards[k * players + seat] = card;
                }
            }
            Some(players * per)
        };
        match (game.layout(), deal) {
            (Layout::Deck { .. }, Deal::Deck { deck }) if deck.len() == n => {
                cards[..n].copy_from_slice(deck);
            }
            (
                Layout::Holdem { .. } | Layout::Omaha { .. },
                Deal::Board {
                    hands,
                    board,
                    burns,
                },
            ) if board.len() == 5 && burns.len() == 3 => {
                let h = round_robin(hands)?;
                let street = [
                    burns[0], board[0], board[1], board[2], burns[1], board[3], burns[2], board[4],
                ];
                cards[h..h + 8].copy_from_slice(&street);
            }
            (Layout::Hands { .. }, Deal::Hands { hands, rest }) => {
                let h = round_robin(hands)?;
                if h + rest.len() != n {
                    return None;
                }
                cards[h..n].copy_from_slice(rest);
            }
            _ => return None,
        }
        Some(Self {
            game,
            len: n as u16,
            cards,
        })
    }

    /// Appends the deal's JSON exactly as `serde_json` writes the equal
    /// [`Deal`] (`{"hands":[["Td","7c"],…],"board":[…],"burns":[…]}`, with
    /// `rest` or `deck` for the other games): the bytes the service stores
    /// and exports. No serde, no allocation beyond `out`: an audit compares
    /// a recorded deal with these bytes before it parses one.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        fn list(out: &mut Vec<u8>, cards: impl Iterator<Item = Card>) {
            out.push(b'[');
            for (i, card) in cards.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&[
                    b'"',
                    card.rank().letter() as u8,
                    card.suit().letter() as u8,
                    b'"',
                ]);
            }
            out.push(b']');
        }
        let hands = |out: &mut Vec<u8>| {
            out.extend_from_slice(b"{\"hands\":[");
            let players = self.hand_shape().map_or(0, |(players, _)| players);
            for seat in 0..players {
                if seat > 0 {
                    out.push(b',');
                }
                list(out, self.hand(seat));
            }
            out.push(b']');
        };
        match (self.board(), self.burns(), self.rest()) {
            (Some(board), Some(burns), _) => {
                hands(out);
                out.extend_from_slice(b",\"board\":");
                list(out, board.into_iter());
                out.extend_from_slice(b",\"burns\":");
                list(out, burns.into_iter());
            }
            (_, _, Some(rest)) => {
                hands(out);
                out.extend_from_slice(b",\"rest\":");
                list(out, rest.iter().copied());
            }
            _ => {
                out.extend_from_slice(b"{\"deck\":");
                list(out, self.dealt_order().iter().copied());
            }
        }
        out.push(b'}');
    }

    /// The game dealt.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The cards in the order they came off the shuffled deck: the top
    /// `n_cards` of it (the whole deck for `deck` and `hands`).
    pub fn dealt_order(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    /// Number of cards in the deal.
    pub fn n_cards(&self) -> usize {
        usize::from(self.len)
    }

    /// Players and cards each, for games with hands.
    fn hand_shape(&self) -> Option<(usize, usize)> {
        Some((
            self.game.players()? as usize,
            self.game.cards_per_player()? as usize,
        ))
    }

    /// The hand of `seat` (from 0), cards in the order dealt; empty for a
    /// seat the game does not have.
    pub fn hand(&self, seat: usize) -> impl ExactSizeIterator<Item = Card> + '_ {
        let (players, per) = self
            .hand_shape()
            .filter(|&(players, _)| seat < players)
            .unwrap_or((1, 0));
        (0..per).map(move |k| self.cards[k * players + seat])
    }

    /// Flop (3), turn and river, for `holdem` and `omaha`.
    pub fn board(&self) -> Option<[Card; 5]> {
        let h = self.board_start()?;
        let c = &self.cards;
        Some([c[h + 1], c[h + 2], c[h + 3], c[h + 5], c[h + 7]])
    }

    /// The burns before the flop, the turn and the river, for `holdem` and
    /// `omaha`.
    pub fn burns(&self) -> Option<[Card; 3]> {
        let h = self.board_start()?;
        Some([self.cards[h], self.cards[h + 4], self.cards[h + 6]])
    }

    /// The undealt cards, top first, for `hands`.
    pub fn rest(&self) -> Option<&[Card]> {
        match self.game.layout() {
            Layout::Hands { players, cards, .. } => {
                Some(&self.dealt_order()[usize::from(players) * usize::from(cards)..])
            }
            _ => None,
        }
    }

    /// Where the first burn lies, for games with a board.
    fn board_start(&self) -> Option<usize> {
        match self.game.layout() {
            Layout::Holdem { .. } | Layout::Omaha { .. } => {
                let (players, per) = self.hand_shape()?;
                Some(players * per)
            }
            _ => None,
        }
    }

    /// The same deal as a [`Deal`] (allocates).
    pub fn to_deal(&self) -> Deal {
        self.game.lay_out(self.dealt_order())
    }

    /// Whether `recorded` holds exactly these cards in this layout, without
    /// allocating.
    pub fn matches(&self, recorded: &Deal) -> bool {
        let hands_match = |hands: &[Vec<Card>]| {
            hands.len() == self.hand_shape().map_or(0, |(players, _)| players)
                && hands
                    .iter()
                    .enumerate()
                    .all(|(seat, hand)| hand.iter().copied().eq(self.hand(seat)))
        };
        match (self.game.layout(), recorded) {
            (Layout::Deck { .. }, Deal::Deck { deck }) => deck == self.dealt_order(),
            (
                Layout::Holdem { .. } | Layout::Omaha { .. },
                Deal::Board {
                    hands,
                    board,
                    burns,
                },
            ) => {
                hands_match(hands)
                    && self.board().is_some_and(|b| board[..] == b)
                    && self.burns().is_some_and(|b| burns[..] == b)
            }
            (Layout::Hands { .. }, Deal::Hands { hands, rest }) => {
                hands_match(hands) && self.rest() == Some(&rest[..])
            }
            _ => false,
        }
    }
}

impl From<&CompactDeal> for Deal {
    fn from(compact: &CompactDeal) -> Self {
        compact.to_deal()
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

    use super::CompactDeal;

    /// The hands of a deal, written as `[[…],[…]]` straight from the array.
    struct Hands<'a>(&'a CompactDeal, usize);
    /// One hand, written as `[…]`.
    struct Hand<'a>(&'a CompactDeal, usize);

    impl Serialize for Hands<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut seq = serializer.serialize_seq(Some(self.1))?;
            for seat in 0..self.1 {
                seq.serialize_element(&Hand(self.0, seat))?;
            }
            seq.end()
        }
    }

    impl Serialize for Hand<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let hand = self.0.hand(self.1);
            let mut seq = serializer.serialize_seq(Some(hand.len()))?;
            for card in hand {
                seq.serialize_element(&card)?;
            }
            seq.end()
        }
    }

    /// The same JSON as the equal [`crate::Deal`].
    impl Serialize for CompactDeal {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            let players = self.hand_shape().map_or(0, |(players, _)| players);
            match (self.board(), self.burns(), self.rest()) {
                (Some(board), Some(burns), _) => {
                    map.serialize_entry("hands", &Hands(self, players))?;
                    map.serialize_entry("board", &board[..])?;
                    map.serialize_entry("burns", &burns[..])?;
                }
                (_, _, Some(rest)) => {
                    map.serialize_entry("hands", &Hands(self, players))?;
                    map.serialize_entry("rest", rest)?;
                }
                _ => map.serialize_entry("deck", self.dealt_order())?,
            }
            map.end()
        }
    }
}
