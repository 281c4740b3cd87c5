//! What goes over the wire: request and response bodies, with their OpenAPI
//! schemas. Domain and store types never reach serde here directly.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{IntoParams, ToSchema};

use fairdeal_core::ClientSeed;
use fairdeal_core::Seats;

use super::error::ApiError;
use super::receipts::Receipt;
use crate::service::dealer::{PairLabel, Successor};
use crate::service::store::{PairRow, PairStatus, RoundRow, RoundStatus};
use crate::time::timestamp;

pub mod cursor;
pub mod tables;

/// A game to deal, as the server reads it: the type and whichever
/// parameters were sent; [`GameSpec::to_game`] applies each game's rules. Its
/// description is [`GameDoc`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a game object such as {\"type\": \"holdem\", \"players\": 6}")]
pub struct GameSpec {
    #[serde(rename = "type")]
    pub game_type: String,
    #[serde(default, deserialize_with = "integral")]
    pub players: Option<Count>,
    #[serde(default, deserialize_with = "integral")]
    pub cards: Option<Count>,
    #[serde(default, deserialize_with = "integral")]
    pub decks: Option<Count>,
}

/// A game parameter as sent: a whole number that fits a `u32` (JSON may
/// write `6` or `6.0`: JSON Schema counts both as the integer 6), or, as
/// JSON text, whatever was sent instead (a string, a fraction, a negative or
/// huge number, `true`…), refused by [`GameSpec::game`] with the game's own
/// rule for that parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    Whole(u32),
    Not(String),
}

impl Count {
    fn of(value: &serde_json::Value) -> Self {
        let not = || {
            let text = value.to_string();
            let shown: String = text.chars().take(32).collect();
            Count::Not(if shown.len() < text.len() {
                format!("{shown}…")
            } else {
                shown
            })
        };
        let serde_json::Value::Number(number) = value else {
            return not();
        };
        if let Some(whole) = number.as_u64() {
            return u32::try_from(whole)
                .map(Count::Whole)
                .unwrap_or_else(|_| not());
        }
        match number.as_f64() {
            Some(v) if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) => {
                Count::Whole(v as u32)
            }
            _ => not(),
        }
    }

    /// The number, or one no game takes (so that the game names its rule).
    fn or_out_of_range(count: &Option<Count>) -> Option<u32> {
        count.as_ref().map(|count| match count {
            Count::Whole(n) => *n,
            Count::Not(_) => u32::MAX,
        })
    }
}

/// An optional game parameter: absent or null is `None`; any other JSON
/// value is kept as a [`Count`] and judged with the game's rules.
fn integral<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Count>, D::Error> {
    Ok(Option::<serde_json::Value>::deserialize(deserializer)?.map(|value| Count::of(&value)))
}

/// A required count that JSON may write as `6` or `6.0`, range checked by
/// the caller (so that it can name the rule): 0 to 2^64 − 1, and a float
/// only when whole and below 2^53.
pub(crate) fn whole<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    struct Count;
    impl Visitor<'_> for Count {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            if v.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&v) {
                Ok(v as u64)
            } else {
                Err(E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }
    }
    deserializer.deserialize_any(Count)
}

/// A game to deal: one of four types, each with its own parameters (a
/// parameter the type does not take is refused). `hands` also needs
/// players × cards ≤ 52 × decks, which the schema cannot say.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[schema(as = Game, example = json!({"type": "holdem", "players": 6}))]
pub enum GameDoc {
    /// The whole shuffled shoe.
    Deck {
        /// Decks in the shoe (default 1).
        #[schema(minimum = 1, maximum = 8)]
        decks: Option<u32>,
    },
    /// Texas hold'em: two hole cards each, then burn, flop, burn, turn,
    /// burn, river.
    Holdem {
        #[schema(minimum = 2, maximum = 22)]
        players: u32,
    },
    /// Omaha: four hole cards each, then the hold'em board.
    Omaha {
        #[schema(minimum = 2, maximum = 11)]
        players: u32,
    },
    /// `players` hands of `cards` cards, the rest of the shoe after them.
    Hands {
        #[schema(minimum = 1, maximum = 416)]
        players: u32,
        #[schema(minimum = 1, maximum = 416)]
        cards: u32,
        /// Decks in the shoe (default 1).
        #[schema(minimum = 1, maximum = 8)]
        decks: Option<u32>,
    },
}

