//! fairdeal-draw-v1: entrant lists, their commitment, and drawing or
//! shuffling list indices with fairdeal-v1's keystream and Fisher–Yates
//! (docs/PROTOCOL.md §7–§9).
//!
//! Nothing here changes fairdeal-v1: `shuffle` of 52 items is the deck
//! shuffle of a round, index for index.

use core::fmt;
use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::keystream::{Keystream, SeedKey, WordSource, uniform};
use crate::{ClientSeed, ServerSeed};

/// Most lines an entrant list may have: 2^32 − 1, so an index fits a `u32`.
pub const MAX_ENTRIES: u64 = u32::MAX as u64;

/// A draw of `winners` of `entries`: 2 ≤ entries ≤ 2^32 − 1,
/// 1 ≤ winners ≤ entries. A value that exists is valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Draw {
    entries: u32,
    winners: u32,
}

impl Draw {
    /// Checks the ranges.
    pub fn new(entries: u64, winners: u64) -> Result<Self, DrawError> {
        if !(2..=MAX_ENTRIES).contains(&entries) {
            return Err(DrawError::Entries { value: entries });
        }
        if !(1..=entries).contains(&winners) {
            return Err(DrawError::Winners {
                value: winners,
                entries,
            });
        }
        Ok(Self {
            entries: entries as u32,
            winners: winners as u32,
        })
    }

    /// n, the number of entrants.
    pub fn entries(self) -> u32 {
        self.entries
    }

    /// k, the number of winners.
    pub fn winners(self) -> u32 {
        self.winners
    }
}

/// A parameter of a draw or a list shuffle out of its range.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DrawError {
    /// `entries` is not 2 to 2^32 − 1.
    Entries {
        /// The value given.
        value: u64,
    },
    /// `winners` is not 1 to `entries`.
    Winners {
        /// The value given.
        value: u64,
        /// The draw's `entries`.
        entries: u64,
    },
    /// `items` is not 1 to 2^32 − 1.
    Items {
        /// The value given.
        value: u64,
    },
}

impl DrawError {
    /// The field at fault: `entries`, `winners` or `items`.
    pub fn field(&self) -> &'static str {
        match self {
            DrawError::Entries { .. } => "entries",
            DrawError::Winners { .. } => "winners",
            DrawError::Items { .. } => "items",
        }
    }
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::Entries { value } => {
                write!(f, "must be 2 to {MAX_ENTRIES}; got {value}")
            }
            DrawError::Winners { value, entries } => write!(
                f,
                "must be 1 to the number of entries ({entries}); got {value}"
            ),
            DrawError::Items { value } => {
                write!(f, "must be 1 to {MAX_ENTRIES}; got {value}")
            }
        }
    }
}

impl std::error::Error for DrawError {}

/// The winners of `draw`, as entrant indices, winner 1 first: the first
/// `min(k, n − 1)` steps of Fisher–Yates from the end over `[0, n)`, keeping
/// only the swapped positions. O(k) words, time and memory, whatever n is.
pub fn draw_winners<S: WordSource + ?Sized>(source: &mut S, draw: Draw) -> Vec<u32> {
    let n = draw.entries;
    let k = draw.winners;
    // Position → item, for the positions that no longer hold their own index.
    let mut moved: HashMap<u32, u32> = HashMap::with_capacity(k as usize);
    let mut winners = Vec::with_capacity(k as usize);
    for step in 0..k {
        let i = n - 1 - step;
        if i == 0 {
            // k = n: the last winner is a[0], which needs no step.
            winners.push(moved.remove(&0).unwrap_or(0));
            break;
        }
        let j = uniform(source, u64::from(i) + 1) as u32;
        let at_i = moved.remove(&i).unwrap_or(i);
        // a[i] ↔ a[j]: the winner is what was at j; j now holds a[i]. Position
        // i is never read again (later steps stay below it).
        let at_j = if j == i {
            at_i
        } else {
            moved.insert(j, at_i).unwrap_or(j)
        };
        winners.push(at_j);
    }
    winners
}

/// `[0, n)` shuffled by fairdeal-v1's Fisher–Yates (the `shuffle` of
/// §8): position `p` gets item `a[p]`.
pub fn shuffle_items<S: WordSource + ?Sized>(source: &mut S, items: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..items).collect();
    crate::shuffle(&mut order, source);
    order
}

