//! `/log/`: the transparency log as static resources (c2sp.org/tlog-tiles):
//! the latest signed checkpoint, hash tiles and entry bundles, and the
//! log's verifier key. The checkpoint and the key are in the OpenAPI
//! description; the tiles, whose paths are C2SP's (an index spans several
//! path segments), are described in its introduction and in
//! docs/TRANSPARENCY.md.

use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::{ApiError, DatabaseUnavailable};
use crate::tlog::tiles::{TILE_WIDTH, TilePath, entry_bundle};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const CHANGING: &str = "no-cache";

fn text(body: String, cache: &'static str) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}

/// The latest signed checkpoint (c2sp.org/tlog-checkpoint).
///
/// A signed note: the log's origin, its size and its root hash (base64),
/// signed by the log key, and by each witness that cosigned it so far
/// (c2sp.org/tlog-cosignature lines, when witnesses are configured). It
/// changes as the log grows and as witnesses answer (`no-cache`).
#[utoipa::path(get, path = "/log/checkpoint", tag = "transparency log",
    security(()),
    responses(
        (status = 200, description = "The signed checkpoint", body = String, content_type = "text/plain"),
        DatabaseUnavailable,
    ))]
pub async fn checkpoint(State(state): State<AppState>) -> Result<Response, ApiError> {
    // A database behind its log holds an older checkpoint than the one
    // published: serving it would show readers a log going back.
    if let Some(why) = state.dealer.refusal_now().await? {
        return Err(ApiError::behind_log(why));
    }
    let store = state.dealer.store();
    match store.log_checkpoint().await? {
        Some(checkpoint) => Ok(text(
            state
                .witnesses
                .current()
                .cosigned(store, checkpoint)
                .await?
                .note,
            CHANGING,
        )),
        None => Err(ApiError::unavailable(
            "the log has no checkpoint yet; it is signed within a second of start",
        )),
    }
}

/// The log's verifier key: `<origin>+<key id>+<base64 key>`
/// (c2sp.org/signed-note), which every checkpoint and receipt verifies
/// with. Publish it out of band and pin it in monitors.
#[utoipa::path(get, path = "/log/key", tag = "transparency log",
    security(()),
    responses(
        (status = 200, description = "The verifier key and a newline", body = String, content_type = "text/plain"),
    ))]
pub async fn key(State(state): State<AppState>) -> Response {
    text(format!("{}\n", state.log.vkey()), CHANGING)
}

/// `GET /log/tile/…`: a hash tile or an entry bundle, within the latest
/// checkpoint. Full tiles never change and are cached for a year.
pub async fn tile(
    State(state): State<AppState>,
    Path(path): Path<String>,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::not_found("log tile", &format!("tile/{path}"));
    let tile = TilePath::parse(&path).ok_or_else(not_found)?;
    let store = state.dealer.store();
    let first = tile.index.checked_mul(TILE_WIDTH).ok_or_else(not_found)?;
    let end = first.checked_add(tile.width).ok_or_else(not_found)?;
    // Whether a log of `size` entries holds the tile.
    let holds = |size: u64| match tile.level {
        None => end <= size,
        Some(level) => end <= size.checked_shr(u32::from(level) * 8).unwrap_or(0),
    };
    // A full tile is stored whole once integrated (a checkpoint covers
    // it), and kept a while, with the next ones for a reader in order.
    if tile.width == TILE_WIDTH {
        let level = tile.level.map_or(-1, i32::from);
        if let Some(body) = state.tiles.get(level, tile.index) {
            state.metrics.log_tile(true, 0);
            return Ok(tile_response(body, IMMUTABLE));
        }
        let count = state.tiles.to_read(level, tile.index);
        let mut found = None;
        let mut ahead = 0;
        for (index, body) in store.log_tiles_from(level, tile.index, count).await? {
            let body = Bytes::from(body);
            let served = index == tile.index;
            if served {
                found = Some(body.clone());
            } else {
                ahead += 1;
            }
            state.tiles.insert(level, index, body, served);
        }
        if let Some(body) = found {
            state.metrics.log_tile(false, ahead);
            return Ok(tile_response(body, IMMUTABLE));
        }
    }
    let mut size = state.log_size_seen.load(Ordering::Relaxed);
    if !holds(size) {
        size = store
            .log_checkpoint()
            .await?
            .map_or(0, |checkpoint| checkpoint.size);
        state.log_size_seen.fetch_max(size, Ordering::Relaxed);
    }
    let body = match tile.level {
        None => {
            if end > size {
                return Err(not_found());
            }
            let entries = store.log_entries(first, end).await?;
            Bytes::from(entry_bundle(entries.iter().map(Vec::as_slice))?)
        }
        Some(level) => {
            let height = u32::from(level) * 8;
            let available = size.checked_shr(height).unwrap_or(0);
            if end > available {
                return Err(not_found());
            }
            let indexes: Vec<u64> = (first..end)
                .map(|n| tlog_tiles::stored_hash_index(level * 8, n))
                .collect();
            Bytes::from(store.log_hashes(&indexes).await?.concat())
        }
    };
    let cache = if tile.width == TILE_WIDTH {
        IMMUTABLE
    } else {
        CHANGING
    };
    Ok(tile_response(body, cache))
}

/// A tile's answer: its bytes, with `cache` as its Cache-Control.
fn tile_response(body: Bytes, cache: &'static str) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}