impl GameSpec {
    pub fn to_game(&self) -> Result<fairdeal_core::Game, fairdeal_core::Error> {
        fairdeal_core::Game::from_parts(
            &self.game_type,
            Count::or_out_of_range(&self.players),
            Count::or_out_of_range(&self.cards),
            Count::or_out_of_range(&self.decks),
        )
    }

    /// The game, or the error a request gets: a parameter that is not a
    /// whole number is refused with the rule this game has for it ("players
    /// must be a whole number from 2 to 22; got \"6\""), not a number type's
    /// range.
    pub fn game(&self) -> Result<fairdeal_core::Game, ApiError> {
        use fairdeal_core::{Error, GameParam};
        let sent = |param: GameParam| match param {
            GameParam::Players => &self.players,
            GameParam::Cards => &self.cards,
            GameParam::Decks => &self.decks,
        };
        let not_whole = [GameParam::Players, GameParam::Cards, GameParam::Decks]
            .into_iter()
            .find_map(|param| match sent(param) {
                Some(Count::Not(shown)) => Some((param, shown)),
                _ => None,
            });
        match (self.to_game(), not_whole) {
            (Ok(game), None) => Ok(game),
            (Err(err), None) => Err(ApiError::from_core(&err)),
            (
                Err(Error::OutOfRange {
                    param, min, max, ..
                }),
                Some((bad, shown)),
            ) if param == bad => Err(ApiError::invalid(
                fairdeal_core::Field::Game(param).as_str(),
                format!("{param} must be a whole number from {min} to {max}; got {shown}"),
            )),
            (Err(err @ (Error::UnknownGame | Error::UnexpectedParameter { .. })), Some(_)) => {
                Err(ApiError::from_core(&err))
            }
            (_, Some((param, shown))) => Err(ApiError::invalid(
                fairdeal_core::Field::Game(param).as_str(),
                format!(
                    "{param} must be a whole number ({}); got {shown}",
                    Self::rule_of(param)
                ),
            )),
        }
    }

    /// A parameter's rule in words, where it depends on the other ones.
    fn rule_of(param: fairdeal_core::GameParam) -> &'static str {
        match param {
            fairdeal_core::GameParam::Players | fairdeal_core::GameParam::Cards => {
                "at least 1, with players x cards at most 52 x decks"
            }
            fairdeal_core::GameParam::Decks => "1 to 8",
        }
    }
}

/// The cards of a round, laid out for its game (see docs/PROTOCOL.md):
/// `deck` for `deck`; `hands`, `board` and `burns` for `holdem` and `omaha`;
/// `hands` and `rest` for `hands`. Cards are written rank then suit (`Td`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Deal)]
pub struct DealDoc {
    #[schema(example = json!(["Td", "6s"]))]
    pub deck: Option<Vec<String>>,
    pub hands: Option<Vec<Vec<String>>>,
    pub board: Option<Vec<String>>,
    pub burns: Option<Vec<String>>,
    pub rest: Option<Vec<String>>,
}

/// A seed pair: one committed server seed and the player's client seed.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeedPair {
    pub id: String,
    pub status: PairStatus,
    /// SHA-256 of the server seed, published before the client seed exists.
    pub server_seed_hash: String,
    /// The commitment to the seed the next pair will use after rotation.
    pub next_server_seed_hash: String,
    /// Set once, by the player through the game backend.
    pub client_seed: Option<String>,
    /// The nonce the next round will get.
    pub next_nonce: u64,
    pub created_at: String,
    /// The revealed server seed (only once `revealed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_seed: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revealed_at: Option<String>,
    /// The pair this one replaced by rotation.
    pub predecessor_id: Option<String>,
    /// The pair that replaced this one by rotation.
    pub successor_id: Option<String>,
    /// The game backend's reference: shown to the pair's operators only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The signed receipt of the event this response created (the commit,
    /// or the client seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
    /// A table pair's seats, commitments and contributions
    /// (fairdeal-table-v1); absent for a one-player pair, and in listings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<tables::TableView>,
    /// How the pair's rounds get their server seeds: `fairdeal-v1` (one
    /// seed, revealed by rotation) or `fairdeal-chain-v1` (a hash chain,
    /// one seed published as each round ends; docs/PROTOCOL.md §13).
    #[schema(example = "fairdeal-v1")]
    pub protocol: &'static str,
    /// A `fairdeal-chain-v1` pair's chain: `server_seed_hash` is its `s_0`,
    /// `next_server_seed_hash` its successor chain's, and a revealed
    /// pair's `server_seed` its tip `s_N`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<PairChain>,
}