/// The winners of `draw` for (server seed, client seed, nonce).
pub fn draw(
    server_seed: &ServerSeed,
    client_seed: &ClientSeed,
    nonce: u64,
    draw: Draw,
) -> Vec<u32> {
    let key = SeedKey::new(server_seed).round_key(client_seed, nonce);
    draw_winners(&mut Keystream::new(&key), draw)
}

/// `items` list positions shuffled for (server seed, client seed, nonce).
pub fn shuffled_items(
    server_seed: &ServerSeed,
    client_seed: &ClientSeed,
    nonce: u64,
    items: u64,
) -> Result<Vec<u32>, DrawError> {
    if !(1..=MAX_ENTRIES).contains(&items) {
        return Err(DrawError::Items { value: items });
    }
    let key = SeedKey::new(server_seed).round_key(client_seed, nonce);
    Ok(shuffle_items(&mut Keystream::new(&key), items as u32))
}

/// An entrant list's commitment: SHA-256 of its bytes and its line count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ListCommitment {
    /// SHA-256 of the list's exact bytes.
    pub sha256: [u8; 32],
    /// Its number of lines.
    pub entries: u64,
}

impl ListCommitment {
    /// `sha256` as lowercase hex, as published (`entries_sha256`).
    pub fn sha256_hex(&self) -> String {
        hex::encode(self.sha256)
    }
}

/// What is wrong with a line of an entrant list.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineRule {
    /// The line is empty (two LFs in a row, or an LF first).
    Empty,
    /// The line contains CR (a CRLF file, or a stray CR).
    CarriageReturn,
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// The list does not end with LF: its last line is unterminated.
    Unterminated,
    /// The list has more than 2^32 − 1 lines.
    TooManyLines,
    /// The line is longer than a caller's limit.
    TooLong {
        /// The limit, in bytes.
        max_bytes: usize,
    },
    /// The line repeats an earlier one.
    Duplicate {
        /// The earlier line's index (0-based).
        first: u64,
    },
}

/// A bad entrant list: which line (0-based index) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListError {
    /// The line's index from 0; an editor shows line `index + 1`.
    pub index: u64,
    /// The rule it breaks.
    pub rule: LineRule,
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.index + 1;
        match &self.rule {
            LineRule::Empty => write!(f, "line {line} is empty; every line needs an entrant"),
            LineRule::CarriageReturn => write!(
                f,
                "line {line} contains CR; lines end with LF only (convert CRLF files)"
            ),
            LineRule::InvalidUtf8 => write!(f, "line {line} is not valid UTF-8"),
            LineRule::Unterminated => write!(
                f,
                "line {line} does not end with LF; the list must end with a line feed"
            ),
            LineRule::TooManyLines => {
                write!(
                    f,
                    "line {line} is beyond the {MAX_ENTRIES} lines a list may have"
                )
            }
            LineRule::TooLong { max_bytes } => {
                write!(f, "line {line} is longer than {max_bytes} bytes")
            }
            LineRule::Duplicate { first } => {
                write!(f, "line {line} repeats line {}", first + 1)
            }
        }
    }
}

impl std::error::Error for ListError {}

/// Reads an entrant list in chunks of any size, in bounded memory: it hashes
/// every byte, splits lines, checks each (non-empty, no CR, UTF-8, length)
/// and hands it to the caller, who checks for duplicates (a set in memory,
/// or a database's unique index) and keeps what it needs.
#[derive(Clone, Debug, Default)]
pub struct ListScanner {
    hasher: Sha256,
    partial: Vec<u8>,
    lines: u64,
    max_line_bytes: Option<usize>,
}

impl ListScanner {
    /// A scanner with no line-length limit but the protocol's (none).
    pub fn new() -> Self {
        Self::default()
    }

    /// A scanner that also refuses lines over `max_bytes` (a service's
    /// storage limit, not a protocol rule).
    pub fn with_max_line_bytes(max_bytes: usize) -> Self {
        Self {
            max_line_bytes: Some(max_bytes),
            ..Self::default()
        }
    }

