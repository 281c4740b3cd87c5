//! The auditor's replay: read an export (NDJSON from `GET /v1/export` or
//! `fairdeal export`), and for every round check that the revealed seed hashes
//! to the published commitment, that fairdeal-v1 gives exactly the recorded
//! cards, and that each pair's nonces run 0, 1, 2, … with no gap or repeat.
//!
//! The input is read in blocks of whole lines, on a thread of its own, and
//! checked in batches of at most 1,024 lines: parsing and the cryptographic
//! checks of a batch run in parallel on all cores while the order-dependent
//! checks (nonce sequence, agreement with the pair line, completeness) of
//! the batch before it run in order. Memory is bounded by two blocks and
//! their batches, whatever the length of the export (a line may be at most
//! 4 MiB), and 16 bytes a pair, for the pair ids that name a pair listed
//! twice.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::BufRead;
use std::sync::LazyLock;

use fairdeal_core::{
    Card, ClientSeed, Commitment, CommitmentCheck, CompactDeal, Deal, DealCheck, Game, Layout,
    SeedKey, ServerSeed, compact_deal_with, compare_deals,
};
use fairdeal_stats::evidence::{Evidence, StatsReport};
use sha2::{Digest, Sha256};

use super::monitor::hash32;
use memchr::memmem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::export::{ExportEnd, ExportPair};

/// Lines checked together: a block (about 3,400 export lines) is checked
/// in a few batches, so that taking in one batch's outcome overlaps
/// checking the next; a block of shorter lines is checked this many at a
/// time.
const BATCH_LINES: usize = 1024;
/// Lines a worker checks, and counts into its own statistics, at a time.
const EVIDENCE_CHUNK: usize = 256;
/// Findings kept in full; beyond this only counted.
const MAX_FINDINGS_KEPT: usize = 10_000;

/// One thing wrong with an export, located by line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// 1-based line of the export (0 for the end of the input).
    pub line: u64,
    /// `malformed`, `commitment`, `card`, `layout`, `record`, `nonce_gap`,
    /// `nonce_repeat`, `missing_rounds`, `truncated`, `table`, and with
    /// `--log`, `log`.
    pub kind: &'static str,
    /// What is wrong, in words.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let detail = super::printable(&self.detail);
        if self.line == 0 {
            write!(f, "end of input: {detail}")
        } else {
            write!(f, "line {}: {detail}", self.line)
        }
    }
}

/// The audit's result.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub lines: u64,
    pub seed_pairs: u64,
    pub rounds: u64,
    /// Rounds whose commitment and cards both check out.
    pub rounds_verified: u64,
    /// Draws listed, and of those whose seed and winners check out.
    pub draws: u64,
    pub draws_verified: u64,
    /// The period the export covers: the earliest pair's creation and the
    /// latest reveal (RFC 3339), when it lists any pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<(String, String)>,
    pub problems: u64,
    /// The first problems (all of them, up to 10,000).
    pub findings: Vec<Finding>,
    /// The statistical tests over every recorded deal.
    pub statistics: Option<StatsReport>,
    /// Seconds spent reading and verifying (before the statistics).
    pub verify_seconds: f64,
    /// With `--log`: what was checked of the transparency log, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// The log's reveals the export says it covers (its end line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_coverage: Option<super::export::LogCoverage>,
    /// Revealed chain tips not held to their last round's seed: past an
    /// audit's budget of SHA-256 steps (every round's link is checked).
    #[serde(skip_serializing_if = "is_zero")]
    pub chain_tips_unchecked: u64,
    /// Draws whose entrant lists the export carried (`draw_lines`) and
    /// that hash to their commitments.
    #[serde(skip_serializing_if = "is_zero")]
    pub draw_lists_checked: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Report {
    pub fn passed(&self) -> bool {
        self.problems == 0
    }

    /// Records a finding (counted always, kept up to a limit).
    pub fn add(&mut self, line: u64, kind: &'static str, detail: String) {
        self.problems += 1;
        if self.findings.len() < MAX_FINDINGS_KEPT {
            self.findings.push(Finding { line, kind, detail });
        }
    }
}

/// A line, parsed and (for rounds) checked, in parallel.
enum Checked<'a> {
    /// A pair line, with what is wrong with it on its own: its revealed
    /// seed against its commitment, its table record (if a table).
    Pair(ExportPair, LineProblems),
    /// A drawn draw, with what is wrong with it (recomputed on its own),
    /// and what its list's lines must hash to: its id, `entries_sha256`
    /// and `entries`.
    Draw(LineProblems, (String, String, u64)),
    /// A chunk of the last draw's entrant list.
    DrawLines(super::export::ExportDrawLines),
    Round {
        round: RoundLine<'a>,
        /// Problems found from the line alone.
        problems: LineProblems,
        /// The round's first card (`None` for an empty deal), when its
        /// game and deal were read.
        first: Option<Option<Card>>,
    },
    End(ExportEnd),
    Malformed(String),
    Blank,
}

/// A round line as the audit reads it: the export's round record
/// ([`ExportRound`]), its strings borrowed from the line (copied only when
/// they hold escapes) and its game and deal left as raw JSON, parsed in
/// [`check_round`] — so a bad game or deal is that round's finding, not a
/// malformed line.
#[derive(Debug, Deserialize)]
pub struct RoundLine<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub seed_pair_id: Cow<'a, str>,
    #[serde(borrow)]
    pub protocol: Cow<'a, str>,
    #[serde(borrow)]
    pub server_seed_hash: Cow<'a, str>,
    #[serde(borrow)]
    pub server_seed: Cow<'a, str>,
    #[serde(borrow)]
    pub client_seed: Cow<'a, str>,
    pub nonce: u64,
    /// The game's JSON, as it lies in the line.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub game: &'a str,
    /// The deal's JSON, as it lies in the line.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub deal: &'a str,
    #[serde(borrow, rename = "created_at")]
    _created_at: Cow<'a, str>,
}

