//! The extractors every handler takes its input through, each answering
//! an [`ApiError`] that names the field at fault and the rule: a JSON body
//! ([`ApiJson`]), a query ([`ApiQuery`]), path segments ([`ApiPath`]), and
//! the checks of a body's encoding and charset.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, OptionalFromRequest, Path, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use super::error::{ApiError, ProblemKind};

/// 415 unless `what` comes as sent: the API decodes no `Content-Encoding`
/// (gzip, say) but `identity`, and says so rather than read compressed bytes
/// as text.
pub(super) fn identity_encoding(headers: &header::HeaderMap, what: &str) -> Result<(), ApiError> {
    // Every Content-Encoding header, and every coding each one lists.
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let Ok(codings) = value.to_str() else {
            return Err(ApiError::unsupported(format!(
                "Content-Encoding is not text; send {what} uncompressed"
            )));
        };
        for coding in codings.split(',').map(str::trim) {
            if !(coding.is_empty() || coding.eq_ignore_ascii_case("identity")) {
                return Err(ApiError::unsupported(format!(
                    "Content-Encoding {coding:?} is not accepted: send {what} uncompressed"
                )));
            }
        }
    }
    Ok(())
}

/// 415 if `content_type` names a charset other than UTF-8 (or its subset
/// US-ASCII): the API reads `what` as UTF-8 only.
pub(super) fn utf8_charset(content_type: &str, what: &str) -> Result<(), ApiError> {
    let charset = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"').to_ascii_lowercase());
    match charset.as_deref() {
        None | Some("utf-8" | "utf8" | "us-ascii") => Ok(()),
        Some(other) => Err(ApiError::unsupported(format!(
            "{what} must be UTF-8; Content-Type says charset={other}"
        ))),
    }
}

/// A JSON request body, read into `T`: 413 when over the size limit, 415 when
/// not declared as JSON (or compressed, or not UTF-8), 400 naming the path of a syntax or type error
/// (unknown fields included). The one way a handler takes a JSON body.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let headers = request.headers();
        identity_encoding(headers, "the body")?;
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        let is_json = content_type.is_some_and(|v| {
            let mime = v.split(';').next().unwrap_or_default().trim();
            mime.eq_ignore_ascii_case("application/json")
                || (mime.starts_with("application/") && mime.ends_with("+json"))
        });
        if is_json {
            utf8_charset(content_type.unwrap_or_default(), "the body")?;
        }
        let body = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::of(
                        ProblemKind::BodyTooLarge,
                        "the request body is larger than the 16 KiB this API accepts",
                    )
                } else {
                    ApiError::malformed(
                        format!("the request body could not be read: {rejection}"),
                        None,
                    )
                }
            })?;
        if !is_json {
            return Err(ApiError::unsupported_media_type());
        }
        // serde reads a struct from an array too ([x, y] as its fields in
        // order); the only arrays a request body of this API holds are
        // lists of strings ([`ARRAY_FIELDS`]), so any other is refused
        // wherever it stands rather than read that way.
        if let Some(field) = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .as_ref()
            .and_then(|value| first_array(value, String::new()))
        {
            let shown = if field.is_empty() { "the body" } else { &field };
            return Err(ApiError::malformed(
                if ARRAY_FIELDS.contains(&field.as_str()) {
                    format!("{shown}: must be an array of strings")
                } else {
                    format!(
                        "{shown}: an array is not accepted here; send a JSON object or value as the schema says"
                    )
                },
                (!field.is_empty()).then_some(field),
            ));
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&body);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner().to_string();
            match field_at(&path, &inner) {
                // The field is named: the parser's position says no more.
                Some(field) => ApiError::malformed(
                    format!("{field}: {}", without_position(&inner)),
                    Some(field),
                ),
                None => ApiError::malformed(
                    format!("the request body is not valid JSON for this endpoint: {inner}"),
                    None,
                ),
            }
        })?;
        deserializer.end().map_err(|err| {
            ApiError::malformed(format!("trailing data after the JSON body: {err}"), None)
        })?;
        Ok(ApiJson(value))
    }
}

/// An optional JSON body: none when the request sends no body at all (no
/// length, or a length of 0), otherwise read as [`ApiJson`].
impl<T: DeserializeOwned, S: Send + Sync> OptionalFromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Option<Self>, ApiError> {
        let headers = request.headers();
        let declared_empty = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|length| length.trim() == "0");
        // No body at all, whatever the Content-Type says: many clients send
        // `Content-Type: application/json` on every request.
        if declared_empty && !headers.contains_key(header::TRANSFER_ENCODING) {
            return Ok(None);
        }
        <Self as FromRequest<S>>::from_request(request, state)
            .await
            .map(Some)
    }
}

/// A query string, read into `T`: 400 when it does not parse. The one way a
/// handler takes query parameters.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

/// How Rust's integer parsing says a number is not digits alone
/// (`std::num::IntErrorKind`'s messages).
const NOT_DIGITS: &[&str] = &[
    "invalid digit found in string",
    "cannot parse integer from empty string",
];

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        // form_urlencoded decodes lossily (bad UTF-8 becomes U+FFFD); a
        // value is refused instead of stored altered.
        if let Some(name) = first_non_utf8_parameter(query) {
            return Err(ApiError::malformed(
                format!("{name}: is not valid UTF-8 once percent-decoded (query string)"),
                Some(name),
            ));
        }
        let deserializer =
            serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        let value = serde_path_to_error::deserialize(deserializer).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner().to_string();
            // A number's parse error says what is wrong but not what is
            // wanted: every number in a query is a count or an index.
            let rule = if NOT_DIGITS.iter().any(|e| inner.starts_with(e)) {
                "must be a whole number written in digits, without a sign: "
            } else if inner.starts_with("number too ") {
                "is out of range: "
            } else {
                ""
            };
            match field_at(&path, &inner) {
                Some(field) => ApiError::malformed(
                    format!("{field}: {rule}{inner} (query string)"),
                    Some(field),
                ),
                None => ApiError::malformed(format!("the query string is invalid: {inner}"), None),
            }
        })?;
        Ok(ApiQuery(value))
    }
}

