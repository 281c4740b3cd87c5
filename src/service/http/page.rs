//! `GET /` and `GET /verify`: the player's verification page, and
//! `GET /verify/modules/…`: the ES modules it is made of.
//!
//! The page's code is ES modules under `web/`, each importing what it uses:
//! the protocols (`fairdeal-v1.mjs`, `fairdeal-draw.mjs`,
//! `fairdeal-table.mjs`, `fairdeal-chain.mjs` with the synchronous SHA-256
//! of `sha256.mjs`), the log's checks (`tlog.mjs`, `witness.mjs`), the
//! bulk checks of the worker (`bulk.mjs`, `verify-worker.mjs`), the display
//! of strings someone else chose (`seed-display.mjs`), and the views
//! (`page/*.js`, `page/main.js` the entry). The service embeds each file
//! and serves it as it is; the page loads `page/main.js` as a module script
//! and starts the worker as a module. The style sheet is inlined and pinned
//! by SHA-256 in a strict Content-Security-Policy (scripts and workers
//! from this origin only, no eval, no inline code), sent as a header and
//! written into the page. The page reads only public records; it never
//! needs a key and never receives a secret.
//!
//! The same modules are bundled by the release build (`web/release/`) into
//! one self-contained file that any player can open from disk or from any
//! origin, with the worker inlined as a string.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use sha2::{Digest, Sha256};

const TEMPLATE: &str = include_str!("../../../web/verify.html");
const STYLE: &str = include_str!("../../../web/verify.css");

/// Every module of the page, by its path under `web/` (as the modules
/// import each other, relative to `/verify/modules/`).
pub const MODULES: [(&str, &str); 22] = [
    (
        "fairdeal-v1.mjs",
        include_str!("../../../web/fairdeal-v1.mjs"),
    ),
    (
        "fairdeal-draw.mjs",
        include_str!("../../../web/fairdeal-draw.mjs"),
    ),
    (
        "fairdeal-table.mjs",
        include_str!("../../../web/fairdeal-table.mjs"),
    ),
    (
        "fairdeal-chain.mjs",
        include_str!("../../../web/fairdeal-chain.mjs"),
    ),
    ("sha256.mjs", include_str!("../../../web/sha256.mjs")),
    ("tlog.mjs", include_str!("../../../web/tlog.mjs")),
    ("witness.mjs", include_str!("../../../web/witness.mjs")),
    ("evidence.mjs", include_str!("../../../web/evidence.mjs")),
    ("bulk.mjs", include_str!("../../../web/bulk.mjs")),
    (
        "seed-display.mjs",
        include_str!("../../../web/seed-display.mjs"),
    ),
    (
        "verify-worker.mjs",
        include_str!("../../../web/verify-worker.mjs"),
    ),
    ("page/views.js", include_str!("../../../web/page/views.js")),
    ("page/trust.js", include_str!("../../../web/page/trust.js")),
    ("page/log.js", include_str!("../../../web/page/log.js")),
    (
        "page/monitors.js",
        include_str!("../../../web/page/monitors.js"),
    ),
    ("page/chain.js", include_str!("../../../web/page/chain.js")),
    (
        "page/tables.js",
        include_str!("../../../web/page/tables.js"),
    ),
    (
        "page/lookup.js",
        include_str!("../../../web/page/lookup.js"),
    ),
    ("page/pair.js", include_str!("../../../web/page/pair.js")),
    ("page/paste.js", include_str!("../../../web/page/paste.js")),
    ("page/draw.js", include_str!("../../../web/page/draw.js")),
    ("page/main.js", include_str!("../../../web/page/main.js")),
];

/// Where the modules are served.
const MODULES_PATH: &str = "/verify/modules/";

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

fn build() -> VerifyPage {
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src {}; connect-src 'self'; \
         img-src data:; worker-src 'self'; base-uri 'none'; form-action 'none'",
        sha256_source(STYLE)
    );
    let html = TEMPLATE
        .replace("{{CSP}}", &policy)
        .replace("{{STYLE}}", STYLE)
        .replace(
            "{{SCRIPT}}",
            &format!("<script type=\"module\" src=\"{MODULES_PATH}page/main.js\"></script>"),
        );
    VerifyPage {
        html,
        // frame-ancestors works only as a header.
        csp: format!("{policy}; frame-ancestors 'none'"),
    }
}

/// Built once, on first request.
pub static PAGE: LazyLock<VerifyPage> = LazyLock::new(build);

/// One of the page's modules (`page/main.js`, `fairdeal-v1.mjs`, …), as
/// the page and its worker import them.
pub async fn module(Path(path): Path<String>) -> Response {
    let Some((_, source)) = MODULES.iter().find(|(name, _)| *name == path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut response = (*source).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

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
    fn the_page_loads_its_entry_module_and_pins_its_style() {
        let page = build();
        assert!(!page.html.contains("{{"), "every placeholder is filled");
        assert!(
            page.html
                .contains("<script type=\"module\" src=\"/verify/modules/page/main.js\"></script>")
        );
        assert_eq!(page.html.matches("<script").count(), 1, "no inline script");
        assert!(page.csp.contains(&sha256_source(STYLE)));
        assert!(page.csp.contains("script-src 'self';"));
        assert!(!page.csp.contains("unsafe"));
    }

    #[test]
    fn every_module_imported_is_served() {
        // Each relative import of each module names a module served.
        for (name, source) in MODULES {
            // An import statement may span lines: it ends at its ';'.
            let mut lines = source.lines();
            let mut statements = Vec::new();
            while let Some(line) = lines.next() {
                if !line.starts_with("import ") {
                    continue;
                }
                let mut statement = line.trim_end().to_owned();
                while !statement.ends_with(';') {
                    let Some(next) = lines.next() else { break };
                    statement.push(' ');
                    statement.push_str(next.trim());
                }
                statements.push(statement);
            }
            for line in statements {
                let target = line
                    .rsplit_once(" from \"")
                    .and_then(|(_, rest)| rest.strip_suffix("\";"))
                    .unwrap_or_else(|| panic!("{name}: an import names its file: {line}"));
                let base = name.rsplit_once('/').map_or("", |(dir, _)| dir);
                let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
                for part in target.split('/') {
                    match part {
                        "." => {}
                        ".." => {
                            parts.pop();
                        }
                        part => parts.push(part),
                    }
                }
                let resolved = parts.join("/");
                assert!(
                    MODULES.iter().any(|(served, _)| *served == resolved),
                    "{name} imports {resolved}, which is not served"
                );
            }
        }
    }
}
