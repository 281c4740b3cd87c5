//! The cross-check of an export's digests against the log as it is read,
//! and the ledger of revealed pairs' digests a monitor keeps between runs.

use super::*;

/// How far a monitor's ledger of revealed pairs' digests goes
/// ([`crate::audit::cross::PairDigest`]): its records and bytes, which the file
/// beside the state holds (its first `bytes`) when the snapshot is
/// resumed, and the hash chain of its records (each link the SHA-256 of
/// the last and the record's bytes): the snapshot, whose own SHA-256
/// guards it, vouches for every byte of the ledger it was written with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerMark {
    pub pairs: u64,
    pub bytes: u64,
    pub chain: [u8; 32],
}

impl LedgerMark {
    /// The mark one more record takes the ledger to.
    pub fn after(self, record: &[u8]) -> Self {
        Self {
            pairs: self.pairs + 1,
            bytes: self.bytes + record.len() as u64,
            chain: Sha256::new()
                .chain_update(self.chain)
                .chain_update(record)
                .finalize()
                .into(),
        }
    }
}

/// The cross-check of an export's digests against the log, as the log is
/// read: the pairs whose digests differ, or that the export lacks.
#[derive(Debug, Default)]
pub struct CrossCheck {
    pub export: crate::audit::cross::ExportDigests,
    /// Pairs the log revealed whose rounds or seeds the export does not
    /// hold as the log does (at most [`MAX_FINDINGS`] named).
    pub differing: Vec<String>,
    pub differing_not_named: u64,
    /// Pairs the log revealed, and their rounds.
    pub revealed_pairs: u64,
    pub revealed_rounds: u64,
    /// The export's digests while another thread still reads the export
    /// ([`LogChecker::cross_check`]).
    pub(super) arriving: Option<std::sync::mpsc::Receiver<crate::audit::cross::ExportDigests>>,
    /// Pairs the log revealed before the export's digests arrived, held
    /// when they do (at most [`CrossCheck::MOST_PENDING`] and
    /// [`CrossCheck::MOST_PENDING_BYTES`]: the log's reader then waits for
    /// the export).
    pub(super) pending: Vec<crate::audit::cross::PairDigest>,
    pub(super) pending_bytes: usize,
    /// Pairs the log revealed, not in the export, before the reveals the
    /// export says it covers (an export resumed after a cursor) and after
    /// them (revealed after the export began): not the export's to hold
    /// (counted by [`CrossCheck::result`]).
    pub before_export: u64,
    pub after_export: u64,
    /// The reveals of pairs missing from the export that its coverage
    /// would excuse, by their index: excused only outside the span of the
    /// reveals the export does hold (an honest export is one run of the
    /// log's reveals, in their order), which is known at the end.
    pub(super) outside: Vec<u64>,
    /// The first and last reveal the export holds.
    pub(super) held_span: Option<(u64, u64)>,
    /// The pair revealed at the entry before the export's coverage starts
    /// (the cursor it resumed after), when one is.
    pub resumed_after: Option<String>,
    /// Pairs missing from the export that its coverage does not excuse
    /// (revealed within the span of the reveals it holds), by the index of
    /// their reveal: at most [`MAX_FINDINGS`], the rest counted.
    pub missing_within: Vec<u64>,
    pub missing_within_not_named: u64,
    /// Pairs the export holds whose reveal lies outside what its end line
    /// says it covers (an honest export holds none): the pair and the
    /// index, at most [`MAX_FINDINGS`], the rest counted.
    pub held_outside: Vec<(String, u64)>,
    pub held_outside_not_named: u64,
    /// The export's digests never came (its reader failed): every pair
    /// revealed differs, and reading on is pointless.
    pub export_lost: bool,
}

impl CrossCheck {
    /// 65,536 pairs waiting (about 7 MB with the service's ids) before the
    /// log's reader waits for the export: the export is read faster than
    /// the log, so this is reached only when the export is much the larger
    /// of the two.
    pub(super) const MOST_PENDING: usize = 1 << 16;
    /// And at most 8 MiB of them, counting their ids (a hostile log's ids
    /// can be 64 KiB long).
    pub(super) const MOST_PENDING_BYTES: usize = 8 << 20;