/// Any JSON value, kept as the text it is in the line.
fn raw_json<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<&'de str, D::Error> {
    <&'de RawValue>::deserialize(deserializer).map(RawValue::get)
}

/// A round line laid out exactly as the export writes it, cut into its
/// fields without a JSON parser: every key in the export's order, strings
/// without escapes or control characters, the nonce in plain digits, and
/// nothing else. `None` for any other line, which the JSON parser then
/// reads. The game and deal are cut out unread: such a line is trusted
/// only once its game parses and its deal is byte for byte the computed
/// deal's JSON (`check_round` with `exact_only`); otherwise the parser
/// reads it again.
fn cut_round_line(text: &str) -> Option<RoundLine<'_>> {
    let mut cut = Cut(text);
    cut.literal(r#"{"type":"round","id":""#)?;
    let id = cut.string()?;
    cut.literal(r#","seed_pair_id":""#)?;
    let seed_pair_id = cut.string()?;
    cut.literal(r#","protocol":""#)?;
    let protocol = cut.string()?;
    cut.literal(r#","server_seed_hash":""#)?;
    let server_seed_hash = cut.string()?;
    cut.literal(r#","server_seed":""#)?;
    let server_seed = cut.string()?;
    cut.literal(r#","client_seed":""#)?;
    let client_seed = cut.string()?;
    cut.literal(r#","nonce":"#)?;
    let nonce = cut.nonce()?;
    cut.literal(r#","game":"#)?;
    // A valid game holds no `,"deal":` (its only string is its type name),
    // and the computed deal's JSON no `,"created_at":"`.
    let game = cut.until_deal()?;
    let deal = cut.until_created_at()?;
    let created_at = cut.string()?;
    cut.literal("}")?;
    cut.0.is_empty().then_some(())?;
    Some(RoundLine {
        id: Cow::Borrowed(id),
        seed_pair_id: Cow::Borrowed(seed_pair_id),
        protocol: Cow::Borrowed(protocol),
        server_seed_hash: Cow::Borrowed(server_seed_hash),
        server_seed: Cow::Borrowed(server_seed),
        client_seed: Cow::Borrowed(client_seed),
        nonce,
        game,
        deal,
        _created_at: Cow::Borrowed(created_at),
    })
}

/// The key after a round line's game.
const DEAL_KEY: &str = r#","deal":"#;
/// The key after a round line's deal (its last field).
const CREATED_AT_KEY: &str = r#","created_at":""#;

/// The rest of a line being cut by [`cut_round_line`].
struct Cut<'a>(&'a str);

impl<'a> Cut<'a> {
    /// Steps over `lit`.
    fn literal(&mut self, lit: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(lit)?;
        Some(())
    }

    /// A string's text up to its closing quote (stepped over): only one
    /// without escapes or control characters, which JSON reads as it is.
    fn string(&mut self) -> Option<&'a str> {
        let bytes = self.0.as_bytes();
        let end = memchr::memchr2(b'"', b'\\', bytes)?;
        if bytes[end] != b'"' || bytes[..end].iter().any(|&b| b < 0x20) {
            return None;
        }
        let text = &self.0[..end];
        self.0 = &self.0[end + 1..];
        Some(text)
    }

    /// A `u64` in plain digits, without a leading zero (as JSON writes it).
    fn nonce(&mut self) -> Option<u64> {
        let end = self
            .0
            .bytes()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(self.0.len());
        let digits = &self.0[..end];
        if digits.len() > 1 && digits.starts_with('0') {
            return None;
        }
        let nonce = digits.parse().ok()?;
        self.0 = &self.0[end..];
        Some(nonce)
    }

    /// The text up to the first `,"deal":`, which is stepped over.
    fn until_deal(&mut self) -> Option<&'a str> {
        static FINDER: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(DEAL_KEY));
        let at = FINDER.find(self.0.as_bytes())?;
        self.step_over(at, DEAL_KEY.len())
    }

    /// The text up to the last `,"created_at":"`, which is stepped over.
    fn until_created_at(&mut self) -> Option<&'a str> {
        static FINDER: LazyLock<memmem::FinderRev<'static>> =
            LazyLock::new(|| memmem::FinderRev::new(CREATED_AT_KEY));
        let at = FINDER.rfind(self.0.as_bytes())?;
        self.step_over(at, CREATED_AT_KEY.len())
    }

    /// The text before `at`, with `len` bytes from `at` stepped over.
    fn step_over(&mut self, at: usize, len: usize) -> Option<&'a str> {
        let before = self.0.get(..at)?;
        self.0 = self.0.get(at + len..)?;
        Some(before)
    }
}

fn round_name(round: &RoundLine<'_>) -> String {
    format!(
        "round {} (pair {}, nonce {})",
        round.id, round.seed_pair_id, round.nonce
    )
}

/// Problems found in one line: (kind, detail).
type LineProblems = Vec<(&'static str, String)>;

/// The seed a worker thread checked last, and what follows from it: rounds
/// come grouped by pair, so the next line nearly always repeats the seed,
/// and its commitment check and prepared HMAC key are used again.
struct LastSeed {
    server_seed: String,
    server_seed_hash: String,
    commitment: CommitmentCheck,
    key: SeedKey,
}

/// What a worker thread keeps from one round line to the next: the last
/// seed and client seed it read and the last few games (each checked once,
/// used again while lines repeat them), and a buffer for a computed deal's
/// JSON.
#[derive(Default)]
struct Scratch {
    seed: Option<LastSeed>,
    client: Option<ClientSeed>,
    /// The games read lately (an export deals a few kinds), newest last.
    games: Vec<(String, Game)>,
    json: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Scratch {
    /// Keeps the line's seed, checked against its commitment once per seed.
    fn seed(&mut self, round: &RoundLine<'_>) -> Result<(), String> {
        let known = self.seed.as_ref().is_some_and(|l| {
            l.server_seed == *round.server_seed && l.server_seed_hash == *round.server_seed_hash
        });
        if !known {
            let seed = ServerSeed::from_hex(&round.server_seed)
                .map_err(|e| format!("server_seed: {e}"))?;
            let published = Commitment::from_hex(&round.server_seed_hash)
                .map_err(|e| format!("server_seed_hash: {e}"))?;
            let computed = seed.commitment();
            self.seed = Some(LastSeed {
                server_seed: round.server_seed.to_string(),
                server_seed_hash: round.server_seed_hash.to_string(),
                commitment: if computed == published {
                    CommitmentCheck::Match
                } else {
                    CommitmentCheck::Mismatch {
                        published,
                        computed,
                    }
                },
                key: SeedKey::new(&seed),
            });
        }
        Ok(())
    }

    /// Keeps the line's client seed, checked once while lines repeat it.
    fn client(&mut self, round: &RoundLine<'_>) -> Result<(), String> {
        let known = self
            .client
            .as_ref()
            .is_some_and(|client| client.as_str() == round.client_seed);
        if !known {
            let client = ClientSeed::new(round.client_seed.as_ref())
                .map_err(|e| format!("client_seed: {e}"))?;
            self.client = Some(client);
        }
        Ok(())
    }

    /// The line's game, parsed once while lines repeat its JSON.
    fn game(&mut self, round: &RoundLine<'_>) -> Result<Game, String> {
        const KEPT: usize = 8;
        let text = round.game;
        if let Some((_, game)) = self.games.iter().rev().find(|(json, _)| json == text) {
            return Ok(*game);
        }
        let game: Game = serde_json::from_str(text).map_err(|e| format!("game: {e}"))?;
        if self.games.len() == KEPT {
            self.games.remove(0);
        }
        self.games.push((text.to_owned(), game));
        Ok(game)
    }
}

/// Recomputes one round from its own line and counts its cards into
/// `evidence`; also returns the round's first card, for the statistics
/// that need the rounds in order.
///
/// A recorded deal that is byte for byte the JSON the service writes for
/// the computed deal (as every exported deal is) matches without being
/// parsed; any other is parsed and compared card by card.
///
/// With `exact_only` (a line cut by [`cut_round_line`]), a round whose
/// seed, client seed or game does not read, or whose deal is not those
/// bytes, gives `None` and counts nothing: the caller reads the line with
/// the JSON parser instead.
fn check_round(
    round: &RoundLine<'_>,
    evidence: &mut Evidence,
    exact_only: bool,
) -> Option<(LineProblems, Option<Option<Card>>)> {
    let name = || round_name(round);
    let computed = SCRATCH.with(|scratch| -> Result<_, String> {
        let mut scratch = scratch.borrow_mut();
        let scratch = &mut *scratch;
        scratch.seed(round)?;
        scratch.client(round)?;
        let game = scratch.game(round)?;
        let seed = scratch.seed.as_ref().ok_or("no seed")?;
        let client = scratch.client.as_ref().ok_or("no client seed")?;
        let commitment = seed.commitment;
        let computed = compact_deal_with(&seed.key, client, round.nonce, game);
        let json = &mut scratch.json;
        json.clear();
        computed.write_json(json);
        let exact = json.as_slice() == round.deal.as_bytes();
        Ok((commitment, computed, game, exact))
    });
    let (commitment, computed, game, exact) = match computed {
        Ok(parts) if parts.3 || !exact_only => parts,
        Ok(_) => return None,
        Err(_) if exact_only => return None,
        Err(why) => return Some((vec![("malformed", format!("{}: {why}", name()))], None)),
    };
    let recorded = if exact {
        None
    } else {
        match serde_json::from_str::<Deal>(round.deal) {
            Ok(deal) => Some(deal),
            Err(e) => {
                return Some((vec![("malformed", format!("{}: deal: {e}", name()))], None));
            }
        }
    };
    // A chain round's line gives the chain's commitment: its seed's link
    // to the round before is checked in order ([`Sequence::round`]).
    let chain = round.protocol == fairdeal_core::CHAIN_PROTOCOL;
    if round.protocol != fairdeal_core::PROTOCOL && !chain {
        let why = format!(
            "{}: protocol {:?} is not {} or {}",
            name(),
            round.protocol,
            fairdeal_core::PROTOCOL,
            fairdeal_core::CHAIN_PROTOCOL
        );
        return Some((vec![("record", why)], None));
    }
    let mut problems = Vec::new();
    if chain {
    } else if let CommitmentCheck::Mismatch {
        published,
        computed,
    } = commitment
    {
        problems.push((
            "commitment",
            format!(
                "{}: wrong commitment: SHA-256 of the revealed seed is {computed}, but {published} was published",
                name()
            ),
        ));
    }
    let check = match &recorded {
        None => DealCheck::Match,
        Some(recorded) if computed.matches(recorded) => DealCheck::Match,
        Some(recorded) => compare_deals(&computed.to_deal(), recorded),
    };
    match check {
        DealCheck::Match => {}
        DealCheck::CardDiffers {
            slot,
            computed,
            recorded,
        } => problems.push((
            "card",
            format!(
                "{}: wrong card at {slot}: recorded {recorded}, fairdeal-v1 deals {computed}",
                name()
            ),
        )),
        DealCheck::LayoutDiffers {
            computed_cards,
            recorded_cards,
        } => problems.push((
            "layout",
            format!(
                "{}: the recorded deal is not laid out as {game}: {recorded_cards} cards recorded, {computed_cards} dealt",
                name()
            ),
        )),
    }
    // The statistics count the recorded cards: the computed deal's when
    // they are the same.
    let first = match (&check, &recorded) {
        (DealCheck::Match, _) | (_, None) => {
            add_compact_to_evidence(evidence, &computed);
            computed.dealt_order().first().copied()
        }
        (_, Some(recorded)) => {
            add_to_evidence(evidence, game, recorded);
            first_card(recorded)
        }
    };
    Some((problems, Some(first)))
}

/// The first card dealt in a round (the top of the shuffled deck).
fn first_card(deal: &Deal) -> Option<Card> {
    match deal {
        Deal::Deck { deck } => deck.first().copied(),
        Deal::Board { hands, .. } | Deal::Hands { hands, .. } => {
            hands.first().and_then(|h| h.first()).copied()
        }
    }
}

/// Adds a recorded deal to the statistics, if it is laid out as its game
/// says (a deal that is not is a finding, and its cards are not counted).
pub fn add_to_evidence(evidence: &mut Evidence, game: Game, deal: &Deal) {
    if let Some(compact) = CompactDeal::from_deal(game, deal) {
        add_compact_to_evidence(evidence, &compact);
    }
}

/// Adds a deal to the statistics: the positions of every card of a single
/// deck, hold'em starting hands and the first seat's seven cards, 5-card
/// hands.
fn add_compact_to_evidence(evidence: &mut Evidence, deal: &CompactDeal) {
    let order = deal.dealt_order();
    match deal.game().layout() {
        Layout::Deck { decks: 1 } => evidence.add_full_deck(order),
        Layout::Omaha { .. } => evidence.add_dealt_prefix(order),
        Layout::Holdem { players } => {
            evidence.add_dealt_prefix(order);
            for seat in 0..usize::from(players) {
                let mut hand = deal.hand(seat);
                if let (Some(a), Some(b)) = (hand.next(), hand.next()) {
                    evidence.add_starting_hand(a, b);
                }
            }
            if let Some(board) = deal.board() {
                let mut seven = [board[0]; 7];
                for (slot, card) in seven.iter_mut().zip(deal.hand(0)) {
                    *slot = card;
                }
                seven[2..].copy_from_slice(&board);
                evidence.add_seven_card_hand(&seven);
            }
        }
        Layout::Hands { cards, decks, .. } => {
            if cards == 5 && decks == 1 {
                let players = deal.game().players().unwrap_or(0) as usize;
                for seat in 0..players {
                    let mut hand = [order[0]; 5];
                    for (slot, card) in hand.iter_mut().zip(deal.hand(seat)) {
                        *slot = card;
                    }
                    evidence.add_five_card_hand(&hand);
                }
            }
            if decks == 1 {
                evidence.add_full_deck(order);
            }
        }
        Layout::Deck { .. } => {}
    }
}

fn check_line<'a>(text: &'a str, evidence: &mut Evidence) -> Checked<'a> {
    if text.trim().is_empty() {
        return Checked::Blank;
    }
    // A round line as the export writes it, whose deal is the computed one,
    // needs no JSON parser.
    if let Some(round) = cut_round_line(text)
        && let Some((problems, first)) = check_round(&round, evidence, true)
    {
        return Checked::Round {
            round,
            problems,
            first,
        };
    }
    // The export writes `type` first: read that without parsing the line
    // twice. Any other line (hand-written, reordered) takes the slow path.
    let kind = if text.starts_with(r#"{"type":"round","#) {
        Some("round".to_owned())
    } else {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => value
                .get("type")
                .and_then(|t| t.as_str())
                .map(str::to_owned),
            Err(err) => return Checked::Malformed(format!("not JSON ({err})")),
        }
    };
    let parsed = match kind.as_deref() {
        Some("seed_pair") => serde_json::from_str(text).map(|pair: ExportPair| {
            let mut problems: LineProblems = pair_commitment_problem(&pair)
                .map(|problem| ("commitment", problem))
                .into_iter()
                .collect();
            if let Some(table) = &pair.table {
                problems.extend(
                    table
                        .problems(&pair.client_seed)
                        .into_iter()
                        .map(|problem| ("table", problem)),
                );
            }
            Checked::Pair(pair, problems)
        }),
        Some("round") => serde_json::from_str(text).map(|round: RoundLine<'_>| {
            let (problems, first) = check_round(&round, evidence, false).unwrap_or_else(|| {
                (
                    vec![("malformed", "the round could not be checked".to_owned())],
                    None,
                )
            });
            Checked::Round {
                round,
                problems,
                first,
            }
        }),
        Some("draw") => serde_json::from_str(text).map(|draw: super::export::ExportDraw| {
            let list = (draw.id.clone(), draw.entries_sha256.clone(), draw.entries);
            Checked::Draw(
                draw.problems().into_iter().map(|p| ("draw", p)).collect(),
                list,
            )
        }),
        Some("draw_lines") => serde_json::from_str(text).map(Checked::DrawLines),
        Some("end") => serde_json::from_str(text).map(Checked::End),
        Some(other) => return Checked::Malformed(format!("unknown record type {other:?}")),
        None => return Checked::Malformed("a record without a \"type\"".to_owned()),
    };
    parsed.unwrap_or_else(|err| Checked::Malformed(format!("not a valid record ({err})")))
}

