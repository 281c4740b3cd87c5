//! The wire form of games and deals (behind the `serde` feature).
//!
//! A game is `{"type":"holdem","players":6}`, `{"type":"deck","decks":6}`,
//! `{"type":"omaha","players":3}` or
//! `{"type":"hands","players":4,"cards":5,"decks":1}`. Deserializing checks
//! every rule of [`Game::from_parts`] and refuses unknown fields.
//!
//! A deal is `{"deck":[…]}`, `{"hands":[[…]],"board":[…],"burns":[…]}` or
//! `{"hands":[[…]],"rest":[…]}`, cards written as `Td`.

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::{Card, Deal, Game, Layout};

impl Serialize for Game {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.type_name())?;
        match self.layout() {
            Layout::Deck { decks } => map.serialize_entry("decks", &decks)?,
            Layout::Holdem { players } | Layout::Omaha { players } => {
                map.serialize_entry("players", &players)?
            }
            Layout::Hands {
                players,
                cards,
                decks,
            } => {
                map.serialize_entry("players", &players)?;
                map.serialize_entry("cards", &cards)?;
                map.serialize_entry("decks", &decks)?;
            }
        }
        map.end()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameFields {
    #[serde(rename = "type")]
    game_type: String,
    players: Option<u32>,
    cards: Option<u32>,
    decks: Option<u32>,
}

impl<'de> Deserialize<'de> for Game {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = GameFields::deserialize(deserializer)?;
        Game::from_parts(
            &fields.game_type,
            fields.players,
            fields.cards,
            fields.decks,
        )
        .map_err(|err| de::Error::custom(format_args!("{}: {err}", err.field())))
    }
}

impl Serialize for Deal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Deal::Deck { deck } => map.serialize_entry("deck", deck)?,
            Deal::Board {
                hands,
                board,
                burns,
            } => {
                map.serialize_entry("hands", hands)?;
                map.serialize_entry("board", board)?;
                map.serialize_entry("burns", burns)?;
            }
            Deal::Hands { hands, rest } => {
                map.serialize_entry("hands", hands)?;
                map.serialize_entry("rest", rest)?;
            }
        }
        map.end()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DealFields {
    deck: Option<Vec<Card>>,
    hands: Option<Vec<Vec<Card>>>,
    board: Option<Vec<Card>>,
    burns: Option<Vec<Card>>,
    rest: Option<Vec<Card>>,
}

impl<'de> Deserialize<'de> for Deal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = DealFields::deserialize(deserializer)?;
        match fields {
            DealFields {
                deck: Some(deck),
                hands: None,
                board: None,
                burns: None,
                rest: None,
            } => Ok(Deal::Deck { deck }),
            DealFields {
                deck: None,
                hands: Some(hands),
                board: Some(board),
                burns: Some(burns),
                rest: None,
            } => Ok(Deal::Board {
                hands,
                board,
                burns,
            }),
            DealFields {
                deck: None,
                hands: Some(hands),
                board: None,
                burns: None,
                rest: Some(rest),
            } => Ok(Deal::Hands { hands, rest }),
            _ => Err(de::Error::custom(
                "a deal has either `deck`, or `hands`, `board` and `burns`, or `hands` and `rest`",
            )),
        }
    }
}
