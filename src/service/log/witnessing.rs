//! Asking witnesses to cosign the log's checkpoints (c2sp.org/tlog-witness):
//! after the log signs a checkpoint, each configured witness is sent it with
//! the consistency proof from the size that witness last acknowledged, and
//! the cosignature it answers (c2sp.org/tlog-cosignature) is verified and
//! stored beside the checkpoint, whose note is then served with it. A
//! witness that is down, slow, refuses or answers garbage stops nothing:
//! it falls behind, which `/readyz` and the metrics say, and the largest
//! checkpoint that the quorum cosigned stays available
//! (`GET /v1/log/witnessed-checkpoint`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::service::metrics::Metrics;
use crate::service::store::{LogCheckpoint, Store};
use crate::tlog::cosignature::{CosignatureVerifier, split_note};

/// How long a witness has to answer one submission.
const SUBMIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How far ahead of this clock a cosignature's time may be (the witness's
/// clock may run a little fast).
const MAX_CLOCK_AHEAD_SECONDS: u64 = 600;

/// The longest answer read from a witness.
const MAX_ANSWER_BYTES: usize = 16 << 10;

/// One witness: where it takes checkpoints and the key it cosigns with.
#[derive(Debug)]
pub struct Witness {
    /// Its submission prefix: `<url>/add-checkpoint` is posted to.
    pub url: String,
    pub verifier: CosignatureVerifier,
    /// Its verifier key as text (how its cosignatures are stored), made
    /// once: a checkpoint read compares it with every stored line's.
    vkey: String,
}

impl Witness {
    /// `VKEY@URL`: the witness's cosignature verifier key
    /// (`<name>+<key id>+<base64 key>`), then its submission prefix.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (vkey, url) = text.split_once('@').ok_or_else(|| {
            format!("must be VKEY@URL (the witness's verifier key, then its URL); got {text:?}")
        })?;
        let verifier = CosignatureVerifier::from_vkey(vkey).map_err(|e| format!("{e:#}"))?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "the witness URL must start with http:// or https://; got {url:?}"
            ));
        }
        Ok(Self {
            url: url.trim_end_matches('/').to_owned(),
            vkey: verifier.vkey(),
            verifier,
        })
    }

    /// The witness's name (in its verifier key).
    pub fn name(&self) -> &str {
        self.verifier.name()
    }
}

/// What the service knows of one witness now.
#[derive(Clone, Debug, Default)]
pub struct WitnessStatus {
    /// The largest size it cosigned (or told us it holds).
    pub acknowledged: Option<u64>,
    /// Why its last submission got no cosignature, if it did not.
    pub last_error: Option<String>,
}

/// The configured witnesses, the quorum, and what each last did.
#[derive(Debug, Default)]
pub struct Witnesses {
    pub list: Vec<Witness>,
    /// How many cosignatures make a checkpoint witnessed.
    pub quorum: usize,
    status: Mutex<Vec<WitnessStatus>>,
    /// Cosignature lines already verified over a note body (the SHA-256 of
    /// key, body and line): a checkpoint is read far more often than it
    /// changes, and each line is verified once, not on every read.
    verified: Mutex<std::collections::HashSet<[u8; 32]>>,
}

/// The most verified lines [`Witnesses`] remembers (then it forgets them all).
const VERIFIED_MAX: usize = 4096;

