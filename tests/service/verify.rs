//! `POST /v1/verify`: the stateless recomputation.

use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{TestApp, on_both_backends};

async fn stateless_verify_recomputes_a_published_vector(app: &TestApp) {
    let body = json!({
        "server_seed": "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c",
        "client_seed": "🂡 lucky",
        "nonce": 41,
        "game": {"type": "holdem", "players": 6}
    });
    for nonce in [json!(41), json!("41")] {
        let mut body = body.clone();
        body["nonce"] = nonce;
        let reply = app.public.post_json("/v1/verify", &body).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
        assert_eq!(
            reply.json["server_seed_hash"],
            "b034e2041764d657468f5d1371c83fb8dc69fe688a324145b6043894cf1b0c29"
        );
        assert_eq!(
            reply.json["deal"]["board"],
            json!(["Ad", "7s", "Qs", "Jd", "3s"])
        );
        assert_eq!(reply.json["deal"]["hands"][0], json!(["Qc", "6c"]));
    }
    let mut bad = body.clone();
    bad["server_seed"] = json!("d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801");
    let reply = app.public.post_json("/v1/verify", &bad).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reply.json["field"], "server_seed");
    assert!(!reply.text.contains("d4905855"), "the seed is not echoed");
    for nonce in [
        json!(-1),
        json!("1e3"),
        json!(1.5),
        json!("18446744073709551616"),
    ] {
        let mut bad = body.clone();
        bad["nonce"] = nonce.clone();
        let reply = app.public.post_json("/v1/verify", &bad).await;
        assert!(reply.status.is_client_error(), "{nonce}: {}", reply.text);
        assert_eq!(reply.json["field"], "nonce", "{nonce}: {}", reply.text);
    }
}
on_both_backends!(stateless_verify_recomputes_a_published_vector);
