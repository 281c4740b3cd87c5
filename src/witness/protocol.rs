//! The add-checkpoint protocol of c2sp.org/tlog-witness, free of storage
//! and HTTP: reading a request, checking the checkpoint's signatures
//! against the logs the witness knows, and deciding, against the
//! checkpoint the witness holds for that log, whether it may cosign.
//!
//! The checks run in the spec's order, each with its own answer
//! ([`Refusal`]): a malformed request (400), an unknown origin (404), no
//! signature by a trusted key (403), an old size above the checkpoint's
//! (400), an old size other than the one held (409 with the held size), a
//! proof that does not verify (422), the held size with another root (409).

use std::collections::HashMap;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::{Signature, VerifyingKey};

use crate::tlog::cosignature::split_note;
use crate::tlog::tree::{Hash, check_consistency};

/// The largest add-checkpoint request body read, in bytes: an old size
/// line, 63 proof lines of 45 bytes, and a note with the 16 signatures
/// signed-note says a verifier must accept, each as large as a
/// post-quantum one (nearly 5 kB, 6.7 kB in base64), fit with room to
/// spare.
pub const MAX_REQUEST_BYTES: usize = 128 * 1024;

/// Most consistency proof lines: a client MUST NOT send more (a proof
/// between trees of at most 2^63 − 1 leaves never needs more).
pub const MAX_PROOF_LINES: usize = 63;

/// Most signature lines on a submitted checkpoint (signed-note: a verifier
/// must accept at least 16).
pub const MAX_SIGNATURES: usize = 100;

/// The longest origin line, in bytes.
pub const MAX_ORIGIN_BYTES: usize = 512;

/// Most lines in a checkpoint's body (origin, size, root, extension lines).
pub const MAX_BODY_LINES: usize = 64;

/// The largest tree size (sizes are stored as signed 64-bit integers, and
/// a tree of 2^63 leaves is beyond any log).
pub const MAX_TREE_SIZE: u64 = i64::MAX as u64;

/// The root hash of the empty tree: SHA-256 of nothing.
pub const EMPTY_ROOT: [u8; 32] = [
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
];

/// Why a witness does not cosign: each is one HTTP status of the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 400: the request is not an add-checkpoint body (or a size is out of
    /// range).
    Malformed(String),
    /// 404: no log with this origin is configured.
    UnknownOrigin(String),
    /// 403: no signature verifies against a trusted key of the origin (or
    /// one by a trusted key fails).
    Unverified(String),
    /// 400: the old size is above the checkpoint's size.
    OldAboveSize { old: u64, size: u64 },
    /// 409 (`text/x.tlog.size`): the old size is not the size held.
    OldSizeMismatch { old: u64, held: u64 },
    /// 422: the consistency proof does not verify.
    BadProof(String),
    /// 409: the checkpoint has the held size but another root hash.
    RootMismatch { size: u64 },
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::Malformed(_) | Refusal::OldAboveSize { .. } => 400,
            Refusal::UnknownOrigin(_) => 404,
            Refusal::Unverified(_) => 403,
            Refusal::OldSizeMismatch { .. } | Refusal::RootMismatch { .. } => 409,
            Refusal::BadProof(_) => 422,
        }
    }

    /// The response's content type.
    pub fn content_type(&self) -> &'static str {
        match self {
            Refusal::OldSizeMismatch { .. } => "text/x.tlog.size",
            _ => "text/plain; charset=utf-8",
        }
    }

    /// The response body: the held size and a newline for
    /// [`Refusal::OldSizeMismatch`] (the spec's), else a sentence naming
    /// what is wrong, with a newline.
    pub fn body(&self) -> String {
        match self {
            Refusal::OldSizeMismatch { held, .. } => format!("{held}\n"),
            other => format!("{other}\n"),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Malformed(why) => write!(f, "malformed request: {why}"),
            Refusal::UnknownOrigin(origin) => write!(f, "unknown log origin {origin:?}"),
            Refusal::Unverified(why) => write!(f, "{why}"),
            Refusal::OldAboveSize { old, size } => write!(
                f,
                "the old size {old} is above the checkpoint's size {size}"
            ),
            Refusal::OldSizeMismatch { old, held } => write!(
                f,
                "the old size {old} is not the size of the latest cosigned checkpoint, {held}"
            ),
            Refusal::BadProof(why) => write!(f, "the consistency proof does not verify: {why}"),
            Refusal::RootMismatch { size } => write!(
                f,
                "the checkpoint has the size of the latest cosigned checkpoint, {size}, but \
                 another root hash"
            ),
        }
    }
}

