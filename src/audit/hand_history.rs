//! A plain hand history, from any site, for `fairdeal audit --hands FILE`:
//! one round per line, cards written as `As Kd`; hole cards, then `|`, then
//! the board where there is one. Blank lines and lines starting with `#` are
//! skipped.
//!
//! - `As Kd | 7h 8h 9c Tc Jd`: hold'em hole cards and board (starting hand and
//!   best 7-card hand);
//! - `As Kd`: hold'em hole cards alone (starting hand);
//! - `As Kd Qh 7c 2s`: a 5-card hand.

use std::io::BufRead;

use fairdeal_core::Card;
use fairdeal_stats::evidence::Evidence;

/// A line that is not a hand.
#[derive(Debug, PartialEq, Eq)]
pub struct BadLine {
    pub line: u64,
    pub why: String,
}

fn parse_cards(text: &str) -> Result<Vec<Card>, String> {
    text.split_whitespace()
        .map(|name| {
            name.parse::<Card>().map_err(|_| {
                format!("{name:?} is not a card (rank 2-9, T, J, Q, K, A, then suit c, d, h, s)")
            })
        })
        .collect()
}

/// Parses one line: (hole cards, board).
pub fn parse_line(text: &str) -> Result<(Vec<Card>, Vec<Card>), String> {
    let (hole, board) = match text.split_once('|') {
        Some((hole, board)) => (parse_cards(hole)?, parse_cards(board)?),
        None => (parse_cards(text)?, Vec::new()),
    };
    let mut all: Vec<Card> = hole.iter().chain(&board).copied().collect();
    all.sort();
    if all.windows(2).any(|w| w[0] == w[1]) {
        return Err("a card appears twice".to_owned());
    }
    match (hole.len(), board.len()) {
        (2, 0) | (2, 5) | (5, 0) => Ok((hole, board)),
        (h, b) => Err(format!(
            "expected 2 hole cards (optionally `|` and a board of 5) or 5 cards; got {h} and {b}"
        )),
    }
}

/// Reads a hand history into evidence; every malformed line is listed.
pub fn read(input: impl BufRead) -> std::io::Result<Result<(Evidence, u64), Vec<BadLine>>> {
    let mut evidence = Evidence::default();
    let mut bad = Vec::new();
    let mut hands = 0u64;
    let mut previous_first = None;
    for (idx, line) in input.lines().enumerate() {
        let line_no = idx as u64 + 1;
        let text = match line {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                bad.push(BadLine {
                    line: line_no,
                    why: "not valid UTF-8".to_owned(),
                });
                continue;
            }
            Err(err) => return Err(err),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_line(trimmed) {
            Ok((hole, board)) => {
                hands += 1;
                if let Some(previous) = previous_first {
                    evidence.add_consecutive_first_cards(previous, hole[0]);
                }
                previous_first = Some(hole[0]);
                if hole.len() == 5 {
                    evidence.add_five_card_hand(&hole);
                } else {
                    evidence.add_starting_hand(hole[0], hole[1]);
                    if board.len() == 5 {
                        let seven: Vec<Card> = hole.iter().chain(&board).copied().collect();
                        evidence.add_seven_card_hand(&seven);
                    }
                }
            }
            Err(why) => bad.push(BadLine { line: line_no, why }),
        }
    }
    Ok(if bad.is_empty() {
        Ok((evidence, hands))
    } else {
        Err(bad)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_lines_parse() {
        assert!(parse_line("As Kd | 7h 8h 9c Tc Jd").is_ok());
        assert!(parse_line("As Kd").is_ok());
        assert!(parse_line("  As   Kd Qh 7c 2s ").is_ok());
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line_numbers() {
        let text =
            "As Kd\n\n# a comment\nAs As\nAs Kd | 7h 8h\n1s 2c\nAs Kd Qh\nQc Jc | 2c 3c 4c 5c 6c\n";
        let Err(bad) = read(text.as_bytes()).expect("reads") else {
            panic!("malformed lines must be refused")
        };
        let lines: Vec<u64> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, vec![4, 5, 6, 7]);
        assert!(bad[0].why.contains("twice"));
        assert!(bad[1].why.contains("got 2 and 2"));
        assert!(bad[2].why.contains("\"1s\" is not a card"));
    }
}
