//! Witness cosignatures: c2sp.org/tlog-cosignature, `cosignature/v1` with
//! Ed25519 (signed-note signature type 0x04).
//!
//! A cosignature is a note signature line on a checkpoint,
//!
//! ```text
//! — <name> base64(key id (4) ‖ timestamp (8, big-endian) ‖ Ed25519 signature (64))
//! ```
//!
//! where the key id is `SHA-256(<name> ‖ "\n" ‖ 0x04 ‖ public key)[:4]`, the
//! timestamp is POSIX seconds (at most 2^63 − 1), and the signature covers
//!
//! ```text
//! cosignature/v1
//! time <timestamp>
//! <the checkpoint's whole note body, with its final newline>
//! ```
//!
//! It states that, as of that time, this checkpoint is the largest
//! consistent tree head the cosigner has seen for the log of its origin.
//! The message does not name the cosigner: one key per cosigner.
//!
//! The verifier key is `<name>+<key id hex>+<base64(0x04 ‖ public key)>`.
//! A log's own key (type 0x01, `tlog::key`) is never taken for a
//! cosigner's, nor the other way round: the type byte is part of the key
//! id and of the vkey.

use std::fmt;
use std::path::Path;

use anyhow::{Context, bail};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use zeroize::Zeroize;

/// The signed-note signature type of an Ed25519 cosignature/v1.
pub const COSIGNATURE_V1_ED25519: u8 = 0x04;

/// The first line of the signed message (domain separation).
const HEADER: &str = "cosignature/v1\n";

/// The largest timestamp a cosignature may carry (2^63 − 1).
pub const MAX_TIMESTAMP: u64 = i64::MAX as u64;

/// Bytes in a decoded cosignature: key id, timestamp, Ed25519 signature.
const BLOB_LEN: usize = 4 + 8 + 64;

/// The key id of the Ed25519 cosigner key `public` named `name`.
pub fn key_id(name: &str, public: &[u8; 32]) -> u32 {
    signed_note::key_id(name, &[&[COSIGNATURE_V1_ED25519][..], public].concat())
}

/// What the cosigner signs: the header, the time line, the note body.
fn message(body: &str, time: u64) -> Vec<u8> {
    let mut message = format!("{HEADER}time {time}\n").into_bytes();
    message.extend_from_slice(body.as_bytes());
    message
}

/// Why a key name is not one (signed-note: non-empty, no Unicode space, no
/// '+').
fn check_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty() {
        bail!("the cosigner name is empty");
    }
    if name.chars().any(char::is_whitespace) {
        bail!("the cosigner name {name:?} holds white space");
    }
    if name.contains('+') {
        bail!("the cosigner name {name:?} holds a '+'");
    }
    if name.chars().any(char::is_control) {
        bail!("the cosigner name {name:?} holds a control character");
    }
    Ok(())
}

/// A witness's cosigning key: an Ed25519 signing key (zeroized when
/// dropped) and the cosigner's name. `Debug` shows the name only.
pub struct Cosigner {
    signing: SigningKey,
    name: String,
    id: u32,
}

impl fmt::Debug for Cosigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cosigner({}, <redacted>)", self.name)
    }
}

impl Cosigner {
    fn from_seed(mut seed: [u8; 32], name: &str) -> anyhow::Result<Self> {
        let checked = check_name(name);
        let signing = SigningKey::from_bytes(&seed);
        seed.zeroize();
        checked?;
        let id = key_id(name, &signing.verifying_key().to_bytes());
        Ok(Self {
            signing,
            name: name.to_owned(),
            id,
        })
    }

