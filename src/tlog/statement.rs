//! A monitor's signed statement about a log: "I checked this log up to this
//! checkpoint, and found these problems". A c2sp.org/signed-note by the
//! monitor's own Ed25519 key (a signed-note key, type 0x01, as a log's),
//! whose body is, one line each (docs/TRANSPARENCY.md, "Monitor
//! statements"):
//!
//! ```text
//! fairdeal-monitor-statement/v1
//! <log origin>
//! <tree size>
//! <root hash, base64>
//! time <POSIX seconds>
//! findings <how many were found, listed or not>
//! <kind> <log index, or -> <detail>      (at most MAX_LISTED lines)
//! ```
//!
//! A player keeps the monitors they trust as they keep witnesses; the page
//! then fails a record a trusted monitor's statement names, and says which
//! monitors checked the log past it and found nothing there.

use anyhow::{Context, bail, ensure};

use super::key::LogKey;

/// The statement's first line: its format and version.
pub const STATEMENT_V1: &str = "fairdeal-monitor-statement/v1";

/// Findings a statement lists at most (the rest are counted).
pub const MAX_LISTED: usize = 1000;

/// Bytes of a finding's detail kept at most (cut at a character).
pub const MAX_DETAIL_BYTES: usize = 512;

/// Bytes of a signed statement at most: what a service stores and a page
/// reads.
pub const MAX_NOTE_BYTES: usize = 1 << 20;

/// One finding as a statement states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatedFinding {
    /// The monitor's kind of finding (`order`, `reveal`, `client_seed_reuse`, …).
    pub kind: String,
    /// The log index it concerns, if one.
    pub index: Option<u64>,
    /// What it is, in words (one line, no control characters).
    pub detail: String,
}

/// What a monitor states about a log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The log's origin (its checkpoint's first line).
    pub origin: String,
    /// The size and root of the checkpoint the monitor checked up to.
    pub size: u64,
    pub root: String,
    /// When the monitor made the statement (POSIX seconds).
    pub time: u64,
    /// How many problems it found, listed or not.
    pub found: u64,
    /// The problems it lists (at most [`MAX_LISTED`]).
    pub findings: Vec<StatedFinding>,
}

/// `text` as one line of at most [`MAX_DETAIL_BYTES`]: control characters
/// (line breaks too) as spaces, runs of spaces as one, cut at a character.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        if out.len() + c.len_utf8() > MAX_DETAIL_BYTES {
            break;
        }
        out.push(c);
    }
    out.trim_end().to_owned()
}

