//! The export format: every revealed seed pair and its rounds as NDJSON, what
//! the service writes (`crate::service::export`) and `fairdeal audit` reads.
//! Records are built only through the constructors here, by the service and
//! by the tests' fair exports alike.
//!
//! Order: pairs in the order they were revealed (`reveal_seq`), each pair's
//! line followed by its rounds by nonce. Each pair line carries a `cursor`;
//! passing the last complete pair's cursor as `after` resumes the export just
//! after it. Every round line repeats its pair's seeds and commitment, so a
//! line can be checked on its own. A table pair's line carries its seats
//! (labels, commitments, contributions), from which its client seed is
//! derived again. Unrevealed pairs never appear: their deals are secret; nor
//! do void tables, which dealt nothing (the log and the API show them).
//! After the pairs, every drawn draw; asked for (`draw_lines`), each
//! draw's entrant list follows its draw line in `draw_lines` records,
//! which the audit hashes against the draw's commitment.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A revealed seed pair.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportPair {
    /// Always `seed_pair`.
    #[serde(rename = "type")]
    pub record: String,
    /// Resume after this pair with `after=<cursor>`.
    pub cursor: String,
    pub id: String,
    pub server_seed_hash: String,
    pub server_seed: String,
    pub client_seed: String,
    /// How many rounds the pair dealt: its rounds are nonces 0 to this − 1.
    pub rounds: u64,
    pub created_at: String,
    pub revealed_at: String,
    /// A table pair's seats (fairdeal-table-v1): the client seed above is
    /// derived from their contributions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<ExportTable>,
    /// `fairdeal-chain-v1` for a chain pair (absent for fairdeal-v1): its
    /// `server_seed_hash` is the chain's `s_0`, its `server_seed` the tip
    /// `s_N`, and each round line carries the round's own seed `s_{k+1}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// A chain pair's length N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_length: Option<u64>,
}

/// A table pair's seats, in seat order, and its void when a seat stalled.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportTable {
    pub seats: Vec<ExportSeat>,
    /// The void: the phase that ran out and the seats (labels) it blames.
    /// A void table dealt nothing, has no client seed (`""`) and its seed
    /// is revealed at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void: Option<ExportVoid>,
}

/// How a table was voided.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportVoid {
    /// `commit` or `reveal`.
    pub phase: String,
    pub stalled_seats: Vec<String>,
}

/// One seat: its label, commitment and revealed contribution.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportSeat {
    pub seat: String,
    pub commitment: String,
    pub contribution: String,
}

impl ExportTable {
    /// What is wrong with the table's record: a contribution that does not
    /// hash to its seat's commitment, or a client seed that is not the one
    /// the contributions derive (fairdeal-table-v1); for a void table, a
    /// void that does not blame exactly the seats that had not acted in its
    /// phase, or a client seed at all.
    pub fn problems(&self, client_seed: &str) -> Vec<String> {
        use sha2::{Digest, Sha256};
        let mut problems = Vec::new();
        if let Some(void) = &self.void {
            for (i, seat) in self.seats.iter().enumerate() {
                if !seat.contribution.is_empty()
                    && hex::encode(Sha256::digest(seat.contribution.as_bytes())) != seat.commitment
                {
                    problems.push(format!(
                        "seat {i} ({:?})'s contribution does not hash to its commitment",
                        seat.seat
                    ));
                }
            }
            let stalled: Vec<&str> = match void.phase.as_str() {
                "commit" if self.seats.iter().any(|s| s.commitment.is_empty()) => self
                    .seats
                    .iter()
                    .filter(|s| s.commitment.is_empty())
                    .map(|s| s.seat.as_str())
                    .collect(),
                "reveal" if self.seats.iter().all(|s| !s.commitment.is_empty()) => self
                    .seats
                    .iter()
                    .filter(|s| s.contribution.is_empty())
                    .map(|s| s.seat.as_str())
                    .collect(),
                phase => {
                    problems.push(format!(
                        "its void names the {phase:?} phase, which the seats show it was not in"
                    ));
                    return problems;
                }
            };
            if stalled.is_empty() || void.stalled_seats != stalled {
                problems.push(format!(
                    "its void blames {:?}; the seats show {stalled:?} had not acted",
                    void.stalled_seats
                ));
            }
            if !client_seed.is_empty() {
                problems.push("a void table has a client seed".to_owned());
            }
            return problems;
        }
        for (i, seat) in self.seats.iter().enumerate() {
            if hex::encode(Sha256::digest(seat.contribution.as_bytes())) != seat.commitment {
                problems.push(format!(
                    "seat {i} ({:?})'s contribution does not hash to its commitment",
                    seat.seat
                ));
            }
        }
        let derived =
            fairdeal_core::Seats::new(self.seats.iter().map(|s| s.seat.clone()).collect())
                .map_err(|e| e.to_string())
                .and_then(|seats| {
                    let contributions = self
                        .seats
                        .iter()
                        .map(|s| fairdeal_core::Contribution::new(s.contribution.as_str()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| e.to_string())?;
                    fairdeal_core::table_client_seed(&seats, &contributions)
                        .map_err(|e| e.to_string())
                });
        match derived {
            Ok(seed) if seed.as_str() == client_seed => {}
            Ok(seed) => problems.push(format!(
                "its client seed is not the one its seats' contributions derive ({})",
                seed.as_str()
            )),
            Err(err) => problems.push(format!("its seats cannot derive a client seed: {err}")),
        }
        problems
    }
}

/// One round of a revealed pair.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportRound {
    /// Always `round`.
    #[serde(rename = "type")]
    pub record: String,
    pub id: String,
    pub seed_pair_id: String,
    pub protocol: String,
    pub server_seed_hash: String,
    pub server_seed: String,
    pub client_seed: String,
    pub nonce: u64,
    pub game: Box<RawValue>,
    pub deal: Box<RawValue>,
    pub created_at: String,
}