/// A chain pair's progress.
#[derive(Debug, Serialize, ToSchema)]
pub struct PairChain {
    /// The chain's length N: the most rounds the pair deals.
    pub length: u64,
    /// Rounds, from nonce 0, whose seeds are published: each ended, and
    /// every round before it too. Rounds from here to `next_nonce` wait
    /// for their own end or an earlier round's.
    pub published_rounds: u64,
}

impl SeedPair {
    /// The pair as its reader may see it: the label only for an operator of
    /// its tenant (`owner`).
    pub fn view(row: &PairRow, owner: bool) -> Self {
        Self {
            id: row.id.clone(),
            status: row.status,
            server_seed_hash: row.server_seed_hash.clone(),
            next_server_seed_hash: row.next_server_seed_hash.clone(),
            client_seed: row.client_seed.clone(),
            next_nonce: row.next_nonce as u64,
            created_at: timestamp(row.created_at),
            server_seed: row.revealed_seed().map(str::to_owned),
            revealed_at: row
                .revealed_at
                .filter(|_| row.revealed_seed().is_some())
                .map(timestamp),
            predecessor_id: row.predecessor_id.clone(),
            successor_id: row.successor_id.clone(),
            label: row.label.clone().filter(|_| owner),
            receipt: None,
            table: None,
            protocol: row.protocol().name(),
            chain: row.protocol().chain_length().map(|length| PairChain {
                length: length.get(),
                published_rounds: row.chain_published as u64,
            }),
        }
    }
}

/// One dealt round. `deal` is shown to the operator, and to everyone once the
/// pair is revealed (a chain round: once its seed is published); before
/// that a public reader sees everything but the cards.
#[derive(Debug, Serialize, ToSchema)]
pub struct Round {
    pub id: String,
    pub seed_pair_id: String,
    #[schema(example = "fairdeal-v1")]
    pub protocol: &'static str,
    pub server_seed_hash: String,
    pub client_seed: String,
    pub nonce: u64,
    #[schema(value_type = GameDoc)]
    pub game: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<DealDoc>)]
    pub deal: Option<Box<RawValue>>,
    pub status: RoundStatus,
    pub created_at: String,
    pub closed_at: Option<String>,
    /// The round's server seed: the pair's, once revealed; a chain round's
    /// own `s_{k+1}`, once it and every earlier round ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_seed: Option<String>,
    /// A `fairdeal-chain-v1` round: its seed is `s_{position}` of the
    /// chain committed as `server_seed_hash` (`position` = nonce + 1), so
    /// SHA-256 applied `position` times to `server_seed` gives
    /// `server_seed_hash`, and once to it gives the previous round's seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<RoundChain>,
    /// The signed receipt of the deal, in the response that dealt it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
    /// The link a game hands its player for this round, relative to the
    /// service's address: `/verify?round=ID&log=INDEX`. `log` is the log
    /// index of the round's entry, so the page reads the round's entry from
    /// the log itself: a round the API later loses or shows otherwise is a
    /// FAIL naming both. Absent for a round dealt before the log existed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "/verify?round=0193a1b2-0000-7000-8000-000000000000&log=42")]
    pub verify_url: Option<String>,
}

/// A round's verification link: see [`Round::verify_url`].
pub fn verify_url(round: &str, log_index: Option<i64>) -> Option<String> {
    log_index.map(|index| format!("/verify?round={round}&log={index}"))
}