/// A kind is a word of lower-case letters and `_`.
fn is_kind(kind: &str) -> bool {
    !kind.is_empty()
        && kind.len() <= 64
        && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

impl Statement {
    /// A statement of `findings` (cut to [`MAX_LISTED`], each detail made
    /// one line); `found` counts every one found.
    pub fn new(
        origin: &str,
        size: u64,
        root: &str,
        time: u64,
        found: u64,
        findings: impl IntoIterator<Item = StatedFinding>,
    ) -> Self {
        let findings: Vec<StatedFinding> = findings
            .into_iter()
            .take(MAX_LISTED)
            .map(|f| StatedFinding {
                kind: if is_kind(&f.kind) {
                    f.kind
                } else {
                    "other".to_owned()
                },
                index: f.index,
                detail: one_line(&f.detail),
            })
            .collect();
        Self {
            origin: origin.to_owned(),
            size,
            root: root.to_owned(),
            time,
            found: found.max(findings.len() as u64),
            findings,
        }
    }

    /// The note's body (ends with a newline).
    pub fn body(&self) -> String {
        let mut body = format!(
            "{STATEMENT_V1}\n{}\n{}\n{}\ntime {}\nfindings {}\n",
            self.origin, self.size, self.root, self.time, self.found
        );
        for finding in &self.findings {
            let index = finding.index.map_or("-".to_owned(), |i| i.to_string());
            body.push_str(&format!("{} {index}", finding.kind));
            if !finding.detail.is_empty() {
                body.push(' ');
                body.push_str(&finding.detail);
            }
            body.push('\n');
        }
        body
    }

    /// The statement signed by the monitor's key: a signed note.
    pub fn sign(&self, key: &LogKey) -> anyhow::Result<String> {
        key.sign_note(&self.body())
    }

    /// Reads a statement's body, refusing anything not written as
    /// [`Statement::body`] writes it.
    pub fn parse(body: &str) -> anyhow::Result<Self> {
        ensure!(
            body.ends_with('\n'),
            "the statement does not end with a newline"
        );
        let mut lines = body[..body.len() - 1].split('\n');
        let mut next = |what: &str| {
            lines
                .next()
                .with_context(|| format!("the statement has no {what} line"))
        };
        ensure!(
            next("format")? == STATEMENT_V1,
            "the statement's first line is not {STATEMENT_V1}"
        );
        let origin = next("origin")?.to_owned();
        ensure!(
            !origin.is_empty() && !origin.contains(char::is_whitespace),
            "the statement's log origin is empty or holds white space"
        );
        let size = next("size")?;
        let size: u64 = size
            .parse()
            .ok()
            .filter(|_| !size.starts_with('+') && (size == "0" || !size.starts_with('0')))
            .context("the statement's tree size is not a decimal number")?;
        let root = next("root")?.to_owned();
        ensure!(
            root.len() == 44 && root.ends_with('=') && !root.contains(char::is_whitespace),
            "the statement's root is not a base64 SHA-256 hash"
        );
        let number = |line: &str, word: &str| -> anyhow::Result<u64> {
            let text = line
                .strip_prefix(word)
                .and_then(|rest| rest.strip_prefix(' '))
                .with_context(|| format!("the statement has no {word} line"))?;
            text.parse::<u64>()
                .ok()
                .filter(|_| !text.starts_with('+'))
                .with_context(|| format!("the statement's {word} is not a decimal number"))
        };
        let time = number(next("time")?, "time")?;
        let found = number(next("findings")?, "findings")?;
        let mut findings = Vec::new();
        for line in lines {
            if findings.len() == MAX_LISTED {
                bail!("the statement lists more than {MAX_LISTED} findings");
            }
            let mut parts = line.splitn(3, ' ');
            let kind = parts.next().unwrap_or_default();
            ensure!(
                is_kind(kind),
                "a finding's kind is not a word: {:?}",
                one_line(kind)
            );
            let index = match parts.next() {
                Some("-") => None,
                Some(text) => Some(
                    text.parse::<u64>()
                        .ok()
                        .filter(|_| !text.starts_with('+'))
                        .context("a finding's log index is not a decimal number")?,
                ),
                None => bail!("a finding has no log index (or -)"),
            };
            let detail = parts.next().unwrap_or_default().to_owned();
            ensure!(
                detail == one_line(&detail),
                "a finding's detail is not one line of at most {MAX_DETAIL_BYTES} bytes"
            );
            findings.push(StatedFinding {
                kind: kind.to_owned(),
                index,
                detail,
            });
        }
        ensure!(
            found >= findings.len() as u64,
            "the statement lists more findings than it counts"
        );
        Ok(Self {
            origin,
            size,
            root,
            time,
            found,
            findings,
        })
    }

    /// Verifies `note` with the monitor's verifier key and reads it.
    pub fn verify(note: &str, vkey: &str) -> anyhow::Result<Self> {
        ensure!(
            note.len() <= MAX_NOTE_BYTES,
            "the statement is over {MAX_NOTE_BYTES} bytes"
        );
        Self::parse(&super::key::verify_note(note, vkey)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "RA7/29DvZ72ArWxy6WnJp/UHakBY+NiTjbvDHVY79x8=";

    fn statement() -> Statement {
        Statement::new(
            "test.example/fairdeal",
            42,
            ROOT,
            1_800_000_000,
            3,
            [
                StatedFinding {
                    kind: "order".to_owned(),
                    index: Some(40),
                    detail: "pair p deals nonce Some(1) where 2 was next (a gap or a repeat)"
                        .to_owned(),
                },
                StatedFinding {
                    kind: "Not A Kind".to_owned(),
                    index: None,
                    detail: "two\nlines\u{7}and a bell".to_owned(),
                },
            ],
        )
    }

    #[test]
    fn a_statement_reads_back_as_written_and_verifies_with_its_key_only() {
        let key = LogKey::generate("monitor.example/one").expect("key");
        let made = statement();
        assert_eq!(made.findings[1].kind, "other");
        assert_eq!(made.findings[1].detail, "two lines and a bell");
        let note = made.sign(&key).expect("signed");
        assert!(note.starts_with("fairdeal-monitor-statement/v1\ntest.example/fairdeal\n42\n"));
        assert_eq!(
            Statement::verify(&note, &key.vkey()).expect("verifies"),
            made
        );
        let other = LogKey::generate("monitor.example/one").expect("key");
        assert!(
            Statement::verify(&note, &other.vkey()).is_err(),
            "another key of the same name"
        );
        let changed = note.replace("order 40", "order 41");
        assert!(
            Statement::verify(&changed, &key.vkey()).is_err(),
            "a changed finding"
        );
    }

    #[test]
    fn malformed_statements_are_refused_naming_the_line() {
        let body = statement().body();
        for (from, to, says) in [
            (
                "fairdeal-monitor-statement/v1",
                "fairdeal-monitor-statement/v2",
                "first line",
            ),
            ("\n42\n", "\n042\n", "tree size"),
            ("\n42\n", "\n+42\n", "tree size"),
            (ROOT, "not a root", "root"),
            ("time 1800000000", "time -1", "time"),
            ("findings 3", "findings 1", "more findings than it counts"),
            ("order 40", "order forty", "log index"),
            ("order 40", "Order 40", "kind"),
        ] {
            let bad = body.replacen(from, to, 1);
            let err = Statement::parse(&bad).expect_err(to).to_string();
            assert!(err.contains(says), "{to}: {err}");
        }
        assert!(
            Statement::parse(body.trim_end()).is_err(),
            "no final newline"
        );
        let mut long = body.clone();
        long.push_str(&format!("order 1 {}\n", "x".repeat(MAX_DETAIL_BYTES + 1)));
        assert!(Statement::parse(&long).is_err(), "a detail over the limit");
    }

    #[test]
    fn a_statement_lists_at_most_its_limit_and_counts_the_rest() {
        let many = (0..MAX_LISTED as u64 + 5).map(|i| StatedFinding {
            kind: "order".to_owned(),
            index: Some(i),
            detail: "é".repeat(MAX_DETAIL_BYTES),
        });
        let made = Statement::new("o", 1, ROOT, 0, MAX_LISTED as u64 + 5, many);
        assert_eq!(made.findings.len(), MAX_LISTED);
        assert_eq!(made.found, MAX_LISTED as u64 + 5);
        assert!(
            made.findings
                .iter()
                .all(|f| f.detail.len() <= MAX_DETAIL_BYTES)
        );
        let body = made.body();
        assert!(body.len() < MAX_NOTE_BYTES);
        assert_eq!(Statement::parse(&body).expect("reads"), made);
    }
}
