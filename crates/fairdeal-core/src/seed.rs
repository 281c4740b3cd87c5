//! The three inputs of a round — server seed, client seed, nonce — and the
//! commitment that binds the server seed before the client seed exists.
//!
//! Each type checks its rule once, at construction, so a value that exists is
//! valid: there is no way to hold an empty client seed or a 31-byte server seed.

use core::fmt;

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use zeroize::ZeroizeOnDrop;

use crate::Error;

/// Length of a server seed in bytes (256 bits, well above log2(52!) ≈ 225.6).
pub const SERVER_SEED_LEN: usize = 32;

/// Longest client seed, in UTF-8 bytes.
pub const CLIENT_SEED_MAX_LEN: usize = 64;

/// The operator's secret: 32 bytes from a CSPRNG.
///
/// It is deliberately awkward to leak: `Debug` prints a placeholder, there is
/// no `Display` and no `Serialize`, and the bytes are zeroed on drop. The hex
/// text is only available through [`ServerSeed::reveal_hex`], whose name says
/// what calling it means.
#[derive(Clone, ZeroizeOnDrop)]
pub struct ServerSeed([u8; SERVER_SEED_LEN]);

impl ServerSeed {
    /// Draws a new seed from the given cryptographically secure generator.
    pub fn generate<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut bytes = [0u8; SERVER_SEED_LEN];
        rng.try_fill_bytes(&mut bytes)?;
        Ok(Self(bytes))
    }

    /// Draws a new seed from the operating system's CSPRNG.
    pub fn from_os_rng() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; SERVER_SEED_LEN];
        getrandom::fill(&mut bytes)?;
        Ok(Self(bytes))
    }

    /// Wraps 32 raw bytes.
    pub fn from_bytes(bytes: [u8; SERVER_SEED_LEN]) -> Self {
        Self(bytes)
    }

    /// Parses 64 hexadecimal characters (either case).
    ///
    /// The error never repeats the input: a mistyped seed is still a secret.
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        let n_chars = text.chars().count();
        if n_chars != SERVER_SEED_LEN * 2 {
            return Err(Error::ServerSeedLength { n_chars });
        }
        let mut bytes = [0u8; SERVER_SEED_LEN];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| Error::ServerSeedNotHex {
            position: first_non_hex(text),
        })?;
        Ok(Self(bytes))
    }

    /// The raw seed bytes (the HMAC key).
    pub fn as_bytes(&self) -> &[u8; SERVER_SEED_LEN] {
        &self.0
    }

    /// The seed as 64 lowercase hex characters. Call this only to publish a
    /// seed that is being revealed, or to encrypt it for storage.
    pub fn reveal_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The commitment to this seed: SHA-256 of the 32 raw bytes.
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.0).into())
    }
}

impl fmt::Debug for ServerSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerSeed(<redacted>)")
    }
}

/// The position (from 1, in characters) of `text`'s first character that is
/// not a hexadecimal digit.
fn first_non_hex(text: &str) -> usize {
    text.chars()
        .position(|c| !c.is_ascii_hexdigit())
        .map_or(0, |i| i + 1)
}

/// The published SHA-256 hash of a server seed, written as 64 lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment([u8; 32]);

impl Commitment {
    /// Parses 64 hexadecimal characters (either case).
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        let n_chars = text.chars().count();
        if n_chars != 64 {
            return Err(Error::CommitmentLength { n_chars });
        }
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| Error::CommitmentNotHex {
            position: first_non_hex(text),
        })?;
        Ok(Self(bytes))
    }

    /// The 32 hash bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The commitment of these 32 hash bytes (in fairdeal-chain-v1, a
    /// published seed is the commitment of the round after it).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

/// The player's contribution: 1 to 64 bytes of UTF-8 with no control
/// characters (Unicode category Cc: U+0000–U+001F and U+007F–U+009F).
///
/// The bytes are used exactly as given: no trimming, no Unicode normalisation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ClientSeed(String);

impl ClientSeed {
    /// Checks the rule and wraps the text.
    pub fn new(text: impl Into<String>) -> Result<Self, Error> {
        let text = text.into();
        if text.is_empty() {
            return Err(Error::ClientSeedEmpty);
        }
        if text.len() > CLIENT_SEED_MAX_LEN {
            return Err(Error::ClientSeedTooLong {
                n_bytes: text.len(),
            });
        }
        if let Some((byte_idx, ch)) = text.char_indices().find(|(_, ch)| ch.is_control()) {
            return Err(Error::ClientSeedControlCharacter {
                byte_idx,
                code_point: u32::from(ch),
            });
        }
        Ok(Self(text))
    }

    /// The seed text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ClientSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClientSeed({:?})", self.0)
    }
}

impl TryFrom<String> for ClientSeed {
    type Error = Error;
    fn try_from(text: String) -> Result<Self, Error> {
        Self::new(text)
    }
}

