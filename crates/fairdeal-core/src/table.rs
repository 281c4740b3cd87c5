//! fairdeal-table-v1: a table's client seed, derived from every seat's own
//! contribution (docs/PROTOCOL.md §11). Each seat commits to the SHA-256 of
//! its contribution, reveals it once every seat has committed, and the
//! client seed is a hash over all of them in seat order — so no seat, and
//! not the operator, can choose it. Dealing itself is fairdeal-v1,
//! unchanged.

use core::fmt;

use sha2::{Digest, Sha256};

use crate::ClientSeed;

/// The derivation's domain: the first bytes hashed, then a zero byte.
pub const TABLE_PROTOCOL: &str = "fairdeal-table-v1";
/// Fewest seats a table has.
pub const MIN_SEATS: usize = 2;
/// Most seats a table has.
pub const MAX_SEATS: usize = 22;

/// A table's seats: 2 to 22 distinct labels, each 1 to 64 bytes of UTF-8
/// without control characters (the rules of a client seed), in seat order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seats(Vec<String>);

impl Seats {
    /// Checks the labels.
    pub fn new(labels: Vec<String>) -> Result<Self, TableError> {
        if !(MIN_SEATS..=MAX_SEATS).contains(&labels.len()) {
            return Err(TableError::SeatCount { got: labels.len() });
        }
        for (seat, label) in labels.iter().enumerate() {
            ClientSeed::new(label.as_str()).map_err(|err| TableError::Label {
                seat,
                rule: rule_of(&err),
            })?;
            if labels[..seat].contains(label) {
                return Err(TableError::DuplicateLabel { seat });
            }
        }
        Ok(Self(labels))
    }

    /// The labels, in seat order.
    pub fn labels(&self) -> &[String] {
        &self.0
    }

    /// The seat of `label`.
    pub fn position(&self, label: &str) -> Option<usize> {
        self.0.iter().position(|l| l == label)
    }
}

/// The rule a client-seed-like string broke, without the words "client
/// seed" (it is a label or a contribution here).
fn rule_of(err: &crate::Error) -> String {
    let text = err.to_string();
    text.strip_prefix("client seed ")
        .map_or_else(|| text.clone(), str::to_owned)
}

/// A seat's secret contribution: 1 to 64 bytes of UTF-8 without control
/// characters.
#[derive(Clone, PartialEq, Eq)]
pub struct Contribution(String);

impl Contribution {
    /// Checks the rules.
    pub fn new(text: impl Into<String>) -> Result<Self, TableError> {
        let text = text.into();
        ClientSeed::new(text.as_str()).map_err(|err| TableError::Contribution {
            rule: rule_of(&err),
        })?;
        Ok(Self(text))
    }

    /// The contribution.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What a seat commits to first: lowercase hex SHA-256 of the
    /// contribution's UTF-8 bytes.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }
}

impl fmt::Debug for Contribution {
    // Secret until every seat has committed: not printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Contribution(<redacted>)")
    }
}

/// The table's client seed: lowercase hex SHA-256 over
/// `"fairdeal-table-v1" ‖ 0x00 ‖` then, for each seat in order,
/// `u16be(len(label)) ‖ label ‖ u16be(len(contribution)) ‖ contribution`.
/// `contributions[i]` is seat `i`'s.
pub fn table_client_seed(
    seats: &Seats,
    contributions: &[Contribution],
) -> Result<ClientSeed, TableError> {
    if contributions.len() != seats.0.len() {
        return Err(TableError::ContributionCount {
            seats: seats.0.len(),
            got: contributions.len(),
        });
    }
    let mut hash = Sha256::new();
    hash.update(TABLE_PROTOCOL.as_bytes());
    hash.update([0u8]);
    for (label, contribution) in seats.0.iter().zip(contributions) {
        for part in [label.as_bytes(), contribution.0.as_bytes()] {
            // At most 64 bytes each: the length fits two bytes.
            hash.update((part.len() as u16).to_be_bytes());
            hash.update(part);
        }
    }
    Ok(ClientSeed::new(hex::encode(hash.finalize()))
        .expect("64 hex characters are a valid client seed"))
}