/// The last line of a complete export. Without it, the export was cut off:
/// resume with the last pair line's cursor.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportEnd {
    /// Always `end`.
    #[serde(rename = "type")]
    pub record: String,
    pub seed_pairs: u64,
    pub rounds: u64,
    /// Draws listed (absent when none are, and from exports made before
    /// draws were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub draws: u64,
    /// Which of the log's reveals the export covers (absent from exports
    /// made before it was written, which are held against every reveal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogCoverage>,
}

/// The reveals of the transparency log an export covers: it holds every
/// pair whose reveal is the log's entry `from` or a later one, before
/// entry `size` — the log's size when the export ended (read before its
/// last page, the empty one) — and no other. `from` is 0, or for an export
/// resumed after a cursor, the entry after that pair's reveal. `fairdeal
/// audit --log` holds the export to every reveal in that span, and counts
/// the ones before and after it, which are other exports' to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogCoverage {
    pub from: u64,
    pub size: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A chunk of a drawn draw's entrant list, after its `draw` line, when the
/// export was asked for the lines (`draw_lines`): lines `from` on, in list
/// order, each without its LF. The list is the lines each followed by LF;
/// its SHA-256 and count must be the draw's `entries_sha256` and `entries`.
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportDrawLines {
    /// Always `draw_lines`.
    #[serde(rename = "type")]
    pub record: String,
    pub draw: String,
    pub from: u64,
    pub lines: Vec<String>,
}

/// A drawn draw (fairdeal-draw-v1): its list by hash and size, its seeds,
/// and its winners, which anyone recomputes (docs/PROTOCOL.md §7–§10).
#[derive(Debug, Serialize, Deserialize)]
pub struct ExportDraw {
    /// Always `draw`.
    #[serde(rename = "type")]
    pub record: String,
    pub id: String,
    pub protocol: String,
    /// SHA-256 of the entrant list, and its number of entrants.
    pub entries_sha256: String,
    pub entries: u64,
    /// How many winners it draws.
    pub winners: u64,
    pub server_seed_hash: String,
    pub server_seed: String,
    pub client_seed: String,
    /// The operator's statement of where the client seed comes from.
    pub client_seed_source: String,
    /// The winners' entrant indices (from 0), winner 1 first.
    pub result: Vec<u64>,
    pub created_at: String,
    pub drawn_at: String,
}