    /// A new key, from the OS's randomness.
    pub fn generate(name: &str) -> anyhow::Result<Self> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
        Self::from_seed(seed, name)
    }

    /// The key from its 32-byte Ed25519 seed.
    pub fn from_bytes(seed: &[u8; 32], name: &str) -> anyhow::Result<Self> {
        Self::from_seed(*seed, name)
    }

    /// The key from its seed as 64 hexadecimal characters (white space
    /// around them ignored). The error never repeats the input.
    pub fn from_hex(text: &str, name: &str) -> anyhow::Result<Self> {
        let mut seed = [0u8; 32];
        let text = text.trim();
        if text.len() != 64 || hex::decode_to_slice(text, &mut seed).is_err() {
            seed.zeroize();
            bail!("the cosigner key must be 64 hexadecimal characters (a 32-byte Ed25519 seed)");
        }
        Self::from_seed(seed, name)
    }

    /// Reads a key file: 64 hexadecimal characters, as `LogKey::read_file`.
    pub fn read_file(path: &Path, name: &str) -> anyhow::Result<Self> {
        let mut text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the cosigner key file {}", path.display()))?;
        let key = Self::from_hex(&text, name)
            .with_context(|| format!("reading the cosigner key file {}", path.display()));
        text.zeroize();
        key
    }

    /// The key's 32-byte seed, to write it to a key file (zeroed when
    /// dropped).
    pub fn seed(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(self.signing.to_bytes())
    }

    /// The cosigner's name (the key name of its signature lines).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id of its signature lines.
    pub fn key_id(&self) -> u32 {
        self.id
    }

    /// The verifier key: `<name>+<key id hex>+<base64(0x04 ‖ public key)>`.
    pub fn vkey(&self) -> String {
        vkey_of(&self.name, self.id, &self.signing.verifying_key())
    }

    /// The verifier of this cosigner's signatures.
    pub fn verifier(&self) -> CosignatureVerifier {
        CosignatureVerifier {
            name: self.name.clone(),
            id: self.id,
            key: self.signing.verifying_key(),
        }
    }

    /// The cosignature of the checkpoint whose note body (with its final
    /// newline, without signature lines) is `body`, made at `time` (POSIX
    /// seconds): one whole signature line, `— <name> <base64>` **with** its
    /// final newline, so that the note followed by it is the cosigned note
    /// and several lines concatenate into a witness's answer.
    ///
    /// # Panics
    /// If `time` exceeds 2^63 − 1, which the spec forbids (a clock's time
    /// never does).
    pub fn cosign(&self, body: &str, time: u64) -> String {
        assert!(
            time <= MAX_TIMESTAMP,
            "a cosignature's timestamp is at most 2^63 - 1"
        );
        let signature = self.signing.sign(&message(body, time)).to_bytes();
        let mut blob = Vec::with_capacity(BLOB_LEN);
        blob.extend_from_slice(&self.id.to_be_bytes());
        blob.extend_from_slice(&time.to_be_bytes());
        blob.extend_from_slice(&signature);
        format!("\u{2014} {} {}\n", self.name, BASE64.encode(blob))
    }
}

fn vkey_of(name: &str, id: u32, key: &VerifyingKey) -> String {
    let mut material = vec![COSIGNATURE_V1_ED25519];
    material.extend_from_slice(key.as_bytes());
    format!("{name}+{id:08x}+{}", BASE64.encode(material))
}

/// Checks cosignatures of one cosigner (name, Ed25519 public key).
#[derive(Clone)]
pub struct CosignatureVerifier {
    name: String,
    id: u32,
    key: VerifyingKey,
}

impl fmt::Debug for CosignatureVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CosignatureVerifier({})", self.vkey())
    }
}

