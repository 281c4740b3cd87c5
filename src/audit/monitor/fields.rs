//! The fields of a log entry the checker reads ([`Fields`]), borrowed from
//! the entry's bytes where they can be.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The fields of an entry the checker reads, borrowed where it can be.
/// Entries that do not fit (a field of another type, a key twice) are read
/// as JSON values instead, with the same meaning.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct Fields<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) seed_pair: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) server_seed_hash: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) next_server_seed_hash: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) tenant: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) predecessor: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) seats: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) client_seed_sha256: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) client_seed_lookalike_sha256: Option<Cow<'a, str>>,
    pub(super) nonce: Option<u64>,
    #[serde(borrow)]
    pub(super) round: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) game: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) server_seed: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) successor: Option<Cow<'a, str>>,
    pub(super) chain_length: Option<u64>,
    #[serde(borrow)]
    pub(super) time: Option<Cow<'a, str>>,
}

impl<'a> Fields<'a> {
    /// The fields of an entry that is JSON but not of the expected types.
    pub(super) fn of_value(entry: &Value) -> Fields<'static> {
        let text = |field: &str| entry[field].as_str().map(|s| Cow::Owned(s.to_owned()));
        Fields {
            kind: text("type"),
            seed_pair: text("seed_pair"),
            server_seed_hash: text("server_seed_hash"),
            next_server_seed_hash: text("next_server_seed_hash"),
            tenant: text("tenant"),
            predecessor: text("predecessor"),
            seats: None,
            client_seed_sha256: text("client_seed_sha256"),
            client_seed_lookalike_sha256: text("client_seed_lookalike_sha256"),
            nonce: entry["nonce"].as_u64(),
            round: text("round"),
            game: None,
            server_seed: text("server_seed"),
            successor: text("successor"),
            chain_length: entry["chain_length"].as_u64(),
            time: text("time"),
        }
    }

    pub(super) fn text(field: &'a Option<Cow<'a, str>>) -> &'a str {
        field.as_deref().unwrap_or_default()
    }
}
