//! `GET /v1/seed-pairs/{id}/evidence`: a pair's rounds' log entries in
//! bulk, proven against one checkpoint by one set of tree nodes
//! (`service::log::evidence`).

use axum::Json;
use axum::extract::State;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::auth::Viewer;
use super::error::{
    ApiError, DatabaseUnavailable, PairNotFound, Problem, QueryProblems, ViewerAuthProblems,
};
use super::extract::{ApiPath, ApiQuery};
use crate::service::log::evidence::{EvidenceRefused, pair_evidence};

/// Which page of evidence, against which checkpoint.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EvidenceParams {
    /// Only rounds with a nonce greater than this.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many rounds (1–1000, default 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
    /// Prove against the signed checkpoint of this many entries (the
    /// latest when left out). A reader takes the size of its first page's
    /// checkpoint for every later page, so all are proven against one.
    #[param(minimum = 1)]
    pub size: Option<u64>,
}

/// One round's log entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoundEntry {
    /// The round's id.
    pub round: String,
    pub nonce: i64,
    /// Where its entry sits in the log (null: dealt before the log existed).
    pub log_index: Option<u64>,
    /// The entry's exact bytes (RFC 8785 JSON), as a string.
    pub entry: Option<String>,
    /// Whether the entry is in the checkpoint (its index below `size`);
    /// one that is not is proven by a later checkpoint.
    pub in_checkpoint: bool,
}

/// A hash of the tree: the complete subtree of height `level` (0: a leaf)
/// covering leaves `[index·2^level, (index+1)·2^level)`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TreeNode {
    pub level: u8,
    pub index: u64,
    /// Its SHA-256 hash, base64.
    pub hash: String,
}

/// A page of a pair's log evidence.
#[derive(Debug, Serialize, ToSchema)]
pub struct PairEvidence {
    pub seed_pair: String,
    /// The size of the checkpoint the page is proven against (0 while the
    /// log has none).
    pub size: u64,
    /// That checkpoint, the signed note (null while the log has none),
    /// with the witnesses' cosignatures of it stored so far.
    pub checkpoint: Option<String>,
    /// The page's rounds by nonce, as `GET /v1/seed-pairs/{id}/rounds`
    /// pages them.
    pub rounds: Vec<RoundEntry>,
    /// The nodes that, with the leaves of the entries in the checkpoint,
    /// give its root by RFC 6962's recursion: split `[0, size)` at the
    /// largest power of two below its width; a range holding one of the
    /// entries is hashed from its halves (a single entry, as a leaf:
    /// SHA-256(0x00 ‖ entry)), any other range is the node of that range.
    /// Each node once, left to right.
    pub nodes: Vec<TreeNode>,
    /// Pass as `after` for the next page; null on the last.
    pub next_after: Option<i64>,
}

/// Read a pair's rounds' log entries in bulk, with the proof of them all.
///
/// For a page of the pair's rounds, each round's log entry and ONE set of
/// tree nodes from which the entries' leaves give the root of one signed
/// checkpoint (a multiproof): what a reader needs to check that every round
/// is in the log, in one request per thousand rounds instead of one
/// inclusion proof a round. Anyone may read it: entries hold no cards.
#[utoipa::path(get, path = "/v1/seed-pairs/{id}/evidence", tag = "transparency log",
    params(("id" = String, Path, description = "Seed pair id"), EvidenceParams),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "A page of log evidence", body = PairEvidence),
        DatabaseUnavailable,
        PairNotFound,
        QueryProblems,
        ViewerAuthProblems,
        (status = 422, description = "limit or after out of range, or no checkpoint of that size", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn pair(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiQuery(params): ApiQuery<EvidenceParams>,
) -> Result<Json<PairEvidence>, ApiError> {
    let limit = super::seed_pairs::page_size(Some(params.limit.unwrap_or(1000)), 1000)?;
    if let Some(after) = params.after.filter(|a| *a < 0) {
        return Err(ApiError::invalid(
            "after",
            format!("must be a nonce (0 or more); got {after}"),
        ));
    }
    if params.size == Some(0) {
        return Err(ApiError::invalid(
            "size",
            "must be at least 1: the empty log proves nothing",
        ));
    }
    let pair = super::load_pair(&state, &id).await?;
    let evidence = pair_evidence(
        state.dealer.store(),
        &pair.id,
        params.after,
        limit,
        params.size,
    )
    .await?
    .map_err(|refused| match refused {
        EvidenceRefused::NoCheckpointOfSize { size, latest } => ApiError::invalid(
            "size",
            format!(
                "must be the size of a checkpoint the log signed (at most {latest}); there is none of {size}"
            ),
        ),
    })?;
    // With the witnesses' cosignatures of it, when there are some.
    let checkpoint = match evidence.checkpoint {
        Some(checkpoint) => Some(
            state
                .witnesses
                .current()
                .cosigned(state.dealer.store(), checkpoint)
                .await?,
        ),
        None => None,
    };
    Ok(Json(PairEvidence {
        seed_pair: pair.id,
        size: checkpoint.as_ref().map_or(0, |c| c.size),
        checkpoint: checkpoint.map(|c| c.note),
        rounds: evidence
            .rounds
            .into_iter()
            .map(|r| RoundEntry {
                round: r.round,
                nonce: r.nonce,
                log_index: r.log_index,
                entry: r.entry.map(|e| String::from_utf8_lossy(&e).into_owned()),
                in_checkpoint: r.in_checkpoint,
            })
            .collect(),
        nodes: evidence
            .nodes
            .into_iter()
            .map(|(node, hash)| TreeNode {
                level: node.level,
                index: node.index,
                hash: BASE64.encode(hash),
            })
            .collect(),
        next_after: evidence.next_after,
    }))
}
