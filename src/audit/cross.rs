//! `fairdeal audit EXPORT --log URL` in bounded memory: what the export
//! says of each pair, reduced to a digest ([`ExportDigests`]), held against
//! the same digest of what the log says of it, computed as the log is read
//! and compared when the log reveals the pair (the checker keeps nothing of
//! a revealed pair). A pair whose digests differ is named; the command then
//! reads the export and the log again for those pairs alone, to say what
//! differs (`cli::audit`).
//!
//! A pair's digest covers its commitment, revealed seed and client seed
//! (the SHA-256 of it, as the log holds it), and the set of its rounds
//! (nonce, game and round id): a sum, modulo 2^128, of a 128-bit hash of
//! each round, so that the order rounds come in does not matter. Hashes are
//! SHA-256, cut to 128 bits: making two different pairs' digests equal
//! takes about 2^64 work (a birthday search), and a pair's digest equal to
//! a given one about 2^128.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::ids::{Id, uuid_of};

/// A pair's id as the log checker keys it (`monitor::Id`): its UUID, or
/// the number [`ExportDigests`] gave its text.
type Key = Id;

/// The first 16 bytes of the SHA-256 of `parts`, each after its length (no
/// two lists of parts hash alike): a key for a hash given as text, and the
/// digests here.
pub(super) fn digest16(parts: &[&[u8]]) -> [u8; 16] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    let mut out = [0; 16];
    out.copy_from_slice(&hasher.finalize()[..16]);
    out
}

/// The digest of a pair's commitment, revealed seed and client seed's
/// SHA-256 (all hex, compared without regard to case).
pub(crate) fn fields_digest(
    commitment: &str,
    server_seed: &str,
    client_seed_sha256: &str,
) -> [u8; 16] {
    digest16(&[
        commitment.to_ascii_lowercase().as_bytes(),
        server_seed.to_ascii_lowercase().as_bytes(),
        client_seed_sha256.to_ascii_lowercase().as_bytes(),
    ])
}

/// One round's share of its pair's digest: its nonce, its game (as JSON
/// with sorted keys, so that the export's and the log's spelling of one
/// game agree) and its id.
#[cfg(test)]
pub(crate) fn round_digest(nonce: u64, game: &Value, id: &str) -> u128 {
    round_digest_of_text(nonce, &serde_json::to_string(game).unwrap_or_default(), id)
}

/// [`round_digest`] of a game already as JSON with sorted keys
/// ([`GameTexts::sorted`]).
pub(crate) fn round_digest_of_text(nonce: u64, game: &str, id: &str) -> u128 {
    u128::from_be_bytes(digest16(&[
        &nonce.to_be_bytes(),
        game.as_bytes(),
        id.as_bytes(),
    ]))
}

/// Games as JSON with sorted keys, remembered by their text as given: a
/// log or an export holds a few games, each spelled the same way a
/// million times, and each round parsed and wrote its game again (2.3 s
/// of 54 s of CPU in `audit --log` over ten million entries). At most [`GameTexts::MOST`] are remembered (a hostile
/// log spelling each game anew costs what it did before, no memory).
#[derive(Debug, Default)]
pub(crate) struct GameTexts {
    known: std::collections::HashMap<Box<str>, Box<str>>,
}

impl GameTexts {
    const MOST: usize = 256;

    /// `raw` (a game's JSON as given) with its keys sorted; `null` when it
    /// is not JSON.
    pub(crate) fn sorted(&mut self, raw: &str) -> std::borrow::Cow<'_, str> {
        if !self.known.contains_key(raw) {
            let sorted = serde_json::from_str::<Value>(raw)
                .map(|game| game.to_string())
                .unwrap_or_else(|_| "null".to_owned());
            if self.known.len() >= Self::MOST {
                return std::borrow::Cow::Owned(sorted);
            }
            self.known.insert(raw.into(), sorted.into());
        }
        std::borrow::Cow::Borrowed(&self.known[raw])
    }
}

