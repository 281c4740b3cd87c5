//! The API's JSON request bodies, read as the server reads them (the
//! `ApiJson` extractor: `serde_path_to_error`, then the field named in the
//! 400), then checked as the handlers check them. The first byte picks the
//! body type; the rest is the body.
#![no_main]

use axum::body::Body;
use axum::extract::FromRequest;
use axum::http::{Request, header};
use axum::response::IntoResponse;
use fairdeal::service::http::error::{ApiError, ApiJson};
use fairdeal::service::http::wire::{
    ClientSeedRequest, CreatePairRequest, CreateRoundRequest, VerifyRequest,
};
use futures_util::FutureExt;
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;

/// The body through the server's extractor. Nothing in it waits, so it is
/// polled once.
fn extract<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let request = Request::builder()
        .method("POST")
        .uri("/")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_vec()))
        .expect("a valid request");
    let extracted = ApiJson::<T>::from_request(request, &())
        .now_or_never()
        .expect("reading an in-memory body never waits");
    // The extractor and plain serde_json agree on what parses.
    let plain = serde_json::from_slice::<T>(body);
    assert_eq!(extracted.is_ok(), plain.is_ok(), "{:?}", plain.err());
    extracted.map(|ApiJson(value)| value)
}

fn answer<T>(result: Result<T, ApiError>) {
    if let Err(err) = result {
        let _ = err.into_response();
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 4 {
        0 => answer(extract::<CreateRoundRequest>(body).and_then(|request| {
            request.game.to_game().map_err(|e| ApiError::from_core(&e))
        })),
        1 => {
            if let Ok(request) = extract::<VerifyRequest>(body) {
                let response = fairdeal::service::http::verify::verify(ApiJson(request))
                    .now_or_never()
                    .expect("verification never waits");
                let _ = response.into_response();
            }
        }
        2 => answer(extract::<ClientSeedRequest>(body).and_then(ClientSeedRequest::client_seed)),
        _ => answer(extract::<CreatePairRequest>(body).and_then(|request| {
            let (label, _seats) = request.parts()?;
            if let Some(label) = &label {
                let text = label.as_str();
                assert!((1..=128).contains(&text.len()) && !text.chars().any(char::is_control));
            }
            Ok(label)
        })),
    }
});
