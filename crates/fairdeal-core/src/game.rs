//! Games (what to deal) and deals (the cards laid out), and the shuffle.

use core::fmt;

use crate::keystream::{WordSource, uniform};
use crate::{Card, Error, GameParam};

/// The parameter limits of each game.
pub mod limits {
    /// Decks in a `deck` or `hands` game.
    pub const DECKS: (u32, u32) = (1, 8);
    /// Players at a hold'em table.
    pub const HOLDEM_PLAYERS: (u32, u32) = (2, 22);
    /// Players at an omaha table.
    pub const OMAHA_PLAYERS: (u32, u32) = (2, 11);
}

/// What to deal: a validated game and its parameters.
///
/// Made only through the checked constructors, so the deck is always large
/// enough for the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game(Layout);

/// The layout of a [`Game`], readable but only constructible through [`Game`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// The whole shuffled order of `decks` decks.
    Deck {
        /// 1 to 8.
        decks: u8,
    },
    /// Texas hold'em: 2 hole cards each, then burn, flop, burn, turn, burn, river.
    Holdem {
        /// 2 to 22.
        players: u8,
    },
    /// Omaha: 4 hole cards each, then the hold'em board.
    Omaha {
        /// 2 to 11.
        players: u8,
    },
    /// `cards` each for `players`, dealt round robin; the rest kept in order.
    Hands {
        /// At least 1.
        players: u16,
        /// At least 1.
        cards: u16,
        /// 1 to 8.
        decks: u8,
    },
}

/// Names of the game types, as written on the wire and the command line.
pub const GAME_TYPES: [&str; 4] = ["deck", "holdem", "omaha", "hands"];

fn check_range(param: GameParam, value: u32, (min, max): (u32, u32)) -> Result<u32, Error> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(Error::OutOfRange {
            param,
            value: u64::from(value),
            min: u64::from(min),
            max: u64::from(max),
        })
    }
}

impl Game {
    /// The whole shuffled order of `decks` decks (1 to 8).
    pub fn deck(decks: u32) -> Result<Self, Error> {
        let decks = check_range(GameParam::Decks, decks, limits::DECKS)? as u8;
        Ok(Self(Layout::Deck { decks }))
    }

    /// Hold'em for `players` (2 to 22).
    pub fn holdem(players: u32) -> Result<Self, Error> {
        let players = check_range(GameParam::Players, players, limits::HOLDEM_PLAYERS)? as u8;
        Ok(Self(Layout::Holdem { players }))
    }

    /// Omaha for `players` (2 to 11).
    pub fn omaha(players: u32) -> Result<Self, Error> {
        let players = check_range(GameParam::Players, players, limits::OMAHA_PLAYERS)? as u8;
        Ok(Self(Layout::Omaha { players }))
    }

    /// `cards` each for `players` from `decks` decks: players ≥ 1, cards ≥ 1,
    /// decks 1 to 8, players × cards ≤ 52 × decks.
    pub fn hands(players: u32, cards: u32, decks: u32) -> Result<Self, Error> {
        let decks = check_range(GameParam::Decks, decks, limits::DECKS)?;
        let available = decks * Card::PER_DECK as u32;
        let players = check_range(GameParam::Players, players, (1, available))?;
        let cards = check_range(GameParam::Cards, cards, (1, available))?;
        if players * cards > available {
            return Err(Error::TooManyCards {
                needed: u64::from(players) * u64::from(cards),
                available: u64::from(available),
            });
        }
        Ok(Self(Layout::Hands {
            players: players as u16,
            cards: cards as u16,
            decks: decks as u8,
        }))
    }