impl Witnesses {
    /// `list`, of which `quorum` (1 to its length) must cosign.
    pub fn new(list: Vec<Witness>, quorum: usize) -> Self {
        let status = Mutex::new(vec![WitnessStatus::default(); list.len()]);
        Self {
            list,
            quorum,
            status,
            verified: Mutex::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether `line` is `witness`'s cosignature of `body`, verified once.
    fn verifies(&self, witness: &Witness, body: &str, line: &str) -> bool {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in [witness.vkey.as_str(), body, line] {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part.as_bytes());
        }
        let key: [u8; 32] = hasher.finalize().into();
        let lock = || self.verified.lock().unwrap_or_else(|e| e.into_inner());
        if lock().contains(&key) {
            return true;
        }
        if witness.verifier.verify_line(body, line).is_none() {
            return false;
        }
        let mut verified = lock();
        if verified.len() >= VERIFIED_MAX {
            verified.clear();
        }
        verified.insert(key);
        true
    }

    /// Each witness's name and status.
    pub fn statuses(&self) -> Vec<(String, WitnessStatus)> {
        let status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        self.list
            .iter()
            .zip(status.iter())
            .map(|(w, s)| (w.name().to_owned(), s.clone()))
            .collect()
    }

    fn set(&self, i: usize, update: impl FnOnce(&mut WitnessStatus)) {
        let mut status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = status.get_mut(i) {
            update(s);
        }
    }

    /// The largest stored checkpoint that at least `quorum` of these
    /// witnesses cosigned, with their lines appended to its note.
    pub async fn witnessed_checkpoint(
        &self,
        store: &Store,
    ) -> anyhow::Result<Option<LogCheckpoint>> {
        if self.list.is_empty() {
            return Ok(None);
        }
        let keys: Vec<String> = self.list.iter().map(|w| w.vkey.clone()).collect();
        for (size, witnesses) in store.sizes_cosigned_by(self.quorum as u64, 32).await? {
            let ours = witnesses.iter().filter(|w| keys.contains(w)).count();
            if ours < self.quorum {
                continue;
            }
            if let Some(checkpoint) = store.log_checkpoint_of_size(size).await? {
                let checkpoint = self.cosigned(store, checkpoint).await?;
                // Lines stored for this size that do not verify over the
                // note served (a checkpoint rewritten since) do not count.
                if self
                    .list
                    .iter()
                    .filter(|w| w.verifier.verify_note(&checkpoint.note).is_some())
                    .count()
                    >= self.quorum
                {
                    return Ok(Some(checkpoint));
                }
            }
        }
        Ok(None)
    }
}

impl Witnesses {
    /// `checkpoint` with the cosignature lines stored for its size that a
    /// configured witness made over this very note appended (further
    /// signature lines of the same note): a line of another note of the
    /// same size (a checkpoint rewritten since it was cosigned) is never
    /// served with it.
    pub async fn cosigned(
        &self,
        store: &Store,
        mut checkpoint: LogCheckpoint,
    ) -> Result<LogCheckpoint, sqlx::Error> {
        if self.list.is_empty() {
            return Ok(checkpoint);
        }
        let Some((body, _)) = split_note(&checkpoint.note) else {
            return Ok(checkpoint);
        };
        let mut lines = String::new();
        for (vkey, line) in store.cosignatures(checkpoint.size).await? {
            let verifies = self
                .list
                .iter()
                .find(|w| w.vkey == vkey)
                .is_some_and(|w| self.verifies(w, body, &line));
            if verifies {
                lines.push_str(&line);
                lines.push('\n');
            }
        }
        checkpoint.note.push_str(&lines);
        Ok(checkpoint)
    }