/// A chain round's published seed's share of its pair's digest (added to
/// its round's): a chain pair's fields digest leaves out its revealed tip,
/// which the audit and the monitor each hold to the round seeds.
pub(crate) fn chain_seed_digest(nonce: u64, seed: &str) -> u128 {
    u128::from_be_bytes(digest16(&[
        b"round_seed",
        &nonce.to_be_bytes(),
        seed.to_ascii_lowercase().as_bytes(),
    ]))
}

/// A pair the log revealed, reduced to what the export is held against:
/// its id, the index of its reveal entry, the digest of its commitment,
/// revealed seed and client seed, and of its rounds.
///
/// It is also a record of the ledger a monitor keeps beside its state
/// (`STATE.digests`), one for each pair the log revealed, in the log's
/// order: `fairdeal audit EXPORT --log URL --state STATE` holds the export
/// against these records instead of reading the entries they came from
/// again. A record: the pair's id (its length as 4 bytes, little-endian,
/// then its UTF-8 text), the reveal's index (8 bytes), the fields digest
/// (16 bytes), the rounds' digest (16 bytes) and the number of rounds (8
/// bytes), the numbers little-endian. The snapshot the ledger was kept
/// with vouches for its records with a hash chain
/// ([`super::monitor::LedgerMark`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PairDigest {
    pub pair: Box<str>,
    pub index: u64,
    pub fields: [u8; 16],
    pub rounds: u128,
    pub count: u64,
}

impl PairDigest {
    /// Appends the record to `out` (see [`PairDigest`]).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.pair.len() as u32).to_le_bytes());
        out.extend_from_slice(self.pair.as_bytes());
        out.extend_from_slice(&self.index.to_le_bytes());
        out.extend_from_slice(&self.fields);
        out.extend_from_slice(&self.rounds.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
    }

