//! Public JSON reads of the transparency log that its C2SP files do not
//! give a browser cheaply: the consistency proof between two checkpoints (so
//! a page that remembers an old checkpoint can prove the new one extends
//! it), and the pairs that were given the same client seed (so a player sees
//! whether their seed was used on another pair at the same time).

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
use crate::service::store::{ClientSeedHolder, PairStatus};

/// Which consistency proof.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ConsistencyParams {
    /// The size of the checkpoint the reader accepted before (at least 1).
    #[param(minimum = 1)]
    pub old: u64,
    /// The size of the newer checkpoint (at most the latest checkpoint's).
    #[param(minimum = 1)]
    pub new: u64,
}

/// An RFC 9162 consistency proof between two tree sizes.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsistencyProof {
    pub old_size: u64,
    pub new_size: u64,
    /// The proof's hashes, base64, in order (RFC 9162 §2.1.4.1; Go's
    /// `tlog.ProveTree`). Empty when the sizes are equal.
    pub proof: Vec<String>,
}

/// Prove that the log of `old` entries is a prefix of the log of `new`.
///
/// With the two signed checkpoints (`GET /log/checkpoint` now, and the one
/// kept from before), the proof shows that the log only grew in between; a
/// proof that fails to verify is evidence of a forked log. Anyone may read
/// it.
#[utoipa::path(get, path = "/v1/log/consistency", tag = "transparency log",
    params(ConsistencyParams),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The proof", body = ConsistencyProof),
        DatabaseUnavailable,
        QueryProblems,
        ViewerAuthProblems,
        (status = 422, description = "old is 0 or above new, or new is beyond the latest checkpoint", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn consistency(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiQuery(params): ApiQuery<ConsistencyParams>,
) -> Result<Json<ConsistencyProof>, ApiError> {
    let ConsistencyParams { old, new } = params;
    if old == 0 {
        return Err(ApiError::invalid(
            "old",
            "must be at least 1: every log extends the empty one",
        ));
    }
    if old > new {
        return Err(ApiError::invalid(
            "old",
            format!("must be at most new ({new}); got {old}"),
        ));
    }
    let store = state.dealer.store();
    let size = store.log_checkpoint().await?.map_or(0, |c| c.size);
    if new > size {
        return Err(ApiError::invalid(
            "new",
            format!("must be at most the latest checkpoint's size ({size}); got {new}"),
        ));
    }
    let proof = store.log_consistency_proof(new, old).await?;
    Ok(Json(ConsistencyProof {
        old_size: old,
        new_size: new,
        proof: proof.iter().map(|hash| BASE64.encode(hash.0)).collect(),
    }))
}

/// A pair given the same client seed, and when it was live in log order.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClientSeedPair {
    pub seed_pair: String,
    pub status: PairStatus,
    /// The log index of its `client_seed` entry: it was live from here.
    pub client_seed_log_index: Option<u64>,
    /// The log index of its `reveal` entry: live until here (null: still
    /// live).
    pub reveal_log_index: Option<u64>,
    /// Whether it belongs to the same tenant (brand) as the asking pair, as
    /// the opaque `tenant` of their `commit` entries in the log shows. Only
    /// one tenant's pairs live at the same time with one seed are
    /// deal-shopping; another tenant's are a note.
    pub same_tenant: bool,
    /// Whether its client seed only looks like the asking pair's (the same
    /// lookalike-folded form, other bytes): an invisible character, a
    /// letter of another script, another case or Unicode form.
    pub lookalike: bool,
}

impl ClientSeedPair {
    fn new(row: &ClientSeedHolder, tenant: &str) -> Self {
        let index = |i: Option<i64>| i.and_then(|i| u64::try_from(i).ok());
        Self {
            seed_pair: row.id.clone(),
            status: row.status,
            client_seed_log_index: index(row.client_seed_log_index),
            reveal_log_index: index(row.reveal_log_index),
            same_tenant: row.tenant == tenant,
            lookalike: !row.exact,
        }
    }
}

/// The pairs sharing one pair's client seed.
#[derive(Debug, Serialize, ToSchema)]
pub struct SameClientSeed {
    /// Lowercase hex SHA-256 of the client seed, read from the pair's own
    /// `client_seed` log entry (not from the seed stored now); null while
    /// the pair has none, or none in the log.
    pub client_seed_sha256: Option<String>,
    /// Lowercase hex SHA-256 of its lookalike-folded form, from the same
    /// entry (null in entries written before it was logged).
    pub client_seed_lookalike_sha256: Option<String>,
    /// The pair itself, with its live interval.
    pub pair: ClientSeedPair,
    /// Every other pair given the same client seed, or one that looks like
    /// it, in log order (a pair from before the log, with no indexes,
    /// first). One of the same tenant whose interval overlaps the pair's
    /// held the seed at the same time: deals could have been shopped across
    /// the two. One of another tenant, or one that follows the pair's
    /// reveal (a player keeping their seed across a rotation, or two
    /// players who chose the same seed), is a note.
    pub others: Vec<ClientSeedPair>,
    /// More pairs share the seed than are listed (at most 100 are). Every
    /// overlapping pair is listed before any other is: what is left out
    /// never overlaps (up to 100 overlapping ones).
    pub truncated: bool,
}

/// How many other pairs are listed at most.
const MAX_OTHERS: usize = 100;