    /// Whether witness `i`'s stored cosignature of `checkpoint`'s size
    /// verifies over its note as it is now.
    async fn cosigned_by(&self, store: &Store, i: usize, checkpoint: &LogCheckpoint) -> bool {
        let witness = &self.list[i];
        let vkey = &witness.vkey;
        let Some((body, _)) = split_note(&checkpoint.note) else {
            return false;
        };
        store
            .cosignatures(checkpoint.size)
            .await
            .unwrap_or_default()
            .iter()
            .any(|(w, line)| w == vkey && self.verifies(witness, body, line))
    }
}

/// What one submission came to.
enum Submitted {
    /// Cosigned: the size it now holds.
    Cosigned(u64),
    /// The witness holds another size: retry from it.
    Holds(u64),
}

/// Submits every new checkpoint to every witness, every `interval`, until
/// the process ends: a task a witness, so that one slow to answer (up to
/// [`SUBMIT_TIMEOUT`]) holds up no other.
pub async fn run(
    store: Store,
    witnesses: Arc<Witnesses>,
    metrics: Arc<Metrics>,
    interval: Duration,
    guard: Guard,
) {
    if witnesses.is_empty() {
        return;
    }
    for witness in &witnesses.list {
        metrics.witness_configured(witness.name());
    }
    let client = match reqwest::Client::builder().timeout(SUBMIT_TIMEOUT).build() {
        Ok(client) => client,
        Err(err) => {
            tracing::error!(error = %err, "no HTTP client for the witnesses");
            return;
        }
    };
    // Start from what the database says each witness cosigned.
    if let Ok(sizes) = store.witnessed_sizes().await {
        for (i, witness) in witnesses.list.iter().enumerate() {
            let vkey = &witness.vkey;
            if let Some((_, size)) = sizes.iter().find(|(w, _)| w == vkey) {
                witnesses.set(i, |s| s.acknowledged = Some(*size));
            }
        }
    }
    let tasks: Vec<_> = (0..witnesses.list.len())
        .map(|i| {
            let (store, witnesses, metrics, client) = (
                store.clone(),
                witnesses.clone(),
                metrics.clone(),
                client.clone(),
            );
            tokio::spawn(async move {
                keep_up(i, store, witnesses, metrics, client, interval, guard).await
            })
        })
        .collect();
    // Cosignatures of sizes below every witness's latest and the witnessed
    // checkpoint are of no more use: once a minute, they go.
    let mut ticker = tokio::time::interval(Duration::from_secs(60));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    struct AbortOnDrop(Vec<tokio::task::JoinHandle<()>>);
    impl Drop for AbortOnDrop {
        fn drop(&mut self) {
            self.0.iter().for_each(tokio::task::JoinHandle::abort);
        }
    }
    let _tasks = AbortOnDrop(tasks);
    loop {
        ticker.tick().await;
        if let Ok(Some(witnessed)) = witnesses.witnessed_checkpoint(&store).await {
            let lowest = witnesses
                .statuses()
                .iter()
                .filter_map(|(_, s)| s.acknowledged)
                .min()
                .unwrap_or(0)
                .min(witnessed.size);
            if let Err(err) = store.prune_cosignatures(lowest).await {
                tracing::warn!(error = %err, "pruning old cosignatures");
            }
        }
    }
}

/// Witness `i`'s loop: the latest checkpoint submitted whenever it is newer
/// than the one the witness acknowledged.
async fn keep_up(
    i: usize,
    store: Store,
    witnesses: Arc<Witnesses>,
    metrics: Arc<Metrics>,
    client: reqwest::Client,
    interval: Duration,
    guard: Guard,
) {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        submit_latest(i, &store, &witnesses, &metrics, &client, guard).await;
    }
}

/// What a witness's larger tree does to this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Nothing but a warning and a metric: the log mirror knows what was
    /// acknowledged, and a witness that answers garbage stops nothing.
    Mirror,
    /// Without a mirror the witnesses are what knows the database went
    /// back: a witness that holds more of the log raises the floor.
    Witnesses,
}

/// Submits the latest checkpoint to every witness once, at once (each for
/// at most [`SUBMIT_TIMEOUT`]): what a process without a log mirror does
/// before it serves, so that a witness holding more of this log than the
/// database (a restored database) stops every write before the first.
pub async fn first_round(store: &Store, witnesses: &Witnesses, metrics: &Metrics) {
    let Ok(client) = reqwest::Client::builder().timeout(SUBMIT_TIMEOUT).build() else {
        return;
    };
    let rounds = (0..witnesses.list.len())
        .map(|i| submit_latest(i, store, witnesses, metrics, &client, Guard::Witnesses));
    futures_util::future::join_all(rounds).await;
}

