//! Seeds at rest: unrevealed server seeds are sealed with XChaCha20-Poly1305
//! under a master key, with the pair id and the slot (`current` or `next`)
//! bound in as associated data. A copy of the database alone reveals no
//! unrevealed seed, and a sealed seed moved to another row or slot fails to
//! open.
//!
//! The master key comes from `FAIRDEAL_MASTER_KEY` (64 hex characters), a key
//! file, or is created on first start in the data directory with mode 0600.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use fairdeal_core::{SERVER_SEED_LEN, ServerSeed};
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, ZeroizeOnDrop};

const NONCE_LEN: usize = 24;

/// Which of a pair's two seeds a sealed blob holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The seed that deals the pair's rounds.
    Current,
    /// The seed promised as `next_server_seed_hash`.
    Next,
}

impl Slot {
    fn label(self) -> &'static str {
        match self {
            Slot::Current => "current",
            Slot::Next => "next",
        }
    }
}

/// Associated data of the sealed log key.
const LOG_KEY_AAD: &str = "log-key";

/// The 32-byte key that seals seeds. Redacted in `Debug`, zeroed on drop.
#[derive(ZeroizeOnDrop)]
pub struct MasterKey([u8; 32]);

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MasterKey(<redacted>)")
    }
}

/// Opening a sealed seed failed: wrong key, wrong row or slot, or corruption.
#[derive(Debug, PartialEq, Eq)]
pub struct OpenError;

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sealed server seed failed to open (wrong master key, or the ciphertext was moved or altered)")
    }
}

impl std::error::Error for OpenError {}

impl MasterKey {
    /// Parses 64 hex characters. The error never repeats the input.
    pub fn from_hex(text: &str) -> anyhow::Result<Self> {
        let text = text.trim();
        let mut bytes = [0u8; 32];
        if text.len() != 64 || hex::decode_to_slice(text, &mut bytes).is_err() {
            bail!("the master key must be 64 hexadecimal characters (32 bytes)");
        }
        Ok(Self(bytes))
    }

