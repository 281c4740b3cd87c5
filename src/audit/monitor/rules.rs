//! The rules of the log's pair entries, one method a kind: `commit`,
//! `client_seed`, `round`, `reveal` (and a rotation's successor),
//! `round_seed` (chain pairs) and the table entries. Each reads the
//! entry's fields and what the log said before, and records findings.

use super::*;

impl LogChecker {
    pub(super) fn check_entry(&mut self, index: u64, bytes: &[u8]) {
        // The entry as a JSON value, when it does not fit the borrowed
        // fields (its fields are then read from the value).
        let mut value = None;
        let fields = match serde_json::from_slice::<Fields>(bytes) {
            Ok(fields) => fields,
            Err(_) => {
                let Ok(entry) = serde_json::from_slice::<Value>(bytes) else {
                    self.memory
                        .findings
                        .add("entry", Some(index), "not JSON".to_owned());
                    return;
                };
                Fields::of_value(value.insert(entry))
            }
        };
        let pair_id = Fields::text(&fields.seed_pair);
        let full = || serde_json::from_slice::<Value>(bytes).unwrap_or_default();
        let of_a_pair = matches!(
            fields.kind.as_deref(),
            Some("commit" | "client_seed" | "round" | "round_seed" | "reveal")
                | Some("seat_commitment" | "seat_contribution" | "table_void")
        );
        if of_a_pair && pair_id.is_empty() {
            let kind = fields.kind.as_deref().unwrap_or_default();
            self.memory.findings.add(
                "entry",
                Some(index),
                format!(
                    "a {kind} entry that names no seed pair (its seed_pair is missing or empty)"
                ),
            );
            return;
        }
        if let Some(kind @ ("round" | "round_seed")) = fields.kind.as_deref()
            && fields.nonce.is_none()
        {
            self.memory.findings.add(
                "entry",
                Some(index),
                format!(
                    "a {kind} entry of pair {pair_id} without a nonce (its nonce is missing or not \
                     a whole number from 0 to 2^64 - 1)"
                ),
            );
            return;
        }
        match fields.kind.as_deref() {
            Some("commit") => {
                // A table's seats, read from the whole entry.
                let entry = match &value {
                    Some(value) => value["seats"].is_array().then(|| value.clone()),
                    None => fields.seats.is_some().then(full),
                };
                self.commit(index, pair_id, &fields, entry.as_ref())
            }
            Some("client_seed") => self.client_seed(index, pair_id, &fields),
            Some("round") => self.round(index, pair_id, &fields),
            Some("round_seed") => self.round_seed(index, pair_id, &fields),
            Some("reveal") => self.reveal(index, pair_id, &fields),
            Some(kind @ ("seat_commitment" | "seat_contribution" | "table_void")) => {
                self.table_entry(index, kind, pair_id, &full())
            }
            Some("draw_commit" | "draw_client_seed" | "draw_result") => {
                self.draw_entry(index, &full());
            }
            Some("witness_set") => {
                if let Some(why) = witness_set_problem(&full()) {
                    self.memory.findings.add("witnesses", Some(index), why);
                }
            }
            Some(other) => self.memory.findings.add(
                "entry",
                Some(index),
                format!("an entry of unknown type {other:?}"),
            ),
            None => {
                self.memory
                    .findings
                    .add("entry", Some(index), "an entry without a type".to_owned())
            }
        }
    }

