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
    ServerSeedNotHex {
        /// The first such character's position, from 1 (never the
        /// character: a mistyped seed is still a secret).
        position: usize,
    },
    /// The commitment is not 64 characters long.
    CommitmentLength {
        /// How many characters were given.
        n_chars: usize,
    },
    /// The commitment has a character outside `0-9a-fA-F`.
    CommitmentNotHex {
        /// The first such character's position, from 1.
        position: usize,
    },
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
        param: GameParam,
    },
    /// A parameter was given that the game does not take.
    UnexpectedParameter {
        /// The game type.
        game_type: &'static str,
        /// The parameter.
        param: GameParam,
    },
    /// A game parameter is out of its range.
    OutOfRange {
        /// The parameter.
        param: GameParam,
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

/// A parameter of a game, as named on the wire: `players`, `cards`, `decks`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameParam {
    /// `players`: seats at the table, or hands to deal.
    Players,
    /// `cards`: cards per hand, in a `hands` game.
    Cards,
    /// `decks`: decks shuffled together, in a `deck` or `hands` game.
    Decks,
}

impl GameParam {
    /// The parameter's name: `players`, `cards` or `decks`.
    pub fn name(self) -> &'static str {
        match self {
            GameParam::Players => "players",
            GameParam::Cards => "cards",
            GameParam::Decks => "decks",
        }
    }
}

impl fmt::Display for GameParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// An input field that an [`Error`] can name, see [`Error::field`].
///
/// [`Field::as_str`] is its name on the wire (a JSON path within a round).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `server_seed`: the operator's secret seed, as hex.
    ServerSeed,
    /// `server_seed_hash`: the published commitment, as hex.
    ServerSeedHash,
    /// `client_seed`: the player's seed.
    ClientSeed,
    /// `nonce`: the round number within a seed pair, in decimal.
    Nonce,
    /// `game.type`: the game type name.
    GameType,
    /// `game.players`, `game.cards` or `game.decks`: a game parameter.
    Game(GameParam),
    /// `card`: a card name such as `Td`.
    Card,
}

impl Field {
    /// The field's name: `server_seed`, `server_seed_hash`, `client_seed`,
    /// `nonce`, `game.type`, `game.players`, `game.cards`, `game.decks` or
    /// `card`.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::ServerSeed => "server_seed",
            Field::ServerSeedHash => "server_seed_hash",
            Field::ClientSeed => "client_seed",
            Field::Nonce => "nonce",
            Field::GameType => "game.type",
            Field::Game(GameParam::Players) => "game.players",
            Field::Game(GameParam::Cards) => "game.cards",
            Field::Game(GameParam::Decks) => "game.decks",
            Field::Card => "card",
        }
    }
}

