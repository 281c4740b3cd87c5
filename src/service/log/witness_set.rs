//! The set of witnesses every serving process asks to cosign the log's
//! checkpoints, as the database keeps it (the setting [`SETTING`]) and as
//! the log records each change of it (a `witness_set` entry holding the
//! whole new set).
//!
//! Invariants:
//! - the setting changes only in the transaction that appends its
//!   `witness_set` entry, so every set a process ever follows is in the
//!   log, and a database restored from a backup cannot bring back an older
//!   set unseen: its writes are refused below the log mirror's floor until
//!   `fairdeal recover` appends the lost entries again and, with them, the
//!   set the last one states;
//! - a change that changes nothing logs nothing;
//! - once written, the setting always exists (removing the last witness
//!   writes an empty set), so a process follows it rather than what it was
//!   started with.

use serde::{Deserialize, Serialize};

use crate::service::log::witnessing::{Witness, Witnesses};
use crate::service::store::Store;
use crate::tlog::entry::{Entry, LoggedWitness};

/// The setting under which the database keeps the set.
pub const SETTING: &str = "witness_set";

/// The witnesses and the quorum.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessSet {
    /// In the order they were added.
    pub witnesses: Vec<LoggedWitness>,
    /// How many must cosign a checkpoint for it to count as witnessed;
    /// `None`: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quorum: Option<u64>,
}

/// A witness as an operator writes it, checked: `VKEY@URL`.
pub fn parse_witness(text: &str) -> Result<LoggedWitness, String> {
    let witness = Witness::parse(text)?;
    Ok(LoggedWitness {
        vkey: witness.verifier.vkey(),
        url: witness.url,
    })
}

impl WitnessSet {
    /// The set `texts` (each `VKEY@URL`) with `quorum`, checked. The error
    /// names the flag at fault and the rule.
    pub fn parse(texts: &[String], quorum: Option<usize>) -> Result<Self, (&'static str, String)> {
        let witnesses = texts
            .iter()
            .filter(|text| !text.is_empty())
            .map(|text| parse_witness(text).map_err(|rule| ("--witness", rule)))
            .collect::<Result<Vec<_>, _>>()?;
        if witnesses.is_empty() && quorum.is_some() {
            return Err((
                "--witness-quorum",
                "is taken only with --witness".to_owned(),
            ));
        }
        let set = Self {
            witnesses,
            quorum: quorum.map(|q| q as u64),
        };
        set.check()?;
        Ok(set)
    }

    /// Whether the set holds together: no witness named twice, a quorum
    /// from 1 to the number of witnesses.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let mut names = Vec::new();
        for witness in &self.witnesses {
            let parsed = Witness::parse(&format!("{}@{}", witness.vkey, witness.url))
                .map_err(|rule| ("--witness", rule))?;
            names.push(parsed.name().to_owned());
        }
        names.sort_unstable();
        if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err((
                "--witness",
                format!("names the witness {:?} twice", twice[0]),
            ));
        }
        if let Some(quorum) = self.quorum
            && !(1..=self.witnesses.len() as u64).contains(&quorum)
        {
            return Err((
                "--witness-quorum",
                if self.witnesses.is_empty() {
                    "is taken only with witnesses".to_owned()
                } else {
                    format!(
                        "must be 1 to the {} witnesses; got {quorum}",
                        self.witnesses.len()
                    )
                },
            ));
        }
        Ok(())
    }

    /// How many cosignatures make a checkpoint witnessed.
    pub fn quorum(&self) -> u64 {
        self.quorum.unwrap_or(self.witnesses.len() as u64)
    }

    /// The witness named `name` (its verifier key's name), if it is here.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.witnesses
            .iter()
            .position(|w| vkey_name(&w.vkey) == name)
    }

    /// This set with `witness` added, or, when a witness of its name is
    /// here already, put in its place (its URL or key changed).
    pub fn with(&self, witness: LoggedWitness) -> Self {
        let mut set = self.clone();
        match set.position(vkey_name(&witness.vkey)) {
            Some(at) => set.witnesses[at] = witness,
            None => set.witnesses.push(witness),
        }
        set
    }

    /// This set without the witness named `name` (the quorum lowered to
    /// what is left, if it was above).
    pub fn without(&self, name: &str) -> Option<Self> {
        let at = self.position(name)?;
        let mut set = self.clone();
        set.witnesses.remove(at);
        set.quorum = match set.quorum {
            _ if set.witnesses.is_empty() => None,
            Some(q) => Some(q.min(set.witnesses.len() as u64)),
            None => None,
        };
        Some(set)
    }

    /// The setting's text: canonical JSON, so equal sets read equal.
    pub fn to_setting(&self) -> String {
        serde_json_canonicalizer::to_string(self).expect("a witness set serializes")
    }

    /// The set a setting holds.
    pub fn from_setting(text: &str) -> anyhow::Result<Self> {
        Ok(serde_json::from_str(text)?)
    }

    /// The log entry that records this set.
    pub fn entry(&self, time: String) -> Entry {
        Entry::WitnessSet {
            witnesses: self.witnesses.clone(),
            quorum: self.quorum(),
            time,
        }
    }

    /// The witnesses to ask, reusing `previous`'s for those unchanged (so
    /// that what each last did carries over).
    pub fn build(&self, previous: Option<&Witnesses>) -> anyhow::Result<Witnesses> {
        let mut list = Vec::with_capacity(self.witnesses.len());
        for logged in &self.witnesses {
            let kept = previous.and_then(|p| {
                p.list
                    .iter()
                    .find(|w| w.vkey() == logged.vkey && w.url == logged.url)
            });
            list.push(match kept {
                Some(witness) => witness.clone(),
                None => std::sync::Arc::new(
                    Witness::parse(&format!("{}@{}", logged.vkey, logged.url))
                        .map_err(|rule| anyhow::anyhow!("the stored witness set: {rule}"))?,
                ),
            });
        }
        Ok(Witnesses::from_shared(list, self.quorum() as usize))
    }

    /// One line for people: each witness's name and URL, and the quorum.
    pub fn describe(&self) -> String {
        if self.witnesses.is_empty() {
            return "no witnesses".to_owned();
        }
        let names: Vec<String> = self
            .witnesses
            .iter()
            .map(|w| format!("{} at {}", vkey_name(&w.vkey), w.url))
            .collect();
        format!(
            "{} ({} of {} must cosign)",
            names.join(", "),
            self.quorum(),
            self.witnesses.len()
        )
    }
}

