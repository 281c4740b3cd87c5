//! The `Authorization` header: `bearer_token` on the raw header bytes, then
//! the API key's shape (`fdk_<16 hex>_<64 hex>`) with `keys::parse`.
#![no_main]

use fairdeal::service::http::auth::bearer_token;
use fairdeal::service::keys;
use libfuzzer_sys::fuzz_target;

fn check_key(text: &str) {
    if let Some((id, secret)) = keys::parse(text) {
        assert_eq!(id.len(), 16);
        assert_eq!(secret.len(), 64);
        assert!(id.bytes().chain(secret.bytes()).all(|b| b.is_ascii_hexdigit()));
        assert_eq!(text, format!("fdk_{id}_{secret}"));
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(token) = bearer_token(data) {
        let header = std::str::from_utf8(data).expect("a token comes from UTF-8");
        assert!(header.contains(token));
        assert_eq!(token, token.trim());
        check_key(token);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        check_key(text);
    }
});