/// What is wrong with a pair's revealed seed on its own: it is not 64 hex
/// characters, or it does not hash to the pair's commitment. (Its rounds
/// repeat both and are checked one by one; a pair without rounds has only
/// this check.)
fn pair_commitment_problem(pair: &ExportPair) -> Option<String> {
    let seed = match ServerSeed::from_hex(&pair.server_seed) {
        Ok(seed) => seed,
        Err(err) => return Some(format!("pair {}: server_seed: {err}", pair.id)),
    };
    if let Some(length) = pair.chain_length {
        // A chain's tip is held to its rounds' seeds in order
        // ([`Sequence::close_pair`]).
        if pair.protocol.as_deref() != Some(fairdeal_core::CHAIN_PROTOCOL) {
            return Some(format!(
                "pair {}: a chain_length without protocol {}",
                pair.id,
                fairdeal_core::CHAIN_PROTOCOL
            ));
        }
        if !(1..=fairdeal_core::MAX_CHAIN_LENGTH).contains(&length) {
            return Some(format!(
                "pair {}: chain_length {length} is not 1 to {}",
                pair.id,
                fairdeal_core::MAX_CHAIN_LENGTH
            ));
        }
        return Commitment::from_hex(&pair.server_seed_hash)
            .err()
            .map(|err| format!("pair {}: server_seed_hash: {err}", pair.id));
    }
    if let Some(protocol) = pair.protocol.as_deref() {
        return Some(format!(
            "pair {}: protocol {protocol:?} without a chain_length",
            pair.id
        ));
    }
    match Commitment::from_hex(&pair.server_seed_hash) {
        Err(err) => Some(format!("pair {}: server_seed_hash: {err}", pair.id)),
        Ok(commitment) if seed.commitment() != commitment => Some(format!(
            "pair {}: SHA-256 of its server_seed is not its server_seed_hash: the seed revealed \
             is not the one committed to",
            pair.id
        )),
        Ok(_) => None,
    }
}

