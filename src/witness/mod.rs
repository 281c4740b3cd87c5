//! `fairdeal witness`: a transparency-log witness (c2sp.org/tlog-witness)
//! for any C2SP log, fairdeal's or another's.
//!
//! For each log it is told of (an origin and the log's Ed25519 verifier
//! keys) it keeps the latest checkpoint it cosigned, and cosigns a new one
//! (c2sp.org/tlog-cosignature, `tlog::cosignature`) only when it is signed
//! by the log and proved an extension of that one. A log that shows two
//! views (a fork) can then get at most one of them cosigned by this witness.
//!
//! - `protocol`: reading an add-checkpoint request, checking its
//!   signatures, the decision against what is held (no storage, no HTTP).
//! - `store`: what is held, SQLite or PostgreSQL, moved forward only by an
//!   atomic compare-and-set.
//! - `http`: `POST /add-checkpoint` and `GET /healthz`.
//!
//! [`Witness::add_checkpoint`] ties them: read, verify, load, decide,
//! compare-and-set, cosign. The cosignature leaves only after the new
//! checkpoint is durable, and only if the compare-and-set moved the row
//! from the very state the decision was made against.

pub mod http;
pub mod protocol;
pub mod store;

use std::fmt;

use crate::tlog::cosignature::Cosigner;
use protocol::{Held, Logs, Refusal};
use store::WitnessStore;

/// How many times a request decides again after losing a compare-and-set
/// to a concurrent one (each loss means the row moved on; a second
/// decision against the new state nearly always refuses with 409).
const MAX_ATTEMPTS: usize = 3;

/// Why an add-checkpoint request was not cosigned.
#[derive(Debug)]
pub enum AddError {
    /// The protocol's refusal, with its status.
    Refused(Refusal),
    /// The database failed, or the row kept moving under the request (503).
    Unavailable(anyhow::Error),
}

impl fmt::Display for AddError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddError::Refused(refusal) => write!(f, "{refusal}"),
            AddError::Unavailable(err) => write!(f, "{err:#}"),
        }
    }
}

impl From<Refusal> for AddError {
    fn from(refusal: Refusal) -> Self {
        AddError::Refused(refusal)
    }
}

/// A witness: the logs it knows, its cosigning key, its state.
#[derive(Debug)]
pub struct Witness {
    logs: Logs,
    cosigner: Cosigner,
    store: WitnessStore,
}

impl Witness {
    pub fn new(logs: Logs, cosigner: Cosigner, store: WitnessStore) -> Self {
        Self {
            logs,
            cosigner,
            store,
        }
    }

    /// The cosigner's verifier key.
    pub fn vkey(&self) -> String {
        self.cosigner.vkey()
    }

    /// The database.
    pub fn store(&self) -> &WitnessStore {
        &self.store
    }

    /// Answers an add-checkpoint request body: the cosignature line (with
    /// its newline) at `now` (POSIX seconds), once the checkpoint is the
    /// one recorded for its log.
    pub async fn add_checkpoint(&self, body: &[u8], now: u64) -> Result<String, AddError> {
        let request = protocol::parse_request(body)?;
        self.logs.verify(&request)?;
        protocol::check_old_size(&request)?;
        let origin = &request.checkpoint.origin;
        let new = Held {
            size: request.checkpoint.size,
            root: request.checkpoint.root,
            note: request.note.clone(),
        };
        for _ in 0..MAX_ATTEMPTS {
            let held = self
                .store
                .latest(origin)
                .await
                .map_err(AddError::Unavailable)?;
            if let Err(refusal) = protocol::decide(&request, held.as_ref()) {
                if matches!(refusal, Refusal::RootMismatch { .. } | Refusal::BadProof(_)) {
                    // Signed by the log, yet not an extension of what it
                    // showed before: possible evidence of a fork.
                    tracing::warn!(
                        origin = %origin,
                        old = request.old,
                        size = request.checkpoint.size,
                        refusal = %refusal,
                        note = %request.note,
                        "refused a checkpoint signed by the log"
                    );
                }
                return Err(refusal.into());
            }
            let from = held.as_ref().map(|h| (h.size, h.root));
            let moved = self
                .store
                .advance(origin, from, &new, now_ms(now))
                .await
                .map_err(AddError::Unavailable)?;
            if moved {
                tracing::info!(origin = %origin, size = new.size, "cosigned");
                return Ok(self.cosigner.cosign(&request.body, now));
            }
        }
        Err(AddError::Unavailable(anyhow::anyhow!(
            "the checkpoint of {origin:?} kept changing under this request; retry"
        )))
    }
}

/// `now` in milliseconds, as the table records it.
fn now_ms(now: u64) -> i64 {
    i64::try_from(now.saturating_mul(1000)).unwrap_or(i64::MAX)
}

/// The current POSIX time in seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
