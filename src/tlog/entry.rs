//! Log entries: one JSON object per event, with a `type`, written as RFC 8785
//! (JCS) canonical JSON so that anyone re-encoding the same object gets the
//! same bytes, hence the same leaf hash.
//!
//! The log never holds a raw user string (a client seed appears as its
//! SHA-256) nor cards (they follow from the commitment once revealed, and
//! hole cards must not leak before).

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Largest nonce a log entry states exactly: JCS writes numbers as IEEE
/// doubles, exact up to 2^53.
pub const MAX_LOGGED_NONCE: u64 = (1 << 53) - 1;

/// One event, as logged.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// A seed pair committed (created, or opened by a rotation).
    Commit {
        seed_pair: String,
        server_seed_hash: String,
        next_server_seed_hash: String,
        predecessor: Option<String>,
        /// The tenant (brand) the pair belongs to, as an opaque id
        /// ([`crate::service::sealing::MasterKey::tenant_id`]): the same for
        /// every pair of one tenant, never its name. Absent from entries
        /// written before it existed.
        #[serde(skip_serializing_if = "Option::is_none")]
        tenant: Option<String>,
        /// A table pair's seats, in seat order, each as the SHA-256 of its
        /// label (absent for a one-player pair, so older entries keep their
        /// bytes).
        #[serde(skip_serializing_if = "Option::is_none")]
        seats: Option<Vec<String>>,
        /// A table pair's set of seats, whatever their order and however
        /// written ([`seat_set`]): the same players reseated are the same
        /// set, so their voids are counted together.
        #[serde(skip_serializing_if = "Option::is_none")]
        seat_set: Option<String>,
        /// A fairdeal-chain-v1 pair's chain length (its `server_seed_hash`
        /// is the chain's `s_0`, its `next_server_seed_hash` the successor
        /// chain's, of the same length); absent for a fairdeal-v1 pair.
        #[serde(skip_serializing_if = "Option::is_none")]
        chain_length: Option<u64>,
        time: String,
    },
    /// A table seat's commitment to its contribution (seat by position,
    /// from 0).
    SeatCommitment {
        seed_pair: String,
        seat: u32,
        commitment: String,
        time: String,
    },
    /// A table seat's contribution, revealed (it hashes to the seat's
    /// logged commitment; the log holds no raw user string).
    SeatContribution {
        seed_pair: String,
        seat: u32,
        time: String,
    },
    /// A table pair voided: the seats that stalled in `phase` (`commit` or
    /// `reveal`), and its server seed, revealed at once (it dealt nothing).
    TableVoid {
        seed_pair: String,
        phase: String,
        stalled_seats: Vec<u32>,
        server_seed: String,
        time: String,
    },
    /// The pair's client seed, set (for a table pair: derived from its
    /// seats' contributions).
    ClientSeed {
        seed_pair: String,
        client_seed_sha256: String,
        /// SHA-256 of the seed's lookalike-folded form
        /// ([`crate::text::lookalike_sha256`]): two seeds that look alike have
        /// the same. Absent from entries written before it existed.
        #[serde(skip_serializing_if = "Option::is_none")]
        client_seed_lookalike_sha256: Option<String>,
        time: String,
    },
    /// A round dealt (without its cards).
    Round {
        seed_pair: String,
        round: String,
        nonce: u64,
        game: serde_json::Value,
        time: String,
    },
    /// A draw committed: its entrant list (hash and count), how many it
    /// draws, its server seed's commitment, and the hash of the operator's
    /// statement of where the client seed will come from.
    DrawCommit {
        draw: String,
        entries_sha256: String,
        entries: u64,
        winners: u64,
        server_seed_hash: String,
        client_seed_source_sha256: String,
        /// The tenant's opaque id, as on `commit` entries.
        #[serde(skip_serializing_if = "Option::is_none")]
        tenant: Option<String>,
        time: String,
    },
    /// A draw's client seed, set.
    DrawClientSeed {
        draw: String,
        client_seed_sha256: String,
        /// As on `client_seed` entries.
        #[serde(skip_serializing_if = "Option::is_none")]
        client_seed_lookalike_sha256: Option<String>,
        time: String,
    },
    /// A draw run: its winners' entrant indices, winner 1 first, and its
    /// server seed, revealed at once.
    DrawResult {
        draw: String,
        winners: Vec<u32>,
        server_seed: String,
        time: String,
    },
    /// A chain pair's round seed `s_{k+1}`, published once the round and
    /// every earlier round of the pair ended. Entries of one pair come in
    /// nonce order, each after its round's `round` entry; each seed hashes
    /// to the one before (the first to the pair's commitment).
    RoundSeed {
        seed_pair: String,
        round: String,
        nonce: u64,
        server_seed: String,
        time: String,
    },
    /// The pair's server seed, revealed by rotation (`successor` names the
    /// pair it opened) or because the session ended (`successor` is null).
    Reveal {
        seed_pair: String,
        server_seed: String,
        successor: Option<String>,
        time: String,
    },
    /// The witnesses the service asks to cosign its checkpoints from now
    /// on, the whole set (each change logs it again), and how many of them
    /// make a checkpoint witnessed.
    WitnessSet {
        witnesses: Vec<LoggedWitness>,
        quorum: u64,
        time: String,
    },
}

