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

use crate::service::log::witness_set;
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

/// One witness: where it takes checkpoints, the key it cosigns with, and
/// what it last did.
#[derive(Debug)]
pub struct Witness {
    /// Its submission prefix: `<url>/add-checkpoint` is posted to.
    pub url: String,
    pub verifier: CosignatureVerifier,
    /// Its verifier key as text (how its cosignatures are stored), made
    /// once: a checkpoint read compares it with every stored line's.
    vkey: String,
    status: Mutex<WitnessStatus>,
    /// Cosignature lines already verified over a note body (the SHA-256 of
    /// body and line): a checkpoint is read far more often than it changes,
    /// and each line is verified once, not on every read.
    verified: Mutex<std::collections::HashSet<[u8; 32]>>,
}

impl Witness {
    /// `VKEY@URL`: the witness's cosignature verifier key
    /// (`<name>+<key id>+<base64 key>`), then its submission prefix.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (vkey, url) = text.split_once('@').ok_or_else(|| {
            format!("must be VKEY@URL (the witness's verifier key, then its URL); got {text:?}")
        })?;
        let verifier = CosignatureVerifier::from_vkey(vkey).map_err(|e| format!("{e:#}"))?;
        // Kept without its trailing '/', and then still an http(s) URL
        // that names a host (`http://` alone would be kept as `http:`).
        let url = url.trim_end_matches('/');
        let names_a_host = reqwest::Url::parse(url).is_ok_and(|parsed| {
            matches!(parsed.scheme(), "http" | "https")
                && parsed.host_str().is_some_and(|host| !host.is_empty())
        });
        if !(url.starts_with("http://") || url.starts_with("https://")) || !names_a_host {
            return Err(format!(
                "the witness URL must start with http:// or https:// and name a host; got {url:?}"
            ));
        }
        Ok(Self {
            url: url.to_owned(),
            vkey: verifier.vkey(),
            verifier,
            status: Mutex::default(),
            verified: Mutex::default(),
        })
    }

    /// The witness's name (in its verifier key).
    pub fn name(&self) -> &str {
        self.verifier.name()
    }

    /// Its verifier key, as text.
    pub fn vkey(&self) -> &str {
        &self.vkey
    }

    /// What the service knows of it now.
    pub fn status(&self) -> WitnessStatus {
        self.status
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn set(&self, update: impl FnOnce(&mut WitnessStatus)) {
        update(&mut self.status.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Whether `line` is this witness's cosignature of `body`, verified once.
    fn verifies(&self, body: &str, line: &str) -> bool {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in [body, line] {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part.as_bytes());
        }
        let key: [u8; 32] = hasher.finalize().into();
        let lock = || self.verified.lock().unwrap_or_else(|e| e.into_inner());
        if lock().contains(&key) {
            return true;
        }
        if self.verifier.verify_line(body, line).is_none() {
            return false;
        }
        let mut verified = lock();
        if verified.len() >= VERIFIED_MAX {
            verified.clear();
        }
        verified.insert(key);
        true
    }

    /// Whether its stored cosignature of `checkpoint`'s size verifies over
    /// the checkpoint's note as it is now.
    async fn cosigned(&self, store: &Store, checkpoint: &LogCheckpoint) -> bool {
        let Some((body, _)) = split_note(&checkpoint.note) else {
            return false;
        };
        store
            .cosignatures(checkpoint.size)
            .await
            .unwrap_or_default()
            .iter()
            .any(|(w, line)| *w == self.vkey && self.verifies(body, line))
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

/// The witnesses asked, and the quorum.
#[derive(Debug, Default)]
pub struct Witnesses {
    pub list: Vec<Arc<Witness>>,
    /// How many cosignatures make a checkpoint witnessed.
    pub quorum: usize,
}

/// The most verified lines a [`Witness`] remembers (then it forgets them all).
const VERIFIED_MAX: usize = 4096;

impl Witnesses {
    /// `list`, of which `quorum` (1 to its length) must cosign.
    pub fn new(list: Vec<Witness>, quorum: usize) -> Self {
        Self::from_shared(list.into_iter().map(Arc::new).collect(), quorum)
    }

    /// As [`Witnesses::new`], with witnesses another set holds too.
    pub fn from_shared(list: Vec<Arc<Witness>>, quorum: usize) -> Self {
        Self { list, quorum }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Each witness's name and status.
    pub fn statuses(&self) -> Vec<(String, WitnessStatus)> {
        self.list
            .iter()
            .map(|w| (w.name().to_owned(), w.status()))
            .collect()
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
                .is_some_and(|w| w.verifies(body, &line));
            if verifies {
                lines.push_str(&line);
                lines.push('\n');
            }
        }
        checkpoint.note.push_str(&lines);
        Ok(checkpoint)
    }
}

/// What one submission came to.
enum Submitted {
    /// Cosigned: the size it now holds.
    Cosigned(u64),
    /// The witness holds another size: retry from it.
    Holds(u64),
}

/// The witness set a process follows: the database's (the setting
/// [`witness_set::SETTING`], each change logged), read again every
/// [`REFRESH`] at most, or, while the database has none, the one the
/// process was started with.
#[derive(Debug, Default)]
pub struct LiveWitnesses {
    current: std::sync::RwLock<Arc<Witnesses>>,
    /// The setting's text the current set was made from.
    applied: Mutex<Option<String>>,
}

/// How often a process reads the database's witness set (at most; sooner
/// with a shorter log interval).
pub const REFRESH: Duration = Duration::from_secs(2);

impl LiveWitnesses {
    /// Following `witnesses`, made from the setting `applied` (if it was).
    pub fn new(witnesses: Witnesses, applied: Option<String>) -> Self {
        Self {
            current: std::sync::RwLock::new(Arc::new(witnesses)),
            applied: Mutex::new(applied),
        }
    }

    /// The set now.
    pub fn current(&self) -> Arc<Witnesses> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Reads the database's set; follows it if it changed. Whether it did.
    pub async fn refresh(&self, store: &Store) -> anyhow::Result<bool> {
        let Some(text) = store.setting(witness_set::SETTING).await? else {
            return Ok(false);
        };
        if self
            .applied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_deref()
            == Some(text.as_str())
        {
            return Ok(false);
        }
        let set = witness_set::WitnessSet::from_setting(&text)?;
        let witnesses = set.build(Some(&self.current()))?;
        tracing::info!(witnesses = %set.describe(), "following the database's witness set");
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(witnesses);
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
        Ok(true)
    }
}

/// Submits every new checkpoint to every witness of the set `live` follows,
/// every `interval`, until the process ends: a task a witness, so that one
/// slow to answer (up to [`SUBMIT_TIMEOUT`]) holds up no other. A witness
/// added to the database's set is asked from the next refresh on, one
/// removed no more.
pub async fn run(
    store: Store,
    live: Arc<LiveWitnesses>,
    metrics: Arc<Metrics>,
    interval: Duration,
    guard: Guard,
) {
    let client = match reqwest::Client::builder().timeout(SUBMIT_TIMEOUT).build() {
        Ok(client) => client,
        Err(err) => {
            tracing::error!(error = %err, "no HTTP client for the witnesses");
            return;
        }
    };
    struct Asking(Vec<(Arc<Witness>, tokio::task::JoinHandle<()>)>);
    impl Drop for Asking {
        fn drop(&mut self) {
            self.0.iter().for_each(|(_, task)| task.abort());
        }
    }
    let mut asking = Asking(Vec::new());
    let mut ticker = tokio::time::interval(interval.min(REFRESH));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Cosignatures of sizes below every witness's latest and the witnessed
    // checkpoint are of no more use: once a minute, they go.
    let mut pruned = tokio::time::Instant::now();
    let mut refresh_failed = false;
    loop {
        ticker.tick().await;
        match live.refresh(&store).await {
            Ok(_) => refresh_failed = false,
            Err(err) => {
                if !refresh_failed {
                    tracing::warn!(
                        error = format!("{err:#}"),
                        "reading the witness set failed: the one last read is asked"
                    );
                }
                refresh_failed = true;
            }
        }
        let witnesses = live.current();
        asking.0.retain(|(witness, task)| {
            let kept = witnesses.list.iter().any(|w| Arc::ptr_eq(w, witness));
            if !kept {
                task.abort();
                metrics.witness_removed(witness.name());
            }
            kept
        });
        let new: Vec<&Arc<Witness>> = witnesses
            .list
            .iter()
            .filter(|w| !asking.0.iter().any(|(a, _)| Arc::ptr_eq(a, w)))
            .collect();
        if !new.is_empty() {
            // Start from what the database says each cosigned.
            let sizes = store.witnessed_sizes().await.unwrap_or_default();
            for witness in new {
                metrics.witness_configured(witness.name());
                if witness.status().acknowledged.is_none()
                    && let Some((_, size)) = sizes.iter().find(|(w, _)| *w == witness.vkey)
                {
                    witness.set(|s| s.acknowledged = Some(*size));
                }
                let (witness, store, metrics, client) = (
                    witness.clone(),
                    store.clone(),
                    metrics.clone(),
                    client.clone(),
                );
                let task = tokio::spawn({
                    let witness = witness.clone();
                    async move { keep_up(witness, store, metrics, client, interval, guard).await }
                });
                asking.0.push((witness, task));
            }
        }
        if pruned.elapsed() >= Duration::from_secs(60) && !witnesses.is_empty() {
            pruned = tokio::time::Instant::now();
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
}

/// A witness's loop: the latest checkpoint submitted whenever it is newer
/// than the one the witness acknowledged.
async fn keep_up(
    witness: Arc<Witness>,
    store: Store,
    metrics: Arc<Metrics>,
    client: reqwest::Client,
    interval: Duration,
    guard: Guard,
) {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        submit_latest(&witness, &store, &metrics, &client, guard).await;
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
    let rounds = witnesses
        .list
        .iter()
        .map(|witness| submit_latest(witness, store, metrics, &client, Guard::Witnesses));
    futures_util::future::join_all(rounds).await;
}

/// A witness's step: the latest checkpoint submitted unless it cosigned
/// it already. With [`Guard::Witnesses`], a witness that holds more of this
/// log than the database raises the store's [`LogFloor`](crate::service::store::LogFloor) to what
/// it holds: the database was rolled back (or the log forked), and no
/// entry may be appended at an index the witnessed log already used, so
/// nothing is dealt, drawn or signed again over what was published.
async fn submit_latest(
    witness: &Witness,
    store: &Store,
    metrics: &Metrics,
    client: &reqwest::Client,
    guard: Guard,
) {
    let name = witness.name();
    let checkpoint = match store.log_checkpoint().await {
        Ok(Some(checkpoint)) => checkpoint,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(error = %err, "reading the checkpoint for the witnesses");
            return;
        }
    };
    let acknowledged = witness.status().acknowledged;
    // Cosigned already, unless the note of that size is not the one
    // the witness cosigned (rewritten since): then it is submitted
    // again, and the witness's refusal says so.
    if acknowledged == Some(checkpoint.size) && witness.cosigned(store, &checkpoint).await {
        metrics.witness_behind(name, 0);
        metrics.witness_cosigning(name, true);
        return;
    }
    match submit(client, store, witness, &checkpoint, acknowledged).await {
        Ok(size) => {
            metrics.witness_behind(name, checkpoint.size.saturating_sub(size));
            metrics.witness_cosigning(name, true);
            witness.set(|s| {
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
            let said = witness.status().last_error.as_deref() == Some(why.as_str());
            if !said {
                tracing::warn!(witness = name, error = %why, "witness did not cosign");
            }
            witness.set(|s| {
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
            // Found by fuzzing: a URL that is its scheme alone was kept as
            // `http:`, which does not read back.
            format!("{vkey}@http://"),
            format!("{vkey}@https:///"),
            format!("{vkey}@http:// "),
        ] {
            assert!(Witness::parse(&bad).is_err(), "{bad}");
        }
    }
}