/// A checkpoint's first three lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: [u8; 32],
}

/// An add-checkpoint request, read.
#[derive(Clone, Debug)]
pub struct AddCheckpoint {
    /// The size of the checkpoint the client believes the witness holds.
    pub old: u64,
    /// The consistency proof from `old` to the checkpoint's size.
    pub proof: Vec<Hash>,
    /// The submitted note, whole (body, blank line, signature lines).
    pub note: String,
    /// The note's body, with its final newline: what is cosigned.
    pub body: String,
    /// The note's signature lines, without their newlines.
    pub signatures: Vec<String>,
    pub checkpoint: Checkpoint,
}

/// What the witness holds for a log: the latest checkpoint it cosigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub size: u64,
    pub root: [u8; 32],
    /// The note as submitted when it was cosigned.
    pub note: String,
}

/// A decimal with no leading zero (but `0`) and no sign, at most
/// [`MAX_TREE_SIZE`].
fn parse_size(text: &str, what: &str) -> Result<u64, Refusal> {
    let digits_only = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits_only {
        return Err(Refusal::Malformed(format!(
            "{what} must be a decimal number; got {:?}",
            shorten(text)
        )));
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(Refusal::Malformed(format!(
            "{what} has a leading zero: {:?}",
            shorten(text)
        )));
    }
    match text.parse::<u64>() {
        Ok(size) if size <= MAX_TREE_SIZE => Ok(size),
        _ => Err(Refusal::Malformed(format!(
            "{what} {} is above 2^63 - 1",
            shorten(text)
        ))),
    }
}

/// One standard-base64 SHA-256 hash.
fn parse_hash(text: &str, what: &str) -> Result<[u8; 32], Refusal> {
    let bad = || {
        Refusal::Malformed(format!(
            "{what} must be a 32-byte hash in standard base64; got {:?}",
            shorten(text)
        ))
    };
    if text.len() != 44 {
        return Err(bad());
    }
    let bytes = BASE64.decode(text).map_err(|_| bad())?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| bad())
}

/// At most 80 characters of `text`, for a message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Reads an add-checkpoint request body: `old <size>`, the proof lines, an
/// empty line, the checkpoint note. Every bound of this module is applied;
/// whatever breaks one is [`Refusal::Malformed`].
pub fn parse_request(bytes: &[u8]) -> Result<AddCheckpoint, Refusal> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(Refusal::Malformed(format!(
            "the body is over {MAX_REQUEST_BYTES} bytes"
        )));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Refusal::Malformed("the body is not UTF-8".to_owned()))?;
    // signed-note forbids the ASCII control characters below U+0020 other
    // than newline (U+007F is allowed).
    if let Some(at) = text.find(|c: char| c < ' ' && c != '\n') {
        return Err(Refusal::Malformed(format!(
            "the body holds a control character (U+{:04X}) at byte {at}; lines end with \\n alone",
            text[at..].chars().next().map_or(0, u32::from)
        )));
    }
    let (old_line, mut rest) = text
        .split_once('\n')
        .ok_or_else(|| Refusal::Malformed("the body has no old size line".to_owned()))?;
    let old = old_line
        .strip_prefix("old ")
        .ok_or_else(|| {
            Refusal::Malformed(format!(
                "the first line must be \"old <size>\"; got {:?}",
                shorten(old_line)
            ))
        })
        .and_then(|size| parse_size(size, "the old size"))?;
    let mut proof = Vec::new();
    loop {
        let (line, after) = rest.split_once('\n').ok_or_else(|| {
            Refusal::Malformed(
                "no empty line ends the consistency proof (every line ends with \\n)".to_owned(),
            )
        })?;
        rest = after;
        if line.is_empty() {
            break;
        }
        if proof.len() == MAX_PROOF_LINES {
            return Err(Refusal::Malformed(format!(
                "more than {MAX_PROOF_LINES} consistency proof lines"
            )));
        }
        proof.push(Hash(parse_hash(
            line,
            &format!("consistency proof line {}", proof.len() + 1),
        )?));
    }
    let note = rest;
    let (body, signatures) = split_note(note).ok_or_else(|| {
        Refusal::Malformed(
            "the checkpoint is not a signed note (a body, an empty line, then lines \
             \"\u{2014} <name> <base64>\", each ending with \\n)"
                .to_owned(),
        )
    })?;
    if signatures.len() > MAX_SIGNATURES {
        return Err(Refusal::Malformed(format!(
            "the checkpoint has {} signature lines; at most {MAX_SIGNATURES} are read",
            signatures.len()
        )));
    }
    let checkpoint = parse_checkpoint_body(body)?;
    Ok(AddCheckpoint {
        old,
        proof,
        note: note.to_owned(),
        body: body.to_owned(),
        signatures: signatures.into_iter().map(str::to_owned).collect(),
        checkpoint,
    })
}