/// A path parameter, read into `T`: 400 naming the parameter when it is not
/// valid (not UTF-8, say). The one way a handler takes a path parameter.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        // No id, label or kind holds a NUL byte, and PostgreSQL refuses
        // one in text: such a path names nothing.
        if parts.uri.path().to_ascii_lowercase().contains("%00") {
            return Err(ApiError::not_found_detail(
                "nothing here: ids and labels never hold a NUL byte (%00)".to_owned(),
            ));
        }
        let Path(value) =
            Path::<T>::from_request_parts(parts, state)
                .await
                .map_err(|rejection| {
                    use axum::extract::path::ErrorKind;
                    use axum::extract::rejection::PathRejection;
                    // The parameter at fault, by its name in the route.
                    let name = match &rejection {
                        PathRejection::FailedToDeserializePathParams(err) => match err.kind() {
                            ErrorKind::InvalidUtf8InPathParam { key }
                            | ErrorKind::ParseErrorAtKey { key, .. } => key.clone(),
                            _ => "id".to_owned(),
                        },
                        _ => "id".to_owned(),
                    };
                    ApiError::malformed(
                        format!("{name}: must be UTF-8 text; {}", rejection.body_text()),
                        Some(name),
                    )
                })?;
        Ok(ApiPath(value))
    }
}

/// The name of the first query parameter whose name or value does not
/// percent-decode to UTF-8.
fn first_non_utf8_parameter(query: &str) -> Option<String> {
    fn decodes(text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            match bytes[i] {
                b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                },
                b'+' => out.push(b' '),
                b => out.push(b),
            }
            i += 1;
        }
        std::str::from_utf8(&out).is_ok()
    }
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .find(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            !decodes(name) || !decodes(value)
        })
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            form_urlencoded::parse(name.as_bytes())
                .next()
                .map_or_else(String::new, |(name, _)| name.into_owned())
        })
}

/// The dotted path of the first array in `value`, if there is one.
/// The top-level fields of request bodies that are lists of strings: a
/// table's seats.
const ARRAY_FIELDS: &[&str] = &["seats"];

fn first_array(value: &serde_json::Value, path: String) -> Option<String> {
    match value {
        serde_json::Value::Array(items)
            if ARRAY_FIELDS.contains(&path.as_str()) && items.iter().all(|i| i.is_string()) =>
        {
            None
        }
        serde_json::Value::Array(_) => Some(path),
        serde_json::Value::Object(map) => map.iter().find_map(|(key, inner)| {
            let inner_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            first_array(inner, inner_path)
        }),
        _ => None,
    }
}

/// The request field a deserialization error is about, as a dotted path: the
/// path where it happened (without the `?` of a place serde could not name),
/// and, for the errors serde raises at the enclosing object (a missing,
/// unknown or duplicate field), the field it quotes.
fn field_at(path: &str, message: &str) -> Option<String> {
    let mut parts: Vec<&str> = path
        .split('.')
        .filter(|part| !part.is_empty() && *part != "?")
        .collect();
    let quoted = ["missing field `", "unknown field `", "duplicate field `"]
        .iter()
        .find_map(|prefix| message.strip_prefix(prefix)?.split('`').next());
    if let Some(name) = quoted
        && parts.last() != Some(&name)
    {
        parts.push(name);
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

/// A JSON error's text without the position serde_json appends (` at line
/// 1 column 14`), for an error that names its field instead.
fn without_position(text: &str) -> &str {
    match text.rsplit_once(" at line ") {
        Some((head, tail))
            if tail
                .split_once(" column ")
                .is_some_and(|(line, column)| is_digits(line) && is_digits(column)) =>
        {
            head
        }
        _ => text,
    }
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::field_at;

    #[test]
    fn query_values_that_are_not_utf8_are_named() {
        use super::first_non_utf8_parameter as bad;
        assert_eq!(
            bad("winners=1&client_seed_source=%FF"),
            Some("client_seed_source".to_owned())
        );
        assert_eq!(bad("label=%C3%A9&x=%e2%82%ac"), None);
        assert_eq!(bad("a=100%25&b=%&c=%4&d=+"), None);
        assert_eq!(bad("%FF=1"), Some("\u{FFFD}".to_owned()));
        assert_eq!(bad(""), None);
    }

    #[test]
    fn a_named_fields_error_loses_only_the_parsers_position() {
        use super::without_position as bare;
        assert_eq!(
            bare("must be x; got 1 at line 1 column 14"),
            "must be x; got 1"
        );
        assert_eq!(
            bare("got \"a at line 2 column x\""),
            "got \"a at line 2 column x\""
        );
        assert_eq!(bare("no position"), "no position");
    }

    #[test]
    fn the_field_comes_from_the_path_or_the_quoted_name() {
        let cases = [
            (".", "missing field `game`", Some("game")),
            ("game", "missing field `type`", Some("game.type")),
            (
                "extra",
                "unknown field `extra`, expected `game`",
                Some("extra"),
            ),
            (".", "duplicate field `limit`", Some("limit")),
            ("game.?", "key must be a string", Some("game")),
            ("?", "EOF while parsing an object", None),
            (".", "invalid type: sequence, expected struct", None),
            ("limit", "invalid digit found in string", Some("limit")),
        ];
        for (path, message, field) in cases {
            assert_eq!(
                field_at(path, message).as_deref(),
                field,
                "{path} {message}"
            );
        }
    }
}