    /// Builds a game from its type name and optional parameters, as they
    /// arrive from a command line or a request. A parameter the game does not
    /// take is an error rather than silently ignored; `decks` defaults to 1.
    pub fn from_parts(
        game_type: &str,
        players: Option<u32>,
        cards: Option<u32>,
        decks: Option<u32>,
    ) -> Result<Self, Error> {
        let game_type = match GAME_TYPES.iter().find(|&&name| name == game_type) {
            Some(name) => *name,
            None => return Err(Error::UnknownGame),
        };
        let required = |param: GameParam, value: Option<u32>| {
            value.ok_or(Error::MissingParameter { game_type, param })
        };
        let refuse = |param: GameParam, value: Option<u32>| match value {
            Some(_) => Err(Error::UnexpectedParameter { game_type, param }),
            None => Ok(()),
        };
        match game_type {
            "deck" => {
                refuse(GameParam::Players, players)?;
                refuse(GameParam::Cards, cards)?;
                Self::deck(decks.unwrap_or(1))
            }
            "holdem" | "omaha" => {
                refuse(GameParam::Cards, cards)?;
                refuse(GameParam::Decks, decks)?;
                let players = required(GameParam::Players, players)?;
                if game_type == "holdem" {
                    Self::holdem(players)
                } else {
                    Self::omaha(players)
                }
            }
            _ => Self::hands(
                required(GameParam::Players, players)?,
                required(GameParam::Cards, cards)?,
                decks.unwrap_or(1),
            ),
        }
    }

    /// The layout and its parameters.
    pub fn layout(&self) -> Layout {
        self.0
    }

    /// The type name: `deck`, `holdem`, `omaha` or `hands`.
    pub fn type_name(&self) -> &'static str {
        match self.0 {
            Layout::Deck { .. } => "deck",
            Layout::Holdem { .. } => "holdem",
            Layout::Omaha { .. } => "omaha",
            Layout::Hands { .. } => "hands",
        }
    }

    /// Number of players, where the game has players.
    pub fn players(&self) -> Option<u32> {
        match self.0 {
            Layout::Deck { .. } => None,
            Layout::Holdem { players } | Layout::Omaha { players } => Some(u32::from(players)),
            Layout::Hands { players, .. } => Some(u32::from(players)),
        }
    }

    /// Cards per player, where the game has players.
    pub fn cards_per_player(&self) -> Option<u32> {
        match self.0 {
            Layout::Deck { .. } => None,
            Layout::Holdem { .. } => Some(2),
            Layout::Omaha { .. } => Some(4),
            Layout::Hands { cards, .. } => Some(u32::from(cards)),
        }
    }

    /// Number of decks shuffled together.
    pub fn decks(&self) -> u32 {
        match self.0 {
            Layout::Deck { decks } | Layout::Hands { decks, .. } => u32::from(decks),
            Layout::Holdem { .. } | Layout::Omaha { .. } => 1,
        }
    }

    /// Cards a deal of this game holds: hole cards, board and burns for
    /// `holdem` and `omaha`; the whole shoe for `deck` and `hands`.
    pub fn dealt_cards(&self) -> u32 {
        match self.0 {
            Layout::Holdem { .. } | Layout::Omaha { .. } => {
                self.players().unwrap_or(0) * self.cards_per_player().unwrap_or(0) + 8
            }
            Layout::Deck { .. } | Layout::Hands { .. } => self.decks() * Card::PER_DECK as u32,
        }
    }

    /// Lays out the top of an already shuffled deck of `self.decks()` decks
    /// (at least its first [`Game::dealt_cards`]).
    pub(crate) fn lay_out(&self, deck: &[Card]) -> Deal {
        debug_assert!(deck.len() >= self.dealt_cards() as usize);
        let round_robin = |players: usize, cards: usize| -> Vec<Vec<Card>> {
            (0..players)
                .map(|seat| (0..cards).map(|k| deck[k * players + seat]).collect())
                .collect()
        };
        match self.0 {
            Layout::Deck { .. } => Deal::Deck {
                deck: deck.to_vec(),
            },
            Layout::Holdem { players } | Layout::Omaha { players } => {
                let players = usize::from(players);
                let per_player = self.cards_per_player().unwrap_or(2) as usize;
                let hands = round_robin(players, per_player);
                let h = per_player * players;
                Deal::Board {
                    hands,
                    board: vec![
                        deck[h + 1],
                        deck[h + 2],
                        deck[h + 3],
                        deck[h + 5],
                        deck[h + 7],
                    ],
                    burns: vec![deck[h], deck[h + 4], deck[h + 6]],
                }
            }
            Layout::Hands { players, cards, .. } => {
                let (players, cards) = (usize::from(players), usize::from(cards));
                let hands = round_robin(players, cards);
                let rest = deck[players * cards..].to_vec();
                Deal::Hands { hands, rest }
            }
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Layout::Deck { decks: 1 } => f.write_str("deck (1 deck)"),
            Layout::Deck { decks } => write!(f, "deck ({decks} decks)"),
            Layout::Holdem { players } => write!(f, "holdem, {players} players"),
            Layout::Omaha { players } => write!(f, "omaha, {players} players"),
            Layout::Hands {
                players,
                cards,
                decks,
            } => write!(
                f,
                "hands, {players} players x {cards} cards, {decks} deck{}",
                if decks == 1 { "" } else { "s" }
            ),
        }
    }
}