/// Reads a checkpoint's body (c2sp.org/tlog-checkpoint): origin, size,
/// base64 root hash, then optional non-empty extension lines.
pub fn parse_checkpoint_body(body: &str) -> Result<Checkpoint, Refusal> {
    let Some(text) = body.strip_suffix('\n') else {
        return Err(Refusal::Malformed(
            "the checkpoint body does not end with a newline".to_owned(),
        ));
    };
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() < 3 {
        return Err(Refusal::Malformed(
            "the checkpoint body needs an origin, a tree size and a root hash line".to_owned(),
        ));
    }
    if lines.len() > MAX_BODY_LINES {
        return Err(Refusal::Malformed(format!(
            "the checkpoint body has more than {MAX_BODY_LINES} lines"
        )));
    }
    if let Some(n) = lines.iter().position(|line| line.is_empty()) {
        return Err(Refusal::Malformed(format!(
            "line {} of the checkpoint body is empty",
            n + 1
        )));
    }
    let origin = lines[0];
    if origin.len() > MAX_ORIGIN_BYTES {
        return Err(Refusal::Malformed(format!(
            "the origin is over {MAX_ORIGIN_BYTES} bytes"
        )));
    }
    let size = parse_size(lines[1], "the checkpoint's tree size")?;
    let root = parse_hash(lines[2], "the checkpoint's root hash")?;
    Ok(Checkpoint {
        origin: origin.to_owned(),
        size,
        root,
    })
}

/// A log's signed-note Ed25519 verifier key (type 0x01).
#[derive(Clone)]
pub struct LogVerifier {
    name: String,
    id: u32,
    key: VerifyingKey,
    vkey: String,
}

impl fmt::Debug for LogVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogVerifier({})", self.vkey)
    }
}

impl LogVerifier {
    /// Reads `<name>+<key id hex>+<base64(0x01 ‖ 32-byte key)>`; the error
    /// names what is wrong.
    pub fn from_vkey(vkey: &str) -> anyhow::Result<Self> {
        let vkey = vkey.trim();
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id_hex), Some(material)) = (parts.next(), parts.next(), parts.next())
        else {
            anyhow::bail!("a log's vkey is <name>+<key id>+<base64 key>; got {vkey:?}");
        };
        if !signed_note::is_key_name_valid(name) {
            anyhow::bail!("the vkey's key name {name:?} is empty or holds white space or a '+'");
        }
        if id_hex.len() != 8 || !id_hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            anyhow::bail!("the vkey's key id must be 8 hexadecimal digits; got {id_hex:?}");
        }
        let id = u32::from_str_radix(id_hex, 16)?;
        let material = BASE64
            .decode(material)
            .map_err(|e| anyhow::anyhow!("the vkey's key is not base64: {e}"))?;
        match material.first() {
            Some(1) => {}
            Some(4) => anyhow::bail!(
                "the vkey is a cosigner's (type 0x04); a log's key is a signed-note Ed25519 key (type 0x01)"
            ),
            Some(other) => anyhow::bail!(
                "the vkey's key type is 0x{other:02x}; only Ed25519 (0x01) log keys are supported"
            ),
            None => anyhow::bail!("the vkey's key is empty"),
        }
        let public = <[u8; 32]>::try_from(&material[1..]).map_err(|_| {
            anyhow::anyhow!(
                "the vkey's Ed25519 key is {} bytes, not 32",
                material.len() - 1
            )
        })?;
        let key = VerifyingKey::from_bytes(&public)
            .map_err(|_| anyhow::anyhow!("the vkey's key is not an Ed25519 point"))?;
        let expected = signed_note::key_id(name, &material);
        if id != expected {
            anyhow::bail!(
                "the vkey's key id is {id:08x}, but its name and key give {expected:08x}"
            );
        }
        Ok(Self {
            name: name.to_owned(),
            id,
            key,
            vkey: format!("{name}+{id:08x}+{}", BASE64.encode(&material)),
        })
    }

    /// The verifier key.
    pub fn vkey(&self) -> &str {
        &self.vkey
    }
}