/// One witness of a [`Entry::WitnessSet`]: its cosignature verifier key
/// and where the service submits checkpoints to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LoggedWitness {
    pub vkey: String,
    pub url: String,
}

impl Entry {
    /// The entry's bytes: its canonical JSON.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        if let Entry::Round { nonce, .. } = self {
            anyhow::ensure!(
                *nonce <= MAX_LOGGED_NONCE,
                "a logged nonce must be at most 2^53 - 1"
            );
        }
        Ok(serde_json_canonicalizer::to_vec(self)?)
    }
}

/// A table's set of seats: hex SHA-256 over its labels, each in its
/// lookalike-folded form ([`crate::text::lookalike_fold`]: the form in which
/// the service refuses two labels at one table), sorted by their bytes, each
/// preceded by its length in bytes (u16, big-endian). Reseating the same
/// players in another order, or writing their labels in another case or
/// Unicode form, or with letters of another script that look the same,
/// gives the same set.
pub fn seat_set(labels: &[String]) -> String {
    framed_set(
        labels
            .iter()
            .map(|label| crate::text::lookalike_fold(label)),
    )
}

/// The set of seats as entries written with the second lookalike-folded
/// form (between migrations 0019 and 0021) state it
/// ([`crate::text::lookalike_fold_v2`]). A checker accepts it too.
pub fn seat_set_v2(labels: &[String]) -> String {
    framed_set(
        labels
            .iter()
            .map(|label| crate::text::lookalike_fold_v2(label)),
    )
}

/// The set of seats as entries written with the first lookalike-folded
/// form state it ([`crate::text::lookalike_fold_v1`]). A checker accepts
/// it too, since a published entry keeps its bytes.
pub fn seat_set_v1(labels: &[String]) -> String {
    framed_set(
        labels
            .iter()
            .map(|label| crate::text::lookalike_fold_v1(label)),
    )
}

/// The set of seats as entries written before lookalikes were folded state
/// it: each label NFKC-normalised and lower-cased. A checker accepts either
/// form, since a published entry keeps its bytes.
pub fn seat_set_nfkc(labels: &[String]) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    framed_set(
        labels
            .iter()
            .map(|label| label.nfkc().collect::<String>().to_lowercase()),
    )
}

fn framed_set(folded: impl Iterator<Item = String>) -> String {
    let mut folded: Vec<String> = folded.collect();
    folded.sort_unstable();
    let mut hash = Sha256::new();
    for label in &folded {
        hash.update((label.len() as u16).to_be_bytes());
        hash.update(label.as_bytes());
    }
    hex::encode(hash.finalize())
}

