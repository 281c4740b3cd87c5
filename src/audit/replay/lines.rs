//! One export line, parsed and, for a round, checked on its own: the
//! seed against its commitment, the cards against fairdeal-v1's deal, the
//! statistics' evidence. Run in parallel, a batch at a time.

use super::*;

/// A line, parsed and (for rounds) checked, in parallel.
pub(super) enum Checked<'a> {
    /// A pair line, with what is wrong with it on its own: its revealed
    /// seed against its commitment, its table record (if a table).
    Pair(ExportPair, LineProblems),
    /// A drawn draw, with what is wrong with it (recomputed on its own),
    /// and what its list's lines must hash to: its id, `entries_sha256`
    /// and `entries`.
    Draw(LineProblems, (String, String, u64)),
    /// A chunk of the last draw's entrant list.
    DrawLines(crate::audit::export::ExportDrawLines),
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
    pub(super) _created_at: Cow<'a, str>,
}

/// Any JSON value, kept as the text it is in the line.
pub(super) fn raw_json<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<&'de str, D::Error> {
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
pub(super) fn cut_round_line(text: &str) -> Option<RoundLine<'_>> {
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
pub(super) const DEAL_KEY: &str = r#","deal":"#;
/// The key after a round line's deal (its last field).
pub(super) const CREATED_AT_KEY: &str = r#","created_at":""#;

/// The rest of a line being cut by [`cut_round_line`].
pub(super) struct Cut<'a>(&'a str);

impl<'a> Cut<'a> {
    /// Steps over `lit`.
    pub(super) fn literal(&mut self, lit: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(lit)?;
        Some(())
    }

    /// A string's text up to its closing quote (stepped over): only one
    /// without escapes or control characters, which JSON reads as it is.
    pub(super) fn string(&mut self) -> Option<&'a str> {
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
    pub(super) fn nonce(&mut self) -> Option<u64> {
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
    pub(super) fn until_deal(&mut self) -> Option<&'a str> {
        static FINDER: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(DEAL_KEY));
        let at = FINDER.find(self.0.as_bytes())?;
        self.step_over(at, DEAL_KEY.len())
    }

    /// The text up to the last `,"created_at":"`, which is stepped over.
    pub(super) fn until_created_at(&mut self) -> Option<&'a str> {
        static FINDER: LazyLock<memmem::FinderRev<'static>> =
            LazyLock::new(|| memmem::FinderRev::new(CREATED_AT_KEY));
        let at = FINDER.rfind(self.0.as_bytes())?;
        self.step_over(at, CREATED_AT_KEY.len())
    }

    /// The text before `at`, with `len` bytes from `at` stepped over.
    pub(super) fn step_over(&mut self, at: usize, len: usize) -> Option<&'a str> {
        let before = self.0.get(..at)?;
        self.0 = self.0.get(at + len..)?;
        Some(before)
    }
}

pub(super) fn round_name(round: &RoundLine<'_>) -> String {
    format!(
        "round {} (pair {}, nonce {})",
        round.id, round.seed_pair_id, round.nonce
    )
}

/// Problems found in one line: (kind, detail).
pub(super) type LineProblems = Vec<(&'static str, String)>;

/// The seed a worker thread checked last, and what follows from it: rounds
/// come grouped by pair, so the next line nearly always repeats the seed,
/// and its commitment check and prepared HMAC key are used again.
pub(super) struct LastSeed {
    pub(super) server_seed: String,
    pub(super) server_seed_hash: String,
    pub(super) commitment: CommitmentCheck,
    pub(super) key: SeedKey,
}

/// What a worker thread keeps from one round line to the next: the last
/// seed and client seed it read and the last few games (each checked once,
/// used again while lines repeat them), and a buffer for a computed deal's
/// JSON.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) seed: Option<LastSeed>,
    pub(super) client: Option<ClientSeed>,
    /// The games read lately (an export deals a few kinds), newest last.
    pub(super) games: Vec<(String, Game)>,
    pub(super) json: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Scratch {
    /// Keeps the line's seed, checked against its commitment once per seed.
    pub(super) fn seed(&mut self, round: &RoundLine<'_>) -> Result<(), String> {
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
    pub(super) fn client(&mut self, round: &RoundLine<'_>) -> Result<(), String> {
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
    pub(super) fn game(&mut self, round: &RoundLine<'_>) -> Result<Game, String> {
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
pub(super) fn check_round(
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
pub(super) fn first_card(deal: &Deal) -> Option<Card> {
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
pub(super) fn add_compact_to_evidence(evidence: &mut Evidence, deal: &CompactDeal) {
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

pub(super) fn check_line<'a>(text: &'a str, evidence: &mut Evidence) -> Checked<'a> {
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
        Some("draw") => serde_json::from_str(text).map(|draw: crate::audit::export::ExportDraw| {
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
pub(super) fn pair_commitment_problem(pair: &ExportPair) -> Option<String> {
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
        if fairdeal_core::ChainLength::new(length).is_err() {
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