impl Round {
    /// The round as `pair`'s reader may see it: `deal` is the deal's JSON
    /// when the reader may see it (see [`Round::deal_visible`]).
    pub fn view(row: &RoundRow, pair: &PairRow, deal: Option<String>) -> anyhow::Result<Self> {
        // A chain pair's revealed seed is its tip, not a round's.
        let seed = match pair.protocol() {
            fairdeal_core::PairProtocol::Chain(_) => row.server_seed.as_deref(),
            fairdeal_core::PairProtocol::V1 => pair.revealed_seed(),
        };
        Ok(Self {
            id: row.id.clone(),
            seed_pair_id: row.seed_pair_id.clone(),
            protocol: pair.protocol().name(),
            server_seed_hash: pair.server_seed_hash.clone(),
            client_seed: pair.client_seed.clone().unwrap_or_default(),
            nonce: row.nonce as u64,
            game: RawValue::from_string(row.game.clone())?,
            deal: deal.map(RawValue::from_string).transpose()?,
            status: row.status,
            created_at: timestamp(row.created_at),
            closed_at: row.closed_at.map(timestamp),
            server_seed: seed.map(str::to_owned),
            chain: pair.protocol().chain_length().map(|length| RoundChain {
                length: length.get(),
                position: row.nonce as u64 + 1,
                round_commitment: None,
            }),
            receipt: None,
            verify_url: verify_url(&row.id, row.log_index),
        })
    }
}

/// Where a chain round's seed sits in its chain.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundChain {
    /// The chain's length N.
    pub length: u64,
    /// The seed's position: nonce + 1.
    pub position: u64,
    /// Once the round's seed is published: the round's fairdeal-v1
    /// commitment, the value its seed must hash to in one SHA-256 step — the
    /// previous round's published seed, or the chain's commitment for round
    /// 0. Any fairdeal-v1 verifier checks the round with it
    /// (`fairdeal replay --commitment`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_commitment: Option<String>,
}

impl Round {
    /// Who may see a round's cards: an operator always, everyone once the
    /// pair is revealed or (a chain round) once the round's seed is
    /// published.
    pub fn deal_visible(pair: &PairRow, row: &RoundRow, operator: bool) -> bool {
        operator || pair.revealed_seed().is_some() || row.server_seed.is_some()
    }
}

/// A page of a pair's rounds, by nonce.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundPage {
    pub rounds: Vec<Round>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// Deprecated: use `next_cursor`. Pass as `after` for the next page of
    /// `order=oldest`; null on the last page, and always with
    /// `order=newest`.
    #[schema(deprecated)]
    pub next_after: Option<u64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Which end to start from: `oldest` (nonce 0 first, the default) or
    /// `newest` (the last dealt first).
    pub order: Option<cursor::ListOrder>,
    /// The `next_cursor` of the previous page (it keeps its order).
    #[param(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    pub cursor: Option<String>,
    /// Only rounds with a nonce greater than this: a seek to a nonce
    /// (`order=oldest` only; to page on, use `cursor`).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many rounds (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// Options of a new seed pair (the body may be left out).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a JSON object (optional \"label\", \"seats\", \"protocol\", \"chain_length\")"
)]
pub struct CreatePairRequest {
    /// An opaque reference of the game backend (a player or table id): 1 to
    /// 128 bytes, no control characters. Shown to the pair's operators only,
    /// never in public reads or the export; kept by the pairs rotation opens.
    #[schema(
        min_length = 1,
        max_length = 128,
        example = "table-7",
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub label: Option<String>,
    /// Makes a table pair (fairdeal-table-v1): 2 to 22 distinct seat
    /// labels in seat order, each 1 to 64 bytes of UTF-8 without control
    /// characters. Every seat then commits to a secret contribution and
    /// reveals it; the client seed is derived from them all.
    #[schema(min_items = 2, max_items = 22, example = json!(["alice", "bob", "carol"]))]
    pub seats: Option<Vec<String>>,
    /// `fairdeal-v1` (the default: one server seed, revealed when the pair
    /// is rotated) or `fairdeal-chain-v1` (a chain of `chain_length`
    /// seeds committed now, one published as each round ends, so every
    /// hand is checkable once it and the hands before it are over).
    pub protocol: Option<ProtocolName>,
    /// A `fairdeal-chain-v1` pair's length: the most rounds it deals, 1 to
    /// 1,000,000 (its successor's chain has the same length). Only with
    /// that protocol.
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 1_000_000, example = 10_000)]
    #[serde(default, deserialize_with = "integral")]
    pub chain_length: Option<Count>,
}

/// A chain length out of its rule, as sent.
fn chain_length_refused(max: u64, shown: &str) -> ApiError {
    ApiError::invalid(
        "chain_length",
        format!("must be a whole number of rounds from 1 to {max}; got {shown}"),
    )
}

