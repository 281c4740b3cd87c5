//! Bad requests: each is refused with the right status and a problem document
//! naming the field and the rule; nothing is a 500, and nothing changes.

use reqwest::{Method, StatusCode};

use crate::harness::{Client, TestApp, on_both_backends};

/// One bad request and how it must be refused.
struct Case {
    method: &'static str,
    /// `{pair}` stands for an active pair's id.
    path: &'static str,
    /// Sent with the operator key.
    headers: &'static [(&'static str, &'static str)],
    body: &'static [u8],
    status: u16,
    /// When given, the problem document's `field`, which `detail` starts with
    /// (not checked when `None`).
    field: Option<&'static str>,
    /// A substring of the problem's `detail`.
    detail: &'static str,
}

const JSON: &[(&str, &str)] = &[("content-type", "application/json")];
const TEXT: &[(&str, &str)] = &[("content-type", "text/plain")];
const GZIP: &[(&str, &str)] = &[
    ("content-type", "application/json"),
    ("content-encoding", "gzip"),
];
/// Two Content-Encoding headers: the second one counts too.
const GZIP_AFTER_IDENTITY: &[(&str, &str)] = &[
    ("content-type", "application/json"),
    ("content-encoding", "identity"),
    ("content-encoding", "gzip"),
];
const UTF16: &[(&str, &str)] = &[("content-type", "application/json; charset=utf-16")];
const BAD_KEY: &[(&str, &str)] = &[
    ("content-type", "application/json"),
    ("idempotency-key", "has space"),
];
const ROUNDS: &str = "/v1/seed-pairs/{pair}/rounds";
const CLIENT_SEED: &str = "/v1/seed-pairs/{pair}/client-seed";
/// A client seed of 65 bytes, one more than allowed.
const SEED_65: &[u8] = concat!(
    r#"{"client_seed":""#,
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    r#""}"#
)
.as_bytes();
const _: () = assert!(SEED_65.len() == r#"{"client_seed":""}"#.len() + 65);

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":"#,                                         status: 400, field: None,                    detail: "EOF while parsing" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: b"",                                                    status: 400, field: None,                    detail: "not valid JSON" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: b"[1,2]",                                               status: 400, field: None,                    detail: "an array is not accepted" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck"},"extra":1}"#,               status: 400, field: Some("extra"),           detail: "unknown field `extra`" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck","colour":"red"}}"#,          status: 400, field: Some("game.colour"),     detail: "unknown field `colour`" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":"holdem"}"#,                                status: 400, field: Some("game"),            detail: "expected a game object such as {\"type\": \"holdem\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"poker"}}"#,                        status: 422, field: Some("game.type"),       detail: "must be one of: deck, holdem, omaha, hands" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":23}}"#,          status: 422, field: Some("game.players"),    detail: "players must be 2 to 22" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":-1}}"#,          status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 22; got -1" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":"six"}}"#,       status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 22; got \"six\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":"6"}}"#,         status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 22; got \"6\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"omaha","players":true}}"#,         status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 11; got true" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck","decks":"2"}}"#,             status: 422, field: Some("game.decks"),      detail: "decks must be a whole number from 1 to 8; got \"2\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"hands","players":2,"cards":"5"}}"#, status: 422, field: Some("game.cards"),      detail: "cards must be a whole number from 1 to 52; got \"5\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck","players":"6"}}"#,           status: 422, field: Some("game.players"),    detail: "deck does not take players" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"protocol":"fairdeal-chain-v1","chain_length":-1}"#, status: 422, field: Some("chain_length"),    detail: "must be a whole number of rounds from 1 to 1000000; got -1" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"protocol":"fairdeal-chain-v1","chain_length":"10"}"#, status: 422, field: Some("chain_length"), detail: "must be a whole number of rounds from 1 to 1000000; got \"10\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":99999999999}}"#, status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 22; got 99999999999" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"omaha"}}"#,                        status: 422, field: Some("game.players"),    detail: "omaha needs players" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck","decks":9}}"#,               status: 422, field: Some("game.decks"),      detail: "decks must be 1 to 8" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"hands","players":5,"cards":11}}"#, status: 422, field: Some("game.cards"),      detail: "must be at most 52 x decks" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: b"{\"game\":{\"type\":\"d\xffck\"}}",                   status: 400, field: None,                    detail: "invalid unicode" },
    Case { method: "POST",   path: ROUNDS,                                    headers: TEXT,    body: br#"{"game":{"type":"deck"}}"#,                         status: 415, field: None,                    detail: "Content-Type: application/json" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: &[b' '; 20_000],                                        status: 413, field: None,                    detail: "16 KiB" },
    Case { method: "POST",   path: ROUNDS,                                    headers: BAD_KEY, body: br#"{"game":{"type":"deck"}}"#,                         status: 422, field: Some("Idempotency-Key"), detail: "1 to 255 visible ASCII characters" },
    Case { method: "PUT",    path: CLIENT_SEED,                               headers: JSON,    body: SEED_65,                                                status: 422, field: Some("client_seed"),     detail: "1 to 64 bytes" },
    Case { method: "PUT",    path: CLIENT_SEED,                               headers: JSON,    body: br#"{"client_seed":""}"#,                               status: 422, field: Some("client_seed"),     detail: "it is empty" },
    Case { method: "PUT",    path: CLIENT_SEED,                               headers: JSON,    body: br#"{"client_seed":"a\u0000b"}"#,                       status: 422, field: Some("client_seed"),     detail: "U+0000 at character 1 (from 0) is a control character" },
    Case { method: "PUT",    path: CLIENT_SEED,                               headers: JSON,    body: br#"{"client_seed":7}"#,                                status: 400, field: Some("client_seed"),     detail: "expected a string" },
    Case { method: "POST",   path: "/v1/seed-pairs/no-such-pair/rounds",      headers: JSON,    body: br#"{"game":{"type":"deck"}}"#,                         status: 404, field: None,                    detail: "no seed pair" },
    Case { method: "GET",    path: "/v1/rounds/no-such-round",                headers: JSON,    body: b"",                                                    status: 404, field: None,                    detail: "no round" },
    Case { method: "GET",    path: "/v1/seed-pairs/no-such-pair",             headers: JSON,    body: b"",                                                    status: 404, field: None,                    detail: "no seed pair" },
    Case { method: "POST",   path: "/v1/rounds/no-such-round/close",          headers: JSON,    body: b"",                                                    status: 404, field: None,                    detail: "no round" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?limit=0",    headers: JSON,    body: b"",                                                    status: 422, field: Some("limit"),           detail: "must be 1 to 1000" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?limit=abc",  headers: JSON,    body: b"",                                                    status: 400, field: Some("limit"),           detail: "invalid digit" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?limit=1&limit=2", headers: JSON, body: b"",                                                  status: 400, field: Some("limit"),           detail: "duplicate field" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?after=",     headers: JSON,    body: b"",                                                    status: 400, field: Some("after"),           detail: "cannot parse integer from empty string" },
    Case { method: "GET",    path: "/v1/export?after=x&after=y",              headers: JSON,    body: b"",                                                    status: 400, field: Some("after"),           detail: "duplicate field" },
    Case { method: "GET",    path: "/v1/seed-pairs/%ff",                      headers: JSON,    body: b"",                                                    status: 400, field: Some("id"),              detail: "UTF-8" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: b"{}",                                                  status: 400, field: Some("game"),            detail: "missing field `game`" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck"},"game":{"type":"deck"}}"#,  status: 400, field: Some("game"),            detail: "duplicate field `game`" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"deck",}}"#,                        status: 400, field: Some("game"),            detail: "trailing comma" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":["deck"]}"#,                                status: 400, field: Some("game"),            detail: "an array is not accepted" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: b"[null]",                                              status: 400, field: None,                    detail: "an array is not accepted" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"seats":[1,2]}"#,                                  status: 400, field: Some("seats"),           detail: "must be an array of strings" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"seats":"a,b"}"#,                                  status: 400, field: Some("seats"),           detail: "expected a sequence" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"seats":["a","a"]}"#,                              status: 422, field: Some("seats[1]"),        detail: "repeats" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"seats":["a",".."]}"#,                             status: 422, field: Some("seats[1]"),        detail: "must not be \".\" or \"..\"" },
    Case { method: "POST",   path: "/v1/seed-pairs",                          headers: JSON,    body: br#"{"seats":[".","b"]}"#,                              status: 422, field: Some("seats[0]"),        detail: "segment of its URL" },
    Case { method: "POST",   path: ROUNDS,                                    headers: GZIP,    body: b"\x1f\x8b\x08\x00\x00\x00\x00\x00",                      status: 415, field: None,                    detail: "Content-Encoding \"gzip\" is not accepted" },
    Case { method: "POST",   path: "/v1/draws",                               headers: UTF16,   body: b"\xff\xfe{\x00}\x00",                                  status: 415, field: None,                    detail: "the commitment must be UTF-8" },
    Case { method: "POST",   path: "/v1/draws",                               headers: GZIP,    body: b"\x1f\x8b\x08\x00\x00\x00\x00\x00",                      status: 415, field: None,                    detail: "send the body uncompressed" },
    Case { method: "POST",   path: ROUNDS,                                    headers: GZIP_AFTER_IDENTITY, body: b"\x1f\x8b\x08\x00",                            status: 415, field: None,                    detail: "Content-Encoding \"gzip\"" },
    Case { method: "POST",   path: ROUNDS,                                    headers: UTF16,   body: b"\xff\xfe{\x00}\x00",                                  status: 415, field: None,                    detail: "must be UTF-8; Content-Type says charset=utf-16" },
    Case { method: "GET",    path: "/v1/seed-pairs?limit=-1",                 headers: JSON,    body: b"",                                                    status: 400, field: Some("limit"),           detail: "must be a whole number written in digits, without a sign" },
    Case { method: "POST",   path: "/v1/verify",                              headers: JSON,    body: br#"{"server_seed":"x000000000000000000000000000000000000000000000000000000000000000","client_seed":"c","nonce":0,"game":{"type":"deck"}}"#, status: 422, field: Some("server_seed"), detail: "character 1 is not one" },
    Case { method: "POST",   path: ROUNDS,                                    headers: JSON,    body: br#"{"game":{"type":"holdem","players":6.5}}"#,         status: 422, field: Some("game.players"),    detail: "players must be a whole number from 2 to 22; got 6.5" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?after=-3",   headers: JSON,    body: b"",                                                    status: 422, field: Some("after"),           detail: "must be a nonce (0 or more)" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?after=9223372036854775808", headers: JSON, body: b"",                                      status: 400, field: Some("after"),           detail: "number too large" },
    Case { method: "GET",    path: "/v1/seed-pairs/{pair}/rounds?colour=red", headers: JSON,    body: b"",                                                    status: 400, field: Some("colour"),          detail: "unknown field `colour`" },
    Case { method: "DELETE", path: ROUNDS,                                    headers: JSON,    body: b"",                                                    status: 405, field: None,                    detail: "does not take that method" },
    Case { method: "GET",    path: "/v2/nothing",                             headers: JSON,    body: b"",                                                    status: 404, field: None,                    detail: "no endpoint at this path" },
    Case { method: "GET",    path: "/v1/seed-pairs/%00",                       headers: &[],     body: b"",                                                    status: 404, field: None,                    detail: "NUL byte" },
    Case { method: "GET",    path: "/v1/seed-pairs/%00/rounds",                headers: &[],     body: b"",                                                    status: 404, field: None,                    detail: "NUL byte" },
    Case { method: "GET",    path: "/v1/rounds/a%00b",                         headers: &[],     body: b"",                                                    status: 404, field: None,                    detail: "NUL byte" },
    Case { method: "GET",    path: "/v1/rounds/%00/receipt",                   headers: &[],     body: b"",                                                    status: 404, field: None,                    detail: "NUL byte" },
    Case { method: "GET",    path: "/v1/draws/%00",                            headers: &[],     body: b"",                                                    status: 404, field: None,                    detail: "NUL byte" },
    Case { method: "PUT",    path: "/v1/seed-pairs/{pair}/seats/%00/commitment", headers: JSON, body: br#"{"commitment":"00"}"#,                               status: 404, field: None,                    detail: "NUL byte" },
];

/// Sends `case` as the operator and checks the refusal.
async fn check(api: &Client, pair_id: &str, case: &Case) {
    let method = Method::from_bytes(case.method.as_bytes()).expect("a method");
    let mut request = api
        .request(method, &case.path.replace("{pair}", pair_id))
        .body(case.body);
    for (name, value) in case.headers {
        request = request.header(*name, *value);
    }
    let reply = api.send(request).await;
    let body = String::from_utf8_lossy(&case.body[..case.body.len().min(60)]);
    let what = format!("{} {} {body}", case.method, case.path);
    let status = StatusCode::from_u16(case.status).expect("a status");
    assert_eq!(reply.status, status, "{what}: {}", reply.text);
    assert_eq!(reply.content_type(), "application/problem+json", "{what}");
    assert_eq!(reply.json["status"], case.status, "{what}: {}", reply.text);
    let detail = reply.json["detail"].as_str().unwrap_or_default();
    assert!(!detail.is_empty(), "{what}: {}", reply.text);
    assert!(detail.contains(case.detail), "{what}: {}", reply.text);
    // Words a backend engineer reads, never the server's own type names.
    for rust in ["struct ", "enum ", "GameSpec", "Request`", "Option<"] {
        assert!(!detail.contains(rust), "{what}: {}", reply.text);
    }
    if let Some(field) = case.field {
        assert_eq!(reply.json["field"], field, "{what}: {}", reply.text);
        assert!(detail.starts_with(field), "{what}: {}", reply.text);
    }
}

async fn bad_input_is_refused_with_the_field_and_the_rule(app: &TestApp) {
    let pair_id = app.operator.active_pair("bad input").await;
    for case in CASES {
        check(&app.operator, &pair_id, case).await;
    }
    // A huge id is named, not echoed whole.
    let long_id = "x".repeat(10_000);
    let reply = app.public.get(&format!("/v1/seed-pairs/{long_id}")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let detail = reply.json["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("10000 bytes") && detail.len() < 200,
        "{detail}"
    );
    let pair = app.public.get(&format!("/v1/seed-pairs/{pair_id}")).await;
    assert_eq!(pair.json["next_nonce"], 0, "no bad request spent a nonce");
    assert_eq!(
        pair.json["client_seed"], "bad input",
        "no bad request changed the seed"
    );
    // What those refusals turn on is taken when it is plain: UTF-8 named in
    // any case, the identity coding.
    let plain = app
        .operator
        .request(Method::POST, &ROUNDS.replace("{pair}", &pair_id))
        .header("content-type", "application/json; charset=UTF-8")
        .header("content-encoding", "identity")
        .body(r#"{"game":{"type":"deck"}}"#);
    let dealt = app.operator.send(plain).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
}
on_both_backends!(bad_input_is_refused_with_the_field_and_the_rule);
