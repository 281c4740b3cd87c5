//! `GET /` and `GET /verify`: the player's verification page.
//!
//! One self-contained HTML file: the protocols (`web/fairdeal-v1.mjs`,
//! `web/fairdeal-draw.mjs`, `web/fairdeal-table.mjs`, and
//! `web/fairdeal-chain.mjs` with the synchronous SHA-256 of
//! `web/sha256.mjs` it hashes chains with), the log's checks
//! (`web/tlog.mjs`, and `web/witness.mjs`, which checks the cosignatures
//! of the witnesses a player trusts) and the display code (`web/seed-display.mjs`, which
//! marks every character of a user's string outside printable ASCII, and
//! `web/page/*.js`, with `trust.js` keeping the player's log-key pin and
//! the witnesses a link proposes) are inlined
//! into one module script, the style sheet into one style element, both
//! pinned by SHA-256 in a strict Content-Security-Policy (no other origin, no
//! eval, no inline code but these two). The policy is sent as a header and
//! also written into the page, so a saved copy keeps it. The page reads only
//! public records; it never needs a key and never receives a secret.
//!
//! The worker that checks a whole seed pair off the page's thread
//! (`web/verify-worker.mjs`, with the protocol, the log's checks,
//! `web/sha256.mjs`, `web/fairdeal-chain.mjs` and `web/bulk.mjs`) is
//! inlined too, as a string
//! constant of the page's script (`WORKER_SOURCE`), so the page's hash pins
//! it; the page starts it from a `blob:` URL of that string, which
//! `worker-src blob:` allows and nothing else can: a blob URL is made only
//! by script already running in the page.

use std::sync::LazyLock;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use sha2::{Digest, Sha256};

const TEMPLATE: &str = include_str!("../../../web/verify.html");
const STYLE: &str = include_str!("../../../web/verify.css");
const PROTOCOL_JS: &str = include_str!("../../../web/fairdeal-v1.mjs");
const DRAW_JS: &str = include_str!("../../../web/fairdeal-draw.mjs");
const TLOG_JS: &str = include_str!("../../../web/tlog.mjs");
const WITNESS_JS: &str = include_str!("../../../web/witness.mjs");
const TABLE_JS: &str = include_str!("../../../web/fairdeal-table.mjs");
const SEED_DISPLAY_JS: &str = include_str!("../../../web/seed-display.mjs");
const SHA256_JS: &str = include_str!("../../../web/sha256.mjs");
const CHAIN_JS: &str = include_str!("../../../web/fairdeal-chain.mjs");
const BULK_JS: &str = include_str!("../../../web/bulk.mjs");
const WORKER_JS: &str = include_str!("../../../web/verify-worker.mjs");
/// The page's own code, in the order it is inlined (each file uses the
/// names of those before it and of the protocol files).
const PAGE_JS: [&str; 11] = [
    include_str!("../../../web/page/views.js"),
    include_str!("../../../web/page/trust.js"),
    include_str!("../../../web/page/log.js"),
    include_str!("../../../web/page/monitors.js"),
    include_str!("../../../web/page/chain.js"),
    include_str!("../../../web/page/tables.js"),
    include_str!("../../../web/page/lookup.js"),
    include_str!("../../../web/page/pair.js"),
    include_str!("../../../web/page/paste.js"),
    include_str!("../../../web/page/draw.js"),
    include_str!("../../../web/page/main.js"),
];

/// The built page and its policy.
#[derive(Debug)]
pub struct VerifyPage {
    pub html: String,
    pub csp: String,
}

fn sha256_source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// `text` as a JavaScript string literal that cannot end the script element
/// it sits in.
fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned())
        .to_string()
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
}

fn build() -> VerifyPage {
    let worker =
        format!("{PROTOCOL_JS}\n{TLOG_JS}\n{SHA256_JS}\n{CHAIN_JS}\n{BULK_JS}\n{WORKER_JS}");
    let script = format!(
        "const WORKER_SOURCE = {};\n{PROTOCOL_JS}\n{DRAW_JS}\n{TLOG_JS}\n{WITNESS_JS}\n{TABLE_JS}\n{SEED_DISPLAY_JS}\n{SHA256_JS}\n{CHAIN_JS}\n{}",
        js_string(&worker),
        PAGE_JS.join("\n")
    );
    let policy = format!(
        "default-src 'none'; script-src {}; style-src {}; connect-src 'self'; img-src data:; \
         worker-src blob:; base-uri 'none'; form-action 'none'",
        sha256_source(&script),
        sha256_source(STYLE)
    );
    let html = TEMPLATE
        .replace("{{CSP}}", &policy)
        .replace("{{STYLE}}", STYLE)
        .replace("{{SCRIPT}}", &script);
    VerifyPage {
        html,
        // frame-ancestors works only as a header.
        csp: format!("{policy}; frame-ancestors 'none'"),
    }
}

/// Built once, on first request.
pub static PAGE: LazyLock<VerifyPage> = LazyLock::new(build);

/// The verification page. `?round=ID`, `?pair=ID` or `?draw=ID` opens a
/// record directly.
#[utoipa::path(get, path = "/verify", tag = "verification",
    params(
        ("round" = Option<String>, Query, description = "Open this round directly"),
        ("pair" = Option<String>, Query, description = "Open this seed pair directly"),
        ("draw" = Option<String>, Query, description = "Open this draw directly (the player then picks their copy of the list)"),
    ),
    responses((status = 200, description = "A self-contained HTML page that verifies rounds in the browser", body = String, content_type = "text/html")))]
pub async fn verify_page() -> Response {
    let page = &*PAGE;
    let mut response = page.html.clone().into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(csp) = HeaderValue::from_str(&page.csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_inlines_both_scripts_and_pins_them_by_hash() {
        let page = build();
        assert!(!page.html.contains("{{"), "every placeholder is filled");
        assert!(page.html.contains("export async function deal"));
        assert!(page.html.contains("function dealEl"));
        assert!(page.html.contains("export async function drawWinners"));
        assert!(page.html.contains("const WORKER_SOURCE = \""));
        assert!(page.html.contains("function bulkShuffle"));
        assert!(page.html.contains("export function chainLinker"));
        assert!(page.html.contains("export async function vouching"));
        assert!(
            !page.html.contains("import {"),
            "no inlined file imports another"
        );
        let start = page.html.find("<script type=\"module\">").expect("script") + 22;
        let end = page.html[start..].find("</script>").expect("end") + start;
        assert!(page.csp.contains(&sha256_source(&page.html[start..end])));
        assert!(!page.csp.contains("unsafe"));
        assert!(!page.html.contains("</script>") || page.html.matches("</script>").count() == 1);
    }
}