    /// The next record of `from`; `None` at its end. A record cut short or
    /// not UTF-8 is an error (a damaged ledger; other damage is the hash
    /// chain's to find).
    pub(crate) fn read(from: &mut impl std::io::Read) -> std::io::Result<Option<Self>> {
        let damaged = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        // Nothing left is the end; part of a length is a record cut short.
        let mut length = [0; 4];
        let mut got = 0;
        while got < length.len() {
            match from.read(&mut length[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => got += n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        let length = u32::from_le_bytes(length) as usize;
        // A log's ids are at most 64 KiB (more is a damaged ledger).
        if length > 1 << 16 {
            return Err(damaged(format!("a record's id of {length} bytes")));
        }
        let mut pair = vec![0; length];
        from.read_exact(&mut pair)?;
        let mut rest = [0; 48];
        from.read_exact(&mut rest)?;
        let pair = String::from_utf8(pair).map_err(|_| damaged("an id not UTF-8".to_owned()))?;
        let number =
            |at: usize| u64::from_le_bytes(rest[at..at + 8].try_into().unwrap_or_default());
        Ok(Some(Self {
            pair: pair.into(),
            index: number(0),
            fields: rest[8..24].try_into().unwrap_or_default(),
            rounds: u128::from_le_bytes(rest[24..40].try_into().unwrap_or_default()),
            count: number(40),
        }))
    }
}

/// What one pair's rounds in the export say, reduced.
#[derive(Clone, Copy, Debug)]
struct Exported {
    id: Key,
    /// The line of its first round.
    line: u64,
    fields: [u8; 16],
    /// The sum of its rounds' digests (a `u128`, as bytes: 64 bytes a
    /// record, not 80).
    rounds: [u8; 16],
    count: u32,
}

/// The export's pairs, reduced to 64 bytes each, in order of id once
/// [`ExportDigests::seal`]ed.
#[derive(Debug, Default)]
pub struct ExportDigests {
    pairs: Vec<Exported>,
    /// Pair ids that are not UUIDs, numbered.
    odd: std::collections::HashMap<String, u64>,
    /// Which pairs the log revealed with the same digest.
    matched: Vec<bool>,
    sealed: bool,
    games: GameTexts,
    /// The log's reveals the export says it covers (its end line).
    coverage: Option<super::export::LogCoverage>,
}

/// What a pair's digests say when the log reveals it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// The export has the pair, with the same digest.
    Same,
    /// The export has the pair, with another digest.
    Differs,
    /// The export does not have the pair.
    Absent,
}

impl ExportDigests {
    /// Takes a round of the export (in the export's order; `game` its
    /// JSON as written). A chain round's `server_seed` is its own, part of
    /// the round's digest.
    #[allow(clippy::too_many_arguments)]
    pub fn round(
        &mut self,
        line: u64,
        pair: &str,
        nonce: u64,
        game: &str,
        id: &str,
        commitment: &str,
        server_seed: &str,
        client_seed: &str,
        chain: bool,
    ) {
        let key = match uuid_of(pair) {
            Some(uuid) => Id::uuid(uuid),
            None => {
                let next = self.odd.len() as u64;
                Id::numbered(*self.odd.entry(pair.to_owned()).or_insert(next))
            }
        };
        let mut digest = round_digest_of_text(nonce, &self.games.sorted(game), id);
        let server_seed = if chain {
            digest = digest.wrapping_add(chain_seed_digest(nonce, server_seed));
            ""
        } else {
            server_seed
        };
        // Rounds of one pair usually come together: a pair seen again
        // later gets a second record, merged when sealed.
        if let Some(last) = self.pairs.last_mut()
            && last.id == key
        {
            last.rounds = u128::from_le_bytes(last.rounds)
                .wrapping_add(digest)
                .to_le_bytes();
            last.count = last.count.saturating_add(1);
            return;
        }
        self.pairs.push(Exported {
            id: key,
            line,
            fields: fields_digest(
                commitment,
                server_seed,
                &crate::tlog::entry::client_seed_sha256(client_seed),
            ),
            rounds: digest.to_le_bytes(),
            count: 1,
        });
    }

    /// Every round taken: the pairs in order of id, one record each (the
    /// first line and seeds of a pair stand; its rounds are summed).
    pub fn seal(&mut self) {
        // (id, first line) is unique: an unstable sort gives the one order,
        // without the stable sort's buffer of half the records (32 MB over a
        // million pairs, while the log's reader holds its own).
        self.pairs.sort_unstable_by_key(|p| (p.id, p.line));
        self.pairs.dedup_by(|later, first| {
            let same = later.id == first.id;
            if same {
                first.rounds = u128::from_le_bytes(first.rounds)
                    .wrapping_add(u128::from_le_bytes(later.rounds))
                    .to_le_bytes();
                first.count = first.count.saturating_add(later.count);
            }
            same
        });
        self.pairs.shrink_to_fit();
        self.matched = vec![false; self.pairs.len()];
        self.sealed = true;
    }

    /// The log's reveals the export says it covers (its end line's `log`).
    pub fn cover(&mut self, coverage: Option<super::export::LogCoverage>) {
        self.coverage = coverage;
    }

    /// See [`ExportDigests::cover`].
    pub fn coverage(&self) -> Option<super::export::LogCoverage> {
        self.coverage
    }

    /// The number of pairs the export's rounds name.
    pub fn pairs(&self) -> usize {
        self.pairs.len()
    }

    /// Holds the log's digest of a revealed pair against the export's.
    pub(crate) fn hold(&mut self, pair: &str, fields: [u8; 16], rounds: u128, count: u64) -> Held {
        debug_assert!(self.sealed);
        let key = uuid_of(pair)
            .map(Id::uuid)
            .or_else(|| self.odd.get(pair).map(|n| Id::numbered(*n)));
        let Some(Ok(at)) = key.map(|key| self.pairs.binary_search_by_key(&key, |p| p.id)) else {
            return Held::Absent;
        };
        let exported = self.pairs[at];
        if exported.fields == fields
            && u128::from_le_bytes(exported.rounds) == rounds
            && u64::from(exported.count) == count
        {
            self.matched[at] = true;
            Held::Same
        } else {
            Held::Differs
        }
    }

    /// The pairs of the export the log never revealed with the same
    /// digest: (first line, pair id).
    pub fn unmatched(&self) -> impl Iterator<Item = (u64, String)> + '_ {
        let odd: std::collections::HashMap<Key, &str> = self
            .odd
            .iter()
            .map(|(text, n)| (Id::numbered(*n), text.as_str()))
            .collect();
        self.pairs
            .iter()
            .zip(&self.matched)
            .filter(|(_, matched)| !**matched)
            .map(move |(p, _)| (p.line, name(p.id, &odd)))
    }
}

/// The text of a pair's key.
fn name(key: Key, odd: &std::collections::HashMap<Key, &str>) -> String {
    if key.0[0] == 0 {
        let mut uuid = [0; 16];
        uuid.copy_from_slice(&key.0[1..]);
        return uuid::Uuid::from_bytes(uuid).hyphenated().to_string();
    }
    odd.get(&key).map(|t| (*t).to_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pairs_digest_does_not_depend_on_round_order_or_key_order_and_changes_with_any_field() {
        let game = json!({"type": "holdem", "players": 6});
        let as_written = r#"{"type":"holdem","players":6}"#;
        let reordered: Value =
            serde_json::from_str(r#"{"players":6,"type":"holdem"}"#).expect("JSON");
        let mut export = ExportDigests::default();
        for (line, nonce) in [(1, 0), (2, 1), (3, 2)] {
            export.round(
                line,
                "p",
                nonce,
                as_written,
                &format!("r{nonce}"),
                "AA",
                "bb",
                "lucky",
                false,
            );
        }
        // The same pair again further down: merged.
        export.round(9, "q", 0, as_written, "q0", "cc", "dd", "x", false);
        export.round(10, "p", 3, as_written, "r3", "aa", "bb", "lucky", false);
        export.seal();
        assert_eq!(export.pairs(), 2);
        let fields = fields_digest("aa", "BB", &crate::tlog::entry::client_seed_sha256("lucky"));
        let rounds = [3u64, 1, 0, 2]
            .iter()
            .map(|&n| round_digest(n, &reordered, &format!("r{n}")))
            .fold(0u128, u128::wrapping_add);
        assert_eq!(export.hold("p", fields, rounds, 4), Held::Same);
        // Any difference: a seed, a round's id or game, a round fewer.
        let other = fields_digest("aa", "bc", &crate::tlog::entry::client_seed_sha256("lucky"));
        assert_eq!(export.hold("p", other, rounds, 4), Held::Differs);
        let renamed = rounds
            .wrapping_sub(round_digest(2, &game, "r2"))
            .wrapping_add(round_digest(2, &game, "r2x"));
        assert_eq!(export.hold("p", fields, renamed, 4), Held::Differs);
        let regamed = rounds
            .wrapping_sub(round_digest(2, &game, "r2"))
            .wrapping_add(round_digest(2, &json!({"type": "deck"}), "r2"));
        assert_eq!(export.hold("p", fields, regamed, 4), Held::Differs);
        let fewer = rounds.wrapping_sub(round_digest(3, &game, "r3"));
        assert_eq!(export.hold("p", fields, fewer, 3), Held::Differs);
        assert_eq!(export.hold("z", fields, rounds, 4), Held::Absent);
        // p matched once; q never revealed by the log.
        let unmatched: Vec<(u64, String)> = export.unmatched().collect();
        assert_eq!(unmatched, [(9, "q".to_owned())]);
    }

    #[test]
    fn games_are_sorted_once_and_read_the_same_remembered_or_not() {
        let mut games = GameTexts::default();
        let sorted = r#"{"players":6,"type":"holdem"}"#;
        assert_eq!(games.sorted(r#"{"type":"holdem","players":6}"#), sorted);
        assert_eq!(games.sorted(r#"{"type": "holdem", "players": 6}"#), sorted);
        assert_eq!(games.sorted(r#"{"type":"holdem","players":6}"#), sorted);
        assert_eq!(games.sorted("not JSON"), "null");
        assert_eq!(games.known.len(), 3);
        // Past the most remembered: the same answers, nothing more kept.
        for players in 0..GameTexts::MOST {
            games.sorted(&format!(r#"{{"type":"holdem","players":{players}}}"#));
        }
        assert_eq!(games.known.len(), GameTexts::MOST);
        assert_eq!(games.sorted(r#"{ "players":6,"type":"holdem"}"#), sorted);
        assert_eq!(games.known.len(), GameTexts::MOST);
    }
}
