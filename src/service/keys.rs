//! Operator API keys: `fdk_<id>_<secret>`. Only SHA-256 of the secret is
//! stored; a presented key is looked up by id and its secret compared in
//! constant time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::store::KeyRow;

/// A freshly made key: the row to store and the key to show once.
#[derive(Debug)]
pub struct NewKey {
    pub row: KeyRow,
    pub key: String,
}

fn random_hex<const N: usize>() -> anyhow::Result<String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("OS randomness failed: {e}"))?;
    Ok(hex::encode(bytes))
}

fn secret_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The tenant of keys made without one.
pub const DEFAULT_TENANT: &str = "default";

/// Checks a key or tenant name: 1–64 characters of letters, digits, `-`,
/// `_`, `.`.
pub fn check_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        anyhow::bail!("a name is 1 to 64 characters of letters, digits, '-', '_' or '.'");
    }
    Ok(())
}

/// Makes a key of `tenant` with 256 random bits of secret.
pub fn generate(name: &str, tenant: &str, now: i64) -> anyhow::Result<NewKey> {
    check_name(name)?;
    check_name(tenant)?;
    let id = random_hex::<8>()?;
    let secret = random_hex::<32>()?;
    Ok(NewKey {
        key: format!("fdk_{id}_{secret}"),
        row: KeyRow {
            id,
            name: name.to_owned(),
            tenant: tenant.to_owned(),
            secret_hash: secret_hash(&secret),
            created_at: now,
            revoked_at: None,
            last_used_at: None,
        },
    })
}

/// Splits a presented key into id and secret, if it has the key's shape.
pub fn parse(presented: &str) -> Option<(&str, &str)> {
    let rest = presented.strip_prefix("fdk_")?;
    let (id, secret) = rest.split_once('_')?;
    let is_hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
    (is_hex(id, 16) && is_hex(secret, 64)).then_some((id, secret))
}

/// Whether `secret` is the secret of `row` (and the key is not revoked).
pub fn matches(row: &KeyRow, secret: &str) -> bool {
    let presented = secret_hash(secret);
    let equal: bool = presented
        .as_bytes()
        .ct_eq(row.secret_hash.as_bytes())
        .into();
    equal && row.revoked_at.is_none()
}

/// How long a key read from the database is trusted without reading it
/// again: a revocation (by any process sharing the database) takes effect
/// within this long.
pub const KEY_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(1);
/// Most keys remembered at once; past it the cache starts afresh.
const KEY_CACHE_MAX: usize = 10_000;

/// How often a key's last use is written: once a minute at most, per key
/// and process (`keys list` shows it to the minute).
pub const TOUCH_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Recently read key rows, by id, so that an operator's requests do not
/// each read `api_keys`. Only rows are kept (the secret's hash, as
/// stored), never a presented secret; every request is still compared in
/// constant time. Unknown ids are not remembered, so guessing ids cannot
/// fill it.
#[derive(Debug, Default)]
pub struct KeyCache(
    std::sync::Mutex<std::collections::HashMap<String, (std::time::Instant, KeyRow)>>,
    /// When this process last wrote each key's last use.
    std::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>,
);

impl KeyCache {
    /// The row of key `id` if it was read less than [`KEY_CACHE_TTL`] ago.
    pub fn get(&self, id: &str) -> Option<KeyRow> {
        let cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get(id)
            .filter(|(read, _)| read.elapsed() < KEY_CACHE_TTL)
            .map(|(_, row)| row.clone())
    }

    /// Whether key `id`'s use is to be written now: true at most once per
    /// [`TOUCH_EVERY`] for each key in this process (and at its first use
    /// here). Only keys that authenticated are asked about, so guessed ids
    /// fill nothing.
    pub fn due_for_touch(&self, id: &str) -> bool {
        let mut touched = self.1.lock().unwrap_or_else(|e| e.into_inner());
        if touched.get(id).is_some_and(|at| at.elapsed() < TOUCH_EVERY) {
            return false;
        }
        if touched.len() >= KEY_CACHE_MAX {
            touched.retain(|_, at| at.elapsed() < TOUCH_EVERY);
        }
        touched.insert(id.to_owned(), std::time::Instant::now());
        true
    }

    /// Remembers `row`, read just now.
    pub fn put(&self, row: &KeyRow) {
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= KEY_CACHE_MAX {
            cache.retain(|_, (read, _)| read.elapsed() < KEY_CACHE_TTL);
            if cache.len() >= KEY_CACHE_MAX {
                cache.clear();
            }
        }
        cache.insert(row.id.clone(), (std::time::Instant::now(), row.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keys_use_is_due_once_a_minute_per_process() {
        let cache = KeyCache::default();
        assert!(cache.due_for_touch("a"));
        assert!(!cache.due_for_touch("a"));
        assert!(cache.due_for_touch("b"));
    }

    #[test]
    fn a_cached_key_is_trusted_for_a_second_only() {
        let new = generate("cached", DEFAULT_TENANT, 0).expect("key");
        let cache = KeyCache::default();
        assert!(cache.get(&new.row.id).is_none());
        cache.put(&new.row);
        assert_eq!(
            cache.get(&new.row.id).map(|r| r.name),
            Some("cached".to_owned())
        );
        std::thread::sleep(KEY_CACHE_TTL + std::time::Duration::from_millis(50));
        assert!(cache.get(&new.row.id).is_none(), "read again after the TTL");
    }

    #[test]
    fn a_generated_key_parses_and_matches_only_its_own_secret() {
        let new = generate("backend-1", DEFAULT_TENANT, 0).expect("key");
        let (id, secret) = parse(&new.key).expect("well-formed");
        assert_eq!(id, new.row.id);
        assert!(matches(&new.row, secret));
        let other = generate("backend-2", DEFAULT_TENANT, 0).expect("key");
        let (_, other_secret) = parse(&other.key).expect("well-formed");
        assert!(!matches(&new.row, other_secret));
        assert!(!new.row.secret_hash.contains(secret));
        let revoked = KeyRow {
            revoked_at: Some(1),
            ..new.row.clone()
        };
        assert!(!matches(&revoked, secret));
    }

    #[test]
    fn malformed_keys_and_names_are_refused() {
        for bad in [
            "",
            "fdk_",
            "fdk_abc_def",
            "Bearer x",
            "fdk_0123456789abcdef_zz",
        ] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
        assert!(check_name("ok-name_1.2").is_ok());
        for bad in ["", "has space", "naïve", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
