//! The API's JSON request bodies, read as the server reads them (the
//! `ApiJson` extractor: `serde_path_to_error`, then the field named in the
//! 400), then checked as the handlers check them. The first byte picks the
//! body type; the rest is the body.
#![no_main]

use axum::body::Body;
use axum::extract::FromRequest;
use axum::http::{Request, header};
use axum::response::IntoResponse;
use fairdeal::service::http::error::ApiError;
use fairdeal::service::http::extract::ApiJson;
use fairdeal::service::dealer::chains::MAX_SERVICE_CHAIN;
use fairdeal::service::http::wire::{
    ClientSeedRequest, Count, CreatePairRequest, CreateRoundRequest, ProtocolName, VerifyRequest,
};
use fairdeal_core::PairProtocol;
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
    // The extractor takes what plain serde_json takes, except a body that
    // holds an array anywhere but as the top-level "seats" list of strings
    // (serde would read a struct from an array).
    let plain = serde_json::from_slice::<T>(body);
    let refused_array = serde_json::from_slice::<serde_json::Value>(body)
        .is_ok_and(|value| holds_other_array(&value, true));
    assert_eq!(
        extracted.is_ok(),
        plain.is_ok() && !refused_array,
        "{:?}",
        plain.err()
    );
    extracted.map(|ApiJson(value)| value)
}

/// Whether `value` holds an array other than a top-level `seats` list of
/// strings.
fn holds_other_array(value: &serde_json::Value, top: bool) -> bool {
    match value {
        serde_json::Value::Array(_) => true,
        serde_json::Value::Object(map) => map.iter().any(|(key, inner)| match inner {
            serde_json::Value::Array(items) if top && key == "seats" => {
                !items.iter().all(serde_json::Value::is_string)
            }
            _ => holds_other_array(inner, false),
        }),
        _ => false,
    }
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
            request.game.game()
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
            let (protocol, chain_length) = (request.protocol, request.chain_length.clone());
            let options = request.options()?;
            if let Some(label) = &options.label {
                let text = label.as_str();
                assert!((1..=128).contains(&text.len()) && !text.chars().any(char::is_control));
            }
            // A chain pair only when asked for, with its length in the
            // service's range; a chain_length never comes alone.
            match options.protocol {
                PairProtocol::V1 => {
                    assert_ne!(protocol, Some(ProtocolName::FairdealChainV1));
                    assert_eq!(chain_length, None);
                }
                PairProtocol::Chain(length) => {
                    assert_eq!(protocol, Some(ProtocolName::FairdealChainV1));
                    assert_eq!(chain_length, Some(Count::Whole(length.get() as u32)));
                    assert!((1..=MAX_SERVICE_CHAIN).contains(&length.get()));
                }
            }
            Ok(options.label)
        })),
    }
});