/// Shuffles `items` in place: Fisher–Yates from the end, `j = uniform(i + 1)`.
pub fn shuffle<T, S: WordSource + ?Sized>(items: &mut [T], source: &mut S) {
    for i in (1..items.len()).rev() {
        let j = uniform(source, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// The cards of one round, laid out for its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deal {
    /// A `deck` game: the whole shuffled order.
    Deck {
        /// Top card first.
        deck: Vec<Card>,
    },
    /// `holdem` or `omaha`.
    Board {
        /// One hand per seat, seat 0 first, cards in the order dealt.
        hands: Vec<Vec<Card>>,
        /// Flop (3), turn, river.
        board: Vec<Card>,
        /// The burn before the flop, the turn and the river.
        burns: Vec<Card>,
    },
    /// A `hands` game.
    Hands {
        /// One hand per player, cards in the order dealt.
        hands: Vec<Vec<Card>>,
        /// The undealt cards, top first.
        rest: Vec<Card>,
    },
}

/// Where a card sits in a [`Deal`], for naming a difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `deck[position]`
    Deck(usize),
    /// `hands[seat][card_idx]`
    Hand {
        /// Seat, from 0.
        seat: usize,
        /// Card within the hand, from 0.
        card_idx: usize,
    },
    /// `board[position]`
    Board(usize),
    /// `burns[position]`
    Burn(usize),
    /// `rest[position]`
    Rest(usize),
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Slot::Deck(pos) => write!(f, "deck[{pos}]"),
            Slot::Hand { seat, card_idx } => write!(f, "hands[{seat}][{card_idx}]"),
            Slot::Board(pos) => write!(f, "board[{pos}]"),
            Slot::Burn(pos) => write!(f, "burns[{pos}]"),
            Slot::Rest(pos) => write!(f, "rest[{pos}]"),
        }
    }
}