    /// A new random key from the operating system.
    pub fn generate() -> anyhow::Result<Self> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
        Ok(Self(bytes))
    }

    /// Finds the key: the `FAIRDEAL_MASTER_KEY` value if given, else the key
    /// file if given, else `<data_dir>/master.key`. When there is none, a new
    /// key is made but not written: the third value is the file to write it
    /// to (mode 0600), once the database has taken the key
    /// ([`MasterKey::write_new`]), so that a start that fails leaves no key
    /// behind. Returns the key and where it came from.
    pub fn load(
        from_env: Option<&str>,
        key_file: Option<&Path>,
        data_dir: &Path,
    ) -> anyhow::Result<(Self, String, Option<PathBuf>)> {
        if let Some(text) = from_env {
            return Ok((
                Self::from_hex(text).context("reading FAIRDEAL_MASTER_KEY")?,
                "FAIRDEAL_MASTER_KEY".to_owned(),
                None,
            ));
        }
        if let Some(path) = key_file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the master key file {}", path.display()))?;
            return Ok((
                Self::from_hex(&text)
                    .with_context(|| format!("reading the master key file {}", path.display()))?,
                path.display().to_string(),
                None,
            ));
        }
        let path: PathBuf = data_dir.join("master.key");
        if path.exists() {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the master key file {}", path.display()))?;
            let key = Self::from_hex(&text)
                .with_context(|| format!("reading the master key file {}", path.display()))?;
            return Ok((key, path.display().to_string(), None));
        }
        let key = Self::generate()?;
        Ok((key, format!("{} (created)", path.display()), Some(path)))
    }

    /// Writes a new key to `path` (mode 0600, never over an existing file).
    pub fn write_new(&self, path: &Path) -> anyhow::Result<()> {
        crate::secret_file::write_private(path, &hex::encode(self.0))
            .with_context(|| format!("creating the master key file {}", path.display()))
    }

    /// A public fingerprint of the key, stored in the database so that a
    /// process started with a different key refuses to run instead of failing
    /// on the first seed it opens.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"fairdeal master key fingerprint v1\0");
        hasher.update(self.0);
        hex::encode(&hasher.finalize()[..16])
    }

    /// Seals the transparency log's signing key (its 32-byte seed) for the
    /// database, so that the database and the master key are all a
    /// process needs.
    pub fn seal_log_key(&self, seed: &[u8; 32]) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(seed, LOG_KEY_AAD)
    }

    /// Opens a sealed log key.
    pub fn open_log_key(&self, sealed: &[u8]) -> Result<zeroize::Zeroizing<[u8; 32]>, OpenError> {
        let plain = zeroize::Zeroizing::new(self.open_bytes(sealed, LOG_KEY_AAD)?);
        let seed: [u8; 32] = plain.as_slice().try_into().map_err(|_| OpenError)?;
        Ok(zeroize::Zeroizing::new(seed))
    }

    /// The tenant's opaque identity in the public log: HMAC-SHA256 under the
    /// master key of the tenant's name, its first 16 bytes in hex. The same
    /// for every process sharing the key, so the log can tell two pairs of
    /// one tenant from two of different tenants; without the key nobody can
    /// tell which tenant it is, nor test a guess of its name.
    pub fn tenant_id(&self, tenant: &str) -> String {
        use hmac::{KeyInit as _, Mac as _};
        let mut mac =
            <hmac::Hmac<Sha256>>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(b"fairdeal tenant id v1\0");
        mac.update(tenant.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&self.0.into())
    }

    /// Encrypts `message` bound to `aad`: a 24-byte random nonce, then the
    /// ciphertext and tag.
    fn seal_bytes(&self, message: &[u8], aad: &str) -> anyhow::Result<Vec<u8>> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
        let ciphertext = self
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: message,
                    aad: aad.as_bytes(),
                },
            )
            .map_err(|_| anyhow::anyhow!("sealing failed"))?;
        let mut sealed = nonce.to_vec();
        sealed.extend_from_slice(&ciphertext);
        Ok(sealed)
    }

    /// Decrypts what [`MasterKey::seal_bytes`] made with the same `aad`.
    fn open_bytes(&self, sealed: &[u8], aad: &str) -> Result<Vec<u8>, OpenError> {
        if sealed.len() < NONCE_LEN + 16 {
            return Err(OpenError);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| OpenError)?;
        self.cipher()
            .decrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: ciphertext,
                    aad: aad.as_bytes(),
                },
            )
            .map_err(|_| OpenError)
    }

    /// Seals `seed` for `slot` of pair `pair_id`.
    pub fn seal(&self, seed: &ServerSeed, pair_id: &str, slot: Slot) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(seed.as_bytes(), &associated_data(pair_id, slot))
    }

    /// Opens what [`MasterKey::seal`] made for the same pair and slot.
    pub fn open(&self, sealed: &[u8], pair_id: &str, slot: Slot) -> Result<ServerSeed, OpenError> {
        self.open_seed(sealed, &associated_data(pair_id, slot))
    }

    /// Seals the server seed of draw `draw_id` (until the draw runs).
    pub fn seal_draw_seed(&self, seed: &ServerSeed, draw_id: &str) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(seed.as_bytes(), &draw_associated_data(draw_id))
    }

    /// Opens what [`MasterKey::seal_draw_seed`] made for the same draw.
    pub fn open_draw_seed(&self, sealed: &[u8], draw_id: &str) -> Result<ServerSeed, OpenError> {
        self.open_seed(sealed, &draw_associated_data(draw_id))
    }

    fn open_seed(&self, sealed: &[u8], aad: &str) -> Result<ServerSeed, OpenError> {
        if sealed.len() != NONCE_LEN + SERVER_SEED_LEN + 16 {
            return Err(OpenError);
        }
        let mut plain = self.open_bytes(sealed, aad)?;
        let bytes: Result<[u8; SERVER_SEED_LEN], _> = plain.as_slice().try_into();
        plain.zeroize();
        bytes.map(ServerSeed::from_bytes).map_err(|_| OpenError)
    }

    /// Seals seed `s_position` of the chain of pair `pair_id` (a
    /// fairdeal-chain-v1 anchor).
    pub fn seal_chain_seed(
        &self,
        seed: &ServerSeed,
        pair_id: &str,
        position: u64,
    ) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(seed.as_bytes(), &chain_associated_data(pair_id, position))
    }

    /// Opens what [`MasterKey::seal_chain_seed`] made for the same pair
    /// and position.
    pub fn open_chain_seed(
        &self,
        sealed: &[u8],
        pair_id: &str,
        position: u64,
    ) -> Result<ServerSeed, OpenError> {
        self.open_seed(sealed, &chain_associated_data(pair_id, position))
    }

    /// Seals the recorded deal (its JSON) of round `round_id`, while its
    /// pair is unrevealed: a copy of the database shows no cards in play.
    pub fn seal_deal(&self, deal_json: &str, round_id: &str) -> anyhow::Result<Vec<u8>> {
        self.seal_bytes(deal_json.as_bytes(), &deal_associated_data(round_id))
    }

    /// Opens what [`MasterKey::seal_deal`] made for the same round.
    pub fn open_deal(&self, sealed: &[u8], round_id: &str) -> Result<String, OpenError> {
        let plain = self.open_bytes(sealed, &deal_associated_data(round_id))?;
        String::from_utf8(plain).map_err(|_| OpenError)
    }
}

fn associated_data(pair_id: &str, slot: Slot) -> String {
    format!("fairdeal seed v1|pair={pair_id}|slot={}", slot.label())
}

fn chain_associated_data(pair_id: &str, position: u64) -> String {
    format!("fairdeal seed v1|pair={pair_id}|chain={position}")
}

