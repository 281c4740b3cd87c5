//! The checks that need the lines in order: each pair's nonces 0, 1, 2, …
//! with no gap or repeat, rounds against their pair's line, chains, draws
//! and the end line's counts.

use super::*;

/// The order-dependent state: the pair being read and its next nonce.
#[derive(Default)]
pub(super) struct Sequence {
    /// The pair, its line, and the nonce expected next. That is a `u128` so
    /// that a round with nonce 2^64 − 1 (untrusted input) has a successor.
    pub(super) pair: Option<(ExportPair, u64, u128)>,
    pub(super) ended: bool,
    /// The first card of the pair's previous round, for serial correlation.
    pub(super) previous_first: Option<Card>,
    /// Every pair read so far, and the line it was first on: a pair listed
    /// twice would count its rounds twice in the statistics. Its id as a
    /// 128-bit number: the UUID itself (the service's ids), or the first 16
    /// bytes of the SHA-256 of any other id, so that a hostile export's long
    /// ids take no more. (Round ids are not kept: that would make the
    /// audit's memory grow with the rounds, and a round's id is not what its
    /// cards are checked by.)
    pub(super) pairs_seen: std::collections::HashMap<u128, u64>,
    /// A chain pair's chain as its rounds link it: its length, the position
    /// of the last seed linked (0: the commitment) and that seed.
    pub(super) chain: Option<(u64, u64, [u8; 32])>,
    /// SHA-256 steps spent on chain tips ([`CHAIN_TIP_BUDGET`]).
    pub(super) chain_tip_steps: u64,
    /// The last draw read, and its list as `draw_lines` records give it.
    pub(super) draw_list: Option<DrawList>,
}

/// A draw's entrant list as the export's `draw_lines` records give it,
/// hashed as it comes, against what the draw committed to.
pub(super) struct DrawList {
    /// The draw's line.
    pub(super) line: u64,
    pub(super) id: String,
    pub(super) entries_sha256: String,
    pub(super) entries: u64,
    pub(super) hasher: Sha256,
    pub(super) count: u64,
    /// Whether any `draw_lines` record came, and whether one was wrong.
    pub(super) seen: bool,
    pub(super) broken: bool,
}

/// SHA-256 steps an audit spends holding revealed chain tips to their last
/// round's seed (about 5 s): a chain rotated early leaves up to 2^24 steps
/// to its tip. Past it, tips are counted unchecked
/// ([`Report::chain_tips_unchecked`]); every round's link is still checked.
pub(super) const CHAIN_TIP_BUDGET: u64 = 1 << 26;

impl Sequence {
    /// Starts holding a chain pair's rounds to its chain.
    pub(super) fn open_chain(&mut self, pair: &ExportPair) {
        self.chain = match (pair.chain_length, hash32(&pair.server_seed_hash)) {
            (Some(length), Some(s0)) => Some((length, 0, s0)),
            _ => None,
        };
    }

    /// A draw line: its list may follow.
    pub(super) fn open_draw(
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
    pub(super) fn draw_lines(
        &mut self,
        line: u64,
        record: &crate::audit::export::ExportDrawLines,
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
    pub(super) fn close_draw(&mut self, report: &mut Report) {
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

    pub(super) fn close_pair(&mut self, report: &mut Report) {
        self.previous_first = None;
        if let (Some((length, position, last)), Some((pair, line, _))) =
            (self.chain.take(), self.pair.as_ref())
            && let Some(tip) = hash32(&pair.server_seed)
            && fairdeal_core::ChainLength::new(length).is_ok()
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

    pub(super) fn round(&mut self, line: u64, round: &RoundLine<'_>, report: &mut Report) {
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
