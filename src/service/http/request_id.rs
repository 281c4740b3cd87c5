//! A request id on every answer (`X-Request-Id`), in every problem body
//! (`request_id`) and on every log line of the request (its span's
//! `request_id`), so that a backend quoting one to an operator finds the
//! request in the logs.
//!
//! A client's own id is kept when it is 1 to 64 letters, digits, `.`, `_`
//! or `-` (so a backend can use its own tracing id); otherwise the service
//! makes one (32 hex digits). Nothing else a client sends reaches the logs
//! through it.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// The header, in requests and answers.
pub const HEADER: &str = "x-request-id";

tokio::task_local! {
    /// The id of the request being answered, for the problem bodies made
    /// while it is.
    static CURRENT: String;
}

/// The id of the request being answered, when there is one.
pub fn current() -> Option<String> {
    CURRENT.try_with(Clone::clone).ok()
}

/// Whether a client's id is kept as it is.
fn acceptable(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The outermost layer: the id chosen, put in the request's headers (where
/// the request's span reads it), kept while the request is answered, and
/// set on the answer.
pub async fn assign(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|id| acceptable(id))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
    let value = HeaderValue::from_str(&id).expect("an id of letters, digits, '.', '_' and '-'");
    request.headers_mut().insert(HEADER, value.clone());
    let mut response = CURRENT.scope(id, next.run(request)).await;
    response.headers_mut().insert(HEADER, value);
    response
}

#[cfg(test)]
mod tests {
    use super::acceptable;

    #[test]
    fn only_plain_ids_are_kept() {
        for kept in ["a", "req-1.2_3", &"f".repeat(64)] {
            assert!(acceptable(kept), "{kept}");
        }
        for made in ["", " a", "a b", "a\nb", "é", &"f".repeat(65), "a/b", "a\"b"] {
            assert!(!acceptable(made), "{made:?}");
        }
    }
}