fn draw_associated_data(draw_id: &str) -> String {
    format!("fairdeal seed v1|draw={draw_id}")
}

fn deal_associated_data(round_id: &str) -> String {
    format!("fairdeal deal v1|round={round_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> MasterKey {
        MasterKey::from_hex(&"11".repeat(32)).expect("valid")
    }

    #[test]
    fn a_draw_seed_opens_only_for_its_own_draw() {
        let seed = ServerSeed::from_bytes([5; 32]);
        let sealed = key().seal_draw_seed(&seed, "draw-a").expect("seal");
        let opened = key().open_draw_seed(&sealed, "draw-a").expect("opens");
        assert_eq!(opened.as_bytes(), seed.as_bytes());
        assert_eq!(
            key().open_draw_seed(&sealed, "draw-b").err(),
            Some(OpenError)
        );
        // Not a pair's seed either, under the same id.
        assert_eq!(
            key().open(&sealed, "draw-a", Slot::Current).err(),
            Some(OpenError)
        );
    }

    #[test]
    fn a_sealed_seed_opens_only_for_its_own_pair_and_slot() {
        let seed = ServerSeed::from_bytes([9; 32]);
        let sealed = key().seal(&seed, "pair-a", Slot::Current).expect("seal");
        let opened = key().open(&sealed, "pair-a", Slot::Current).expect("opens");
        assert_eq!(opened.as_bytes(), seed.as_bytes());
        assert_eq!(
            key().open(&sealed, "pair-b", Slot::Current).err(),
            Some(OpenError)
        );
        assert_eq!(
            key().open(&sealed, "pair-a", Slot::Next).err(),
            Some(OpenError)
        );
        let other = MasterKey::from_hex(&"22".repeat(32)).expect("valid");
        assert_eq!(
            other.open(&sealed, "pair-a", Slot::Current).err(),
            Some(OpenError)
        );
        let mut tampered = sealed.clone();
        tampered[30] ^= 1;
        assert_eq!(
            key().open(&tampered, "pair-a", Slot::Current).err(),
            Some(OpenError)
        );
        assert_eq!(
            key().open(&sealed[..40], "pair-a", Slot::Current).err(),
            Some(OpenError)
        );
    }

    #[test]
    fn a_sealed_deal_opens_only_for_its_own_round() {
        let deal = r#"{"deck":["Td","6s"]}"#;
        let sealed = key().seal_deal(deal, "round-1").expect("seal");
        assert!(!sealed.windows(4).any(|w| w == b"\"Td\""));
        assert_eq!(key().open_deal(&sealed, "round-1").as_deref(), Ok(deal));
        assert_eq!(key().open_deal(&sealed, "round-2"), Err(OpenError));
        assert_eq!(key().open_deal(&sealed[..20], "round-1"), Err(OpenError));
    }

    #[test]
    fn sealed_bytes_do_not_contain_the_seed() {
        let seed = ServerSeed::from_bytes([0x5a; 32]);
        let sealed = key().seal(&seed, "p", Slot::Next).expect("seal");
        assert!(!sealed.windows(8).any(|w| w == [0x5a; 8]));
        // Two seals of one seed differ (fresh nonce each time).
        assert_ne!(sealed, key().seal(&seed, "p", Slot::Next).expect("seal"));
    }

    #[test]
    fn a_created_key_file_is_private_and_reloads() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (first, origin, new) = MasterKey::load(None, None, dir.path()).expect("created");
        assert!(origin.ends_with("(created)"));
        // Nothing is written until the caller writes it.
        assert!(!dir.path().join("master.key").exists());
        first
            .write_new(&new.expect("a file to write"))
            .expect("written");
        let (second, _, new) = MasterKey::load(None, None, dir.path()).expect("reloaded");
        assert!(new.is_none());
        assert_eq!(first.fingerprint(), second.fingerprint());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("master.key"))
                .expect("exists")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_sealed_log_key_opens_only_with_its_master_key() {
        let seed = [42u8; 32];
        let sealed = key().seal_log_key(&seed).expect("seal");
        assert!(!sealed.windows(32).any(|w| w == seed));
        assert_eq!(*key().open_log_key(&sealed).expect("opens"), seed);
        let other = MasterKey::from_hex(&"22".repeat(32)).expect("valid");
        assert!(other.open_log_key(&sealed).is_err());
        // A sealed server seed is not a log key, nor the other way round.
        let server = key()
            .seal(&ServerSeed::from_bytes(seed), "p", Slot::Current)
            .expect("seal");
        assert!(key().open_log_key(&server).is_err());
    }

    #[test]
    fn a_malformed_key_is_refused_without_echo() {
        let err = MasterKey::from_hex("abcdef0123456789").expect_err("too short");
        assert!(!err.to_string().contains("abcdef0123"));
        assert!(format!("{:?}", key()).contains("redacted"));
    }
}
