//! The log's Ed25519 key: where it comes from (like the master key: an
//! environment variable, a file, or created with mode 0600 in the data
//! directory), its signed-note verifier key, and what it signs — checkpoints
//! (signed notes) and receipts.

use std::fmt;
use std::path::Path;

use anyhow::{Context, bail};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::{Signer as _, SigningKey};
use signed_note::{Note, StandardVerifier, VerifierList};
use zeroize::Zeroize;

/// What a receipt signature covers, before the log index and the entry.
pub const RECEIPT_CONTEXT: &str = "fairdeal-receipt/v1\n";

/// The log's signing key and its name (the log's origin).
pub struct LogKey {
    signing: SigningKey,
    origin: String,
}

impl fmt::Debug for LogKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogKey({}, <redacted>)", self.origin)
    }
}

/// The signed-note key id of an Ed25519 key named `name`.
fn key_id(name: &str, public: &[u8; 32]) -> u32 {
    signed_note::key_id(name, &[&[1u8][..], public].concat())
}

impl LogKey {
    /// The key from its 32-byte seed (64 hex characters). The error never
    /// repeats the input.
    pub fn from_hex(text: &str, origin: &str) -> anyhow::Result<Self> {
        let mut seed = [0u8; 32];
        let text = text.trim();
        if text.len() != 64 || hex::decode_to_slice(text, &mut seed).is_err() {
            bail!("the log key must be 64 hexadecimal characters (a 32-byte Ed25519 seed)");
        }
        Self::from_seed(seed, origin)
    }

    fn from_seed(mut seed: [u8; 32], origin: &str) -> anyhow::Result<Self> {
        if origin.is_empty() || origin.contains('+') || origin.chars().any(char::is_whitespace) {
            bail!("the log origin must be non-empty, without '+' or white space; got {origin:?}");
        }
        let signing = SigningKey::from_bytes(&seed);
        seed.zeroize();
        Ok(Self {
            signing,
            origin: origin.to_owned(),
        })
    }

    /// A new key, from the OS's randomness.
    pub fn generate(origin: &str) -> anyhow::Result<Self> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
        Self::from_seed(seed, origin)
    }

    /// The key from its 32-byte seed.
    pub fn from_bytes(seed: &[u8; 32], origin: &str) -> anyhow::Result<Self> {
        Self::from_seed(*seed, origin)
    }

    /// The key's 32-byte seed, to seal it (zeroed when dropped).
    pub fn seed(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(self.signing.to_bytes())
    }

    /// Reads a key given outside the database: `from_env`
    /// (FAIRDEAL_LOG_KEY), else the key file. `None` when neither is given.
    /// Returns the key and where it came from.
    pub fn given(
        from_env: Option<&str>,
        key_file: Option<&Path>,
        origin: &str,
    ) -> anyhow::Result<Option<(Self, String)>> {
        if let Some(text) = from_env {
            return Ok(Some((
                Self::from_hex(text, origin).context("reading FAIRDEAL_LOG_KEY")?,
                "FAIRDEAL_LOG_KEY".to_owned(),
            )));
        }
        let Some(path) = key_file else {
            return Ok(None);
        };
        Self::read_file(path, origin).map(|key| Some((key, path.display().to_string())))
    }

    /// Reads a key file (64 hex characters).
    pub fn read_file(path: &Path, origin: &str) -> anyhow::Result<Self> {
        let mut text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the log key file {}", path.display()))?;
        let key = Self::from_hex(&text, origin)
            .with_context(|| format!("reading the log key file {}", path.display()));
        text.zeroize();
        key
    }

    /// The log's origin, which is also the key's name.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The verifier key: `<origin>+<key id>+<base64(0x01 ‖ public key)>`.
    pub fn vkey(&self) -> String {
        signed_note::new_ed25519_verifier_key(&self.origin, &self.signing.verifying_key())
    }

    /// A signed note of `body` (which ends with a newline): the body, a blank
    /// line, and `— <origin> <base64(key id ‖ signature)>`.
    pub fn sign_note(&self, body: &str) -> anyhow::Result<String> {
        anyhow::ensure!(body.ends_with('\n'), "a note body ends with a newline");
        let public = self.signing.verifying_key().to_bytes();
        let id = key_id(&self.origin, &public);
        let signature = self.signing.sign(body.as_bytes()).to_bytes();
        let mut blob = id.to_be_bytes().to_vec();
        blob.extend_from_slice(&signature);
        Ok(format!(
            "{body}\n\u{2014} {} {}\n",
            self.origin,
            BASE64.encode(blob)
        ))
    }

    /// A receipt's signature: base64 Ed25519 over
    /// `"fairdeal-receipt/v1\n" ‖ decimal log_index ‖ "\n" ‖ entry`.
    pub fn sign_receipt(&self, log_index: u64, entry: &[u8]) -> String {
        let mut message = format!("{RECEIPT_CONTEXT}{log_index}\n").into_bytes();
        message.extend_from_slice(entry);
        BASE64.encode(self.signing.sign(&message).to_bytes())
    }
}