    /// Lines completed so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Feeds the next bytes; `on_line(index, text)` is called for each line
    /// completed in them, in order. An error from `on_line` stops the scan.
    pub fn feed<E>(
        &mut self,
        mut chunk: &[u8],
        mut on_line: impl FnMut(u64, &str) -> Result<(), E>,
    ) -> Result<(), ScanError<E>> {
        self.hasher.update(chunk);
        while let Some(at) = chunk.iter().position(|&b| b == b'\n') {
            let (head, rest) = chunk.split_at(at);
            chunk = &rest[1..];
            let index = self.lines;
            if index >= MAX_ENTRIES {
                return Err(ScanError::List(ListError {
                    index,
                    rule: LineRule::TooManyLines,
                }));
            }
            let text = if self.partial.is_empty() {
                check_line(index, head, self.max_line_bytes)?
            } else {
                self.partial.extend_from_slice(head);
                let line = core::mem::take(&mut self.partial);
                check_line(index, &line, self.max_line_bytes)?;
                self.lines += 1;
                let text = core::str::from_utf8(&line).expect("checked");
                on_line(index, text).map_err(ScanError::Caller)?;
                continue;
            };
            self.lines += 1;
            on_line(index, text).map_err(ScanError::Caller)?;
        }
        self.partial.extend_from_slice(chunk);
        if let Some(max) = self.max_line_bytes.filter(|&max| self.partial.len() > max) {
            return Err(ScanError::List(ListError {
                index: self.lines,
                rule: LineRule::TooLong { max_bytes: max },
            }));
        }
        Ok(())
    }

    /// Ends the list: refused if bytes follow the last LF.
    pub fn finish(self) -> Result<ListCommitment, ListError> {
        if !self.partial.is_empty() {
            return Err(ListError {
                index: self.lines,
                rule: LineRule::Unterminated,
            });
        }
        Ok(ListCommitment {
            sha256: self.hasher.finalize().into(),
            entries: self.lines,
        })
    }
}

/// Why [`ListScanner::feed`] stopped: the list broke a rule, or the caller's
/// `on_line` said stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanError<E> {
    /// A line broke a rule.
    List(ListError),
    /// `on_line` failed.
    Caller(E),
}

impl<E> From<ListError> for ScanError<E> {
    fn from(err: ListError) -> Self {
        ScanError::List(err)
    }
}

fn check_line(index: u64, line: &[u8], max: Option<usize>) -> Result<&str, ListError> {
    let fail = |rule| Err(ListError { index, rule });
    if line.is_empty() {
        return fail(LineRule::Empty);
    }
    if let Some(max_bytes) = max.filter(|&max| line.len() > max) {
        return fail(LineRule::TooLong { max_bytes });
    }
    if line.contains(&b'\r') {
        return fail(LineRule::CarriageReturn);
    }
    match core::str::from_utf8(line) {
        Ok(text) => Ok(text),
        Err(_) => fail(LineRule::InvalidUtf8),
    }
}

/// A whole entrant list in memory, checked (duplicates included): its
/// commitment and its lines.
pub fn parse_list(bytes: &[u8]) -> Result<(ListCommitment, Vec<&str>), ListError> {
    let mut scanner = ListScanner::new();
    let mut finder = DuplicateFinder::new();
    match scanner.feed(bytes, |index, text| finder.check(index, text)) {
        Ok(()) => {}
        Err(ScanError::List(err) | ScanError::Caller(err)) => return Err(err),
    }
    let commitment = scanner.finish()?;
    let lines = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|line| core::str::from_utf8(&line[..line.len() - 1]).expect("checked by the scanner"))
        .collect();
    Ok((commitment, lines))
}

/// Remembers lines by their SHA-256 to find duplicates in a list too large
/// to keep (32 bytes and an index a line).
#[derive(Debug, Default)]
pub struct DuplicateFinder(HashMap<[u8; 32], u64>);