/// Witness `i`'s step: the latest checkpoint submitted unless it cosigned
/// it already. With [`Guard::Witnesses`], a witness that holds more of this
/// log than the database raises the store's [`LogFloor`](crate::service::store::LogFloor) to what
/// it holds: the database was rolled back (or the log forked), and no
/// entry may be appended at an index the witnessed log already used, so
/// nothing is dealt, drawn or signed again over what was published.
async fn submit_latest(
    i: usize,
    store: &Store,
    witnesses: &Witnesses,
    metrics: &Metrics,
    client: &reqwest::Client,
    guard: Guard,
) {
    let witness = &witnesses.list[i];
    let name = witness.name();
    let checkpoint = match store.log_checkpoint().await {
        Ok(Some(checkpoint)) => checkpoint,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(error = %err, "reading the checkpoint for the witnesses");
            return;
        }
    };
    let acknowledged = witnesses.statuses()[i].1.acknowledged;
    // Cosigned already, unless the note of that size is not the one
    // the witness cosigned (rewritten since): then it is submitted
    // again, and the witness's refusal says so.
    if acknowledged == Some(checkpoint.size) && witnesses.cosigned_by(store, i, &checkpoint).await {
        metrics.witness_behind(name, 0);
        metrics.witness_cosigning(name, true);
        return;
    }
    match submit(client, store, witness, &checkpoint, acknowledged).await {
        Ok(size) => {
            metrics.witness_behind(name, checkpoint.size.saturating_sub(size));
            metrics.witness_cosigning(name, true);
            witnesses.set(i, |s| {
                s.acknowledged = Some(size);
                s.last_error = None;
            });
        }
        Err((held, why)) => {
            metrics.witness_failed(name);
            metrics.witness_cosigning(name, false);
            if guard == Guard::Witnesses
                && let Some(ahead) = held.filter(|h| *h > checkpoint.size)
            {
                let floor = store.log_floor();
                if floor.get() < ahead {
                    tracing::error!(
                        witness = name,
                        holds = ahead,
                        checkpoint = checkpoint.size,
                        "a witness holds more of this log than the database: every write that \
                         would log is refused (docs/OPERATIONS.md, Restore)"
                    );
                }
                floor.raise(ahead);
            }
            // A witness holding more than this log has is no progress
            // (a fork, or this database rolled back): the size it
            // holds is not taken as acknowledged, so the next
            // submission names it again rather than sending an old
            // size above the checkpoint's.
            let held = held.filter(|h| *h <= checkpoint.size);
            let behind = held.or(acknowledged).unwrap_or(0);
            metrics.witness_behind(name, checkpoint.size.saturating_sub(behind));
            // Once for each new reason, not every interval.
            let said = witnesses.statuses()[i].1.last_error.as_deref() == Some(why.as_str());
            if !said {
                tracing::warn!(witness = name, error = %why, "witness did not cosign");
            }
            witnesses.set(i, |s| {
                if held.is_some() {
                    s.acknowledged = held;
                }
                s.last_error = Some(why);
            });
        }
    }
}

/// Submits `checkpoint` to `witness`, from the size it acknowledged (or,
/// when it holds another, once more from that one): the size it now holds,
/// or why not (with the size it said it holds, if it said).
async fn submit(
    client: &reqwest::Client,
    store: &Store,
    witness: &Witness,
    checkpoint: &LogCheckpoint,
    acknowledged: Option<u64>,
) -> Result<u64, (Option<u64>, String)> {
    let mut old = acknowledged.unwrap_or(0);
    for _ in 0..2 {
        match submit_once(client, store, witness, checkpoint, old).await {
            Ok(Submitted::Cosigned(size)) => return Ok(size),
            Ok(Submitted::Holds(held)) if held > checkpoint.size => {
                return Err((
                    Some(held),
                    format!(
                        "it holds a checkpoint of {held} entries, more than this log's {}: it \
                         witnessed another history of this log (a fork), or this database was \
                         rolled back",
                        checkpoint.size
                    ),
                ));
            }
            Ok(Submitted::Holds(held)) if held == old => {
                return Err((
                    Some(held),
                    format!("it answered 409 with its size {held}, which was the old size sent"),
                ));
            }
            Ok(Submitted::Holds(held)) => old = held,
            Err(why) => return Err((None, why)),
        }
    }
    Err((Some(old), "it changed its size twice in a row".to_owned()))
}