impl TryFrom<&str> for ClientSeed {
    type Error = Error;
    fn try_from(text: &str) -> Result<Self, Error> {
        Self::new(text)
    }
}

/// Parses a nonce written in ASCII decimal (digits only, 0 to 2^64 − 1).
///
/// Rust's `u64::from_str` also takes a leading `+`; the protocol's text form
/// does not, so this is stricter.
pub fn parse_nonce(text: &str) -> Result<u64, Error> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::NonceNotDecimal);
    }
    text.parse().map_err(|_| Error::NonceTooLarge)
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{ClientSeed, Commitment};
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

    impl Serialize for Commitment {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }

    impl<'de> Deserialize<'de> for Commitment {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
            Commitment::from_hex(&text).map_err(de::Error::custom)
        }
    }

    impl Serialize for ClientSeed {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(self.as_str())
        }
    }

    impl<'de> Deserialize<'de> for ClientSeed {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = String::deserialize(deserializer)?;
            ClientSeed::new(text).map_err(de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_of_a_server_seed_hides_the_bytes() {
        let seed = ServerSeed::from_bytes([0xab; 32]);
        let shown = format!("{seed:?}");
        assert_eq!(shown, "ServerSeed(<redacted>)");
        assert!(!shown.to_lowercase().contains("abab"));
    }

    #[test]
    fn server_seeds_are_zeroed_on_drop() {
        fn zeroed_on_drop<T: ZeroizeOnDrop>() {}
        zeroed_on_drop::<ServerSeed>();
    }

    #[test]
    fn server_seed_errors_never_echo_the_input() {
        let secret = "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801z";
        let err = ServerSeed::from_hex(secret).expect_err("not hex");
        assert_eq!(err, Error::ServerSeedNotHex { position: 64 });
        assert!(!err.to_string().contains("d4905855"));
    }

    #[test]
    fn server_seed_hex_must_be_exactly_64_characters() {
        let err = |text: &str| ServerSeed::from_hex(text).err();
        assert_eq!(
            err(&"0".repeat(63)),
            Some(Error::ServerSeedLength { n_chars: 63 })
        );
        assert_eq!(
            err(&"0".repeat(65)),
            Some(Error::ServerSeedLength { n_chars: 65 })
        );
        assert_eq!(err(""), Some(Error::ServerSeedLength { n_chars: 0 }));
        // Multi-byte characters count as characters, not bytes, and are not hex.
        let odd = format!("{}é", "0".repeat(63));
        assert_eq!(err(&odd), Some(Error::ServerSeedNotHex { position: 64 }));
        assert!(ServerSeed::from_hex(&"AB".repeat(32)).is_ok());
    }

    #[test]
    fn generated_seeds_differ() {
        let a = ServerSeed::from_os_rng().expect("OS randomness");
        let b = ServerSeed::from_os_rng().expect("OS randomness");
        assert_ne!(a.as_bytes(), b.as_bytes());
    }

    #[test]
    fn hex_round_trip_is_lowercase() {
        let seed = ServerSeed::from_hex(&"AB".repeat(32)).expect("valid");
        assert_eq!(seed.reveal_hex(), "ab".repeat(32));
    }

    #[test]
    fn client_seed_rules() {
        assert_eq!(ClientSeed::new(""), Err(Error::ClientSeedEmpty));
        assert!(ClientSeed::new("x".repeat(64)).is_ok());
        assert_eq!(
            ClientSeed::new("x".repeat(65)),
            Err(Error::ClientSeedTooLong { n_bytes: 65 })
        );
        // 16 four-byte characters are 64 bytes: allowed; one more is not.
        assert!(ClientSeed::new("🂡".repeat(16)).is_ok());
        assert_eq!(
            ClientSeed::new("🂡".repeat(17)),
            Err(Error::ClientSeedTooLong { n_bytes: 68 })
        );
        assert_eq!(
            ClientSeed::new("ab\ncd"),
            Err(Error::ClientSeedControlCharacter {
                byte_idx: 2,
                code_point: 0x0a
            })
        );
        assert!(ClientSeed::new("a\u{7f}").is_err());
        assert!(ClientSeed::new("a\u{85}").is_err());
        assert!(ClientSeed::new(" spaced out ").is_ok());
    }

    #[test]
    fn nonce_is_plain_decimal_u64() {
        assert_eq!(parse_nonce("0"), Ok(0));
        assert_eq!(parse_nonce("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_nonce("18446744073709551616"),
            Err(Error::NonceTooLarge)
        );
        for bad in ["", "-1", "+1", "1.0", "0x10", " 1", "1e3"] {
            assert_eq!(parse_nonce(bad), Err(Error::NonceNotDecimal), "{bad:?}");
        }
    }
}
