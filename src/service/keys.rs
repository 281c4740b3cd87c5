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

#[cfg(test)]
mod tests {
    use super::*;

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