impl CosignatureVerifier {
    /// Reads a cosigner's verifier key,
    /// `<name>+<key id hex>+<base64(0x04 ‖ 32-byte public key)>`. The error
    /// names the part that is wrong (a log's own key, type 0x01, is refused
    /// as such).
    pub fn from_vkey(vkey: &str) -> anyhow::Result<Self> {
        let vkey = vkey.trim();
        // The name has no '+'; the base64 may.
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id_hex), Some(material)) = (parts.next(), parts.next(), parts.next())
        else {
            bail!("a cosigner vkey is <name>+<key id>+<base64 key>; got {vkey:?}");
        };
        check_name(name).context("reading the cosigner vkey")?;
        if id_hex.len() != 8 || !id_hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("the cosigner vkey's key id must be 8 hexadecimal digits; got {id_hex:?}");
        }
        let id = u32::from_str_radix(id_hex, 16)
            .with_context(|| format!("the cosigner vkey's key id {id_hex:?}"))?;
        let material = BASE64
            .decode(material)
            .map_err(|e| anyhow::anyhow!("the cosigner vkey's key is not base64: {e}"))?;
        match material.first() {
            Some(&COSIGNATURE_V1_ED25519) => {}
            Some(&0x01) => bail!(
                "the vkey is a signed-note Ed25519 key (type 0x01, a log's key), \
                 not an Ed25519 cosignature/v1 key (type 0x04)"
            ),
            Some(other) => bail!(
                "the cosigner vkey's key type is 0x{other:02x}; only Ed25519 cosignature/v1 (0x04) is supported"
            ),
            None => bail!("the cosigner vkey's key is empty"),
        }
        let public = <[u8; 32]>::try_from(&material[1..]).map_err(|_| {
            anyhow::anyhow!(
                "the cosigner vkey's Ed25519 key is {} bytes, not 32",
                material.len() - 1
            )
        })?;
        let key = VerifyingKey::from_bytes(&public)
            .map_err(|_| anyhow::anyhow!("the cosigner vkey's key is not an Ed25519 point"))?;
        if key.is_weak() {
            bail!("the cosigner vkey's key is a weak (small-order) Ed25519 key");
        }
        let expected = key_id(name, &public);
        if id != expected {
            bail!(
                "the cosigner vkey's key id is {id:08x}, but its name and key give {expected:08x}"
            );
        }
        Ok(Self {
            name: name.to_owned(),
            id,
            key,
        })
    }

    /// The cosigner's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id of its signature lines.
    pub fn key_id(&self) -> u32 {
        self.id
    }

    /// The verifier key, as `from_vkey` reads it (key id in lower case).
    pub fn vkey(&self) -> String {
        vkey_of(&self.name, self.id, &self.key)
    }

    /// Whether `line` (`— <name> <base64>`, with or without its final
    /// newline) is this cosigner's cosignature of `body` (a note body with
    /// its final newline): its timestamp if so. Lines by other keys (other
    /// name, other key id, a log's type 0x01 signature) give `None`.
    pub fn verify_line(&self, body: &str, line: &str) -> Option<u64> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let rest = line.strip_prefix("\u{2014} ")?;
        let (name, encoded) = rest.split_once(' ')?;
        if name != self.name {
            return None;
        }
        // Cheap length check before decoding: 76 bytes are 104 characters.
        if encoded.len() != BLOB_LEN.div_ceil(3) * 4 {
            return None;
        }
        let blob = BASE64.decode(encoded).ok()?;
        let blob = <[u8; BLOB_LEN]>::try_from(blob.as_slice()).ok()?;
        let (id, rest) = blob.split_at(4);
        let (time, signature) = rest.split_at(8);
        if u32::from_be_bytes(id.try_into().ok()?) != self.id {
            return None;
        }
        let time = u64::from_be_bytes(time.try_into().ok()?);
        if time > MAX_TIMESTAMP {
            return None;
        }
        let signature = Signature::from_bytes(&signature.try_into().ok()?);
        self.key
            .verify_strict(&message(body, time), &signature)
            .ok()?;
        Some(time)
    }

    /// Among `note`'s signature lines, the one by this cosigner that
    /// verifies over the note's body: its timestamp. `None` when the note
    /// is malformed or holds no such line (lines by other keys, including
    /// the log's own, are ignored).
    pub fn verify_note(&self, note: &str) -> Option<u64> {
        let (body, lines) = split_note(note)?;
        lines
            .into_iter()
            .find_map(|line| self.verify_line(body, line))
    }
}