async fn submit_once(
    client: &reqwest::Client,
    store: &Store,
    witness: &Witness,
    checkpoint: &LogCheckpoint,
    old: u64,
) -> Result<Submitted, String> {
    let proof = if old == 0 || old >= checkpoint.size {
        Vec::new()
    } else {
        store
            .log_consistency_proof(checkpoint.size, old)
            .await
            .map_err(|e| format!("no consistency proof from {old}: {e:#}"))?
    };
    let mut body = format!("old {old}\n");
    for hash in &proof {
        body.push_str(&BASE64.encode(hash.0));
        body.push('\n');
    }
    body.push('\n');
    body.push_str(&checkpoint.note);
    let url = format!("{}/add-checkpoint", witness.url);
    let response = client
        .post(&url)
        .body(body)
        .send()
        .await
        .map_err(|e| format!("no answer: {}", e.without_url()))?;
    let status = response.status();
    let is_size = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/x.tlog.size"));
    // Read a chunk at a time, and no more than an answer can hold: a
    // witness that sends without end costs nothing.
    let mut response = response;
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("reading its answer: {}", e.without_url()))?
    {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_ANSWER_BYTES {
            return Err(format!(
                "its answer is longer than {MAX_ANSWER_BYTES} bytes, more than a cosignature takes"
            ));
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let shown: String = text.chars().take(200).collect();
    match status.as_u16() {
        200 => {
            let (note_body, _) =
                split_note(&checkpoint.note).ok_or("the log's own checkpoint is not a note")?;
            let found = text
                .lines()
                .find_map(|line| Some((line, witness.verifier.verify_line(note_body, line)?)));
            let Some((line, time)) = found else {
                return Err(format!(
                    "it answered 200 without a cosignature by its key that verifies: {shown:?}"
                ));
            };
            // A cosignature from the future is no statement about now:
            // readers may refuse it, so it is not served as one.
            let now = u64::try_from(crate::time::now_ms() / 1000).unwrap_or(0);
            if time > now + MAX_CLOCK_AHEAD_SECONDS {
                return Err(format!(
                    "its cosignature is dated {time}, {} s ahead of this clock",
                    time - now
                ));
            }
            store
                .store_cosignature(checkpoint.size, &witness.vkey, line, crate::time::now_ms())
                .await
                .map_err(|e| format!("storing its cosignature: {e}"))?;
            Ok(Submitted::Cosigned(checkpoint.size))
        }
        409 if is_size => text
            .trim_end_matches('\n')
            .parse::<u64>()
            .map(Submitted::Holds)
            .map_err(|_| format!("it answered 409 with a size that does not read: {shown:?}")),
        code => Err(format!("it refused ({code}): {shown}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_witness_is_given_as_its_key_then_its_url() {
        let cosigner =
            crate::tlog::cosignature::Cosigner::from_bytes(&[3; 32], "witness.example/w1")
                .expect("key");
        let vkey = cosigner.vkey();
        let witness = Witness::parse(&format!("{vkey}@http://127.0.0.1:9/")).expect("parses");
        assert_eq!(witness.url, "http://127.0.0.1:9");
        assert_eq!(witness.name(), "witness.example/w1");
        for bad in [
            vkey.clone(),
            format!("{vkey}@ftp://x"),
            "nobody@http://x".to_owned(),
        ] {
            assert!(Witness::parse(&bad).is_err(), "{bad}");
        }
    }
}