/// The protocol of a new pair's rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(try_from = "serde_json::Value")]
#[schema(as = PairProtocol)]
pub enum ProtocolName {
    #[serde(rename = "fairdeal-v1")]
    FairdealV1,
    #[serde(rename = "fairdeal-chain-v1")]
    FairdealChainV1,
}

/// Read from any JSON value, so that a value of another type (`1`) is
/// answered with the names it may take, not a parser's position.
impl TryFrom<serde_json::Value> for ProtocolName {
    type Error = String;

    fn try_from(value: serde_json::Value) -> Result<Self, String> {
        match value.as_str() {
            Some("fairdeal-v1") => Ok(Self::FairdealV1),
            Some("fairdeal-chain-v1") => Ok(Self::FairdealChainV1),
            _ => Err(format!(
                "must be \"fairdeal-v1\" or \"fairdeal-chain-v1\" (a string); got {}",
                value.to_string().chars().take(40).collect::<String>()
            )),
        }
    }
}

/// A new pair's options, checked: its label, a table's seats, its
/// protocol (a chain's length in the service's range).
#[derive(Debug)]
pub struct PairOptions {
    pub label: Option<PairLabel>,
    pub seats: Option<Seats>,
    pub protocol: fairdeal_core::PairProtocol,
}

impl CreatePairRequest {
    /// The label, the seats and the protocol, checked.
    pub fn options(self) -> Result<PairOptions, ApiError> {
        let label = self
            .label
            .map(|text| PairLabel::new(text).map_err(|rule| ApiError::invalid("label", rule)))
            .transpose()?;
        let seats = self.seats.map(tables::parse_seats).transpose()?;
        let max = crate::service::dealer::chains::MAX_SERVICE_CHAIN;
        let protocol = match (self.protocol, self.chain_length) {
            (None | Some(ProtocolName::FairdealV1), None) => fairdeal_core::PairProtocol::V1,
            (None | Some(ProtocolName::FairdealV1), Some(_)) => {
                return Err(ApiError::invalid(
                    "chain_length",
                    "is only for a \"fairdeal-chain-v1\" pair; give \"protocol\": \"fairdeal-chain-v1\" too, or leave it out",
                ));
            }
            (Some(ProtocolName::FairdealChainV1), None) => {
                return Err(ApiError::invalid(
                    "chain_length",
                    format!("is required for a \"fairdeal-chain-v1\" pair: 1 to {max} rounds"),
                ));
            }
            (Some(ProtocolName::FairdealChainV1), Some(length)) => {
                let shown = match &length {
                    Count::Whole(n) => n.to_string(),
                    Count::Not(shown) => shown.clone(),
                };
                match length {
                    Count::Whole(length) => {
                        match fairdeal_core::ChainLength::new(u64::from(length)) {
                            Ok(length) if length.get() <= max => {
                                fairdeal_core::PairProtocol::Chain(length)
                            }
                            _ => return Err(chain_length_refused(max, &shown)),
                        }
                    }
                    Count::Not(_) => return Err(chain_length_refused(max, &shown)),
                }
            }
        };
        Ok(PairOptions {
            label,
            seats,
            protocol,
        })
    }
}

/// What a rotation opens next: a client seed for a one-player successor,
/// or (for a table) nothing, to keep the seats, or other seats.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object (optional \"client_seed\", \"seats\", \"allow_reuse\")")]
pub struct RotateRequest {
    /// The successor's client seed (a one-player pair): 1 to 64 bytes of
    /// UTF-8, no control characters, and none that shows as nothing or
    /// reorders the text (format characters such as U+200B or U+202E,
    /// default-ignorable code points, line separators, blank, private-use or
    /// unassigned code points), no white space at either end or two in a
    /// row, in Unicode NFC.
    #[schema(
        example = "my next lucky seed",
        min_length = 1,
        max_length = 64,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub client_seed: Option<String>,
    /// The successor table's seats, when they change (a table keeps its
    /// seats without this).
    #[schema(min_items = 2, max_items = 22)]
    pub seats: Option<Vec<String>>,
    /// Give the seed even though it is in use: by default a seed is
    /// refused (409, naming the pairs) while another of this tenant's pairs
    /// that is not revealed holds it or a seed that looks like it (for a
    /// draw: while another of its draws of the same list has it). The
    /// operator could deal each hand on both and show the one it liked;
    /// `fairdeal monitor` and the page report such an overlap as
    /// deal-shopping whatever this says. Ask the player for another seed
    /// instead.
    #[serde(default)]
    pub allow_reuse: bool,
}