    pub(super) fn commit(
        &mut self,
        index: u64,
        pair_id: &str,
        fields: &Fields,
        entry: Option<&Value>,
    ) {
        let m = &mut self.memory;
        let id = m.names.keep(pair_id);
        if m.live.contains_key(&id) || m.revealed.contains(&id) {
            m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} is committed twice (the first commitment stands)"),
            );
            return;
        }
        m.pairs += 1;
        let commitment_text = Fields::text(&fields.server_seed_hash);
        let commitment = hash32(commitment_text);
        if commitment.is_none() {
            m.findings.add(
                "entry",
                Some(index),
                format!(
                    "pair {pair_id}'s commitment {commitment_text:?} is not a SHA-256 hash in hex"
                ),
            );
        }
        let chain = match fields.chain_length {
            None => None,
            Some(length) if fairdeal_core::ChainLength::new(length).is_ok() => {
                Some(Box::new(ChainTrack {
                    length,
                    published: 0,
                    last: commitment,
                }))
            }
            Some(length) => {
                m.findings.add(
                    "chain",
                    Some(index),
                    format!(
                        "pair {pair_id}'s chain length {length} is not 1 to {}",
                        fairdeal_core::MAX_CHAIN_LENGTH
                    ),
                );
                None
            }
        };
        let track = Live {
            commitment,
            chain,
            next: hash32(Fields::text(&fields.next_server_seed_hash)),
            committed_at_ms: fields.time.as_deref().and_then(time_ms),
            tenant: m.tenants.of(fields.tenant.as_deref()),
            next_nonce: Some(0),
            table: entry.and_then(|entry| {
                let seats = entry["seats"].as_array()?;
                Some(Box::new(TableTrack::new(
                    seats
                        .iter()
                        .map(|s| s.as_str().unwrap_or_default().to_owned())
                        .collect(),
                    entry["seat_set"].as_str(),
                )))
            }),
            ..Live::default()
        };
        if track.table.is_some() {
            m.tables += 1;
        }
        if let Some(predecessor) = fields.predecessor.as_deref() {
            let from = m.names.id(predecessor);
            match m.promised.remove(&id) {
                Some((p, next)) if p == from && next == track.commitment => {}
                promise => {
                    if let Some(promise) = promise {
                        // Not this one's: it stays for the pair it was.
                        m.promised.insert(id, promise);
                    }
                    let known = m.live.contains_key(&from) || m.revealed.contains(&from);
                    m.findings.add(
                        "succession",
                        Some(index),
                        if known {
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which did not promise it (its reveal names another successor, or another next commitment)"
                            )
                        } else {
                            format!(
                                "pair {pair_id} names {predecessor} as its predecessor, which the log never committed"
                            )
                        },
                    );
                }
            }
        }
        let mut track = track;
        if self.cross.is_some() || m.ledger.is_some() {
            track.digest = Some(Box::default());
        }
        m.live.insert(id, track);
        if self.keep_rounds && self.facts_of.as_ref().is_none_or(|p| p.contains(pair_id)) {
            self.facts.insert(
                pair_id.to_owned(),
                PairFacts {
                    server_seed_hash: commitment_text.to_owned(),
                    ..PairFacts::default()
                },
            );
        }
    }

    /// A finding for an entry of a pair that is not live: never committed,
    /// or revealed already.
    pub(super) fn not_live(&mut self, index: u64, pair_id: &str, what: &str) {
        let m = &mut self.memory;
        let when = if m.revealed.contains(&m.names.id(pair_id)) {
            "after its reveal"
        } else {
            "before its commitment"
        };
        m.findings.add(
            "order",
            Some(index),
            format!("{what} of pair {pair_id} {when}"),
        );
    }

    pub(super) fn client_seed(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let exact_text = Fields::text(&fields.client_seed_sha256);
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a client seed");
            return;
        };
        if track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} gets a second client seed (the first stands)"),
            );
            return;
        }
        if let Some(problem) = track
            .table
            .as_ref()
            .and_then(|t| t.client_seed_entry(pair_id))
        {
            m.findings.add("table", Some(index), problem);
        }
        track.seeded = true;
        if let Some(digest) = track.digest.as_mut() {
            digest.client_seed_sha256 = exact_text.to_owned();
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.client_seed_sha256 = Some(exact_text.to_owned());
        }
        // A table's seed is derived from every seat's contribution: no
        // operator chose it, so it is no one's to shop with.
        if track.table.is_some() {
            return;
        }
        let tenant = track.tenant;
        let lookalike = fields.client_seed_lookalike_sha256.as_deref();
        let live = &m.live;
        let (group, more) = m.pair_seeds.join(
            id,
            digest16(&[exact_text.as_bytes()]),
            lookalike.map(|l| digest16(&[l.as_bytes()])),
            |first| live.get(&first).map(|p| p.tenant),
        );
        if let Some(more) = more {
            if more.live_same_tenant(tenant) {
                more.shopped += 1;
                more.first_shopped_at.get_or_insert(index);
                if more.shopped_named.len() < MAX_NAMED {
                    more.shopped_named.push(id);
                }
            }
            more.add(tenant);
        }
        if let Some(track) = m.live.get_mut(&id) {
            track.group = Some(group);
        }
    }

    pub(super) fn round(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        self.memory.rounds += 1;
        // A round without a nonce was reported where it was read.
        let Some(nonce) = fields.nonce else { return };
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a round");
            return;
        };
        if !track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("a round of {pair_id} before its client seed"),
            );
        }
        track.rounds += 1;
        if let Some(chain) = &track.chain
            && nonce >= chain.length
        {
            m.findings.add(
                "chain",
                Some(index),
                format!(
                    "pair {pair_id} deals nonce {nonce} past the end of its chain of {}",
                    chain.length
                ),
            );
        }
        match track.next_nonce {
            Some(next) if nonce == next => {
                track.next_nonce = nonce.checked_add(1);
                let game = || {
                    fields
                        .game
                        .and_then(|g| serde_json::from_str::<Value>(g.get()).ok())
                        .unwrap_or(Value::Null)
                };
                if let Some(digest) = track.digest.as_mut() {
                    let game = self
                        .games
                        .sorted(fields.game.map_or("null", |game| game.get()));
                    let round = crate::audit::cross::round_digest_of_text(
                        nonce,
                        &game,
                        Fields::text(&fields.round),
                    );
                    digest.rounds = digest.rounds.wrapping_add(round);
                    digest.count += 1;
                }
                if let Some(facts) = self.facts.get_mut(pair_id) {
                    let game = game();
                    facts
                        .rounds
                        .insert(nonce, (game, Fields::text(&fields.round).to_owned()));
                }
            }
            None => m.findings.add(
                "order",
                Some(index),
                format!("pair {pair_id} deals nonce {nonce} after nonce 2^64 - 1, its last"),
            ),
            Some(next) => {
                m.findings.add(
                    "order",
                    Some(index),
                    format!(
                        "pair {pair_id} deals nonce {nonce} where {next} was next (a gap or a repeat)"
                    ),
                );
                // A gap moves on (later rounds are judged from it); a repeat
                // does not take the first one's place.
                if nonce > next {
                    track.next_nonce = nonce.checked_add(1);
                }
            }
        }
    }

    /// The live pair `id` revealed (by rotation or a table's void): it no
    /// longer holds its client seed live, and nothing is kept of it but its
    /// id.
    pub(super) fn released(
        &mut self,
        index: u64,
        id: Id,
        pair_id: &str,
        seed: &str,
    ) -> Option<Live> {
        let m = &mut self.memory;
        let track = m.live.remove(&id)?;
        m.revealed.insert_new(id, ());
        if let Some(group) = track.group
            && let Some(more) = m
                .pair_seeds
                .groups
                .get_mut(group as usize)
                .and_then(|g| g.more.as_mut())
        {
            more.release(track.tenant);
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.server_seed = Some(seed.to_owned());
        }
        if let Some(digest) = track.digest.as_ref() {
            // A chain pair's tip is held to its round seeds instead.
            let fields = crate::audit::cross::fields_digest(
                &track.commitment.map(hex::encode).unwrap_or_default(),
                if track.chain.is_some() { "" } else { seed },
                &digest.client_seed_sha256,
            );
            let reveal = crate::audit::cross::PairDigest {
                pair: pair_id.into(),
                index,
                fields,
                rounds: digest.rounds,
                count: digest.count,
            };
            if let Some(mark) = self.memory.ledger.as_mut() {
                // Written where it goes (or, with no one to take it, aside)
                // and chained from there.
                let mut aside = Vec::new();
                let out = self.ledger_out.as_mut().unwrap_or(&mut aside);
                let start = out.len();
                reveal.write(out);
                *mark = mark.after(&out[start..]);
            }
            if let Some(cross) = self.cross.as_mut() {
                cross.revealed(reveal);
            }
        }
        Some(track)
    }

    pub(super) fn reveal(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let id = self.memory.names.id(pair_id);
        let seed = Fields::text(&fields.server_seed);
        let Some(track) = self.released(index, id, pair_id, seed) else {
            let twice = self.memory.revealed.contains(&id);
            self.memory.findings.add(
                "order",
                Some(index),
                if twice {
                    format!("pair {pair_id} is revealed twice (the first reveal stands)")
                } else {
                    format!("a reveal of {pair_id}, never committed")
                },
            );
            return;
        };
        if let Some(problem) = self.reveal_problem(&track, pair_id, seed) {
            self.memory.findings.add("reveal", Some(index), problem);
        }
        let m = &mut self.memory;
        if let Some(successor) = fields.successor.as_deref() {
            m.promised
                .entry(m.names.keep(successor))
                .or_insert((id, track.next));
        }
    }

    /// What is wrong with `seed`, revealed for the pair `track` was: it
    /// does not hash to the commitment; for a chain pair, a round dealt
    /// whose seed was never published, or a tip that does not hash down to
    /// the last published seed (checked within [`CHAIN_TIP_BUDGET`]).
    pub(super) fn reveal_problem(
        &mut self,
        track: &Live,
        pair_id: &str,
        seed: &str,
    ) -> Option<String> {
        let Some(chain) = &track.chain else {
            return (!opens(seed, track.commitment)).then(|| {
                format!("pair {pair_id}'s revealed seed does not hash to its commitment")
            });
        };
        let dealt = track.next_nonce.unwrap_or(u64::MAX);
        if chain.published < dealt {
            return Some(format!(
                "chain pair {pair_id} is revealed with rounds {} to {} whose seeds were never published",
                chain.published,
                dealt - 1
            ));
        }
        let Ok(tip) = <[u8; 32]>::try_from(hex::decode(seed).unwrap_or_default()) else {
            return Some(format!(
                "chain pair {pair_id}'s revealed tip is not 32 bytes in hex"
            ));
        };
        let steps = chain.length.saturating_sub(chain.published);
        let m = &mut self.memory;
        if m.chain_tip_steps.saturating_add(steps) > CHAIN_TIP_BUDGET {
            m.chain_tips_unchecked += 1;
            return None;
        }
        m.chain_tip_steps += steps;
        let mut down = tip;
        for _ in 0..steps {
            down = Sha256::digest(down).into();
        }
        (Some(down) != chain.last).then(|| {
            format!(
                "chain pair {pair_id}'s revealed tip does not hash down to its last published seed (or its commitment)"
            )
        })
    }

    /// A chain round's seed published: in nonce order, after its round, and
    /// hashing to the seed before it (the first to the commitment).
    pub(super) fn round_seed(&mut self, index: u64, pair_id: &str, fields: &Fields) {
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, "a round seed");
            return;
        };
        let dealt = track.next_nonce.unwrap_or(u64::MAX);
        let Some(chain) = track.chain.as_mut() else {
            m.findings.add(
                "chain",
                Some(index),
                format!("a round seed of {pair_id}, which was not committed as a chain"),
            );
            return;
        };
        // A seed without a nonce was reported where it was read.
        let Some(nonce) = fields.nonce else { return };
        if nonce != chain.published {
            m.findings.add(
                "order",
                Some(index),
                format!(
                    "pair {pair_id} publishes the seed of round {nonce} where round {}'s was next (seeds are published in nonce order)",
                    chain.published
                ),
            );
            return;
        }
        if chain.published >= dealt {
            m.findings.add(
                "order",
                Some(index),
                format!(
                    "pair {pair_id} publishes the seed of round {} before the round was dealt",
                    chain.published
                ),
            );
        }
        let seed = hash32(Fields::text(&fields.server_seed));
        let links =
            seed.is_some_and(|seed| Some(<[u8; 32]>::from(Sha256::digest(seed))) == chain.last);
        if !links {
            m.findings.add(
                "chain",
                Some(index),
                format!(
                    "round {} of {pair_id}: its published seed does not hash to {}",
                    chain.published,
                    if chain.published == 0 {
                        "the pair's commitment"
                    } else {
                        "the previous round's seed"
                    }
                ),
            );
        }
        if let Some(digest) = track.digest.as_mut() {
            digest.rounds = digest
                .rounds
                .wrapping_add(crate::audit::cross::chain_seed_digest(
                    chain.published,
                    Fields::text(&fields.server_seed),
                ));
        }
        if let Some(facts) = self.facts.get_mut(pair_id) {
            facts.round_seeds.insert(
                chain.published,
                Fields::text(&fields.server_seed).to_owned(),
            );
        }
        chain.published += 1;
        if seed.is_some() {
            chain.last = seed;
        }
    }

    pub(super) fn table_entry(&mut self, index: u64, kind: &str, pair_id: &str, entry: &Value) {
        let m = &mut self.memory;
        let id = m.names.id(pair_id);
        let Some(track) = m.live.get_mut(&id) else {
            self.not_live(index, pair_id, &format!("a {kind}"));
            return;
        };
        let Some(table) = track.table.as_mut() else {
            m.findings.add(
                "table",
                Some(index),
                format!("a {kind} of {pair_id}, which was not committed as a table"),
            );
            return;
        };
        if kind != "table_void" {
            if let Some(problem) = table.seat_entry(pair_id, entry) {
                m.findings.add("table", Some(index), problem);
            }
            return;
        }
        if let Some(problem) = table.void_entry(pair_id, entry) {
            m.findings.add("table", Some(index), problem);
        }
        m.voids.push((pair_id.to_owned(), table.set.clone()));
        if track.seeded {
            m.findings.add(
                "order",
                Some(index),
                format!("table {pair_id} is voided after its client seed"),
            );
        }
        let seed = entry["server_seed"].as_str().unwrap_or_default();
        if let Some(track) = self.released(index, id, pair_id, seed)
            && let Some(problem) = self.reveal_problem(&track, pair_id, seed)
        {
            self.memory
                .findings
                .add("reveal", Some(index), format!("void table: {problem}"));
        }
    }
}