/// Splits a signed note into its body (the text with its final newline)
/// and its signature lines (each `— <name> <base64>`, without its newline),
/// at the note's last blank line, as signed-note says. `None` when there is
/// no blank line, the note does not end with a newline, there is no
/// signature line, or a line after the blank one is not a signature line.
pub fn split_note(note: &str) -> Option<(&str, Vec<&str>)> {
    let at = note.rfind("\n\n")?;
    let body = &note[..=at];
    let signatures = note[at + 2..].strip_suffix('\n')?;
    if signatures.is_empty() {
        return None;
    }
    let lines: Vec<&str> = signatures.split('\n').collect();
    let well_formed = |line: &&str| {
        line.strip_prefix("\u{2014} ")
            .and_then(|rest| rest.split_once(' '))
            .is_some_and(|(name, sig)| !name.is_empty() && !sig.is_empty() && !sig.contains(' '))
    };
    if !lines.iter().all(well_formed) {
        return None;
    }
    Some((body, lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::key::LogKey;

    const BODY: &str =
        "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

    fn fixed() -> Cosigner {
        Cosigner::from_bytes(&[7u8; 32], "witness.example/w1").expect("key")
    }

    #[test]
    fn a_fixed_key_has_the_key_id_and_vkey_the_spec_defines() {
        let cosigner = fixed();
        let public = cosigner.signing.verifying_key().to_bytes();
        // SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4], computed here by hand.
        use sha2::Digest as _;
        let mut hasher = sha2::Sha256::new();
        hasher.update(b"witness.example/w1\n\x04");
        hasher.update(public);
        let digest = hasher.finalize();
        let expected = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
        assert_eq!(cosigner.key_id(), expected);
        let mut material = vec![4u8];
        material.extend_from_slice(&public);
        assert_eq!(
            cosigner.vkey(),
            format!(
                "witness.example/w1+{expected:08x}+{}",
                BASE64.encode(&material)
            )
        );
        // A fixed vector, computed independently (Python's `cryptography`
        // Ed25519 and hashlib), so that a change of any part shows.
        assert_eq!(
            cosigner.vkey(),
            "witness.example/w1+aa4a09d1+BOpKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"
        );
        // Ed25519 is deterministic: the whole line is a vector too.
        assert_eq!(
            cosigner.cosign(BODY, 1_679_315_147),
            "\u{2014} witness.example/w1 qkoJ0QAAAABkGFDLWr4Jea05CAgwNVtwky0Jgz6WfX0QJgM//FkB/W9BoT9TX0DkTxG+2cT4p/ViKNhUM/SnUwFcYQzugGFQ15LwDw==\n"
        );
        let verifier = CosignatureVerifier::from_vkey(&cosigner.vkey()).expect("vkey");
        assert_eq!(verifier.vkey(), cosigner.vkey());
        assert_eq!(verifier.name(), "witness.example/w1");
        assert!(format!("{cosigner:?}").contains("<redacted>"));
        assert!(!format!("{cosigner:?}").contains(&hex::encode([7u8; 32])));
    }

    #[test]
    fn the_spec_example_line_carries_its_key_id_and_timestamp() {
        // tlog-cosignature's example: key id 8d66cf3f, time 1679315147 (the
        // time line of its example message). Its public key is not given,
        // so only the layout is checked.
        let blob = BASE64
            .decode("jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==")
            .expect("base64");
        assert_eq!(blob.len(), BLOB_LEN);
        assert_eq!(&blob[..4], &[0x8d, 0x66, 0xcf, 0x3f]);
        let time = u64::from_be_bytes(blob[4..12].try_into().expect("8 bytes"));
        assert_eq!(time, 1_679_315_147);
        assert_eq!(
            String::from_utf8(message(BODY, time)).expect("utf-8"),
            "cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        );
    }

    #[test]
    fn a_cosignature_round_trips_and_binds_body_and_time() {
        let log = LogKey::from_bytes(&[9u8; 32], "example.com/behind-the-sofa").expect("log");
        let note = log.sign_note(BODY).expect("signed");
        let cosigner = fixed();
        let line = cosigner.cosign(BODY, 1_679_315_147);
        assert!(line.starts_with("\u{2014} witness.example/w1 "));
        assert!(line.ends_with('\n'));
        let cosigned = format!("{note}{line}");
        let verifier = CosignatureVerifier::from_vkey(&cosigner.vkey()).expect("vkey");
        assert_eq!(verifier.verify_note(&cosigned), Some(1_679_315_147));
        assert_eq!(verifier.verify_line(BODY, &line), Some(1_679_315_147));
        // The log's own note still verifies with the cosignature on it.
        assert!(crate::tlog::key::verify_note(&cosigned, &log.vkey()).is_ok());

        // Another body.
        let other = cosigned.replace("20852163", "20852164");
        assert_eq!(verifier.verify_note(&other), None);
        // Another timestamp in the line.
        let mut blob = BASE64
            .decode(line.trim_end().rsplit(' ').next().expect("b64"))
            .expect("base64");
        blob[11] ^= 1;
        let retimed = format!("\u{2014} witness.example/w1 {}\n", BASE64.encode(&blob));
        assert_eq!(verifier.verify_note(&format!("{note}{retimed}")), None);
        // No cosignature at all: only the log's line.
        assert_eq!(verifier.verify_note(&note), None);
    }

    #[test]
    fn lines_by_other_keys_are_ignored() {
        let cosigner = fixed();
        let verifier = cosigner.verifier();
        let stranger = Cosigner::from_bytes(&[8u8; 32], "witness.example/w1").expect("key");
        let renamed = Cosigner::from_bytes(&[7u8; 32], "witness.example/w2").expect("key");
        let log = LogKey::from_bytes(&[9u8; 32], "example.com/behind-the-sofa").expect("log");
        let note = log.sign_note(BODY).expect("signed");
        let time = 1_700_000_000;
        let by_others = format!(
            "{note}{}{}",
            stranger.cosign(BODY, time),
            renamed.cosign(BODY, time)
        );
        assert_eq!(verifier.verify_note(&by_others), None);
        // Among other lines, its own is found.
        let mixed = format!("{by_others}{}", cosigner.cosign(BODY, time + 1));
        assert_eq!(verifier.verify_note(&mixed), Some(time + 1));
    }

    #[test]
    fn a_logs_ed25519_key_is_not_a_cosigner_key() {
        // The same seed and name as a log key (type 0x01) and as a cosigner
        // (0x04): distinct key ids, and neither vkey reads as the other.
        let log = LogKey::from_bytes(&[7u8; 32], "witness.example/w1").expect("log");
        let cosigner = fixed();
        let err = CosignatureVerifier::from_vkey(&log.vkey()).expect_err("a log key");
        assert!(err.to_string().contains("0x01"), "{err}");
        assert_ne!(
            log.vkey().split('+').nth(1),
            cosigner.vkey().split('+').nth(1)
        );
        // A log signature line under the cosigner's name is ignored.
        let note = log.sign_note(BODY).expect("signed");
        assert!(note.contains("\u{2014} witness.example/w1 "));
        assert_eq!(cosigner.verifier().verify_note(&note), None);
        // And a type-0x04 signature with the 0x01 key id: the signed message
        // differs, so it fails too.
        let line = cosigner.cosign(BODY, 5);
        let mut blob = BASE64
            .decode(line.trim_end().rsplit(' ').next().expect("b64"))
            .expect("base64");
        let log_id =
            u32::from_str_radix(log.vkey().split('+').nth(1).expect("id"), 16).expect("hex");
        blob[..4].copy_from_slice(&log_id.to_be_bytes());
        let forged = format!(
            "{note}\u{2014} witness.example/w1 {}\n",
            BASE64.encode(&blob)
        );
        assert_eq!(cosigner.verifier().verify_note(&forged), None);
    }

    #[test]
    fn bad_vkeys_are_refused_naming_what_is_wrong() {
        let good = fixed().vkey();
        let (name, rest) = good.split_once('+').expect("+");
        let (id, material) = rest.split_once('+').expect("+");
        for (vkey, says) in [
            ("nothing".to_owned(), "<name>+<key id>+<base64 key>"),
            (format!("+{id}+{material}"), "empty"),
            (format!("{name}+{}+{material}", "0000000g"), "8 hexadecimal"),
            (
                format!("{name}+{}+{material}", "00000000"),
                "key id is 00000000",
            ),
            (format!("{name}+{id}+!!!"), "not base64"),
            (
                format!("{name}+{id}+{}", BASE64.encode([4u8; 5])),
                "4 bytes",
            ),
            (format!("{name}+{id}+{}", BASE64.encode([6u8; 33])), "0x06"),
            (format!("other+{id}+{material}"), "name and key give"),
        ] {
            let err = CosignatureVerifier::from_vkey(&vkey).expect_err(&vkey);
            assert!(format!("{err:#}").contains(says), "{vkey}: {err:#}");
        }
        assert!(Cosigner::from_bytes(&[1; 32], "has space").is_err());
        assert!(Cosigner::from_bytes(&[1; 32], "has+plus").is_err());
        assert!(Cosigner::from_bytes(&[1; 32], "").is_err());
        assert!(Cosigner::from_hex("abc", "w").is_err());
    }

    #[test]
    fn notes_split_at_their_last_blank_line() {
        let note = "a\n\nb\n\n\u{2014} k AAAA\n\u{2014} j BBBB\n";
        let (body, lines) = split_note(note).expect("splits");
        assert_eq!(body, "a\n\nb\n");
        assert_eq!(lines, vec!["\u{2014} k AAAA", "\u{2014} j BBBB"]);
        for bad in [
            "a\nb\n",
            "a\n\n",
            "a\n\n\u{2014} k AAAA",
            "a\n\nnot a signature\n",
            "a\n\n\u{2014} k\n",
            "a\n\n\u{2014} k AAAA\n\n",
        ] {
            assert_eq!(split_note(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_key_round_trips_through_a_file() {
        let cosigner = Cosigner::generate("w.example/a").expect("made");
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("witness.key");
        crate::secret_file::write_private(&path, &hex::encode(*cosigner.seed())).expect("write");
        let again = Cosigner::read_file(&path, "w.example/a").expect("read");
        assert_eq!(again.vkey(), cosigner.vkey());
        std::fs::write(&path, "zz").expect("write");
        let err = Cosigner::read_file(&path, "w.example/a").expect_err("bad");
        assert!(format!("{err:#}").contains("64 hexadecimal"), "{err:#}");
    }
}
