//! What goes over the wire: request and response bodies, with their OpenAPI
//! schemas. Domain and store types never reach serde here directly.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::{IntoParams, ToSchema};

use fairdeal_core::ClientSeed;

use super::error::ApiError;
use crate::service::dealer::PairLabel;
use crate::service::store::{PairRow, PairStatus, RoundRow, RoundStatus};
use crate::time::timestamp;

/// A game to deal. `holdem` takes `players` (2–22); `omaha` takes `players`
/// (2–11); `deck` takes `decks` (1–8, default 1); `hands` takes `players`
/// (≥ 1), `cards` (≥ 1) and `decks` (1–8, default 1) with players × cards ≤
/// 52 × decks. A parameter the game does not take is refused.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Game, example = json!({"type": "holdem", "players": 6}))]
pub struct GameSpec {
    /// `deck`, `holdem`, `omaha` or `hands`.
    #[serde(rename = "type")]
    #[schema(rename = "type", pattern = "^(deck|holdem|omaha|hands)$")]
    pub game_type: String,
    #[schema(minimum = 1)]
    pub players: Option<u32>,
    #[schema(minimum = 1)]
    pub cards: Option<u32>,
    #[schema(minimum = 1, maximum = 8)]
    pub decks: Option<u32>,
}

impl GameSpec {
    pub fn to_game(&self) -> Result<fairdeal_core::Game, fairdeal_core::Error> {
        fairdeal_core::Game::from_parts(&self.game_type, self.players, self.cards, self.decks)
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
        }
    }
}

/// One dealt round. `deal` is shown to the operator, and to everyone once the
/// pair is revealed; before that a public reader sees everything but the cards.
#[derive(Debug, Serialize, ToSchema)]
pub struct Round {
    pub id: String,
    pub seed_pair_id: String,
    #[schema(example = "fairdeal-v1")]
    pub protocol: &'static str,
    pub server_seed_hash: String,
    pub client_seed: String,
    pub nonce: u64,
    #[schema(value_type = GameSpec)]
    pub game: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<DealDoc>)]
    pub deal: Option<Box<RawValue>>,
    pub status: RoundStatus,
    pub created_at: String,
    pub closed_at: Option<String>,
    /// The pair's server seed, once revealed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_seed: Option<String>,
}

impl Round {
    /// The round as `pair`'s reader may see it: `deal` is the deal's JSON
    /// when the reader may see it (see [`Round::deal_visible`]).
    pub fn view(row: &RoundRow, pair: &PairRow, deal: Option<String>) -> anyhow::Result<Self> {
        let revealed = pair.revealed_seed();
        Ok(Self {
            id: row.id.clone(),
            seed_pair_id: row.seed_pair_id.clone(),
            protocol: fairdeal_core::PROTOCOL,
            server_seed_hash: pair.server_seed_hash.clone(),
            client_seed: pair.client_seed.clone().unwrap_or_default(),
            nonce: row.nonce as u64,
            game: RawValue::from_string(row.game.clone())?,
            deal: deal.map(RawValue::from_string).transpose()?,
            status: row.status,
            created_at: timestamp(row.created_at),
            closed_at: row.closed_at.map(timestamp),
            server_seed: revealed.map(str::to_owned),
        })
    }
}

impl Round {
    /// Who may see a round's cards: an operator always, everyone once the
    /// pair is revealed.
    pub fn deal_visible(pair: &PairRow, operator: bool) -> bool {
        operator || pair.revealed_seed().is_some()
    }
}

/// A page of a pair's rounds, by nonce.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundPage {
    pub rounds: Vec<Round>,
    /// Pass as `after` for the next page; null on the last page.
    pub next_after: Option<u64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Only rounds with a nonce greater than this.
    pub after: Option<u64>,
    /// At most this many rounds (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// Options of a new seed pair (the body may be left out).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePairRequest {
    /// An opaque reference of the game backend (a player or table id): 1 to
    /// 128 bytes, no control characters. Shown to the pair's operators only,
    /// never in public reads or the export; kept by the pairs rotation opens.
    #[schema(min_length = 1, max_length = 128, example = "table-7")]
    pub label: Option<String>,
}

impl CreatePairRequest {
    /// The label, checked.
    pub fn label(self) -> Result<Option<PairLabel>, ApiError> {
        self.label
            .map(|text| PairLabel::new(text).map_err(|rule| ApiError::invalid("label", rule)))
            .transpose()
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
    pub label: Option<String>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
    /// At most this many pairs (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
}

/// A page of the operator's pairs, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct PairPage {
    pub seed_pairs: Vec<SeedPair>,
    /// Pass as `after` for the next page; null on the last page.
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
    /// The new active pair.
    pub current: SeedPair,
}

/// A client seed, chosen by the player: 1–64 bytes of UTF-8, no control
/// characters.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientSeedRequest {
    #[schema(example = "my own lucky seed")]
    pub client_seed: String,
}

impl ClientSeedRequest {
    /// The client seed, checked against the protocol's rules.
    pub fn client_seed(self) -> Result<ClientSeed, ApiError> {
        ClientSeed::new(self.client_seed).map_err(|e| ApiError::from_core(&e))
    }
}

/// What to deal.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRoundRequest {
    pub game: GameSpec,
}

/// A nonce: a JSON number, or a decimal string for clients whose numbers lose
/// precision above 2^53.
#[derive(Debug)]
pub enum NonceInput {
    Number(u64),
    Text(String),
}

/// A nonce: a number, or the same number as a decimal string.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = Nonce)]
pub enum NonceDoc {
    Number(u64),
    Text(String),
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
pub struct VerifyRequest {
    /// 64 hex characters.
    pub server_seed: String,
    pub client_seed: String,
    #[schema(value_type = NonceDoc)]
    pub nonce: NonceInput,
    pub game: GameSpec,
}

/// The recomputed round.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerifyResponse {
    pub server_seed_hash: String,
    #[schema(value_type = DealDoc)]
    pub deal: fairdeal_core::Deal,
}
