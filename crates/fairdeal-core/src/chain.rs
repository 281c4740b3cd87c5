//! fairdeal-chain-v1: a seed pair's server seeds as a SHA-256 hash chain
//! committed before play, one seed revealed as each round ends
//! (docs/PROTOCOL.md §13). A chain of length N has a secret tip `s_N`;
//! `s_{i−1} = SHA-256(s_i)`; `s_0` is the pair's commitment. Round `k`
//! (nonce `k`, `0 ≤ k < N`) is exactly the fairdeal-v1 round with server
//! seed `s_{k+1}`, so its fairdeal-v1 commitment `SHA-256(s_{k+1})` is
//! `s_k`: the chain's commitment for round 0, the previous round's seed for
//! every later one. Dealing is fairdeal-v1, unchanged.

use core::fmt;

use sha2::{Digest, Sha256};

use crate::{Commitment, ServerSeed};

/// The protocol's name, as records write it.
pub const CHAIN_PROTOCOL: &str = "fairdeal-chain-v1";

/// The longest chain: 2^24 rounds (a verifier hashes at most this many
/// times to link a seed to the commitment).
pub const MAX_CHAIN_LENGTH: u64 = 1 << 24;

/// A chain's length out of its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainLengthError {
    /// The length (or round) given.
    pub got: u64,
}

impl fmt::Display for ChainLengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a chain's length must be 1 to {MAX_CHAIN_LENGTH}; got {}",
            self.got
        )
    }
}

impl std::error::Error for ChainLengthError {}

/// A chain's length, in its range (1 to [`MAX_CHAIN_LENGTH`]): checked
/// once, where it is read, and carried as this type from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChainLength(u64);

impl ChainLength {
    /// `length`, if it is 1 to [`MAX_CHAIN_LENGTH`].
    pub fn new(length: u64) -> Result<Self, ChainLengthError> {
        check_length(length).map(|()| Self(length))
    }

    /// The number of rounds.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ChainLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How a seed pair's rounds are dealt: fairdeal-v1 (one server seed,
/// revealed at rotation) or fairdeal-chain-v1 (a chain of seeds, one
/// published as each round ends). A new mode of pair is a new variant, and
/// every `match` on this type says what the mode changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairProtocol {
    /// fairdeal-v1: one server seed for every round, revealed at rotation.
    V1,
    /// fairdeal-chain-v1: a chain of this many seeds, one per round.
    Chain(ChainLength),
}

impl PairProtocol {
    /// The protocol's name, as records write it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::V1 => crate::PROTOCOL,
            Self::Chain(_) => CHAIN_PROTOCOL,
        }
    }

    /// A chain pair's length.
    pub const fn chain_length(self) -> Option<ChainLength> {
        match self {
            Self::V1 => None,
            Self::Chain(length) => Some(length),
        }
    }
}

/// One step down the chain: `s_{i−1} = SHA-256(s_i)`.
pub fn chain_step(seed: &ServerSeed) -> ServerSeed {
    ServerSeed::from_bytes(Sha256::digest(seed.as_bytes()).into())
}

/// `s_i` of the chain whose tip `s_N` is `tip` (`i ≤ N`): `N − i` steps
/// down from the tip.
pub fn chain_seed_at(
    tip: &ServerSeed,
    length: u64,
    i: u64,
) -> Result<ServerSeed, ChainLengthError> {
    check_length(length)?;
    if i > length {
        return Err(ChainLengthError { got: i });
    }
    let mut seed = tip.clone();
    for _ in i..length {
        seed = chain_step(&seed);
    }
    Ok(seed)
}

/// The chain's commitment, `s_0`, published before any client seed exists.
pub fn chain_commitment(tip: &ServerSeed, length: u64) -> Result<Commitment, ChainLengthError> {
    let s0 = chain_seed_at(tip, length, 0)?;
    Ok(Commitment::from_bytes(*s0.as_bytes()))
}