/// A verifier key's name: what precedes its first '+'.
pub fn vkey_name(vkey: &str) -> &str {
    vkey.split('+').next().unwrap_or(vkey)
}

/// The set the database keeps, if one was ever recorded.
pub async fn stored(store: &Store) -> anyhow::Result<Option<WitnessSet>> {
    match store.setting(SETTING).await? {
        Some(text) => Ok(Some(WitnessSet::from_setting(&text).map_err(|err| {
            anyhow::anyhow!("the database's witness set does not read: {err}")
        })?)),
        None => Ok(None),
    }
}

/// What recording a set did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The database held this very set: nothing written.
    Unchanged,
    /// Recorded, with the `witness_set` entry at this index.
    Logged(u64),
}

/// Makes `set` the database's, with its log entry, unless it is already.
/// Refused (rolled back) below the store's log floor, as every append.
pub async fn record(store: &Store, set: &WitnessSet) -> anyhow::Result<Recorded> {
    set.check()
        .map_err(|(field, rule)| anyhow::anyhow!("{field} {rule}"))?;
    let setting = set.to_setting();
    // Unchanged needs no write (nor a database that may take one).
    if store.setting(SETTING).await?.as_deref() == Some(setting.as_str()) {
        return Ok(Recorded::Unchanged);
    }
    let entry = set
        .entry(crate::time::timestamp(crate::time::now_ms()))
        .to_bytes()?;
    Ok(match store.log_witness_set(&setting, &entry).await? {
        Some(index) => Recorded::Logged(index),
        None => Recorded::Unchanged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::cosignature::Cosigner;

    fn witness(name: &str, port: u16) -> String {
        let cosigner = Cosigner::from_bytes(&[port as u8; 32], name).expect("key");
        format!("{}@http://127.0.0.1:{port}", cosigner.vkey())
    }

    #[test]
    fn a_set_is_checked_as_the_flags_were() {
        let a = witness("witness.example/a", 1);
        let b = witness("witness.example/b", 2);
        let set = WitnessSet::parse(&[a.clone(), b.clone()], Some(1)).expect("a set");
        assert_eq!((set.witnesses.len(), set.quorum()), (2, 1));
        assert_eq!(
            WitnessSet::parse(std::slice::from_ref(&a), None)
                .expect("one")
                .quorum(),
            1
        );
        let (field, rule) = WitnessSet::parse(&[a.clone(), a.clone()], None).expect_err("refused");
        assert_eq!(field, "--witness");
        assert!(rule.contains("twice"), "{rule}");
        let (field, rule) =
            WitnessSet::parse(std::slice::from_ref(&a), Some(2)).expect_err("refused");
        assert_eq!(field, "--witness-quorum");
        assert!(rule.contains("1 to the 1"), "{rule}");
        assert_eq!(
            WitnessSet::parse(&[], Some(1)).expect_err("refused").0,
            "--witness-quorum"
        );
        assert_eq!(
            WitnessSet::parse(&["nobody@http://x".to_owned()], None)
                .expect_err("refused")
                .0,
            "--witness"
        );
    }

    #[test]
    fn adding_replaces_a_witness_of_the_same_name_and_removing_lowers_the_quorum() {
        let a = parse_witness(&witness("witness.example/a", 1)).expect("a");
        let b = parse_witness(&witness("witness.example/b", 2)).expect("b");
        let set = WitnessSet::default().with(a.clone()).with(b.clone());
        assert_eq!(set.witnesses, vec![a.clone(), b.clone()]);
        let moved = LoggedWitness {
            url: "https://a.example".to_owned(),
            ..a.clone()
        };
        let set = set.with(moved.clone());
        assert_eq!(set.witnesses, vec![moved, b.clone()]);
        let set = WitnessSet {
            quorum: Some(2),
            ..set
        };
        let left = set.without("witness.example/a").expect("removed");
        assert_eq!((left.witnesses.clone(), left.quorum()), (vec![b], 1));
        assert!(left.without("witness.example/a").is_none());
        let none = left.without("witness.example/b").expect("removed");
        assert_eq!((none.witnesses.len(), none.quorum), (0, None));
        assert_eq!(none.describe(), "no witnesses");
    }

    #[test]
    fn the_setting_reads_back_and_equal_sets_write_equal_text() {
        let a = parse_witness(&witness("witness.example/a", 1)).expect("a");
        let set = WitnessSet {
            witnesses: vec![a],
            quorum: Some(1),
        };
        let text = set.to_setting();
        assert_eq!(WitnessSet::from_setting(&text).expect("reads"), set);
        assert_eq!(
            WitnessSet::from_setting(&text).expect("reads").to_setting(),
            text
        );
        let entry =
            String::from_utf8(set.entry("t".to_owned()).to_bytes().expect("bytes")).expect("UTF-8");
        assert!(
            entry.starts_with(r#"{"quorum":1,"time":"t","type":"witness_set","witnesses":[{"#),
            "{entry}"
        );
    }
}