/// The kinds of problem one export line has on its own (the half of the
/// audit that runs in parallel): none for a blank line or a valid record
/// whose round, if it is one, verifies. For the fuzz target and for tools
/// that check a line at a time.
pub fn line_problems(text: &str) -> Vec<&'static str> {
    match check_line(text, &mut Evidence::default()) {
        Checked::Pair(_, problems) | Checked::Draw(problems, _) => {
            problems.iter().map(|(kind, _)| *kind).collect()
        }
        Checked::Blank | Checked::End(_) | Checked::DrawLines(_) => Vec::new(),
        Checked::Malformed(_) => vec!["malformed"],
        Checked::Round { problems, .. } => problems.iter().map(|(kind, _)| *kind).collect(),
    }
}

/// The order-dependent state: the pair being read and its next nonce.
#[derive(Default)]
struct Sequence {
    /// The pair, its line, and the nonce expected next. That is a `u128` so
    /// that a round with nonce 2^64 − 1 (untrusted input) has a successor.
    pair: Option<(ExportPair, u64, u128)>,
    ended: bool,
    /// The first card of the pair's previous round, for serial correlation.
    previous_first: Option<Card>,
    /// Every pair read so far, and the line it was first on: a pair listed
    /// twice would count its rounds twice in the statistics. Its id as a
    /// 128-bit number: the UUID itself (the service's ids), or the first 16
    /// bytes of the SHA-256 of any other id, so that a hostile export's long
    /// ids take no more. (Round ids are not kept: that would make the
    /// audit's memory grow with the rounds, and a round's id is not what its
    /// cards are checked by.)
    pairs_seen: std::collections::HashMap<u128, u64>,
    /// A chain pair's chain as its rounds link it: its length, the position
    /// of the last seed linked (0: the commitment) and that seed.
    chain: Option<(u64, u64, [u8; 32])>,
    /// SHA-256 steps spent on chain tips ([`CHAIN_TIP_BUDGET`]).
    chain_tip_steps: u64,
    /// The last draw read, and its list as `draw_lines` records give it.
    draw_list: Option<DrawList>,
}

