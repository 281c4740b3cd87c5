//! # fairdeal-core: the fairdeal-v1 dealing protocol
//!
//! A provably-fair deal is a function of three inputs, fixed in this order:
//!
//! 1. the operator's [`ServerSeed`], published first only as its
//!    [`Commitment`] (SHA-256 of the 32 seed bytes);
//! 2. the player's [`ClientSeed`];
//! 3. the round's nonce, a `u64` counting rounds within one seed pair.
//!
//! [`RoundKey::derive`] hashes them with HMAC-SHA256; the key drives a ChaCha20
//! [`Keystream`]; [`uniform`] turns its words into unbiased integers by
//! rejection; [`shuffle`] is Fisher–Yates from the end; a [`Game`] lays the
//! shuffled deck out as a [`Deal`]. [`verify`] checks a recorded round once the
//! seed is revealed. The full specification, with test vectors, is
//! `docs/PROTOCOL.md` in the repository.
//!
//! ## Layout
//! - `seed`: the inputs and the commitment; each type validates on
//!   construction, so a value that exists is valid.
//! - `keystream`: round key, ChaCha20 words, `uniform`.
//! - `card`: cards, names, the unshuffled deck order.
//! - `game`: games, layouts, the shuffle, deals.
//! - `compact`: a computed deal held inline, for dealing many rounds
//!   without allocating.
//! - `verify`: dealing a round, checking a recorded one.
//! - `draw`: fairdeal-draw-v1 — entrant lists, their commitment, draws
//!   and list shuffles.
//! - `table`: fairdeal-table-v1 — a table's client seed from every seat's
//!   contribution.
//! - `error`: the one error type, for malformed input.
//!
//! ## Invariants
//! - No I/O, no clock, no async, no global state: the same inputs give the
//!   same deal on every machine, forever. A change to what a published round
//!   deals is a new protocol version, never an edit here.
//! - No randomness but the operating system's, and only in
//!   [`ServerSeed::from_os_rng`]; dealing is deterministic.
//! - A server seed never reaches `Debug`, `Display`, `Serialize` or an error.
//! - No `unsafe`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod card;
mod chain;
mod compact;
mod draw;
mod error;
mod game;
mod keystream;
mod seed;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;
mod verify;

pub use card::{Card, Rank, Suit, fresh_deck};
pub use chain::{
    CHAIN_PROTOCOL, ChainLength, ChainLengthError, MAX_CHAIN_LENGTH, PairProtocol,
    chain_commitment, chain_links, chain_round_seed, chain_seed_at, chain_step, check_chain_prefix,
};
pub use compact::{CompactDeal, MAX_CARDS, compact_deal_with};
pub use draw::{
    Draw, DrawError, DuplicateFinder, LineRule, ListCommitment, ListError, ListScanner,
    MAX_ENTRIES, ScanError, draw, draw_winners, parse_list, shuffle_items, shuffled_items,
};
pub use error::{Error, Field, GameParam};
pub use game::{Deal, GAME_TYPES, Game, Layout, Slot, limits, shuffle};
pub use keystream::{Keystream, RoundKey, SeedKey, UNIFORM_MAX_BOUND, WordSource, uniform};
pub use seed::{
    CLIENT_SEED_MAX_LEN, ClientSeed, Commitment, SERVER_SEED_LEN, ServerSeed, parse_nonce,
};
pub use table::{
    Contribution, MAX_SEATS, MIN_SEATS, Seats, TABLE_PROTOCOL, TableError, table_client_seed,
};
pub use verify::{
    CommitmentCheck, DealCheck, VerifyReport, compare_deals, deal, deal_with, shuffled_deck,
    shuffled_deck_with, verify,
};

/// The protocol this crate implements, as written in records and exports.
pub const PROTOCOL: &str = "fairdeal-v1";

/// The draw protocol (docs/PROTOCOL.md §7–§9): fairdeal-v1's keystream and
/// shuffle over the indices of a committed entrant list.
pub const DRAW_PROTOCOL: &str = "fairdeal-draw-v1";