/// Why a table's inputs were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableError {
    /// Not 2 to 22 seats.
    SeatCount {
        /// How many were given.
        got: usize,
    },
    /// A seat label breaks the rules of a client seed.
    Label {
        /// The seat, from 0.
        seat: usize,
        /// The rule.
        rule: String,
    },
    /// A seat label repeats an earlier one.
    DuplicateLabel {
        /// The seat, from 0.
        seat: usize,
    },
    /// A contribution breaks its rules.
    Contribution {
        /// The rule.
        rule: String,
    },
    /// Not one contribution per seat.
    ContributionCount {
        /// Seats at the table.
        seats: usize,
        /// Contributions given.
        got: usize,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::SeatCount { got } => {
                write!(f, "a table has {MIN_SEATS} to {MAX_SEATS} seats; got {got}")
            }
            TableError::Label { seat, rule } => write!(f, "seat {seat}'s label: {rule}"),
            TableError::DuplicateLabel { seat } => {
                write!(f, "seat {seat}'s label repeats an earlier seat's")
            }
            TableError::Contribution { rule } => write!(f, "contribution: {rule}"),
            TableError::ContributionCount { seats, got } => write!(
                f,
                "one contribution per seat: {seats} seats, {got} contributions"
            ),
        }
    }
}

impl std::error::Error for TableError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(labels: &[&str]) -> Seats {
        Seats::new(labels.iter().map(|l| (*l).to_owned()).collect()).expect("valid")
    }

    fn contributions(texts: &[&str]) -> Vec<Contribution> {
        texts
            .iter()
            .map(|t| Contribution::new(*t).expect("valid"))
            .collect()
    }

    /// The derivation written out by hand for two seats.
    #[test]
    fn the_client_seed_is_the_hash_of_the_framed_contributions() {
        let got =
            table_client_seed(&seats(&["ab", "c"]), &contributions(&["x", "yz"])).expect("derives");
        let mut bytes = b"fairdeal-table-v1\x00".to_vec();
        bytes.extend_from_slice(b"\x00\x02ab\x00\x01x\x00\x01c\x00\x02yz");
        assert_eq!(got.as_str(), hex::encode(Sha256::digest(&bytes)));
    }

    /// Framing: moving a byte from a label to its contribution, or between
    /// seats, changes the seed (no two tables hash the same bytes).
    #[test]
    fn the_framing_is_unambiguous() {
        let a = table_client_seed(&seats(&["ab", "c"]), &contributions(&["x", "y"]));
        let b = table_client_seed(&seats(&["a", "c"]), &contributions(&["bx", "y"]));
        let c = table_client_seed(&seats(&["c", "ab"]), &contributions(&["y", "x"]));
        assert_ne!(a, b);
        assert_ne!(a, c, "seat order matters");
    }

    #[test]
    fn inputs_are_checked_and_named() {
        let labels = |l: &[&str]| Seats::new(l.iter().map(|s| (*s).to_owned()).collect());
        assert_eq!(labels(&["a"]), Err(TableError::SeatCount { got: 1 }));
        assert_eq!(
            labels(&["a", "b", "a"]),
            Err(TableError::DuplicateLabel { seat: 2 })
        );
        assert!(matches!(
            labels(&["a", ""]),
            Err(TableError::Label { seat: 1, .. })
        ));
        assert!(matches!(
            labels(&["a", "b\n"]),
            Err(TableError::Label { seat: 1, .. })
        ));
        let many: Vec<String> = (0..23).map(|i| i.to_string()).collect();
        assert_eq!(Seats::new(many), Err(TableError::SeatCount { got: 23 }));
        assert!(Contribution::new("x".repeat(65)).is_err());
        assert!(Contribution::new("tab\there").is_err());
        assert_eq!(
            table_client_seed(&seats(&["a", "b"]), &contributions(&["x"])),
            Err(TableError::ContributionCount { seats: 2, got: 1 })
        );
        assert_eq!(
            format!("{:?}", Contribution::new("secret").expect("valid")),
            "Contribution(<redacted>)"
        );
    }
}
