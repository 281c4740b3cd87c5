//! The monitor's checks of table pairs (fairdeal-table-v1) from the log
//! alone: seats commit before any reveals, every seat reveals before the
//! client seed is derived, a void opens its commitment and names the seats
//! that really stalled, and a table voided again and again is named (an
//! operator re-rolling a table until the seats' contributions suit it).
//!
//! With the API (`fairdeal monitor --check-api`), the contributions the API
//! shows are checked against the logged commitments and the logged client
//! seed: see [`check_table_record`].

use std::collections::HashMap;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Voids of one table (the same seats) from which on the monitor names it.
pub const REPEATED_VOIDS: usize = 3;

/// What the log said about one table pair's seats.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TableTrack {
    /// SHA-256 of each seat's label, in seat order.
    pub seats: Vec<String>,
    /// Its set of seats (`seat_set` of the commit entry; the sorted label
    /// hashes when the entry has none).
    pub set: String,
    pub commitments: Vec<Option<String>>,
    pub contributed: Vec<bool>,
    pub voided: bool,
}

impl TableTrack {
    /// A table committed with these seats (hashes of labels) and set.
    pub fn new(seats: Vec<String>, set: Option<&str>) -> Self {
        let n = seats.len();
        let set = set.map(str::to_owned).unwrap_or_else(|| {
            let mut sorted = seats.clone();
            sorted.sort();
            sorted.join(",")
        });
        Self {
            seats,
            set,
            commitments: vec![None; n],
            contributed: vec![false; n],
            voided: false,
        }
    }

    fn all_committed(&self) -> bool {
        self.commitments.iter().all(Option::is_some)
    }

    /// Checks a `seat_commitment` or `seat_contribution` entry of this
    /// table; the problem, if any.
    pub fn seat_entry(&mut self, pair: &str, entry: &Value) -> Option<String> {
        let kind = entry["type"].as_str().unwrap_or_default();
        let seat = entry["seat"].as_u64().unwrap_or(u64::MAX) as usize;
        if seat >= self.seats.len() {
            return Some(format!(
                "a {kind} of table {pair} names seat {seat}, which it does not have"
            ));
        }
        if self.voided {
            return Some(format!("a {kind} of table {pair} after its void"));
        }
        if kind == "seat_commitment" {
            if self.contributed.iter().any(|c| *c) || self.commitments[seat].is_some() {
                return Some(format!(
                    "table {pair}'s seat {seat} commits after a reveal, or twice"
                ));
            }
            self.commitments[seat] = entry["commitment"].as_str().map(str::to_owned);
        } else {
            if !self.all_committed() || self.contributed[seat] {
                return Some(format!(
                    "table {pair}'s seat {seat} reveals before every seat committed, or twice"
                ));
            }
            self.contributed[seat] = true;
        }
        None
    }

    /// Checks the derived client seed's place: after every reveal.
    pub fn client_seed_entry(&self, pair: &str) -> Option<String> {
        (self.voided || !self.contributed.iter().all(|c| *c)).then(|| {
            format!(
                "table {pair}'s client seed is logged before every seat revealed, or after its void"
            )
        })
    }

