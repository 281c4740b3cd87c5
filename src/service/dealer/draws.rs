//! Draws (fairdeal-draw-v1) in domain words: commit a list (uploaded, or
//! given by hash and count) and a server seed, accept the client seed, run
//! the draw and reveal the seed at once.
//!
//! Order of events it guarantees:
//! - the list's commitment and the server seed's are published together,
//!   before any client seed exists;
//! - an uploaded list is checked whole (every line, every duplicate) before
//!   anything about it is published; a refused list leaves nothing behind;
//! - the winners and the revealed seed are stored in one transaction.

use std::time::Duration;

use anyhow::Context;
use fairdeal_core::{
    ClientSeed, Draw, DrawError, ListCommitment, ListError, ListScanner, ScanError,
};
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};

use super::{Dealer, PairLabel, fresh_seed, new_id};
use crate::service::store::{
    BeginDraw, DrawCommitment, DrawRequest, DrawRow, DrawStatus, DrawUpdate, DuplicateLine,
    SeedReuse, StoreLines,
};
use crate::time::{now_ms, timestamp};
use crate::tlog::entry::{Entry, client_seed_sha256};

/// Most winners one draw may have (the service's limit; the protocol's is n).
pub const MAX_WINNERS: u64 = 1000;
/// Longest line the service stores, in bytes.
pub const MAX_LINE_BYTES: usize = 1024;
/// Largest list the service accepts, in bytes.
pub const MAX_LIST_BYTES: u64 = 256 * 1024 * 1024;
/// The longest an upload may take, end to end; past it the draft is
/// discarded and the client answered 408.
pub const UPLOAD_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Longest `client_seed_source`, in bytes.
pub const MAX_SOURCE_BYTES: usize = 512;
/// Lines stored per transaction while a list arrives.
const LINES_PER_BATCH: usize = 8192;
/// Bytes of lines held before a batch is stored, whatever their number.
const BYTES_PER_BATCH: usize = 2 * 1024 * 1024;
/// Drafts that stored nothing for this long are uploads that will never
/// finish (a crashed process's): longer than [`UPLOAD_TIMEOUT`], so a live
/// upload, which discards its own draft when it fails, is never swept.
pub const DRAFT_MAX_AGE_MS: i64 = 60 * 60 * 1000;
const _: () = assert!(DRAFT_MAX_AGE_MS > UPLOAD_TIMEOUT.as_millis() as i64);

/// What a new draw says of itself.
#[derive(Debug, Clone)]
pub struct NewDraw {
    pub tenant: String,
    pub label: Option<PairLabel>,
    pub winners: u64,
    pub client_seed_source: String,
    pub idempotency_key: Option<String>,
}

impl NewDraw {
    /// Checks `client_seed_source` (1 to 512 bytes, no control characters
    /// but line breaks and tabs) and `winners` (1 to [`MAX_WINNERS`]); the
    /// field at fault and its rule.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let source = &self.client_seed_source;
        if source.trim().is_empty() || source.len() > MAX_SOURCE_BYTES {
            return Err((
                "client_seed_source",
                if source.len() > MAX_SOURCE_BYTES {
                    format!(
                        "must be at most {MAX_SOURCE_BYTES} bytes; it is {} bytes",
                        source.len()
                    )
                } else {
                    "must say where the client seed will come from; it is empty or blank".to_owned()
                },
            ));
        }
        if let Some(c) = source
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
        {
            return Err((
                "client_seed_source",
                format!(
                    "must not contain control characters; found U+{:04X}",
                    u32::from(c)
                ),
            ));
        }
        if !(1..=MAX_WINNERS).contains(&self.winners) {
            return Err((
                "winners",
                format!("must be 1 to {MAX_WINNERS}; got {}", self.winners),
            ));
        }
        Ok(())
    }

    fn request(&self) -> DrawRequest {
        DrawRequest {
            id: new_id(),
            tenant: self.tenant.clone(),
            label: self.label.as_ref().map(|l| l.as_str().to_owned()),
            winners: self.winners as i64,
            client_seed_source: self.client_seed_source.clone(),
            idempotency_key: self.idempotency_key.clone(),
            created_at: now_ms(),
        }
    }
}