/// What is wrong with a `witness_set` entry, if anything: each witness a
/// cosignature verifier key (Ed25519 cosignature/v1) and an http(s) URL,
/// no name twice, and a quorum from 1 to their number (0 with none).
pub(super) fn witness_set_problem(entry: &Value) -> Option<String> {
    use crate::tlog::cosignature::CosignatureVerifier;
    let (Some(witnesses), Some(quorum)) = (entry["witnesses"].as_array(), entry["quorum"].as_u64())
    else {
        return Some(
            "a witness_set entry without its witnesses (a list) or its quorum (a whole number)"
                .to_owned(),
        );
    };
    let mut names = Vec::new();
    for (at, witness) in witnesses.iter().enumerate() {
        let (Some(vkey), Some(url)) = (witness["vkey"].as_str(), witness["url"].as_str()) else {
            return Some(format!(
                "witness {at} of a witness_set entry has no vkey or url (text)"
            ));
        };
        match CosignatureVerifier::from_vkey(vkey) {
            Ok(verifier) => names.push(verifier.name().to_owned()),
            Err(err) => {
                return Some(format!(
                    "witness {at} of a witness_set entry: its key {vkey:?} is not a cosignature \
                     verifier key: {err:#}"
                ));
            }
        }
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Some(format!(
                "witness {at} of a witness_set entry: its URL {url:?} is not http(s)"
            ));
        }
    }
    names.sort_unstable();
    if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
        return Some(format!(
            "a witness_set entry names the witness {:?} twice",
            twice[0]
        ));
    }
    let count = witnesses.len() as u64;
    let fits = if count == 0 {
        quorum == 0
    } else {
        (1..=count).contains(&quorum)
    };
    (!fits)
        .then(|| format!("a witness_set entry's quorum {quorum} is not 1 to its {count} witnesses"))
}
