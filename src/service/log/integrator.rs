//! The integrator: folds the entries the event transactions appended into
//! the Merkle tree and signs a checkpoint, at most `interval` after they
//! were appended. Every process runs one; the store lets one at a time act.

use std::sync::Arc;
use std::time::Duration;

use crate::service::log::mirror::LogMirror;
use crate::service::store::Store;
use crate::tlog::key::LogKey;
use crate::tlog::tree::Hash;

/// Entries folded in per transaction, so that a backlog never holds the
/// writer for long.
const BATCH: u64 = 4096;

/// The body of a checkpoint (c2sp.org/tlog-checkpoint): origin, tree size,
/// base64 root hash, each on its own line.
pub fn checkpoint_body(origin: &str, size: u64, root: &Hash) -> String {
    format!("{origin}\n{size}\n{root}\n")
}

/// Integrates everything pending now, a batch at a time; the new size if
/// the tree grew. Entries appended meanwhile wait for the next call: under
/// a steady stream of deals this makes one transaction and one checkpoint
/// per call, not one per commit of deals, which would take the writer's
/// turn from the deals after every batch.
///
/// With a mirror, the entries are mirrored first and nothing past the
/// mirror is signed; a database behind the mirror signs nothing at all.
pub async fn integrate_now(
    store: &Store,
    key: &LogKey,
    mirror: Option<&LogMirror>,
) -> anyhow::Result<Option<u64>> {
    let limit = match mirror {
        Some(mirror) => {
            if let Err(why) = mirror.flush(store).await {
                tracing::debug!(refusing = %why, "no checkpoint signed");
                return Ok(None);
            }
            mirror.count()
        }
        None => u64::MAX,
    };
    let mut grown = None;
    while let Some(done) = store
        .integrate_log_to(BATCH, limit, |size, root| {
            key.sign_note(&checkpoint_body(key.origin(), size, &root))
        })
        .await?
    {
        grown = Some(done.size);
        if !done.behind {
            break;
        }
    }
    Ok(grown)
}

/// Integrates every `interval` until the task is dropped or aborted.
pub async fn run(
    store: Store,
    key: Arc<LogKey>,
    mirror: Option<Arc<LogMirror>>,
    interval: Duration,
) {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        match integrate_now(&store, &key, mirror.as_deref()).await {
            Ok(Some(size)) => tracing::debug!(size, "log checkpoint signed"),
            Ok(None) => {}
            Err(err) => tracing::warn!(error = format!("{err:#}"), "log integration failed"),
        }
    }
}
