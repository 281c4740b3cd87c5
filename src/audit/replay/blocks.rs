//! The input read a block of whole lines at a time, on a thread of its
//! own, split into lines and checked a batch at a time in parallel.

use super::*;

/// Bytes read at a time: whole lines, about this many (a longer line is
/// read whole).
pub(super) const BLOCK_BYTES: usize = 2 << 20;
/// Bytes asked of the input per read.
pub(super) const READ_BYTES: usize = 256 << 10;
/// The longest line read: an export's longest (a table pair's, an 8-deck
/// shoe) are a few KiB; a line may still be longer than a block.
pub(super) const MAX_LINE_BYTES: usize = 2 * BLOCK_BYTES;

/// The input read a block of whole lines at a time: lines need no
/// allocation of their own, and their UTF-8 is checked in parallel.
pub(super) struct Blocks<R> {
    pub(super) input: R,
    /// The start of a line that the last block did not end.
    pub(super) carry: Vec<u8>,
}

impl<R: BufRead> Blocks<R> {
    /// The next block, ending at the end of a line or of the input; `None`
    /// at the end.
    ///
    /// Its buffer is `spare` (a block done with), so that memory is reused
    /// rather than mapped afresh for every block.
    pub(super) fn next_block(
        &mut self,
        spare: Option<Vec<u8>>,
    ) -> std::io::Result<Option<Vec<u8>>> {
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
pub(super) fn split_lines<'a>(
    rest: &mut &'a [u8],
    line_no: &mut u64,
    max: usize,
) -> Vec<(u64, &'a [u8])> {
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
pub(super) fn check_batch<'a>(
    batch: &[(u64, &'a [u8])],
) -> Vec<(Vec<(u64, Checked<'a>)>, Evidence)> {
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