/// List the other pairs given the same client seed as this pair.
///
/// The transparency log states each pair's client seed as its SHA-256; this
/// lists the pairs holding the same one, with the log indexes between which
/// each was live, so a player can see whether their seed was given to a
/// second pair while theirs was dealing (deal-shopping). `fairdeal monitor`
/// makes the same check over the whole log. Anyone may read it.
#[utoipa::path(get, path = "/v1/seed-pairs/{id}/same-client-seed", tag = "transparency log",
    params(("id" = String, Path, description = "Seed pair id")),
    security((), ("operator_key" = [])),
    responses(
        (status = 200, description = "The pairs sharing the client seed", body = SameClientSeed),
        DatabaseUnavailable,
        PairNotFound,
        ViewerAuthProblems,
    ))]
pub async fn same_client_seed(
    State(state): State<AppState>,
    _viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<SameClientSeed>, ApiError> {
    let pair = super::load_pair(&state, &id).await?;
    let this = ClientSeedPair::new(
        &ClientSeedHolder {
            id: pair.id.clone(),
            status: pair.status,
            client_seed_log_index: pair.client_seed_log_index,
            reveal_log_index: pair.reveal_log_index,
            tenant: pair.tenant.clone(),
            exact: true,
        },
        &pair.tenant,
    );
    let Some(client_seed) = pair.client_seed.as_deref() else {
        return Ok(Json(SameClientSeed {
            client_seed_sha256: None,
            client_seed_lookalike_sha256: None,
            pair: this,
            others: Vec::new(),
            truncated: false,
        }));
    };
    // This pair's interval in log order, as the store reads intervals.
    let from = pair.client_seed_log_index.unwrap_or(-1);
    let until = match (pair.reveal_log_index, pair.status) {
        (Some(index), _) => index,
        (None, PairStatus::Revealed) => -1,
        (None, _) => i64::MAX,
    };
    let rows = state
        .dealer
        .store()
        .pairs_with_client_seed(client_seed, from, until, MAX_OTHERS as i64 + 2)
        .await?;
    let mut others: Vec<ClientSeedPair> = rows
        .iter()
        .filter(|row| row.id != pair.id)
        .map(|row| ClientSeedPair::new(row, &pair.tenant))
        .collect();
    let truncated = others.len() > MAX_OTHERS;
    // The overlapping pairs come first, so none is cut; then log order.
    others.truncate(MAX_OTHERS);
    others.sort_by_key(|other| (other.client_seed_log_index, other.seed_pair.clone()));
    // The hashes as the log states them, not as the stored seed gives them
    // now: a seed changed in the database after its entry shows as a
    // difference between this answer and the seed a round shows.
    let (client_seed_sha256, client_seed_lookalike_sha256) =
        logged_client_seed(&state, pair.client_seed_log_index).await?;
    Ok(Json(SameClientSeed {
        client_seed_sha256,
        client_seed_lookalike_sha256,
        pair: this,
        others,
        truncated,
    }))
}

/// The two hashes the `client_seed` entry at `index` states (none without
/// an entry, as for a pair given its seed before the log existed).
async fn logged_client_seed(
    state: &AppState,
    index: Option<i64>,
) -> Result<(Option<String>, Option<String>), ApiError> {
    let Some(index) = index.and_then(|i| u64::try_from(i).ok()) else {
        return Ok((None, None));
    };
    let entries = state.dealer.store().log_entries(index, index + 1).await?;
    let entry = entries
        .first()
        .ok_or_else(|| anyhow::anyhow!("log entry {index} is missing"))?;
    let entry: serde_json::Value = serde_json::from_slice(entry).map_err(anyhow::Error::from)?;
    let field = |name: &str| entry.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    Ok((
        field("client_seed_sha256"),
        field("client_seed_lookalike_sha256"),
    ))
}

/// The largest checkpoint the log's witnesses vouched for.
///
/// A signed note as `GET /log/checkpoint` serves it, of the largest tree
/// size that at least the configured quorum of witnesses cosigned
/// (c2sp.org/tlog-cosignature lines after the log's own signature). A
/// client that trusts a checkpoint only when enough witnesses it trusts
/// cosigned it reads this one when the latest is not yet witnessed (a
/// witness down, slow or refusing), and proves the latest consistent with
/// it (`GET /v1/log/consistency`). 404 when the log has no witnesses, or
/// none of its checkpoints was cosigned by the quorum yet.
#[utoipa::path(get, path = "/v1/log/witnessed-checkpoint", tag = "transparency log",
    security(()),
    responses(
        (status = 200, description = "The witnessed checkpoint, with its cosignatures", body = String, content_type = "text/plain"),
        (status = 404, description = "No witnesses, or no checkpoint cosigned by the quorum yet", body = Problem, content_type = "application/problem+json"),
        DatabaseUnavailable,
    ))]
pub async fn witnessed_checkpoint(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let witnesses = state.witnesses.current();
    if witnesses.is_empty() {
        return Err(ApiError::not_found_detail(
            "this log has no witnesses configured: its checkpoints are signed by the log alone"
                .to_owned(),
        ));
    }
    match witnesses.witnessed_checkpoint(state.dealer.store()).await? {
        Some(checkpoint) => {
            let mut response = checkpoint.note.into_response();
            let headers = response.headers_mut();
            headers.insert(
                axum::http::header::CONTENT_TYPE,
                axum::http::HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            headers.insert(
                axum::http::header::CACHE_CONTROL,
                axum::http::HeaderValue::from_static("no-cache"),
            );
            Ok(response)
        }
        None => Err(ApiError::not_found_detail(format!(
            "no checkpoint is cosigned by {} of this log's {} witnesses yet",
            witnesses.quorum,
            witnesses.list.len()
        ))),
    }
}