    /// The export's digests, if they arrived (waiting for them with
    /// `wait`): every pending pair is then held against them. An export
    /// that was never sent (its reader failed) leaves the export empty.
    pub(super) fn receive(&mut self, wait: bool) {
        let Some(arriving) = &self.arriving else {
            return;
        };
        let export = if wait {
            arriving.recv().ok()
        } else {
            match arriving.try_recv() {
                Ok(export) => Some(export),
                Err(std::sync::mpsc::TryRecvError::Empty) => return,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            }
        };
        self.arriving = None;
        self.export_lost = export.is_none();
        self.export = export.unwrap_or_else(|| {
            let mut empty = crate::audit::cross::ExportDigests::default();
            empty.seal();
            empty
        });
        self.pending_bytes = 0;
        for pending in std::mem::take(&mut self.pending) {
            self.hold(&pending);
        }
    }

    /// Every pair held: the result, once the export's digests are in
    /// (waiting for them). A missing pair the export's coverage would
    /// excuse is excused only if it lies outside the reveals the export
    /// holds: before the first of them (and its coverage), or after the
    /// last (and its coverage).
    pub fn result(mut self) -> Self {
        self.receive(true);
        let covered = self.export.coverage();
        let span = self.held_span;
        for index in std::mem::take(&mut self.outside) {
            let excused = match covered {
                Some(covered) if index < covered.from => {
                    span.is_none_or(|(first, _)| index < first)
                }
                Some(covered) if index >= covered.size => span.is_none_or(|(_, last)| index > last),
                _ => false,
            };
            match excused {
                true if index < covered.map_or(0, |c| c.from) => self.before_export += 1,
                true => self.after_export += 1,
                false if self.missing_within.len() < MAX_FINDINGS => {
                    self.missing_within.push(index)
                }
                false => self.missing_within_not_named += 1,
            }
        }
        self.missing_within.sort_unstable();
        self
    }

    /// Holds a pair the log revealed against the export, when it has
    /// arrived; else keeps it for then. From the checker as it reads a
    /// reveal, or from a monitor's ledger for the pairs revealed before the
    /// snapshot the checker resumed from.
    pub(crate) fn revealed(&mut self, reveal: crate::audit::cross::PairDigest) {
        self.revealed_pairs += 1;
        self.revealed_rounds += reveal.count;
        if self.arriving.is_some() {
            self.receive(
                self.pending.len() >= Self::MOST_PENDING
                    || self.pending_bytes >= Self::MOST_PENDING_BYTES,
            );
        }
        if self.arriving.is_some() {
            self.pending_bytes +=
                std::mem::size_of::<crate::audit::cross::PairDigest>() + reveal.pair.len();
            self.pending.push(reveal);
            return;
        }
        self.hold(&reveal);
    }

    pub(super) fn hold(&mut self, reveal: &crate::audit::cross::PairDigest) {
        let held = self
            .export
            .hold(&reveal.pair, reveal.fields, reveal.rounds, reveal.count);
        let covered = self.export.coverage();
        if covered.is_some_and(|c| c.from > 0 && reveal.index == c.from - 1) {
            self.resumed_after = Some(reveal.pair.to_string());
        }
        let outside = covered.is_some_and(|c| reveal.index < c.from || reveal.index >= c.size);
        if held != crate::audit::cross::Held::Absent {
            let (first, last) = self.held_span.unwrap_or((reveal.index, reveal.index));
            self.held_span = Some((first.min(reveal.index), last.max(reveal.index)));
            if outside {
                if self.held_outside.len() < MAX_FINDINGS {
                    self.held_outside
                        .push((reveal.pair.to_string(), reveal.index));
                } else {
                    self.held_outside_not_named += 1;
                }
            }
        }
        let differs = match held {
            crate::audit::cross::Held::Same => false,
            crate::audit::cross::Held::Differs => true,
            // A pair that dealt nothing (a void table) has nothing to
            // export.
            crate::audit::cross::Held::Absent if reveal.count == 0 => false,
            // Outside what the export says it covers: settled at the end.
            crate::audit::cross::Held::Absent if outside => {
                self.outside.push(reveal.index);
                false
            }
            crate::audit::cross::Held::Absent => true,
        };
        if differs {
            if self.differing.len() < MAX_FINDINGS {
                self.differing.push(reveal.pair.to_string());
            } else {
                self.differing_not_named += 1;
            }
        }
    }
}