impl RotateRequest {
    /// What the successor will be, checked.
    pub fn successor(self) -> Result<Successor, ApiError> {
        match (self.client_seed, self.seats) {
            (Some(_), Some(_)) => Err(ApiError::invalid(
                "seats",
                "give client_seed (a one-player successor) or seats (a table), not both",
            )),
            (Some(text), None) => new_client_seed(text).map(Successor::ClientSeed),
            (None, Some(labels)) => Ok(Successor::Table(Some(tables::parse_seats(labels)?))),
            (None, None) => Ok(Successor::Table(None)),
        }
    }
}

/// Which of the operator's pairs to list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PairListParams {
    /// Only pairs in this status.
    pub status: Option<PairStatus>,
    /// Only pairs with this label.
    #[param(
        min_length = 1,
        max_length = 128,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub label: Option<String>,
    /// Which end to start from: `oldest` (the default) or `newest`.
    pub order: Option<cursor::ListOrder>,
    /// The `next_cursor` of the previous page (it keeps its order).
    #[param(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    pub cursor: Option<String>,
    /// Deprecated: use `cursor`. The `next_after` of the previous page
    /// (`order=oldest` only).
    #[param(pattern = "^-?[0-9]{1,19}\\.[0-9A-Za-z-]{1,64}$")]
    pub after: Option<String>,
    /// At most this many pairs (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// A page of the operator's pairs, in the order asked for.
#[derive(Debug, Serialize, ToSchema)]
pub struct PairPage {
    pub seed_pairs: Vec<SeedPair>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// Deprecated: use `next_cursor`. Pass as `after` for the next page of
    /// `order=oldest`; null on the last page, and always with
    /// `order=newest`.
    #[schema(deprecated)]
    pub next_after: Option<String>,
}

/// Reads a listing cursor (`next_after`), or says what is wrong with it.
pub fn parse_pair_cursor(text: &str) -> Result<(i64, &str), ApiError> {
    crate::service::store::parse_listing_cursor(text).ok_or_else(|| {
        ApiError::invalid(
            "after",
            "must be the next_after of an earlier page of this listing",
        )
    })
}

/// The result of a rotation.
#[derive(Debug, Serialize, ToSchema)]
pub struct RotationResult {
    /// The old pair, now with its `server_seed`.
    pub revealed: SeedPair,
    /// The new pair: active, or a table awaiting contributions.
    pub current: SeedPair,
    /// The signed receipts of the rotation's log entries, in log order: the
    /// reveal, the new pair's commit, its client seed (a table's successor
    /// has none yet).
    pub receipts: Vec<Receipt>,
}

/// A client seed, chosen by the player: 1–64 bytes of UTF-8, no control
/// characters.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object: {\"client_seed\": \"<text>\"}")]
pub struct ClientSeedRequest {
    /// 1 to 64 bytes of UTF-8 (so at most 64 characters, fewer when they
    /// take several bytes), no control characters, and none that shows as
    /// nothing or reorders the text (format characters such as U+200B or
    /// U+202E, default-ignorable code points, line separators, blank,
    /// private-use or unassigned code points), no white space at either end
    /// or two in a row, in Unicode NFC.
    #[schema(
        example = "my own lucky seed",
        min_length = 1,
        max_length = 64,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub client_seed: String,
    /// Give the seed even though it is in use: by default a seed is
    /// refused (409, naming the pairs) while another of this tenant's pairs
    /// that is not revealed holds it or a seed that looks like it (for a
    /// draw: while another of its draws of the same list has it). The
    /// operator could deal each hand on both and show the one it liked;
    /// `fairdeal monitor` and the page report such an overlap as
    /// deal-shopping whatever this says. Ask the player for another seed
    /// instead.
    #[serde(default)]
    pub allow_reuse: bool,
}

impl ClientSeedRequest {
    /// The client seed, checked against the protocol's rules and the
    /// service's ([`new_client_seed`]).
    pub fn client_seed(self) -> Result<ClientSeed, ApiError> {
        new_client_seed(self.client_seed)
    }
}