/// A draw's entrant list as the export's `draw_lines` records give it,
/// hashed as it comes, against what the draw committed to.
struct DrawList {
    /// The draw's line.
    line: u64,
    id: String,
    entries_sha256: String,
    entries: u64,
    hasher: Sha256,
    count: u64,
    /// Whether any `draw_lines` record came, and whether one was wrong.
    seen: bool,
    broken: bool,
}

/// SHA-256 steps an audit spends holding revealed chain tips to their last
/// round's seed (about 5 s): a chain rotated early leaves up to 2^24 steps
/// to its tip. Past it, tips are counted unchecked
/// ([`Report::chain_tips_unchecked`]); every round's link is still checked.
const CHAIN_TIP_BUDGET: u64 = 1 << 26;

impl Sequence {
    /// Starts holding a chain pair's rounds to its chain.
    fn open_chain(&mut self, pair: &ExportPair) {
        self.chain = match (pair.chain_length, hash32(&pair.server_seed_hash)) {
            (Some(length), Some(s0)) => Some((length, 0, s0)),
            _ => None,
        };
    }

    /// A draw line: its list may follow.
    fn open_draw(
        &mut self,
        line: u64,
        (id, entries_sha256, entries): (String, String, u64),
        report: &mut Report,
    ) {
        self.close_draw(report);
        self.draw_list = Some(DrawList {
            line,
            id,
            entries_sha256,
            entries,
            hasher: Sha256::new(),
            count: 0,
            seen: false,
            broken: false,
        });
    }

    /// A chunk of the last draw's list.
    fn draw_lines(
        &mut self,
        line: u64,
        record: &super::export::ExportDrawLines,
        report: &mut Report,
    ) {
        let Some(list) = self.draw_list.as_mut().filter(|l| l.id == record.draw) else {
            report.add(
                line,
                "record",
                format!(
                    "lines of draw {}'s list that do not follow its draw line",
                    record.draw
                ),
            );
            return;
        };
        list.seen = true;
        if list.broken {
            return;
        }
        if record.from != list.count {
            report.add(
                line,
                "draw",
                format!(
                    "draw {}: its list's lines resume at {} where line {} was next",
                    record.draw,
                    record.from + 1,
                    list.count + 1
                ),
            );
            list.broken = true;
            return;
        }
        for text in &record.lines {
            if text.contains('\n') {
                report.add(
                    line,
                    "draw",
                    format!(
                        "draw {}: line {} of its list holds a line feed",
                        record.draw,
                        list.count + 1
                    ),
                );
                list.broken = true;
                return;
            }
            list.hasher.update(text.as_bytes());
            list.hasher.update(b"\n");
            list.count += 1;
        }
    }

    /// The end of the last draw's list, if the export gave it: its lines
    /// must be the ones committed.
    fn close_draw(&mut self, report: &mut Report) {
        let Some(list) = self.draw_list.take() else {
            return;
        };
        if !list.seen || list.broken {
            return;
        }
        let hash = hex::encode(list.hasher.finalize());
        if list.count != list.entries || hash != list.entries_sha256 {
            report.add(
                list.line,
                "draw",
                format!(
                    "draw {}: the {} lines the export gives of its list are not the list it committed to ({} lines, SHA-256 {})",
                    list.id, list.count, list.entries, list.entries_sha256
                ),
            );
        } else {
            report.draw_lists_checked += 1;
        }
    }