/// The fairdeal-v1 server seed of round `k` (nonce `k`): `s_{k+1}`.
pub fn chain_round_seed(
    tip: &ServerSeed,
    length: u64,
    k: u64,
) -> Result<ServerSeed, ChainLengthError> {
    if k >= length {
        return Err(ChainLengthError { got: k });
    }
    chain_seed_at(tip, length, k + 1)
}

/// Whether `seed` (a published `s_{k+1}`) hashes to `previous`: the
/// chain's commitment for round 0, the previous round's seed otherwise.
/// This is also round k's fairdeal-v1 commitment check.
pub fn chain_links(seed: &ServerSeed, previous: &Commitment) -> bool {
    chain_step(seed).as_bytes() == previous.as_bytes()
}

/// Whether the published seeds `s_1, s_2, …` (in round order) each link to
/// the one before, the first to the commitment `s_0`: `Err(k)` names the
/// first round whose seed does not.
pub fn check_chain_prefix(commitment: &Commitment, seeds: &[ServerSeed]) -> Result<(), usize> {
    let mut previous = *commitment;
    for (k, seed) in seeds.iter().enumerate() {
        if !chain_links(seed, &previous) {
            return Err(k);
        }
        previous = Commitment::from_bytes(*seed.as_bytes());
    }
    Ok(())
}

fn check_length(length: u64) -> Result<(), ChainLengthError> {
    if (1..=MAX_CHAIN_LENGTH).contains(&length) {
        Ok(())
    } else {
        Err(ChainLengthError { got: length })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_length_is_checked_once_and_names_its_protocol() {
        assert_eq!(ChainLength::new(0), Err(ChainLengthError { got: 0 }));
        assert_eq!(
            ChainLength::new(MAX_CHAIN_LENGTH + 1),
            Err(ChainLengthError {
                got: MAX_CHAIN_LENGTH + 1
            })
        );
        let length = ChainLength::new(MAX_CHAIN_LENGTH).expect("the longest");
        assert_eq!(length.get(), MAX_CHAIN_LENGTH);
        assert_eq!(PairProtocol::Chain(length).name(), "fairdeal-chain-v1");
        assert_eq!(PairProtocol::Chain(length).chain_length(), Some(length));
        assert_eq!(PairProtocol::V1.name(), "fairdeal-v1");
        assert_eq!(PairProtocol::V1.chain_length(), None);
    }

    #[test]
    fn each_round_seed_opens_the_one_before_and_the_first_the_commitment() {
        let tip = ServerSeed::from_bytes([7; 32]);
        let n = 9;
        let commitment = chain_commitment(&tip, n).expect("length");
        let seeds: Vec<ServerSeed> = (0..n)
            .map(|k| chain_round_seed(&tip, n, k).expect("round"))
            .collect();
        assert_eq!(check_chain_prefix(&commitment, &seeds), Ok(()));
        // Round k's fairdeal-v1 commitment is s_k.
        assert_eq!(seeds[0].commitment(), commitment);
        assert_eq!(
            seeds[4].commitment(),
            Commitment::from_bytes(*seeds[3].as_bytes())
        );
        // The last round's seed is the tip.
        assert_eq!(seeds[8].as_bytes(), tip.as_bytes());
        // A seed out of place, or changed, is named.
        let mut swapped = seeds.clone();
        swapped.swap(2, 3);
        assert_eq!(check_chain_prefix(&commitment, &swapped), Err(2));
        let mut changed = seeds.clone();
        changed[5] = ServerSeed::from_bytes([8; 32]);
        assert_eq!(check_chain_prefix(&commitment, &changed), Err(5));
        // Lengths and rounds out of range.
        assert!(chain_commitment(&tip, 0).is_err());
        assert!(chain_commitment(&tip, MAX_CHAIN_LENGTH + 1).is_err());
        assert!(chain_round_seed(&tip, n, n).is_err());
    }
}