    /// Checks a `table_void` entry: the seats it names must be exactly those
    /// that had not committed (or revealed) in the phase it names.
    pub fn void_entry(&mut self, pair: &str, entry: &Value) -> Option<String> {
        if self.voided {
            return Some(format!("table {pair} is voided twice"));
        }
        self.voided = true;
        let named: Vec<u64> = entry["stalled_seats"]
            .as_array()
            .map(|s| s.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let phase = entry["phase"].as_str().unwrap_or_default();
        let stalled: Vec<u64> = match phase {
            "commit" if !self.all_committed() => (0..self.seats.len())
                .filter(|&i| self.commitments[i].is_none())
                .map(|i| i as u64)
                .collect(),
            "reveal" if self.all_committed() => (0..self.seats.len())
                .filter(|&i| !self.contributed[i])
                .map(|i| i as u64)
                .collect(),
            _ => {
                return Some(format!(
                    "table {pair}'s void names the {phase:?} phase, which it was not in"
                ));
            }
        };
        (named != stalled || stalled.is_empty()).then(|| {
            format!(
                "table {pair}'s void blames seats {named:?}; the log shows {stalled:?} had not acted"
            )
        })
    }
}

/// Tables voided at least [`REPEATED_VOIDS`] times: the voided pairs of
/// each set of seats (`(pair, set)` in log order), in log order.
pub fn repeated_voids(voids: &[(String, String)]) -> Vec<Vec<String>> {
    let mut by_set: HashMap<&str, Vec<String>> = HashMap::new();
    for (pair, set) in voids {
        by_set.entry(set).or_default().push(pair.clone());
    }
    let mut repeated: Vec<Vec<String>> = by_set
        .into_values()
        .filter(|pairs| pairs.len() >= REPEATED_VOIDS)
        .collect();
    repeated.sort();
    repeated
}

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What the log said of one table, for holding the API's record against.
#[derive(Clone, Debug, Default)]
pub struct LoggedTable {
    /// SHA-256 of each seat's label, in seat order.
    pub seats: Vec<String>,
    pub commitments: Vec<Option<String>>,
    pub contributed: Vec<bool>,
    /// Whether its derived client seed was logged.
    pub client_seed: bool,
    /// The phase and the seats a `table_void` named, if it was voided.
    pub void: Option<(String, Vec<u64>)>,
    /// Its set of seats, as its commit entry logged it.
    pub set: Option<String>,
}

impl LoggedTable {
    /// A table committed with these seats.
    pub fn new(seats: Vec<String>) -> Self {
        let n = seats.len();
        Self {
            seats,
            commitments: vec![None; n],
            contributed: vec![false; n],
            ..Self::default()
        }
    }