impl DuplicateFinder {
    /// An empty finder.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Err` naming the first line if `text` was seen before.
    pub fn check(&mut self, index: u64, text: &str) -> Result<(), ListError> {
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        match self.0.insert(digest, index) {
            Some(first) => Err(ListError {
                index,
                rule: LineRule::Duplicate { first },
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source replaying fixed words, then a counter (for cheap tests).
    struct Counter(u32);
    impl WordSource for Counter {
        fn next_word(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(2_654_435_761).wrapping_add(12_345);
            self.0
        }
    }

    #[test]
    fn a_draw_is_the_tail_of_the_full_shuffle_read_from_the_end() {
        for n in 2..40u32 {
            for k in 1..=n {
                let full = shuffle_items(&mut Counter(n), n);
                let tail: Vec<u32> = full.iter().rev().take(k as usize).copied().collect();
                let draw = Draw::new(n.into(), k.into()).expect("valid");
                assert_eq!(draw_winners(&mut Counter(n), draw), tail, "n={n} k={k}");
            }
        }
    }

    #[test]
    fn ranges_are_checked_and_named() {
        assert_eq!(
            Draw::new(1, 1).expect_err("out of range").field(),
            "entries"
        );
        assert_eq!(
            Draw::new(MAX_ENTRIES + 1, 1)
                .expect_err("out of range")
                .field(),
            "entries"
        );
        assert_eq!(
            Draw::new(5, 0).expect_err("out of range").field(),
            "winners"
        );
        assert_eq!(
            Draw::new(5, 6).expect_err("out of range").field(),
            "winners"
        );
        assert!(Draw::new(MAX_ENTRIES, MAX_ENTRIES).is_ok());
        assert_eq!(
            Draw::new(5, 6).expect_err("out of range").to_string(),
            "must be 1 to the number of entries (5); got 6"
        );
    }

    #[test]
    fn lists_are_checked_line_by_line() {
        let err = |bytes: &[u8]| parse_list(bytes).expect_err("bad list");
        assert_eq!(err(b"a\n\nb\n").rule, LineRule::Empty);
        assert_eq!(err(b"a\n\nb\n").index, 1);
        assert_eq!(err(b"a\r\nb\n").rule, LineRule::CarriageReturn);
        assert_eq!(err(b"a\nb\xff\n").rule, LineRule::InvalidUtf8);
        assert_eq!(err(b"a\nb").rule, LineRule::Unterminated);
        assert_eq!(err(b"a\nb").index, 1);
        assert_eq!(
            err(b"a\nb\na\n"),
            ListError {
                index: 2,
                rule: LineRule::Duplicate { first: 0 }
            }
        );
        assert_eq!(err(b"a\nb\na\n").to_string(), "line 3 repeats line 1");
        let (commitment, lines) = parse_list(b"alice\nbob\n").expect("valid");
        assert_eq!(lines, ["alice", "bob"]);
        assert_eq!(commitment.entries, 2);
        assert_eq!(
            commitment.sha256_hex(),
            hex::encode(Sha256::digest(b"alice\nbob\n"))
        );
        assert_eq!(parse_list(b"").expect("empty list").0.entries, 0);
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let list = "zoë\nbob\n🂡 ace\ncarol\n".as_bytes();
        let whole = parse_list(list).expect("valid").0;
        for size in 1..list.len() {
            let mut scanner = ListScanner::new();
            let mut texts = Vec::new();
            for chunk in list.chunks(size) {
                scanner
                    .feed(chunk, |i, t| {
                        texts.push((i, t.to_owned()));
                        Ok::<(), ()>(())
                    })
                    .expect("valid");
            }
            assert_eq!(scanner.finish().expect("valid"), whole, "chunks of {size}");
            assert_eq!(texts.len(), 4);
            assert_eq!(texts[2], (2, "🂡 ace".to_owned()));
        }
    }

    #[test]
    fn long_lines_are_refused_before_they_are_complete() {
        let mut scanner = ListScanner::with_max_line_bytes(4);
        assert!(scanner.feed(b"abcd\n", |_, _| Ok::<(), ()>(())).is_ok());
        assert_eq!(
            scanner.feed(b"abcde", |_, _| Ok::<(), ()>(())),
            Err(ScanError::List(ListError {
                index: 1,
                rule: LineRule::TooLong { max_bytes: 4 }
            }))
        );
    }

    /// Line 2^32 (index 2^32 − 1) is one too many: a scanner that has read
    /// 2^32 − 1 lines refuses the next, naming it.
    #[test]
    fn the_line_after_the_largest_list_is_refused() {
        let mut scanner = ListScanner {
            lines: MAX_ENTRIES,
            ..ListScanner::default()
        };
        assert_eq!(
            scanner.feed(b"one more\n", |_, _| Ok::<(), ()>(())),
            Err(ScanError::List(ListError {
                index: MAX_ENTRIES,
                rule: LineRule::TooManyLines
            }))
        );
        let mut full = ListScanner {
            lines: MAX_ENTRIES - 1,
            ..ListScanner::default()
        };
        assert!(full.feed(b"the last\n", |_, _| Ok::<(), ()>(())).is_ok());
        assert_eq!(full.finish().expect("complete").entries, MAX_ENTRIES);
    }

    #[test]
    fn duplicates_are_found_by_hash() {
        let mut finder = DuplicateFinder::new();
        assert!(finder.check(0, "a").is_ok());
        assert!(finder.check(1, "b").is_ok());
        assert_eq!(
            finder.check(2, "a").expect_err("dup").rule,
            LineRule::Duplicate { first: 0 }
        );
    }
}