impl From<GameParam> for Field {
    fn from(param: GameParam) -> Self {
        Field::Game(param)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Error {
    /// The input field at fault.
    pub fn field(&self) -> Field {
        match self {
            Error::ServerSeedLength { .. } | Error::ServerSeedNotHex { .. } => Field::ServerSeed,
            Error::CommitmentLength { .. } | Error::CommitmentNotHex { .. } => {
                Field::ServerSeedHash
            }
            Error::ClientSeedEmpty
            | Error::ClientSeedTooLong { .. }
            | Error::ClientSeedControlCharacter { .. } => Field::ClientSeed,
            Error::NonceNotDecimal | Error::NonceTooLarge => Field::Nonce,
            Error::UnknownGame => Field::GameType,
            Error::MissingParameter { param, .. }
            | Error::UnexpectedParameter { param, .. }
            | Error::OutOfRange { param, .. } => Field::Game(*param),
            Error::TooManyCards { .. } => Field::Game(GameParam::Cards),
            Error::CardSyntax => Field::Card,
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
            Error::ServerSeedNotHex { position } => write!(
                f,
                "server seed must be 64 hexadecimal characters (0-9, a-f, either case); character {position} is not one"
            ),
            Error::CommitmentLength { n_chars } => write!(
                f,
                "commitment (server seed hash) must be 64 hexadecimal characters; got {n_chars} characters"
            ),
            Error::CommitmentNotHex { position } => write!(
                f,
                "commitment (server seed hash) must be 64 hexadecimal characters (0-9, a-f, either case); character {position} is not one"
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
            Error::MissingParameter { game_type, param } => {
                write!(f, "{game_type} needs {param}")
            }
            Error::UnexpectedParameter { game_type, param } => {
                write!(f, "{game_type} does not take {param}")
            }
            Error::OutOfRange {
                param,
                value,
                min,
                max,
            } => write!(f, "{param} must be {min} to {max}; got {value}"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_field_and_states_its_rule() {
        let cases = [
            (
                Error::ServerSeedLength { n_chars: 3 },
                "server_seed",
                "server seed must be 64 hexadecimal characters (32 bytes); got 3 characters",
            ),
            (
                Error::ServerSeedNotHex { position: 7 },
                "server_seed",
                "server seed must be 64 hexadecimal characters (0-9, a-f, either case); character 7 is not one",
            ),
            (
                Error::CommitmentLength { n_chars: 65 },
                "server_seed_hash",
                "commitment (server seed hash) must be 64 hexadecimal characters; got 65 characters",
            ),
            (
                Error::CommitmentNotHex { position: 64 },
                "server_seed_hash",
                "commitment (server seed hash) must be 64 hexadecimal characters (0-9, a-f, either case); character 64 is not one",
            ),
            (
                Error::ClientSeedEmpty,
                "client_seed",
                "client seed must be 1 to 64 bytes of UTF-8; it is empty",
            ),
            (
                Error::ClientSeedTooLong { n_bytes: 65 },
                "client_seed",
                "client seed must be 1 to 64 bytes of UTF-8; it is 65 bytes",
            ),
            (
                Error::ClientSeedControlCharacter {
                    byte_idx: 2,
                    code_point: 0x0a,
                },
                "client_seed",
                "client seed must not contain control characters; found U+000A at byte 2",
            ),
            (
                Error::NonceNotDecimal,
                "nonce",
                "nonce must be an unsigned 64-bit integer written in decimal digits (0 to 18446744073709551615)",
            ),
            (
                Error::NonceTooLarge,
                "nonce",
                "nonce must be at most 18446744073709551615 (2^64 - 1)",
            ),
            (
                Error::UnknownGame,
                "game.type",
                "game type must be one of: deck, holdem, omaha, hands",
            ),
            (
                Error::MissingParameter {
                    game_type: "omaha",
                    param: GameParam::Players,
                },
                "game.players",
                "omaha needs players",
            ),
            (
                Error::UnexpectedParameter {
                    game_type: "deck",
                    param: GameParam::Cards,
                },
                "game.cards",
                "deck does not take cards",
            ),
            (
                Error::OutOfRange {
                    param: GameParam::Decks,
                    value: 9,
                    min: 1,
                    max: 8,
                },
                "game.decks",
                "decks must be 1 to 8; got 9",
            ),
            (
                Error::TooManyCards {
                    needed: 56,
                    available: 52,
                },
                "game.cards",
                "players x cards must be at most 52 x decks = 52; got 56",
            ),
            (
                Error::CardSyntax,
                "card",
                "a card is a rank (2-9, T, J, Q, K, A) followed by a suit (c, d, h, s), e.g. Td",
            ),
        ];
        for (err, field, message) in cases {
            assert_eq!(err.field().as_str(), field, "{err:?}");
            assert_eq!(err.field().to_string(), field, "{err:?}");
            assert_eq!(err.to_string(), message, "{err:?}");
        }
    }

    #[test]
    fn game_parameters_name_themselves_and_their_field() {
        for (param, name) in [
            (GameParam::Players, "players"),
            (GameParam::Cards, "cards"),
            (GameParam::Decks, "decks"),
        ] {
            assert_eq!(param.name(), name);
            assert_eq!(param.to_string(), name);
            assert_eq!(Field::from(param), Field::Game(param));
            assert_eq!(Field::from(param).as_str(), format!("game.{name}"));
        }
    }
}