/// The logs a witness knows: for each origin, its trusted keys.
#[derive(Clone, Debug, Default)]
pub struct Logs {
    by_origin: HashMap<String, Vec<LogVerifier>>,
}

impl Logs {
    /// No log yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts `verifier` for the log `origin` (a log may have several keys).
    pub fn add(&mut self, origin: &str, verifier: LogVerifier) -> anyhow::Result<()> {
        anyhow::ensure!(!origin.is_empty(), "the log origin is empty");
        anyhow::ensure!(
            origin.len() <= MAX_ORIGIN_BYTES,
            "the log origin is over {MAX_ORIGIN_BYTES} bytes"
        );
        anyhow::ensure!(
            !origin.chars().any(char::is_control),
            "the log origin {origin:?} holds a control character"
        );
        let keys = self.by_origin.entry(origin.to_owned()).or_default();
        if !keys.iter().any(|k| k.vkey == verifier.vkey) {
            keys.push(verifier);
        }
        Ok(())
    }

    /// Reads a log's verifier key alone (`VKEY`: the origin is the key's
    /// name, as a fairdeal log's `GET /log/key` gives it), or `ORIGIN=VKEY`
    /// (split at the first '='; the origin holds none) for a log whose
    /// origin is not its key's name.
    pub fn add_spec(&mut self, spec: &str) -> anyhow::Result<()> {
        if let Ok(verifier) = LogVerifier::from_vkey(spec.trim()) {
            let origin = spec.trim().split('+').next().unwrap_or_default().to_owned();
            return self.add(&origin, verifier);
        }
        let Some((origin, vkey)) = spec.split_once('=') else {
            anyhow::bail!(
                "a log is given as its verifier key (NAME+HASH+KEY, its origin the key's name) or \
                 as ORIGIN=VKEY; got {spec:?}, which is neither"
            );
        };
        let verifier = LogVerifier::from_vkey(vkey)
            .map_err(|err| anyhow::anyhow!("the log {origin:?}: {err}"))?;
        self.add(origin, verifier)
    }

    /// The origins known.
    pub fn origins(&self) -> impl Iterator<Item = (&str, &[LogVerifier])> {
        self.by_origin
            .iter()
            .map(|(origin, keys)| (origin.as_str(), keys.as_slice()))
    }

    /// Whether no log is known.
    pub fn is_empty(&self) -> bool {
        self.by_origin.is_empty()
    }

    /// Checks the request's signatures: its origin must be known (404), and
    /// a signature by one of its keys must verify, and none by its keys
    /// fail (403). Signatures by other keys are ignored.
    pub fn verify(&self, request: &AddCheckpoint) -> Result<(), Refusal> {
        let origin = &request.checkpoint.origin;
        let keys = self
            .by_origin
            .get(origin)
            .ok_or_else(|| Refusal::UnknownOrigin(shorten(origin)))?;
        let mut verified = false;
        for line in &request.signatures {
            let Some((name, blob)) = line
                .strip_prefix("\u{2014} ")
                .and_then(|rest| rest.split_once(' '))
            else {
                continue;
            };
            let Ok(blob) = BASE64.decode(blob) else {
                continue;
            };
            if blob.len() < 4 {
                continue;
            }
            let id = u32::from_be_bytes([blob[0], blob[1], blob[2], blob[3]]);
            for key in keys.iter().filter(|k| k.name == name && k.id == id) {
                let good = <[u8; 64]>::try_from(&blob[4..]).is_ok_and(|signature| {
                    key.key
                        .verify_strict(request.body.as_bytes(), &Signature::from_bytes(&signature))
                        .is_ok()
                });
                if !good {
                    return Err(Refusal::Unverified(format!(
                        "the signature by the log key {} does not verify",
                        key.vkey
                    )));
                }
                verified = true;
            }
        }
        if verified {
            Ok(())
        } else {
            Err(Refusal::Unverified(format!(
                "no signature by a trusted key of {:?} is on the checkpoint",
                shorten(origin)
            )))
        }
    }
}

/// The checks of sizes that need nothing held: the old size is at most
/// the checkpoint's (400).
pub fn check_old_size(request: &AddCheckpoint) -> Result<(), Refusal> {
    let (old, size) = (request.old, request.checkpoint.size);
    if old > size {
        return Err(Refusal::OldAboveSize { old, size });
    }
    Ok(())
}