impl ExportDraw {
    /// What is wrong with the draw: its seed does not open its commitment,
    /// or its winners are not the ones its seeds draw.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let seed = match fairdeal_core::ServerSeed::from_hex(&self.server_seed) {
            Ok(seed) => seed,
            Err(err) => return vec![format!("draw {}: server_seed: {err}", self.id)],
        };
        if seed.commitment().to_string() != self.server_seed_hash.to_ascii_lowercase() {
            problems.push(format!(
                "draw {}: SHA-256 of its server_seed is not its server_seed_hash",
                self.id
            ));
        }
        let client = match fairdeal_core::ClientSeed::new(self.client_seed.as_str()) {
            Ok(client) => client,
            Err(err) => {
                problems.push(format!("draw {}: client_seed: {err}", self.id));
                return problems;
            }
        };
        match fairdeal_core::Draw::new(self.entries, self.winners) {
            Ok(params) => {
                let drawn: Vec<u64> = fairdeal_core::draw(&seed, &client, 0, params)
                    .into_iter()
                    .map(u64::from)
                    .collect();
                if drawn != self.result {
                    problems.push(format!(
                        "draw {}: its seeds draw the entrants {drawn:?}, not the {:?} it published",
                        self.id, self.result
                    ));
                }
            }
            Err(err) => problems.push(format!("draw {}: {err}", self.id)),
        }
        problems
    }
}

/// Parses a cursor (`after`), or says what is wrong with it.
pub fn parse_cursor(text: &str) -> Result<i64, String> {
    text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
        format!("must be a cursor from an earlier export (a whole number); got {text:?}")
    })
}

/// What a pair line and each of its round lines repeat, so that a line can be
/// checked on its own.
#[derive(Clone, Copy, Debug)]
pub struct RevealedPair<'a> {
    pub id: &'a str,
    pub server_seed_hash: &'a str,
    pub server_seed: &'a str,
    pub client_seed: &'a str,
}

impl ExportPair {
    /// The line of a revealed pair that dealt `rounds` rounds.
    pub fn new(
        pair: RevealedPair<'_>,
        cursor: i64,
        rounds: u64,
        created_at: String,
        revealed_at: String,
    ) -> Self {
        Self {
            record: "seed_pair".to_owned(),
            cursor: cursor.to_string(),
            id: pair.id.to_owned(),
            server_seed_hash: pair.server_seed_hash.to_owned(),
            server_seed: pair.server_seed.to_owned(),
            client_seed: pair.client_seed.to_owned(),
            rounds,
            created_at,
            revealed_at,
            table: None,
            protocol: None,
            chain_length: None,
        }
    }

    /// The same line for a fairdeal-chain-v1 pair of `length` rounds.
    pub fn with_chain(mut self, length: u64) -> Self {
        self.protocol = Some(fairdeal_core::CHAIN_PROTOCOL.to_owned());
        self.chain_length = Some(length);
        self
    }

    /// The same line for a table pair with these seats.
    pub fn with_table(mut self, seats: Vec<ExportSeat>) -> Self {
        self.table = Some(ExportTable { seats, void: None });
        self
    }

    /// The same line for a void table: its seats and its void.
    pub fn with_void_table(mut self, seats: Vec<ExportSeat>, void: ExportVoid) -> Self {
        self.table = Some(ExportTable {
            seats,
            void: Some(void),
        });
        self
    }
}

impl ExportRound {
    /// The line of one round of `pair`; `game` and `deal` are their JSON.
    pub fn new(
        pair: RevealedPair<'_>,
        id: String,
        nonce: u64,
        game: Box<RawValue>,
        deal: Box<RawValue>,
        created_at: String,
    ) -> Self {
        Self {
            record: "round".to_owned(),
            id,
            seed_pair_id: pair.id.to_owned(),
            protocol: fairdeal_core::PROTOCOL.to_owned(),
            server_seed_hash: pair.server_seed_hash.to_owned(),
            server_seed: pair.server_seed.to_owned(),
            client_seed: pair.client_seed.to_owned(),
            nonce,
            game,
            deal,
            created_at,
        }
    }

    /// The same line for round `nonce` of a chain pair: the pair's
    /// commitment (the chain's `s_0`) and the round's own seed
    /// `s_{nonce+1}`.
    pub fn in_chain(self, server_seed: &str) -> Self {
        Self {
            protocol: fairdeal_core::CHAIN_PROTOCOL.to_owned(),
            server_seed: server_seed.to_owned(),
            ..self
        }
    }
}

impl ExportEnd {
    /// The closing line of a complete export.
    pub fn new(seed_pairs: u64, rounds: u64) -> Self {
        Self {
            draws: 0,
            log: None,
            record: "end".to_owned(),
            seed_pairs,
            rounds,
        }
    }

    /// The same line, counting `draws` draws too.
    pub fn with_draws(mut self, draws: u64) -> Self {
        self.draws = draws;
        self
    }

    /// The same line, saying which of the log's reveals the export covers.
    pub fn covering(mut self, log: LogCoverage) -> Self {
        self.log = Some(log);
        self
    }
}