/// `allow_reuse` as the store's rule.
pub fn seed_reuse(allow_reuse: bool) -> crate::service::store::SeedReuse {
    if allow_reuse {
        crate::service::store::SeedReuse::Allowed
    } else {
        crate::service::store::SeedReuse::Refused
    }
}

/// A client seed the service takes from now on: the protocol's rules, and
/// one that shows as it is ([`crate::text::invisible`]: no invisible, format
/// or bidi character, and in NFC), so that the seed an operator relays
/// cannot differ unseen from the one the player chose. Verifiers still take
/// any seed the protocol allows.
pub fn new_client_seed(text: String) -> Result<ClientSeed, ApiError> {
    if let Some(found) = crate::text::invisible(&text) {
        return Err(ApiError::invalid("client_seed", found.to_string()));
    }
    ClientSeed::new(text).map_err(|e| ApiError::from_core(&e))
}

/// What to deal.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object: {\"game\": {\"type\": …}}")]
pub struct CreateRoundRequest {
    #[schema(value_type = GameDoc)]
    pub game: GameSpec,
}

/// A nonce: a JSON number, or a decimal string for clients whose numbers lose
/// precision above 2^53.
#[derive(Debug)]
pub enum NonceInput {
    Number(u64),
    Text(String),
}

/// The description of a nonce: a JSON integer from 0 to 2^64 − 1, or the
/// same number as a decimal string (leading zeros allowed).
#[derive(Debug)]
pub struct NonceDoc;

/// Decimal strings of 0 to 2^64 − 1, leading zeros allowed.
const NONCE_PATTERN: &str = "^0*([0-9]{1,19}|1[0-7][0-9]{18}|18[0-3][0-9]{17}|184[0-3][0-9]{16}|1844[0-5][0-9]{15}|18446[0-6][0-9]{14}|184467[0-3][0-9]{13}|1844674[0-3][0-9]{12}|184467440[0-6][0-9]{10}|1844674407[0-2][0-9]{9}|18446744073[0-6][0-9]{8}|1844674407370[0-8][0-9]{6}|18446744073709[0-4][0-9]{5}|184467440737095[0-4][0-9]{4}|18446744073709550[0-9]{3}|18446744073709551[0-5][0-9]{2}|1844674407370955160[0-9]|1844674407370955161[0-5])$";

impl utoipa::PartialSchema for NonceDoc {
    fn schema() -> RefOr<Schema> {
        let number = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(u64::MAX))
            .build();
        let text = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(NONCE_PATTERN))
            .build();
        let one_of = OneOfBuilder::new()
            .item(number)
            .item(text)
            .description(Some(
                "A nonce: an unsigned 64-bit integer, as a number or a decimal string \
                 (for clients whose numbers lose precision above 2^53).",
            ))
            .build();
        RefOr::T(Schema::OneOf(one_of))
    }
}

impl utoipa::ToSchema for NonceDoc {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("Nonce")
    }
}

impl<'de> Deserialize<'de> for NonceInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NonceVisitor;
        impl Visitor<'_> for NonceVisitor {
            type Value = NonceInput;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an unsigned 64-bit integer (0 to 18446744073709551615), as a number or a decimal string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<NonceInput, E> {
                Ok(NonceInput::Number(v))
            }
            /// JSON Schema counts `405.0` as the integer 405.
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<NonceInput, E> {
                // 2^64 is the first f64 above u64::MAX.
                if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
                    Ok(NonceInput::Number(v as u64))
                } else {
                    Err(E::invalid_value(de::Unexpected::Float(v), &self))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NonceInput, E> {
                Ok(NonceInput::Text(v.to_owned()))
            }
        }
        deserializer.deserialize_any(NonceVisitor)
    }
}

/// A round to recompute.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a JSON object: {\"server_seed\", \"client_seed\", \"nonce\", \"game\"}")]
pub struct VerifyRequest {
    /// The revealed server seed: 64 hex characters.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub server_seed: String,
    /// 1 to 64 bytes of UTF-8, no control characters.
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]+$"
    )]
    pub client_seed: String,
    #[schema(value_type = NonceDoc)]
    pub nonce: NonceInput,
    #[schema(value_type = GameDoc)]
    pub game: GameSpec,
}

/// The recomputed round.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerifyResponse {
    pub server_seed_hash: String,
    #[schema(value_type = DealDoc)]
    pub deal: fairdeal_core::Deal,
}