    fn close_pair(&mut self, report: &mut Report) {
        self.previous_first = None;
        if let (Some((length, position, last)), Some((pair, line, _))) =
            (self.chain.take(), self.pair.as_ref())
            && let Some(tip) = hash32(&pair.server_seed)
            && length <= fairdeal_core::MAX_CHAIN_LENGTH
        {
            let steps = length.saturating_sub(position);
            if self.chain_tip_steps.saturating_add(steps) > CHAIN_TIP_BUDGET {
                report.chain_tips_unchecked += 1;
            } else {
                self.chain_tip_steps += steps;
                let mut down = tip;
                for _ in 0..steps {
                    down = Sha256::digest(down).into();
                }
                if down != last {
                    report.add(
                        *line,
                        "commitment",
                        format!(
                            "pair {}: its revealed tip does not hash down to its last round's seed (or its commitment)",
                            pair.id
                        ),
                    );
                }
            }
        }
        if let Some((pair, line, seen)) = self.pair.take()
            && seen < u128::from(pair.rounds)
        {
            report.add(
                line,
                "missing_rounds",
                format!(
                    "pair {}: {} rounds were dealt (nonces 0 to {}) but only {seen} are listed",
                    pair.id,
                    pair.rounds,
                    pair.rounds.saturating_sub(1)
                ),
            );
        }
    }

    fn round(&mut self, line: u64, round: &RoundLine<'_>, report: &mut Report) {
        let Some((pair, _, seen)) = self.pair.as_mut() else {
            report.add(
                line,
                "record",
                format!("{}: comes before any seed_pair line", round_name(round)),
            );
            return;
        };
        if *round.seed_pair_id != pair.id {
            report.add(
                line,
                "record",
                format!("{}: listed under pair {}", round_name(round), pair.id),
            );
            return;
        }

        let pair_protocol = pair.protocol.as_deref().unwrap_or(fairdeal_core::PROTOCOL);
        if *round.protocol != *pair_protocol {
            report.add(
                line,
                "record",
                format!(
                    "{}: protocol {:?}, but its seed pair's is {pair_protocol}",
                    round_name(round),
                    round.protocol
                ),
            );
        }
        // A chain round has its own seed, linked to the one before.
        let chain = match self.chain.as_mut() {
            Some((length, position, last)) => {
                let steps = (round.nonce as u128 + 1).saturating_sub(u128::from(*position));
                let seed = hash32(&round.server_seed);
                // One step from the round before; across a nonce gap (a
                // finding of its own) at most 1,024, so a hostile export's
                // gaps cost no more than that a line.
                let links = seed.is_some_and(|seed| {
                    (1..=1024).contains(&steps) && {
                        let mut down = seed;
                        for _ in 0..steps {
                            down = Sha256::digest(down).into();
                        }
                        down == *last
                    }
                });
                if round.nonce >= *length {
                    report.add(
                        line,
                        "record",
                        format!(
                            "{}: past the end of its pair's chain of {length}",
                            round_name(round)
                        ),
                    );
                } else if !links {
                    report.add(
                        line,
                        "commitment",
                        format!(
                            "{}: its seed does not hash to {}",
                            round_name(round),
                            if *position == 0 {
                                "its pair's commitment"
                            } else {
                                "the previous round's seed"
                            }
                        ),
                    );
                } else if let Some(seed) = seed {
                    *position = round.nonce + 1;
                    *last = seed;
                }
                true
            }
            None => false,
        };
        for (field, mine, theirs) in [
            (
                "server_seed",
                if chain {
                    pair.server_seed.as_str()
                } else {
                    &*round.server_seed
                },
                pair.server_seed.as_str(),
            ),
            (
                "server_seed_hash",
                &*round.server_seed_hash,
                pair.server_seed_hash.as_str(),
            ),
            (
                "client_seed",
                &*round.client_seed,
                pair.client_seed.as_str(),
            ),
        ] {
            if mine != theirs {
                report.add(
                    line,
                    "record",
                    format!(
                        "{}: its {field} differs from its seed pair's",
                        round_name(round)
                    ),
                );
            }
        }
        let expected = *seen;
        let nonce = u128::from(round.nonce);
        if nonce < expected {
            report.add(
                line,
                "nonce_repeat",
                format!(
                    "{}: nonce {} repeats or goes back (expected {expected})",
                    round_name(round),
                    round.nonce
                ),
            );
        } else {
            if nonce > expected {
                let missing = if nonce - expected == 1 {
                    format!("nonce {expected} is missing")
                } else {
                    format!("nonces {expected} to {} are missing", round.nonce - 1)
                };
                report.add(
                    line,
                    "nonce_gap",
                    format!("{}: nonce gap: {missing}", round_name(round)),
                );
            }
            *seen = nonce + 1;
        }
        if round.nonce >= pair.rounds {
            report.add(
                line,
                "record",
                format!(
                    "{}: the pair says it dealt only {} rounds",
                    round_name(round),
                    pair.rounds
                ),
            );
        }
    }
}

/// Bytes read at a time: whole lines, about this many (a longer line is
/// read whole).
const BLOCK_BYTES: usize = 2 << 20;
/// Bytes asked of the input per read.
const READ_BYTES: usize = 256 << 10;
/// The longest line read: an export's longest (a table pair's, an 8-deck
/// shoe) are a few KiB; a line may still be longer than a block.
const MAX_LINE_BYTES: usize = 2 * BLOCK_BYTES;

/// The input read a block of whole lines at a time: lines need no
/// allocation of their own, and their UTF-8 is checked in parallel.
struct Blocks<R> {
    input: R,
    /// The start of a line that the last block did not end.
    carry: Vec<u8>,
}