/// Lowercase hex SHA-256 of a client seed's UTF-8 bytes, as logged.
pub fn client_seed_sha256(client_seed: &str) -> String {
    hex::encode(Sha256::digest(client_seed.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_canonical_json_with_their_type() {
        let entry = Entry::Round {
            seed_pair: "p".into(),
            round: "r".into(),
            nonce: 7,
            game: serde_json::json!({"type": "holdem", "players": 6}),
            time: "2026-11-22T06:08:50.007Z".into(),
        };
        assert_eq!(
            String::from_utf8(entry.to_bytes().expect("bytes")).expect("UTF-8"),
            r#"{"game":{"players":6,"type":"holdem"},"nonce":7,"round":"r","seed_pair":"p","time":"2026-11-22T06:08:50.007Z","type":"round"}"#
        );
        let commit = Entry::Commit {
            seed_pair: "p".into(),
            server_seed_hash: "aa".into(),
            next_server_seed_hash: "bb".into(),
            predecessor: None,
            tenant: None,
            seats: None,
            seat_set: None,
            chain_length: None,
            time: "t".into(),
        };
        assert_eq!(
            String::from_utf8(commit.to_bytes().expect("bytes")).expect("UTF-8"),
            r#"{"next_server_seed_hash":"bb","predecessor":null,"seed_pair":"p","server_seed_hash":"aa","time":"t","type":"commit"}"#
        );
        let seed = Entry::RoundSeed {
            seed_pair: "p".into(),
            round: "r".into(),
            nonce: 2,
            server_seed: "cc".into(),
            time: "t".into(),
        };
        assert_eq!(
            String::from_utf8(seed.to_bytes().expect("bytes")).expect("UTF-8"),
            r#"{"nonce":2,"round":"r","seed_pair":"p","server_seed":"cc","time":"t","type":"round_seed"}"#
        );
    }

    #[test]
    fn a_nonce_beyond_what_json_numbers_hold_exactly_is_refused() {
        let round = |nonce| Entry::Round {
            seed_pair: "p".into(),
            round: "r".into(),
            nonce,
            game: serde_json::json!({"type": "deck"}),
            time: "t".into(),
        };
        assert!(round(MAX_LOGGED_NONCE).to_bytes().is_ok());
        assert!(round(MAX_LOGGED_NONCE + 1).to_bytes().is_err());
    }

    #[test]
    fn a_seat_set_ignores_order_case_and_unicode_form() {
        let set =
            |labels: &[&str]| seat_set(&labels.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>());
        let base = set(&["Zo\u{eb}", "ann", "Ben"]);
        assert_eq!(base, set(&["ben", "ANN", "zoe\u{308}"]));
        // An accent is a mark drawn over a letter: Zoë and Zoe look alike.
        assert_eq!(base, set(&["zoe", "ann", "ben"]));
        assert_ne!(base, set(&["zed", "ann", "ben"]));
        // Sets logged with the first folded form are still read as such.
        let v1 = seat_set_v1(&["Zo\u{eb}".to_owned(), "ann".to_owned(), "Ben".to_owned()]);
        assert_ne!(v1, base);
        assert_eq!(
            v1,
            seat_set_v1(&["ben".to_owned(), "ANN".to_owned(), "zoe\u{308}".to_owned()])
        );
        // A capital I is the letter i (the second form read it as l).
        let (ivy, second) = (
            set(&["IVY", "ann"]),
            seat_set_v2(&["IVY".to_owned(), "ann".to_owned()]),
        );
        assert_eq!(ivy, set(&["ivy", "Ann"]));
        assert_ne!(second, seat_set_v2(&["ivy".to_owned(), "ann".to_owned()]));
        assert_eq!(second, seat_set_v2(&["lvy".to_owned(), "ANN".to_owned()]));
        // Cyrillic а and е in place of Latin letters: the same players.
        assert_eq!(set(&["ana", "ben"]), set(&["\u{430}n\u{430}", "b\u{435}n"]));
        assert_ne!(base, set(&["ann", "ben"]));
        // Framed: ["ab", "c"] and ["a", "bc"] differ.
        assert_ne!(set(&["ab", "c"]), set(&["a", "bc"]));
    }

    #[test]
    fn a_client_seed_is_logged_as_its_hash() {
        assert_eq!(
            client_seed_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
