//! The one error type of the protocol crate: malformed input.
//!
//! A deal that does not verify is not an error; see [`crate::VerifyReport`].
//! No variant carries a server seed or any part of one.

use core::fmt;

/// Why an input was rejected. Each variant names its field
/// ([`Error::field`]) and its `Display` states the rule that was broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The server seed is not 64 characters long.
    ServerSeedLength {
        /// How many characters were given.
        n_chars: usize,
    },
    /// The server seed has a character outside `0-9a-fA-F`.
    ServerSeedNotHex,
    /// The commitment is not 64 characters long.
    CommitmentLength {
        /// How many characters were given.
        n_chars: usize,
    },
    /// The commitment has a character outside `0-9a-fA-F`.
    CommitmentNotHex,
    /// The client seed is empty.
    ClientSeedEmpty,
    /// The client seed is longer than 64 bytes of UTF-8.
    ClientSeedTooLong {
        /// Its length in bytes.
        n_bytes: usize,
    },
    /// The client seed contains a control character.
    ClientSeedControlCharacter {
        /// Byte offset of the first one.
        byte_idx: usize,
        /// Its code point.
        code_point: u32,
    },
    /// The nonce has a character other than an ASCII digit, or is empty.
    NonceNotDecimal,
    /// The nonce is above 2^64 − 1.
    NonceTooLarge,
    /// The game type is not one of `deck`, `holdem`, `omaha`, `hands`.
    UnknownGame,
    /// The game needs a parameter that was not given.
    MissingParameter {
        /// The game type.
        game_type: &'static str,
        /// The missing parameter.
        field: &'static str,
    },
    /// A parameter was given that the game does not take.
    UnexpectedParameter {
        /// The game type.
        game_type: &'static str,
        /// The parameter.
        field: &'static str,
    },
    /// A game parameter is out of its range.
    OutOfRange {
        /// `players`, `cards` or `decks`.
        field: &'static str,
        /// The value given.
        value: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// `players × cards` exceeds the cards in the decks.
    TooManyCards {
        /// players × cards.
        needed: u64,
        /// 52 × decks.
        available: u64,
    },
    /// A card name is not a rank (`2`–`9`, `T J Q K A`) followed by a suit
    /// (`c d h s`).
    CardSyntax,
}

impl Error {
    /// The input field at fault: `server_seed`, `server_seed_hash`,
    /// `client_seed`, `nonce`, `game.type`, `game.players`, `game.cards`,
    /// `game.decks` or `card`.
    pub fn field(&self) -> &'static str {
        match self {
            Error::ServerSeedLength { .. } | Error::ServerSeedNotHex => "server_seed",
            Error::CommitmentLength { .. } | Error::CommitmentNotHex => "server_seed_hash",
            Error::ClientSeedEmpty
            | Error::ClientSeedTooLong { .. }
            | Error::ClientSeedControlCharacter { .. } => "client_seed",
            Error::NonceNotDecimal | Error::NonceTooLarge => "nonce",
            Error::UnknownGame => "game.type",
            Error::MissingParameter { field, .. }
            | Error::UnexpectedParameter { field, .. }
            | Error::OutOfRange { field, .. } => match *field {
                "players" => "game.players",
                "cards" => "game.cards",
                _ => "game.decks",
            },
            Error::TooManyCards { .. } => "game.cards",
            Error::CardSyntax => "card",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ServerSeedLength { n_chars } => write!(
                f,
                "server seed must be 64 hexadecimal characters (32 bytes); got {n_chars} characters"
            ),
            Error::ServerSeedNotHex => f.write_str(
                "server seed must be 64 hexadecimal characters (0-9, a-f); it contains another character",
            ),
            Error::CommitmentLength { n_chars } => write!(
                f,
                "commitment (server seed hash) must be 64 hexadecimal characters; got {n_chars} characters"
            ),
            Error::CommitmentNotHex => f.write_str(
                "commitment (server seed hash) must be 64 hexadecimal characters (0-9, a-f); it contains another character",
            ),
            Error::ClientSeedEmpty => f.write_str("client seed must be 1 to 64 bytes of UTF-8; it is empty"),
            Error::ClientSeedTooLong { n_bytes } => write!(
                f,
                "client seed must be 1 to 64 bytes of UTF-8; it is {n_bytes} bytes"
            ),
            Error::ClientSeedControlCharacter {
                byte_idx,
                code_point,
            } => write!(
                f,
                "client seed must not contain control characters; found U+{code_point:04X} at byte {byte_idx}"
            ),
            Error::NonceNotDecimal => f.write_str(
                "nonce must be an unsigned 64-bit integer written in decimal digits (0 to 18446744073709551615)",
            ),
            Error::NonceTooLarge => {
                f.write_str("nonce must be at most 18446744073709551615 (2^64 - 1)")
            }
            Error::UnknownGame => {
                f.write_str("game type must be one of: deck, holdem, omaha, hands")
            }
            Error::MissingParameter { game_type, field } => {
                write!(f, "{game_type} needs {field}")
            }
            Error::UnexpectedParameter { game_type, field } => {
                write!(f, "{game_type} does not take {field}")
            }
            Error::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(f, "{field} must be {min} to {max}; got {value}"),
            Error::TooManyCards { needed, available } => write!(
                f,
                "players x cards must be at most 52 x decks = {available}; got {needed}"
            ),
            Error::CardSyntax => f.write_str(
                "a card is a rank (2-9, T, J, Q, K, A) followed by a suit (c, d, h, s), e.g. Td",
            ),
        }
    }
}

impl std::error::Error for Error {}