impl<R: BufRead> Blocks<R> {
    /// The next block, ending at the end of a line or of the input; `None`
    /// at the end.
    ///
    /// Its buffer is `spare` (a block done with), so that memory is reused
    /// rather than mapped afresh for every block.
    fn next_block(&mut self, spare: Option<Vec<u8>>) -> std::io::Result<Option<Vec<u8>>> {
        let mut block = spare.unwrap_or_default();
        block.clear();
        block.reserve(BLOCK_BYTES + READ_BYTES);
        block.extend_from_slice(&self.carry);
        self.carry.clear();
        let mut last_newline = memchr::memrchr(b'\n', &block);
        loop {
            if let Some(end) = last_newline
                && block.len() >= BLOCK_BYTES
            {
                self.carry.extend_from_slice(&block[end + 1..]);
                block.truncate(end + 1);
                return Ok(Some(block));
            }
            let start = block.len();
            block.resize(start + READ_BYTES, 0);
            let read = loop {
                match self.input.read(&mut block[start..]) {
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            let n = read?;
            block.truncate(start + n);
            if n == 0 {
                return Ok((!block.is_empty()).then_some(block));
            }
            if let Some(at) = memchr::memrchr(b'\n', &block[start..]) {
                last_newline = Some(start + at);
            }
            // A line is held whole: one without end would take all memory.
            if block.len() - last_newline.map_or(0, |end| end + 1) > MAX_LINE_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "a line longer than {} MiB (an export's longest are a few KiB): \
                         this is not an export",
                        MAX_LINE_BYTES >> 20
                    ),
                ));
            }
        }
    }
}

/// Up to `max` lines from the front of `rest` (which moves past them),
/// numbered on from `line_no`, without their `\n` or `\r\n`: the lines
/// [`BufRead::lines`] gives.
fn split_lines<'a>(rest: &mut &'a [u8], line_no: &mut u64, max: usize) -> Vec<(u64, &'a [u8])> {
    let mut lines = Vec::with_capacity(max.min(rest.len() / 256 + 1));
    while lines.len() < max && !rest.is_empty() {
        let line = match memchr::memchr(b'\n', rest) {
            Some(end) => {
                let line = &rest[..end];
                *rest = &rest[end + 1..];
                line.strip_suffix(b"\r").unwrap_or(line)
            }
            // The input's last line, without its newline.
            None => std::mem::take(rest),
        };
        *line_no += 1;
        lines.push((*line_no, line));
    }
    lines
}