    /// Notes a table entry of this pair (`seat_commitment`,
    /// `seat_contribution`, `client_seed`, `table_void`).
    pub fn note(&mut self, entry: &Value) {
        let seat = entry["seat"].as_u64().map(|s| s as usize);
        match entry["type"].as_str() {
            Some("seat_commitment") => {
                if let Some(slot) = seat.and_then(|s| self.commitments.get_mut(s)) {
                    *slot = entry["commitment"].as_str().map(str::to_owned);
                }
            }
            Some("seat_contribution") => {
                if let Some(slot) = seat.and_then(|s| self.contributed.get_mut(s)) {
                    *slot = true;
                }
            }
            Some("client_seed") => self.client_seed = true,
            Some("table_void") => {
                self.void = Some((
                    entry["phase"].as_str().unwrap_or_default().to_owned(),
                    entry["stalled_seats"]
                        .as_array()
                        .map(|s| s.iter().filter_map(Value::as_u64).collect())
                        .unwrap_or_default(),
                ));
            }
            _ => {}
        }
    }
}

/// Checks a table pair as the API shows it (`record`, the pair's JSON)
/// against what the log said of it. The API may be ahead of the log (events
/// after the checkpoint), never behind it or apart from it: its seat labels
/// hash to the logged seats; every logged commitment is shown unchanged;
/// every logged reveal is shown and opens its commitment (and no shown
/// contribution fails to); a shown client seed is the one every shown
/// contribution derives (and one must be shown once logged); a logged void
/// is shown void, blaming the same seats. The problems found.
pub fn check_table_record(record: &Value, logged: &LoggedTable) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(seats) = record["table"]["seats"].as_array() else {
        return vec!["the API shows no seats for a table the log committed".to_owned()];
    };
    let labels: Vec<String> = seats
        .iter()
        .map(|s| s["seat"].as_str().unwrap_or_default().to_owned())
        .collect();
    if labels.iter().map(|l| sha256_hex(l)).collect::<Vec<_>>() != logged.seats {
        problems.push("its seat labels are not the ones logged at its commitment".to_owned());
        return problems;
    }
    if logged.set.as_deref().is_some_and(|set| {
        set != crate::tlog::entry::seat_set(&labels)
            && set != crate::tlog::entry::seat_set_v2(&labels)
            && set != crate::tlog::entry::seat_set_v1(&labels)
            && set != crate::tlog::entry::seat_set_nfkc(&labels)
    }) {
        problems.push("its logged set of seats is not the set of its labels".to_owned());
    }
    let mut contributions = Vec::new();
    for (i, seat) in seats.iter().enumerate() {
        let shown = seat["commitment"].as_str();
        if let Some(logged) = &logged.commitments[i]
            && shown != Some(logged.as_str())
        {
            problems.push(format!("seat {i}'s commitment differs from the log"));
        }
        match seat["contribution"].as_str() {
            Some(contribution) => {
                if Some(sha256_hex(contribution).as_str()) != shown {
                    problems.push(format!(
                        "seat {i}'s contribution does not hash to its commitment"
                    ));
                }
                contributions.push(contribution.to_owned());
            }
            None if logged.contributed[i] => {
                problems.push(format!("seat {i}'s logged reveal is not shown"));
            }
            None => {}
        }
        // A void table's seats are final: nothing may appear afterwards.
        if logged.void.is_some()
            && ((logged.commitments[i].is_none() && shown.is_some())
                || (!logged.contributed[i] && !seat["contribution"].is_null()))
        {
            problems.push(format!(
                "seat {i} shows a commitment or contribution its void table never logged"
            ));
        }
    }
    match record["client_seed"].as_str() {
        Some(client_seed) => {
            let derived = (contributions.len() == labels.len())
                .then(|| {
                    let seats = fairdeal_core::Seats::new(labels.clone()).ok()?;
                    let contributions = contributions
                        .iter()
                        .map(|c| fairdeal_core::Contribution::new(c.as_str()))
                        .collect::<Result<Vec<_>, _>>()
                        .ok()?;
                    fairdeal_core::table_client_seed(&seats, &contributions).ok()
                })
                .flatten();
            if derived.as_ref().map(|c| c.as_str()) != Some(client_seed) {
                problems.push(
                    "its client seed is not the one its seats' shown contributions derive"
                        .to_owned(),
                );
            }
        }
        None if logged.client_seed => {
            problems.push("its logged client seed is not shown".to_owned());
        }
        None => {}
    }
    if let Some((phase, stalled)) = &logged.void {
        if record["table"]["void"]["phase"] != phase.as_str() {
            problems.push(format!(
                "the log voided it in the {phase} phase; the API shows {}",
                record["table"]["void"]["phase"]
            ));
        }
        let named: Vec<String> = stalled
            .iter()
            .filter_map(|&i| labels.get(i as usize).cloned())
            .collect();
        let shown: Vec<String> = record["table"]["void"]["stalled_seats"]
            .as_array()
            .map(|s| {
                s.iter()
                    .filter_map(|l| l.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if record["status"] != "void" || shown != named {
            problems.push(format!(
                "the log voided it blaming {named:?}; the API shows status {} blaming {shown:?}",
                record["status"]
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table() -> TableTrack {
        TableTrack::new(vec!["a".into(), "b".into()], None)
    }

    fn commit(seat: u64) -> Value {
        json!({"type": "seat_commitment", "seat": seat, "commitment": "c"})
    }

    fn reveal(seat: u64) -> Value {
        json!({"type": "seat_contribution", "seat": seat})
    }

    #[test]
    fn seats_commit_then_reveal_then_the_seed_is_derived() {
        let mut t = table();
        assert_eq!(t.seat_entry("p", &commit(1)), None);
        assert!(
            t.seat_entry("p", &reveal(1)).is_some(),
            "a reveal before seat 0 committed"
        );
        assert!(
            t.seat_entry("p", &commit(1)).is_some(),
            "a second commitment"
        );
        assert!(t.seat_entry("p", &commit(2)).is_some(), "no seat 2");
        assert_eq!(t.seat_entry("p", &commit(0)), None);
        assert!(
            t.client_seed_entry("p").is_some(),
            "a seed before the reveals"
        );
        assert_eq!(t.seat_entry("p", &reveal(0)), None);
        assert!(
            t.seat_entry("p", &commit(0)).is_some(),
            "a commitment after a reveal"
        );
        assert_eq!(t.seat_entry("p", &reveal(1)), None);
        assert_eq!(t.client_seed_entry("p"), None);
    }

    #[test]
    fn a_void_must_blame_exactly_the_seats_that_stalled() {
        let void = |phase: &str, seats: Value| json!({"type": "table_void", "phase": phase, "stalled_seats": seats});
        let mut t = table();
        t.seat_entry("p", &commit(0));
        assert_eq!(t.void_entry("p", &void("commit", json!([1]))), None);
        assert!(
            t.void_entry("p", &void("commit", json!([1]))).is_some(),
            "voided twice"
        );
        let mut t = table();
        t.seat_entry("p", &commit(0));
        assert!(
            t.void_entry("p", &void("commit", json!([0]))).is_some(),
            "blames the seat that acted"
        );
        let mut t = table();
        t.seat_entry("p", &commit(0));
        assert!(
            t.void_entry("p", &void("reveal", json!([1]))).is_some(),
            "the wrong phase"
        );
        let mut t = table();
        t.seat_entry("p", &commit(0));
        t.seat_entry("p", &commit(1));
        t.seat_entry("p", &reveal(1));
        assert_eq!(t.void_entry("p", &void("reveal", json!([0]))), None);
        assert!(
            t.seat_entry("p", &reveal(0)).is_some(),
            "a reveal after the void"
        );
    }

    #[test]
    fn a_table_voided_three_times_is_named_and_twice_is_not() {
        let voids: Vec<(String, String)> = [
            ("p1", "a"),
            ("p2", "b"),
            ("p3", "a"),
            ("p4", "b"),
            ("p5", "a"),
        ]
        .iter()
        .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
        .collect();
        assert_eq!(repeated_voids(&voids), vec![vec!["p1", "p3", "p5"]]);
        // Without a logged set, the same label hashes in any order are one.
        let x = TableTrack::new(vec!["h1".into(), "h2".into()], None);
        let y = TableTrack::new(vec!["h2".into(), "h1".into()], None);
        assert_eq!(x.set, y.set);
    }

    #[test]
    fn the_api_record_must_say_what_the_log_said() {
        let labels = ["alice", "bob"];
        let contributions = ["x1", "y2"];
        let seats = fairdeal_core::Seats::new(labels.map(str::to_owned).to_vec()).expect("seats");
        let seed = fairdeal_core::table_client_seed(
            &seats,
            &contributions.map(|c| fairdeal_core::Contribution::new(c).expect("c")),
        )
        .expect("seed");
        let mut logged = LoggedTable::new(labels.iter().map(|l| sha256_hex(l)).collect());
        for (i, c) in contributions.iter().enumerate() {
            logged
                .note(&json!({"type": "seat_commitment", "seat": i, "commitment": sha256_hex(c)}));
            logged.note(&json!({"type": "seat_contribution", "seat": i}));
        }
        logged.note(&json!({"type": "client_seed"}));
        let record = |contribution: Value, client_seed: Value| {
            json!({"client_seed": client_seed, "status": "active", "table": {"seats": [
                {"seat": "alice", "commitment": sha256_hex("x1"), "contribution": "x1"},
                {"seat": "bob", "commitment": sha256_hex("y2"), "contribution": contribution},
            ]}})
        };
        let seed = json!(seed.as_str());
        assert!(check_table_record(&record(json!("y2"), seed.clone()), &logged).is_empty());
        assert_eq!(
            check_table_record(&record(json!("y3"), seed.clone()), &logged).len(),
            2
        );
        assert_eq!(
            check_table_record(&record(json!(null), seed.clone()), &logged).len(),
            2,
            "an erased contribution: not shown, and the seed no longer derived"
        );
        assert_eq!(
            check_table_record(&record(json!("y2"), json!("0".repeat(64))), &logged).len(),
            1
        );
        assert_eq!(
            check_table_record(&record(json!("y2"), json!(null)), &logged).len(),
            1
        );
        let mut renamed = logged.clone();
        renamed.seats[1] = sha256_hex("mallory");
        assert_eq!(
            check_table_record(&record(json!("y2"), seed), &renamed).len(),
            1
        );

        // A void: shown void, blaming the seats the log blamed.
        let mut void = LoggedTable::new(labels.iter().map(|l| sha256_hex(l)).collect());
        void.note(&json!({"type": "seat_commitment", "seat": 0, "commitment": sha256_hex("x1")}));
        void.note(&json!({"type": "table_void", "phase": "commit", "stalled_seats": [1]}));
        let shown = |stalled: Value, bob: Value| {
            json!({"client_seed": null, "status": "void", "table": {
                "seats": [{"seat": "alice", "commitment": sha256_hex("x1"), "contribution": null},
                          {"seat": "bob", "commitment": bob, "contribution": null}],
                "void": {"phase": "commit", "stalled_seats": stalled}}})
        };
        assert!(check_table_record(&shown(json!(["bob"]), json!(null)), &void).is_empty());
        assert_eq!(
            check_table_record(&shown(json!([]), json!(null)), &void).len(),
            1,
            "the blame moved"
        );
        assert_eq!(
            check_table_record(&shown(json!([]), json!(sha256_hex("z"))), &void).len(),
            2,
            "a commitment appeared after the void, and the blame moved"
        );
        let mut other_phase = shown(json!(["bob"]), json!(null));
        other_phase["table"]["void"]["phase"] = json!("reveal");
        assert_eq!(check_table_record(&other_phase, &void).len(), 1);
    }
}