/// Decides whether the request's checkpoint may be cosigned, given what the
/// witness holds for its log (`None`: nothing yet, an empty tree): the old
/// size must be the held size (409 with it), the same size must have the
/// same root (409), and a larger one must be proved consistent with the
/// held root (422).
pub fn decide(request: &AddCheckpoint, held: Option<&Held>) -> Result<(), Refusal> {
    check_old_size(request)?;
    let (held_size, held_root) = held.map_or((0, EMPTY_ROOT), |h| (h.size, h.root));
    let (old, size, root) = (
        request.old,
        request.checkpoint.size,
        request.checkpoint.root,
    );
    if old != held_size {
        return Err(Refusal::OldSizeMismatch {
            old,
            held: held_size,
        });
    }
    if size == old {
        if root != held_root {
            return Err(Refusal::RootMismatch { size });
        }
        if !request.proof.is_empty() {
            return Err(Refusal::BadProof(
                "a checkpoint of the old size takes an empty proof".to_owned(),
            ));
        }
        return Ok(());
    }
    if old == 0 {
        if !request.proof.is_empty() {
            return Err(Refusal::BadProof(
                "the proof from the old size 0 must be empty".to_owned(),
            ));
        }
        return Ok(());
    }
    if !check_consistency(&request.proof, size, Hash(root), old, Hash(held_root)) {
        return Err(Refusal::BadProof(format!(
            "it does not prove the tree of {size} leaves an extension of the cosigned tree of {old}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::key::LogKey;

    fn note(key: &LogKey, size: u64, root: &[u8; 32]) -> String {
        key.sign_note(&format!(
            "{}\n{size}\n{}\n",
            key.origin(),
            BASE64.encode(root)
        ))
        .expect("signed")
    }

    #[test]
    fn the_empty_root_is_sha256_of_nothing() {
        use sha2::Digest as _;
        assert_eq!(sha2::Sha256::digest(b"").as_slice(), EMPTY_ROOT);
    }

    #[test]
    fn a_request_is_read_and_its_bounds_hold() {
        let key = LogKey::from_bytes(&[3; 32], "example.com/log").expect("key");
        let n = note(&key, 5, &[1; 32]);
        let hash = BASE64.encode([2u8; 32]);
        let request =
            parse_request(format!("old 3\n{hash}\n{hash}\n\n{n}").as_bytes()).expect("reads");
        assert_eq!(request.old, 3);
        assert_eq!(request.proof.len(), 2);
        assert_eq!(request.checkpoint.size, 5);
        assert_eq!(request.checkpoint.origin, "example.com/log");
        assert_eq!(request.note, n);

        let many = format!("{hash}\n").repeat(64);
        for (body, says) in [
            (format!("old 03\n\n{n}"), "leading zero"),
            (format!("old -1\n\n{n}"), "decimal"),
            (format!("old 9223372036854775808\n\n{n}"), "2^63"),
            (format!("old 99999999999999999999999\n\n{n}"), "2^63"),
            (format!("new 3\n\n{n}"), "old <size>"),
            (format!("old 3\n{many}\n{n}"), "more than 63"),
            (format!("old 3\nAAAA\n\n{n}"), "32-byte hash"),
            (format!("old 3\r\n\n{n}"), "control character"),
            ("old 3\n".to_owned(), "no empty line"),
            ("old 3\n\nexample.com/log\n5\n".to_owned(), "signed note"),
            (
                format!(
                    "old 0\n\n{}",
                    n.replace("\n5\n", "\n18446744073709551616\n")
                ),
                "above 2^63",
            ),
            (
                format!("old 0\n\n{}", n.replace("\n5\n", "\n5\n\n")),
                "empty",
            ),
            (String::new(), "old size line"),
        ] {
            let err = parse_request(body.as_bytes()).expect_err(&body);
            assert_eq!(err.status(), 400, "{body:?}");
            assert!(err.to_string().contains(says), "{body:?}: {err}");
        }
        assert_eq!(
            parse_request(&[0xff, b'\n']).expect_err("utf-8").status(),
            400
        );
        assert_eq!(
            parse_request(&vec![b'a'; MAX_REQUEST_BYTES + 1])
                .expect_err("big")
                .status(),
            400
        );
    }

    #[test]
    fn signatures_are_checked_against_the_origins_keys_only() {
        let key = LogKey::from_bytes(&[3; 32], "example.com/log").expect("key");
        let other = LogKey::from_bytes(&[4; 32], "example.com/log").expect("key");
        let mut logs = Logs::new();
        logs.add_spec(&format!("example.com/log={}", key.vkey()))
            .expect("spec");
        // The verifier key alone names the same log (its origin, the key's
        // name): nothing is added twice.
        logs.add_spec(&key.vkey()).expect("a bare verifier key");
        assert_eq!(
            logs.origins()
                .map(|(o, keys)| (o.to_owned(), keys.len()))
                .collect::<Vec<_>>(),
            [("example.com/log".to_owned(), 1)]
        );
        let mut bare = Logs::new();
        bare.add_spec(&format!(" {}\n", key.vkey()))
            .expect("trimmed");
        assert!(
            bare.origins()
                .any(|(origin, _)| origin == "example.com/log")
        );
        assert!(
            bare.add_spec("example.com/log")
                .expect_err("neither")
                .to_string()
                .contains("neither")
        );
        let request = |n: &str| parse_request(format!("old 0\n\n{n}").as_bytes()).expect("reads");
        let good = note(&key, 5, &[1; 32]);
        logs.verify(&request(&good)).expect("verifies");
        // Another key of the same name: ignored, so nothing verifies.
        let by_other = note(&other, 5, &[1; 32]);
        assert_eq!(
            logs.verify(&request(&by_other)).expect_err("403").status(),
            403
        );
        // The other key's line next to a good one is ignored.
        let both = format!("{good}{}", by_other.rsplit("\n\n").next().expect("line"));
        logs.verify(&request(&both)).expect("verifies");
        // A changed body.
        let changed = good.replace("\n5\n", "\n6\n");
        assert_eq!(
            logs.verify(&request(&changed)).expect_err("403").status(),
            403
        );
        // Another origin.
        let stranger = LogKey::from_bytes(&[3; 32], "example.com/other").expect("key");
        assert_eq!(
            logs.verify(&request(&note(&stranger, 5, &[1; 32])))
                .expect_err("404")
                .status(),
            404
        );
        // A cosigner's vkey is not a log's.
        let cosigner =
            crate::tlog::cosignature::Cosigner::from_bytes(&[5; 32], "w").expect("cosigner");
        let err = LogVerifier::from_vkey(&cosigner.vkey()).expect_err("type 4");
        assert!(err.to_string().contains("0x04"), "{err}");
    }

    #[test]
    fn decisions_follow_the_spec() {
        let key = LogKey::from_bytes(&[3; 32], "o").expect("key");
        let request = |old: u64, size: u64, root: [u8; 32], proof: &[[u8; 32]]| {
            let lines: String = proof
                .iter()
                .map(|h| format!("{}\n", BASE64.encode(h)))
                .collect();
            parse_request(format!("old {old}\n{lines}\n{}", note(&key, size, &root)).as_bytes())
                .expect("reads")
        };
        let held = Held {
            size: 5,
            root: [1; 32],
            note: String::new(),
        };
        assert_eq!(
            decide(&request(6, 5, [1; 32], &[]), Some(&held)),
            Err(Refusal::OldAboveSize { old: 6, size: 5 })
        );
        let mismatch = decide(&request(4, 6, [1; 32], &[]), Some(&held)).expect_err("409");
        assert_eq!(
            (mismatch.status(), mismatch.body()),
            (409, "5\n".to_owned())
        );
        assert_eq!(mismatch.content_type(), "text/x.tlog.size");
        assert_eq!(
            decide(&request(5, 5, [2; 32], &[]), Some(&held)),
            Err(Refusal::RootMismatch { size: 5 })
        );
        decide(&request(5, 5, [1; 32], &[]), Some(&held)).expect("the same again");
        assert_eq!(
            decide(&request(5, 7, [2; 32], &[[0; 32]]), Some(&held))
                .expect_err("422")
                .status(),
            422
        );
        decide(&request(0, 7, [2; 32], &[]), None).expect("first");
        assert_eq!(
            decide(&request(0, 7, [2; 32], &[[0; 32]]), None)
                .expect_err("422")
                .status(),
            422
        );
        assert_eq!(
            decide(&request(0, 0, [2; 32], &[]), None)
                .expect_err("409")
                .status(),
            409
        );
        decide(&request(0, 0, EMPTY_ROOT, &[]), None).expect("the empty tree");
    }
}