/// Checks a batch of lines in parallel, a chunk at a time, each chunk
/// counting its own statistics.
fn check_batch<'a>(batch: &[(u64, &'a [u8])]) -> Vec<(Vec<(u64, Checked<'a>)>, Evidence)> {
    batch
        .par_chunks(EVIDENCE_CHUNK)
        .map(|chunk| {
            let mut counted = Evidence::default();
            let items = chunk
                .iter()
                .map(|&(line, bytes)| {
                    // Invalid UTF-8 is a malformed line, not the end of the
                    // audit.
                    let item = match std::str::from_utf8(bytes) {
                        Ok(text) => check_line(text, &mut counted),
                        Err(_) => Checked::Malformed("not valid UTF-8".to_owned()),
                    };
                    (line, item)
                })
                .collect();
            (items, counted)
        })
        .collect()
}

/// Takes in a checked batch, in line order: its statistics, its findings,
/// and the checks that need the lines in order (nonce sequences, the end
/// line's counts).
fn take_in(
    checked: Vec<(Vec<(u64, Checked<'_>)>, Evidence)>,
    report: &mut Report,
    sequence: &mut Sequence,
    evidence: &mut Evidence,
    observe: &mut dyn FnMut(u64, &RoundLine<'_>),
) {
    for (_, counted) in &checked {
        evidence.merge(counted);
    }
    for (line, item) in checked.into_iter().flat_map(|(items, _)| items) {
        report.lines = line;
        if sequence.ended && !matches!(item, Checked::Blank) {
            report.add(line, "record", "a record after the end line".to_owned());
        }
        if !matches!(
            item,
            Checked::Blank | Checked::DrawLines(_) | Checked::Draw(..)
        ) {
            sequence.close_draw(report);
        }
        match item {
            Checked::DrawLines(record) => sequence.draw_lines(line, &record, report),
            Checked::Blank => {}
            Checked::Malformed(why) => {
                report.add(line, "malformed", format!("malformed line: {why}"))
            }
            Checked::Pair(pair, problems) => {
                sequence.close_pair(report);
                for (kind, problem) in problems {
                    report.add(line, kind, problem);
                }
                let key = match uuid::Uuid::try_parse(&pair.id) {
                    Ok(id) => id.as_u128(),
                    Err(_) => {
                        let digest = <sha2::Sha256 as sha2::Digest>::digest(pair.id.as_bytes());
                        u128::from_be_bytes(digest[..16].try_into().unwrap_or_default())
                    }
                };
                let first = *sequence.pairs_seen.entry(key).or_insert(line);
                if first != line {
                    report.add(
                        line,
                        "record",
                        format!("pair {}: listed again (first on line {first})", pair.id),
                    );
                }
                report.seed_pairs += 1;
                let (from, to) = report
                    .period
                    .get_or_insert_with(|| (pair.created_at.clone(), pair.revealed_at.clone()));
                if pair.created_at < *from {
                    from.clone_from(&pair.created_at);
                }
                if pair.revealed_at > *to {
                    to.clone_from(&pair.revealed_at);
                }
                sequence.open_chain(&pair);
                sequence.pair = Some((pair, line, 0));
            }
            Checked::Round {
                round,
                problems,
                first,
            } => {
                report.rounds += 1;
                if let Some(first) = first {
                    if let (Some(previous), Some(first)) = (sequence.previous_first, first) {
                        evidence.add_consecutive_first_cards(previous, first);
                    }
                    sequence.previous_first = first;
                }
                if problems.is_empty() {
                    report.rounds_verified += 1;
                }
                for (kind, detail) in problems {
                    report.add(line, kind, detail);
                }
                observe(line, &round);
                sequence.round(line, &round, report);
            }
            Checked::Draw(problems, list) => {
                sequence.close_pair(report);
                sequence.open_draw(line, list, report);
                report.draws += 1;
                if problems.is_empty() {
                    report.draws_verified += 1;
                }
                for (kind, problem) in problems {
                    report.add(line, kind, problem);
                }
            }
            Checked::End(end) => {
                sequence.close_pair(report);
                sequence.ended = true;
                match end.log {
                    Some(log) if log.from > log.size => report.add(
                        line,
                        "record",
                        format!(
                            "the end line's log coverage starts at entry {} after its end, entry {}",
                            log.from, log.size
                        ),
                    ),
                    log => report.log_coverage = log,
                }
                if end.seed_pairs != report.seed_pairs
                    || end.rounds != report.rounds
                    || end.draws != report.draws
                {
                    report.add(
                        line,
                        "record",
                        format!(
                            "the end line counts {} pairs, {} rounds and {} draws, but {}, {} and {} were read",
                            end.seed_pairs,
                            end.rounds,
                            end.draws,
                            report.seed_pairs,
                            report.rounds,
                            report.draws
                        ),
                    );
                }
            }
        }
    }
}

/// Progress callback: lines and rounds read so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Audits an export from `input`.
pub fn audit(input: impl BufRead + Send, progress: Progress<'_>) -> std::io::Result<Report> {
    audit_observed(input, progress, &mut |_, _| {})
}

/// [`audit`], calling `observe` with each round line (its line number and
/// record) in order, for checks that need the whole export (such as the
/// cross-check against a transparency log).
pub fn audit_observed(
    input: impl BufRead + Send,
    progress: Progress<'_>,
    observe: &mut dyn FnMut(u64, &RoundLine<'_>),
) -> std::io::Result<Report> {
    let started = std::time::Instant::now();
    let mut report = Report::default();
    let mut sequence = Sequence::default();
    let mut evidence = Evidence::default();
    // Three things overlap. A thread of its own reads the input a block at
    // a time (and the caller's reader hashes it, for the provenance); the
    // pool checks a block's lines a batch at a time; this thread takes in
    // each batch's outcome (the checks that need the lines in order) while
    // the pool checks the batch after it.
    let (block_tx, block_rx) = std::sync::mpsc::sync_channel::<std::io::Result<Vec<u8>>>(0);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|threads| {
        threads.spawn(move || {
            let mut blocks = Blocks {
                input,
                carry: Vec::new(),
            };
            // Until the input ends, fails, or the audit stops listening.
            while let Some(read) = blocks.next_block(spare_rx.try_recv().ok()).transpose() {
                let failed = read.is_err();
                if block_tx.send(read).is_err() || failed {
                    break;
                }
            }
        });
        // Dropped on return, so that an early return ends the reader too.
        let block_rx = block_rx;
        let mut line_no = 0u64;
        for block in &block_rx {
            let block = block?;
            // A block is checked a batch of lines at a time, so that memory
            // stays bounded however short its lines are.
            let mut rest: &[u8] = &block;
            let batch = split_lines(&mut rest, &mut line_no, BATCH_LINES);
            let mut checked = check_batch(&batch);
            while !rest.is_empty() {
                let batch = split_lines(&mut rest, &mut line_no, BATCH_LINES);
                let mut following = Vec::new();
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| following = check_batch(&batch));
                    take_in(
                        std::mem::take(&mut checked),
                        &mut report,
                        &mut sequence,
                        &mut evidence,
                        observe,
                    );
                });
                checked = following;
            }
            take_in(checked, &mut report, &mut sequence, &mut evidence, observe);
            // The reader reuses the block's memory; gone if it has ended.
            let _ = spare_tx.send(block);
            progress(report.lines, report.rounds);
        }
        Ok::<(), std::io::Error>(())
    })?;
    if !sequence.ended {
        sequence.close_pair(&mut report);
        sequence.close_draw(&mut report);
        report.add(
            0,
            "truncated",
            "the export has no end line: it was cut off (resume with the last seed_pair line's cursor)"
                .to_owned(),
        );
    }
    report.verify_seconds = started.elapsed().as_secs_f64();
    report.statistics = Some(evidence.report());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use std::io::BufRead;

    use super::{BLOCK_BYTES, Blocks, split_lines};

    /// Every line of `input` as the audit's block reader gives them.
    fn lines_by_block(input: &[u8], capacity: usize) -> Vec<Vec<u8>> {
        let mut blocks = Blocks {
            input: std::io::BufReader::with_capacity(capacity, input),
            carry: Vec::new(),
        };
        let (mut lines, mut line_no, mut spare) = (Vec::new(), 0, None);
        while let Some(block) = blocks.next_block(spare.take()).expect("in memory") {
            let mut rest: &[u8] = &block;
            while !rest.is_empty() {
                let batch = split_lines(&mut rest, &mut line_no, 1000);
                assert!(!batch.is_empty() && batch.len() <= 1000);
                for (n, line) in batch {
                    assert_eq!(n, lines.len() as u64 + 1, "numbered in order");
                    lines.push(line.to_vec());
                }
            }
            spare = Some(block);
        }
        lines
    }

    /// Blocks end at line ends, whatever the reads and the line lengths,
    /// and are split a batch of lines at a time: the lines are
    /// `BufRead::lines`'s, CRLF, empty lines, a line longer than a block and
    /// a last line without its newline (ending in CR) included.
    #[test]
    fn blocks_give_the_lines_bufread_gives() {
        let mut input = Vec::new();
        for i in 0..40_000u32 {
            let len = (i as usize * 7919) % 300;
            input.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            input.extend_from_slice(if i % 5 == 0 { b"\r\n" } else { b"\n" });
        }
        input.extend(std::iter::repeat_n(b'x', BLOCK_BYTES + 12_345));
        input.extend_from_slice(b"\n\n\n\r\nlast line, no newline\r");
        let expected: Vec<Vec<u8>> = input
            .lines()
            .map(|l| l.expect("ASCII").into_bytes())
            .collect();
        assert!(input.len() > 3 * BLOCK_BYTES);
        for capacity in [1 << 10, 1 << 16, 1 << 20] {
            assert_eq!(lines_by_block(&input, capacity), expected, "{capacity}");
        }
        assert!(lines_by_block(b"", 1024).is_empty());
        assert_eq!(lines_by_block(b"\n", 1024), vec![Vec::<u8>::new()]);
    }
}