impl Deal {
    /// Every card with its slot, in a fixed order (hands, board, burns, rest).
    pub fn slots(&self) -> Vec<(Slot, Card)> {
        let hand_slots = |hands: &[Vec<Card>]| {
            hands
                .iter()
                .enumerate()
                .flat_map(|(seat, hand)| {
                    hand.iter()
                        .enumerate()
                        .map(move |(card_idx, &card)| (Slot::Hand { seat, card_idx }, card))
                })
                .collect::<Vec<_>>()
        };
        fn positional(
            cards: &[Card],
            slot: fn(usize) -> Slot,
        ) -> impl Iterator<Item = (Slot, Card)> + '_ {
            cards
                .iter()
                .enumerate()
                .map(move |(pos, &card)| (slot(pos), card))
        }
        match self {
            Deal::Deck { deck } => positional(deck, Slot::Deck).collect(),
            Deal::Board {
                hands,
                board,
                burns,
            } => {
                let mut slots = hand_slots(hands);
                slots.extend(positional(board, Slot::Board));
                slots.extend(positional(burns, Slot::Burn));
                slots
            }
            Deal::Hands { hands, rest } => {
                let mut slots = hand_slots(hands);
                slots.extend(positional(rest, Slot::Rest));
                slots
            }
        }
    }

    /// Number of cards in the deal (the whole deck for `deck` and `hands`).
    pub fn n_cards(&self) -> usize {
        match self {
            Deal::Deck { deck } => deck.len(),
            Deal::Board {
                hands,
                board,
                burns,
            } => hands.iter().map(Vec::len).sum::<usize>() + board.len() + burns.len(),
            Deal::Hands { hands, rest } => hands.iter().map(Vec::len).sum::<usize>() + rest.len(),
        }
    }

    /// The cards in the order they came off the shuffled deck.
    ///
    /// - `deck`: the deck itself.
    /// - `hands`: the hole cards round robin (card 0 of seat 0, card 0 of
    ///   seat 1, …, card 1 of seat 0, …), then `rest`: the whole shuffled deck.
    /// - `holdem` / `omaha`: the hole cards round robin, then burn, flop (3),
    ///   burn, turn, burn, river: the top `n_cards()` cards of the deck.
    ///
    /// For any deal made by [`crate::deal`] this is a prefix of
    /// [`crate::shuffled_deck`] for the same inputs. Every card of the deal
    /// appears exactly once, even in a record of another shape (hands of
    /// unequal length, a short board): such cards keep the same pattern as far
    /// as it goes, and any burns then board cards beyond it come last.
    pub fn dealt_order(&self) -> Vec<Card> {
        fn round_robin(hands: &[Vec<Card>], order: &mut Vec<Card>) {
            let depth = hands.iter().map(Vec::len).max().unwrap_or(0);
            for k in 0..depth {
                order.extend(hands.iter().filter_map(|hand| hand.get(k)));
            }
        }
        let mut order = Vec::with_capacity(self.n_cards());
        match self {
            Deal::Deck { deck } => order.extend_from_slice(deck),
            Deal::Board {
                hands,
                board,
                burns,
            } => {
                round_robin(hands, &mut order);
                let (mut board, mut burns) = (board.iter(), burns.iter());
                // Flop, turn, river, each after its burn.
                for street in [3, 1, 1] {
                    order.extend(burns.next());
                    order.extend(board.by_ref().take(street));
                }
                order.extend(burns);
                order.extend(board);
            }
            Deal::Hands { hands, rest } => {
                round_robin(hands, &mut order);
                order.extend_from_slice(rest);
            }
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_err(
        game_type: &str,
        players: Option<u32>,
        cards: Option<u32>,
        decks: Option<u32>,
    ) -> Option<Error> {
        Game::from_parts(game_type, players, cards, decks).err()
    }

    #[test]
    fn parameter_limits_are_enforced_and_named() {
        assert_eq!(
            game_err("holdem", Some(23), None, None),
            Some(Error::OutOfRange {
                param: GameParam::Players,
                value: 23,
                min: 2,
                max: 22
            })
        );
        assert!(Game::holdem(22).is_ok() && Game::holdem(1).is_err());
        assert!(Game::omaha(11).is_ok() && Game::omaha(12).is_err());
        assert!(Game::deck(8).is_ok() && Game::deck(0).is_err() && Game::deck(9).is_err());
        assert!(Game::hands(52, 1, 1).is_ok());
        assert_eq!(
            Game::hands(4, 14, 1).err(),
            Some(Error::TooManyCards {
                needed: 56,
                available: 52
            })
        );
        assert!(Game::hands(4, 14, 2).is_ok());
        assert!(Game::hands(0, 5, 1).is_err() && Game::hands(5, 0, 1).is_err());
        assert!(Game::hands(u32::MAX, u32::MAX, 8).is_err());
    }

    #[test]
    fn parameters_a_game_does_not_take_are_refused() {
        assert_eq!(
            game_err("deck", Some(2), None, None),
            Some(Error::UnexpectedParameter {
                game_type: "deck",
                param: GameParam::Players
            })
        );
        assert_eq!(
            game_err("holdem", Some(2), None, Some(2)),
            Some(Error::UnexpectedParameter {
                game_type: "holdem",
                param: GameParam::Decks
            })
        );
        assert_eq!(
            game_err("omaha", None, None, None),
            Some(Error::MissingParameter {
                game_type: "omaha",
                param: GameParam::Players
            })
        );
        assert_eq!(
            game_err("poker", None, None, None),
            Some(Error::UnknownGame)
        );
        assert_eq!(
            Game::from_parts("hands", Some(4), Some(5), None).map(|g| g.decks()),
            Ok(1)
        );
    }

    #[test]
    fn holdem_layout_is_round_robin_then_burn_flop_burn_turn_burn_river() {
        let deck = crate::fresh_deck(1);
        let Ok(game) = Game::holdem(3) else {
            panic!("valid game")
        };
        let Deal::Board {
            hands,
            board,
            burns,
        } = game.lay_out(&deck)
        else {
            panic!("holdem deals a board")
        };
        assert_eq!(hands[0], vec![deck[0], deck[3]]);
        assert_eq!(hands[2], vec![deck[2], deck[5]]);
        assert_eq!(burns, vec![deck[6], deck[10], deck[12]]);
        assert_eq!(board, vec![deck[7], deck[8], deck[9], deck[11], deck[13]]);
    }

    /// Laying out the unshuffled deck and reading it back in dealt order
    /// gives the top of that deck: the layout consumes cards in that order.
    #[test]
    fn dealt_order_is_the_top_of_the_deck_for_every_layout() {
        let games = [
            Game::deck(1),
            Game::deck(2),
            Game::holdem(2),
            Game::holdem(3),
            Game::holdem(22),
            Game::omaha(2),
            Game::omaha(11),
            Game::hands(1, 1, 1),
            Game::hands(3, 4, 1),
            Game::hands(52, 1, 1),
            Game::hands(1, 52, 1),
            Game::hands(4, 14, 2),
            Game::hands(7, 13, 8),
        ];
        for game in games {
            let Ok(game) = game else { panic!("valid game") };
            let deck = crate::fresh_deck(game.decks() as usize);
            let deal = game.lay_out(&deck);
            let order = deal.dealt_order();
            assert_eq!(order.len(), deal.n_cards(), "{game}");
            assert_eq!(order, deck[..order.len()], "{game}");
            if !matches!(game.layout(), Layout::Holdem { .. } | Layout::Omaha { .. }) {
                assert_eq!(order, deck, "{game}");
            }
        }
    }

    #[test]
    fn dealt_order_keeps_every_card_of_an_irregular_record() {
        let deck = crate::fresh_deck(1);
        let deal = Deal::Board {
            hands: vec![vec![deck[0], deck[2]], vec![deck[1]]],
            board: vec![deck[4], deck[5]],
            burns: vec![deck[3], deck[6], deck[7]],
        };
        assert_eq!(deal.dealt_order(), deck[..8]);
    }

    #[test]
    fn slots_name_every_card_once() {
        let deck = crate::fresh_deck(1);
        let Ok(game) = Game::hands(3, 4, 1) else {
            panic!("valid game")
        };
        let deal = game.lay_out(&deck);
        let slots = deal.slots();
        assert_eq!(slots.len(), 52);
        assert_eq!(deal.n_cards(), 52);
        assert_eq!(slots[5].0.to_string(), "hands[1][1]");
        assert_eq!(slots[12].0.to_string(), "rest[0]");
    }
}