/// Why an uploaded list was refused (nothing of it is kept).
#[derive(Debug)]
pub enum UploadError {
    /// A line breaks a rule of the protocol or of the service.
    Line { index: u64, rule: String },
    /// Bigger than [`MAX_LIST_BYTES`].
    TooLarge,
    /// Too few entries, or fewer than the winners asked for.
    Draw(DrawError),
    /// The client sent nothing for this long.
    Stalled(Duration),
    /// The upload took longer than [`UPLOAD_TIMEOUT`], or its draft was
    /// discarded meanwhile.
    TooSlow,
    /// The body could not be read (the client went away).
    Body(String),
    /// The database or the code failed.
    Internal(anyhow::Error),
}

impl From<ListError> for UploadError {
    fn from(err: ListError) -> Self {
        UploadError::Line {
            index: err.index,
            rule: err.to_string(),
        }
    }
}

impl From<DuplicateLine> for UploadError {
    fn from(dup: DuplicateLine) -> Self {
        UploadError::Line {
            index: dup.index,
            rule: dup.to_string(),
        }
    }
}

impl From<anyhow::Error> for UploadError {
    fn from(err: anyhow::Error) -> Self {
        UploadError::Internal(err)
    }
}

impl From<sqlx::Error> for UploadError {
    fn from(err: sqlx::Error) -> Self {
        UploadError::Internal(err.into())
    }
}

/// The log entry of a draw's commitment.
fn commit_entry(
    draw: &DrawRow,
    commitment: &DrawCommitment,
    tenant_id: String,
) -> anyhow::Result<Vec<u8>> {
    Entry::DrawCommit {
        draw: draw.id.clone(),
        entries_sha256: commitment.entries_sha256.clone(),
        entries: commitment.entries as u64,
        winners: draw.winners as u64,
        server_seed_hash: commitment.server_seed_hash.clone(),
        client_seed_source_sha256: hex::encode(Sha256::digest(draw.client_seed_source.as_bytes())),
        tenant: Some(tenant_id),
        time: timestamp(now_ms()),
    }
    .to_bytes()
}

/// A line the service stores: no control characters but tabs (the protocol
/// allows them; a database text column and a raffle do not need them), and
/// no byte-order mark at the start of the list (it would become part of
/// entrant 1's name, unseen).
fn service_line_rule(index: u64, text: &str) -> Result<(), UploadError> {
    if index == 0 && text.starts_with('\u{FEFF}') {
        return Err(UploadError::Line {
            index,
            rule: "line 1 starts with a byte-order mark (U+FEFF), which would become part of \
                   its entrant; save the list as UTF-8 without BOM"
                .to_owned(),
        });
    }
    match text.chars().find(|c| c.is_control() && *c != '\t') {
        Some(c) => Err(UploadError::Line {
            index,
            rule: format!(
                "line {} contains the control character U+{:04X}; entrants are text",
                index + 1,
                u32::from(c)
            ),
        }),
        None => Ok(()),
    }
}

/// Feeds `bytes` of a list to `scanner`, each whole line to `on_line`: a
/// line that breaks the protocol's rules, or that `on_line` refuses, is the
/// upload's error.
fn feed_lines(
    scanner: &mut ListScanner,
    bytes: &[u8],
    on_line: impl FnMut(u64, &str) -> Result<(), UploadError>,
) -> Result<(), UploadError> {
    scanner.feed(bytes, on_line).map_err(|err| match err {
        ScanError::List(err) => UploadError::from(err),
        ScanError::Caller(err) => err,
    })
}

impl Dealer {
    /// A fresh server seed, sealed for draw `id`, and the commitment record
    /// for `list`.
    fn draw_commitment(
        &self,
        draw: &DrawRow,
        list: ListCommitment,
    ) -> anyhow::Result<DrawCommitment> {
        let seed = fresh_seed()?;
        let mut commitment = DrawCommitment {
            entries_sha256: list.sha256_hex(),
            entries: list.entries as i64,
            server_seed_hash: seed.commitment().to_string(),
            server_seed_sealed: self.key.seal_draw_seed(&seed, &draw.id)?,
            log_entry: Vec::new(),
        };
        commitment.log_entry = commit_entry(draw, &commitment, self.key.tenant_id(&draw.tenant))?;
        Ok(commitment)
    }