/// Verifies a signed note against one verifier key and returns its body;
/// signatures by other keys are ignored, as signed-note says.
pub fn verify_note(note: &str, vkey: &str) -> anyhow::Result<String> {
    let verifier = StandardVerifier::new(vkey)
        .map_err(|e| anyhow::anyhow!("reading the verifier key: {e}"))?;
    let verifiers = VerifierList::new(vec![Box::new(verifier)]);
    let note = Note::from_bytes(note.as_bytes()).map_err(|e| anyhow::anyhow!("{e}"))?;
    note.verify(&verifiers)
        .map_err(|e| anyhow::anyhow!("the note does not verify: {e}"))?;
    Ok(String::from_utf8(note.text().to_vec())?)
}

/// Checks that `vkey` is a signed-note Ed25519 verifier key
/// (`<name>+<key id>+<base64(0x01 ‖ key)>`, its key id matching).
pub fn check_vkey(vkey: &str) -> anyhow::Result<()> {
    StandardVerifier::new(vkey)
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("not a signed-note Ed25519 verifier key: {e}"))
}

/// Verifies a receipt signature made by [`LogKey::sign_receipt`].
pub fn verify_receipt(vkey: &str, log_index: u64, entry: &[u8], signature_b64: &str) -> bool {
    // `<name>+<key id>+<base64 key>`: the name has no '+', the base64 may.
    let Some(public) = vkey.splitn(3, '+').nth(2) else {
        return false;
    };
    let Ok(public) = BASE64.decode(public) else {
        return false;
    };
    let Some(public) = public
        .strip_prefix(&[1u8])
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
    else {
        return false;
    };
    let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(&public) else {
        return false;
    };
    let Ok(signature) = BASE64
        .decode(signature_b64)
        .ok()
        .and_then(|s| <[u8; 64]>::try_from(s).ok())
        .map(|s| ed25519_dalek::Signature::from_bytes(&s))
        .ok_or(())
    else {
        return false;
    };
    let mut message = format!("{RECEIPT_CONTEXT}{log_index}\n").into_bytes();
    message.extend_from_slice(entry);
    key.verify_strict(&message, &signature).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Go checksum database's key and one of its real checkpoints.
    const GO_VKEY: &str = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8";
    const GO_NOTE: &str = "go.sum database tree\n63096908\n8lHrQPRYe4KT4WQ9/Qk8/taKnD6IRHbFgfN7vQE2Y54=\n\n\u{2014} sum.golang.org Az3gri/oVBN1jAhNZ/iS+W31psFAWRT20/GyrhpU6taFwulQGetBkH5S7wpGXdS935jiIGiUUAXBVHzT/P6fYhqAmAk=\n";

    #[test]
    fn a_real_checksum_database_checkpoint_verifies_and_a_changed_one_does_not() {
        let body = verify_note(GO_NOTE, GO_VKEY).expect("verifies");
        assert!(body.starts_with("go.sum database tree\n63096908\n"));
        assert!(verify_note(&GO_NOTE.replace("63096908", "63096909"), GO_VKEY).is_err());
    }

    #[test]
    fn the_signed_note_test_vector_signs_and_verifies() {
        // Go's note package test key (also in signed_note's tests): the
        // seed of PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz.
        let seed = BASE64
            .decode("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")
            .expect("base64");
        let key = LogKey::from_hex(&hex::encode(&seed[1..]), "PeterNeumann").expect("key");
        assert_eq!(
            key.vkey(),
            "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
        );
        let text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
        let note = key.sign_note(text).expect("signs");
        assert_eq!(
            note,
            format!(
                "{text}\n\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
            )
        );
        assert_eq!(verify_note(&note, &key.vkey()).expect("verifies"), text);
    }

    #[test]
    fn a_receipt_verifies_only_for_its_index_and_entry() {
        // A key whose base64 holds '+', which also separates the vkey's parts.
        let key = (0u8..=255)
            .map(|b| {
                LogKey::from_hex(&format!("{b:02x}").repeat(32), "example.com/log").expect("key")
            })
            .find(|key| key.vkey().matches('+').count() > 2)
            .expect("some seed gives a '+' in the base64 key");
        let signature = key.sign_receipt(12, b"{\"type\":\"commit\"}");
        assert!(verify_receipt(
            &key.vkey(),
            12,
            b"{\"type\":\"commit\"}",
            &signature
        ));
        assert!(!verify_receipt(
            &key.vkey(),
            13,
            b"{\"type\":\"commit\"}",
            &signature
        ));
        assert!(!verify_receipt(
            &key.vkey(),
            12,
            b"{\"type\":\"round\"}",
            &signature
        ));
        assert!(format!("{key:?}").contains("<redacted>"));
    }

    #[test]
    fn a_log_key_round_trips_through_its_seed_and_a_file() {
        let key = LogKey::generate("o/log").expect("made");
        let again = LogKey::from_bytes(&key.seed(), "o/log").expect("from seed");
        assert_eq!(key.vkey(), again.vkey());
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("log.key");
        crate::secret_file::write_private(&path, &hex::encode(*key.seed())).expect("write");
        assert_eq!(
            LogKey::read_file(&path, "o/log").expect("read").vkey(),
            key.vkey()
        );
        let given = LogKey::given(None, Some(&path), "o/log").expect("given");
        assert_eq!(given.map(|(k, _)| k.vkey()), Some(key.vkey()));
        assert!(LogKey::given(None, None, "o/log").expect("none").is_none());
    }
}
