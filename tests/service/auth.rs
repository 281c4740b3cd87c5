//! Operator keys: every operator endpoint refuses a missing, malformed, wrong
//! or revoked key; a key revoked while in use is refused within a second.

use fairdeal::service::store::InsertKey;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::harness::{TestApp, on_both_backends};

async fn operator_endpoints_need_a_valid_key(app: &TestApp) {
    let pair_id = app.operator.active_pair("auth").await;
    let round_id = app
        .operator
        .deal(&pair_id, json!({"type": "deck"}))
        .await
        .id();
    let operator_calls: [(Method, String); 5] = [
        (Method::POST, "/v1/seed-pairs".to_owned()),
        (Method::PUT, format!("/v1/seed-pairs/{pair_id}/client-seed")),
        (Method::POST, format!("/v1/seed-pairs/{pair_id}/rounds")),
        (Method::POST, format!("/v1/seed-pairs/{pair_id}/rotate")),
        (Method::POST, format!("/v1/rounds/{round_id}/close")),
    ];
    let store = app.dealer.store();
    let revoked =
        fairdeal::service::keys::generate("revoked", fairdeal::service::keys::DEFAULT_TENANT, 0)
            .expect("key");
    assert_eq!(
        store.insert_key(&revoked.row).await.expect("insert"),
        InsertKey::Inserted
    );
    assert!(store.revoke_key("revoked", 1).await.expect("revoke"));
    let key = app.operator.key();
    let wrong_secret = format!("{}{}", &key[..key.len() - 4], "0000");
    for (method, path) in &operator_calls {
        for auth in [
            None,
            Some("Bearer nonsense"),
            Some(wrong_secret.as_str()),
            Some(revoked.key.as_str()),
            Some("Basic dXNlcjpwYXNz"),
        ] {
            let mut request = app.public.request(method.clone(), path);
            if let Some(auth) = auth {
                let value = if auth.starts_with("fdk_") {
                    format!("Bearer {auth}")
                } else {
                    auth.to_owned()
                };
                request = request.header("Authorization", value);
            }
            let reply = app
                .public
                .send(request.json(&json!({"client_seed": "x", "game": {"type": "deck"}})))
                .await;
            assert_eq!(
                reply.status,
                StatusCode::UNAUTHORIZED,
                "{method} {path} with {auth:?}"
            );
            assert_eq!(reply.content_type(), "application/problem+json");
            assert!(reply.headers.contains_key("www-authenticate"));
        }
    }
    // Public reads need no key, but a wrong key is refused by every one.
    let wrong_key = app.public.clone().with_key(
        "fdk_0000000000000000_0000000000000000000000000000000000000000000000000000000000000000",
    );
    for read in [
        format!("/v1/rounds/{round_id}"),
        format!("/v1/seed-pairs/{pair_id}"),
        format!("/v1/seed-pairs/{pair_id}/rounds"),
    ] {
        assert_eq!(app.public.get(&read).await.status, StatusCode::OK, "{read}");
        let refused = wrong_key.get(&read).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{read}");
    }
    // RFC 9110: the scheme is case-insensitive.
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let reply = app
            .public
            .send(
                app.public
                    .request(Method::POST, "/v1/seed-pairs")
                    .header("Authorization", format!("{scheme} {key}")),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "scheme {scheme:?}");
    }
}
on_both_backends!(operator_endpoints_need_a_valid_key);

/// A key read a moment ago is trusted for up to a second (one read of
/// `api_keys` a second, not one a request); a revocation takes effect
/// within that second.
async fn a_key_revoked_while_in_use_is_refused_within_a_second(app: &TestApp) {
    let store = app.dealer.store();
    let key =
        fairdeal::service::keys::generate("in-use", fairdeal::service::keys::DEFAULT_TENANT, 0)
            .expect("key");
    assert_eq!(
        store.insert_key(&key.row).await.expect("insert"),
        InsertKey::Inserted
    );
    let client = app.public.clone().with_key(&key.key);
    assert_eq!(client.get("/v1/seed-pairs").await.status, StatusCode::OK);
    assert!(store.revoke_key("in-use", 1).await.expect("revoke"));
    tokio::time::sleep(
        fairdeal::service::keys::KEY_CACHE_TTL + std::time::Duration::from_millis(100),
    )
    .await;
    let refused = client.get("/v1/seed-pairs").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    // A wrong secret for a cached id is refused at once.
    let other = app.operator.key();
    let wrong = format!("{}{}", &other[..other.len() - 4], "0000");
    assert_eq!(
        app.operator.get("/v1/seed-pairs").await.status,
        StatusCode::OK
    );
    let guessed = app
        .public
        .clone()
        .with_key(&wrong)
        .get("/v1/seed-pairs")
        .await;
    assert_eq!(guessed.status, StatusCode::UNAUTHORIZED);
}
on_both_backends!(a_key_revoked_while_in_use_is_refused_within_a_second);