    /// A draw over a list committed by its SHA-256 and line count (the list
    /// itself stays with the operator).
    pub async fn create_draw_by_hash(
        &self,
        new: &NewDraw,
        list: ListCommitment,
    ) -> anyhow::Result<BeginDraw> {
        let request = new.request();
        // The log entry names the draw; a stand-in row gives it the fields.
        let stand_in = DrawRow {
            seq: 0,
            entries_bytes: None,
            touched_at: request.created_at,
            id: request.id.clone(),
            tenant: request.tenant.clone(),
            label: None,
            status: DrawStatus::AwaitingClientSeed,
            entries_uploaded: false,
            entries_sha256: None,
            entries: None,
            winners: request.winners,
            client_seed_source: request.client_seed_source.clone(),
            server_seed_hash: None,
            server_seed_sealed: None,
            server_seed: None,
            client_seed: None,
            result: None,
            idempotency_key: None,
            created_at: request.created_at,
            client_seed_at: None,
            drawn_at: None,
            commit_log_index: None,
            client_seed_log_index: None,
            result_log_index: None,
            lost_log_index: None,
        };
        let commitment = self.draw_commitment(&stand_in, list)?;
        Ok(self.store.begin_draw(&request, Some(&commitment)).await?)
    }

    /// Starts an upload: a hidden draft (or, for a retried idempotency key,
    /// the draw the first request made).
    pub async fn start_upload(&self, new: &NewDraw) -> anyhow::Result<BeginDraw> {
        Ok(self.store.begin_draw(&new.request(), None).await?)
    }

    /// Reads the list into draft `draft`, a batch of lines per transaction,
    /// in bounded memory; publishes the draw when the list is complete and
    /// valid. On any error the draft and its lines are deleted. `idle` is
    /// how long the client may send nothing.
    pub async fn upload_list<S, B, E>(
        &self,
        draft: &DrawRow,
        chunks: S,
        idle: Duration,
    ) -> Result<DrawRow, UploadError>
    where
        S: Stream<Item = Result<B, E>> + Unpin,
        B: AsRef<[u8]>,
        E: std::fmt::Display,
    {
        let outcome =
            match tokio::time::timeout(UPLOAD_TIMEOUT, self.read_list(draft, chunks, idle)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(UploadError::TooSlow),
            };
        if outcome.is_err()
            && let Err(err) = self.store.discard_draft(draft.seq, &draft.id).await
        {
            // The sweep of stale drafts deletes it later.
            tracing::warn!(draw = %draft.id, error = %err, "could not delete a refused upload");
        }
        outcome
    }

    async fn read_list<S, B, E>(
        &self,
        draft: &DrawRow,
        mut chunks: S,
        idle: Duration,
    ) -> Result<DrawRow, UploadError>
    where
        S: Stream<Item = Result<B, E>> + Unpin,
        B: AsRef<[u8]>,
        E: std::fmt::Display,
    {
        let mut scanner = ListScanner::with_max_line_bytes(MAX_LINE_BYTES);
        let mut batch: Vec<String> = Vec::with_capacity(LINES_PER_BATCH);
        let mut batch_bytes = 0usize;
        let mut batch_first = 0u64;
        let mut total = 0u64;
        while let Some(chunk) = next_chunk(&mut chunks, idle, &mut total).await? {
            let chunk = chunk.as_ref();
            // Lines are handed over a chunk at a time; a chunk is split so
            // that a batch is stored as soon as it is full.
            let mut rest = chunk;
            while !rest.is_empty() {
                let mut full = false;
                let mut used = rest.len();
                let (mut lines, mut bytes, mut line_start) = (batch.len(), batch_bytes, 0);
                for (at, _) in rest.iter().enumerate().filter(|(_, b)| **b == b'\n') {
                    lines += 1;
                    bytes += at - line_start;
                    line_start = at + 1;
                    if lines >= LINES_PER_BATCH || bytes >= BYTES_PER_BATCH {
                        used = at + 1;
                        full = true;
                        break;
                    }
                }
                let (now, later) = rest.split_at(used);
                rest = later;
                feed_lines(&mut scanner, now, |index, text| {
                    service_line_rule(index, text)?;
                    batch_bytes += text.len();
                    batch.push(text.to_owned());
                    Ok(())
                })?;
                if full {
                    self.store_batch(draft, batch_first, &mut batch).await?;
                    batch_first = scanner.lines();
                    batch_bytes = 0;
                }
            }
        }
        let list = scanner.finish()?;
        self.store_batch(draft, batch_first, &mut batch).await?;
        Draw::new(list.entries, draft.winners as u64).map_err(UploadError::Draw)?;
        let commitment = self.draw_commitment(draft, list)?;
        self.store
            .publish_draw(draft.seq, &draft.id, &commitment, total)
            .await?
            .ok_or(UploadError::TooSlow)
    }

    /// The commitment of a list read from `chunks` without storing it (a
    /// retried upload, to compare with the draw the first request made).
    /// Duplicates are not looked for: a list that hashes the same is the same.
    pub async fn list_commitment<S, B, E>(
        &self,
        mut chunks: S,
        idle: Duration,
    ) -> Result<ListCommitment, UploadError>
    where
        S: Stream<Item = Result<B, E>> + Unpin,
        B: AsRef<[u8]>,
        E: std::fmt::Display,
    {
        let mut scanner = ListScanner::new();
        let mut total = 0u64;
        while let Some(chunk) = next_chunk(&mut chunks, idle, &mut total).await? {
            feed_lines(&mut scanner, chunk.as_ref(), |_, _| Ok(()))?;
        }
        Ok(scanner.finish()?)
    }

    async fn store_batch(
        &self,
        draft: &DrawRow,
        first: u64,
        batch: &mut Vec<String>,
    ) -> Result<(), UploadError> {
        match self
            .store
            .insert_draw_lines(draft.seq, &draft.id, first, batch, now_ms())
            .await?
        {
            StoreLines::Stored => {
                batch.clear();
                Ok(())
            }
            StoreLines::Duplicate(dup) => Err(dup.into()),
            StoreLines::Gone => Err(UploadError::TooSlow),
        }
    }

    /// Sets a draw's client seed (once, after its commitment).
    pub async fn set_draw_client_seed(
        &self,
        draw_id: &str,
        client_seed: &ClientSeed,
        reuse: SeedReuse,
    ) -> anyhow::Result<DrawUpdate> {
        let at = now_ms();
        let entry = Entry::DrawClientSeed {
            draw: draw_id.to_owned(),
            client_seed_sha256: client_seed_sha256(client_seed.as_str()),
            client_seed_lookalike_sha256: Some(crate::text::lookalike_sha256(client_seed.as_str())),
            time: timestamp(at),
        }
        .to_bytes()?;
        Ok(self
            .store
            .set_draw_client_seed(draw_id, client_seed.as_str(), reuse, at, &entry)
            .await?)
    }

    /// Runs a ready draw: the winners (nonce 0 of the draw's seed) and the
    /// seed, revealed, stored together.
    pub async fn run_draw(&self, draw: &DrawRow) -> anyhow::Result<DrawUpdate> {
        let (Some(sealed), Some(client_seed), Some(entries), DrawStatus::Ready) = (
            draw.server_seed_sealed.as_deref(),
            draw.client_seed.as_deref(),
            draw.entries,
            draw.status,
        ) else {
            return Ok(DrawUpdate::Refused(draw.clone()));
        };
        let seed = self
            .key
            .open_draw_seed(sealed, &draw.id)
            .map_err(|_| anyhow::anyhow!("opening draw {}'s server seed", draw.id))?;
        let client = ClientSeed::new(client_seed)
            .map_err(|e| anyhow::anyhow!("stored client seed is invalid: {e}"))?;
        let params = Draw::new(entries as u64, draw.winners as u64)
            .context("the stored draw is out of range")?;
        let winners = fairdeal_core::draw(&seed, &client, 0, params);
        let at = now_ms();
        let revealed = seed.reveal_hex();
        let entry = Entry::DrawResult {
            draw: draw.id.clone(),
            winners: winners.clone(),
            server_seed: revealed.clone(),
            time: timestamp(at),
        }
        .to_bytes()?;
        let result = serde_json::to_string(&winners)?;
        Ok(self
            .store
            .record_draw(&draw.id, &revealed, &result, at, &entry)
            .await?)
    }

    /// Deletes uploads that never finished; how many.
    pub async fn discard_stale_uploads(&self, now: i64) -> anyhow::Result<u64> {
        Ok(self
            .store
            .discard_stale_drafts(now - DRAFT_MAX_AGE_MS)
            .await?)
    }
}

/// The next chunk of an upload, `None` at its end: `idle` bounds the wait,
/// and `total` (the bytes so far) [`MAX_LIST_BYTES`].
async fn next_chunk<S, B, E>(
    chunks: &mut S,
    idle: Duration,
    total: &mut u64,
) -> Result<Option<B>, UploadError>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    match tokio::time::timeout(idle, chunks.next()).await {
        Err(_) => Err(UploadError::Stalled(idle)),
        Ok(None) => Ok(None),
        Ok(Some(Err(err))) => Err(UploadError::Body(err.to_string())),
        Ok(Some(Ok(chunk))) => {
            *total += chunk.as_ref().len() as u64;
            if *total > MAX_LIST_BYTES {
                return Err(UploadError::TooLarge);
            }
            Ok(Some(chunk))
        }
    }
}
