//! Prometheus metrics: rounds dealt by game, request latency by route,
//! responses by status, connections refused at the cap; the lifecycle
//! events an operator watches (rotations, table voids, seats' commitments
//! and contributions, draws); and, read at each scrape, the database pool
//! and the transparency log (its size, the checkpoint's, the entries
//! waiting to be integrated and for how long). Labels are route templates
//! (`/v1/rounds/{id}`) and fixed words, never concrete paths, ids or
//! anything from a body.

use std::sync::Mutex;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GameLabels {
    game: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResponseLabels {
    method: String,
    route: String,
    status: u16,
}

/// A witness, by its name in its verifier key (configured by the operator,
/// never from a request).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WitnessLabels {
    witness: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    event: &'static str,
}

/// What a scrape reads of the database and the log.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    /// Connections the pool holds, and of those idle.
    pub pool_size: u32,
    pub pool_idle: u32,
    /// Seconds one connection took to acquire at the scrape.
    pub acquire_seconds: f64,
    /// Entries appended to the log, and in its latest checkpoint.
    pub log_entries: u64,
    pub checkpoint_size: u64,
}

/// The gauges a scrape sets.
#[derive(Debug, Default)]
struct Gauges {
    pool_connections: Gauge,
    pool_in_use: Gauge,
    pool_idle: Gauge,
    acquire_seconds: Gauge<f64, std::sync::atomic::AtomicU64>,
    log_entries: Gauge,
    checkpoint_size: Gauge,
    unintegrated: Gauge,
    waiting_seconds: Gauge<f64, std::sync::atomic::AtomicU64>,
    mirror_entries: Gauge,
    writes_refused: Gauge,
}

/// The lifecycle events counted by `fairdeal_events_total` (its `event`
/// label), each present from start.
pub const EVENTS: [&str; 8] = [
    "rotation",
    "session_end",
    "table_void",
    "seat_commitment",
    "seat_contribution",
    "draw_created",
    "draw_client_seed",
    "draw_run",
];

/// The service's metrics and their registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Mutex<Registry>,
    rounds_dealt: Family<GameLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    responses: Family<ResponseLabels, Counter>,
    connections_refused: Counter,
    log_tiles_from_memory: Counter,
    log_tiles_from_database: Counter,
    log_tiles_read_ahead: Counter,
    events: Family<EventLabels, Counter>,
    witness_behind: Family<WitnessLabels, Gauge>,
    witness_failures: Family<WitnessLabels, Counter>,
    witness_cosigning: Family<WitnessLabels, Gauge>,
    gauges: Gauges,
    /// When the checkpoint last covered every entry (ms): how long the
    /// entries now waiting have waited, at scrape granularity.
    caught_up_at: Mutex<i64>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("fairdeal");
        let rounds_dealt = Family::<GameLabels, Counter>::default();
        registry.register(
            "rounds_dealt",
            "Rounds dealt, by game type",
            rounds_dealt.clone(),
        );
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            // 0.5 ms to about 8 s.
            Histogram::new(exponential_buckets(0.0005, 2.0, 15))
        });
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency, by method and route",
            latency.clone(),
        );
        let responses = Family::<ResponseLabels, Counter>::default();
        registry.register(
            "http_responses",
            "HTTP responses, by method, route and status (4xx and 5xx are errors)",
            responses.clone(),
        );
        let connections_refused = Counter::default();
        registry.register(
            "connections_refused",
            "Connections closed at once because the connection cap was reached",
            connections_refused.clone(),
        );
        let log_tiles_from_memory = Counter::default();
        registry.register(
            "log_tiles_from_memory",
            "Full log tiles answered from those kept in memory (read ahead or served before)",
            log_tiles_from_memory.clone(),
        );
        let log_tiles_from_database = Counter::default();
        registry.register(
            "log_tiles_from_database",
            "Full log tiles answered by a database read",
            log_tiles_from_database.clone(),
        );
        let log_tiles_read_ahead = Counter::default();
        registry.register(
            "log_tiles_read_ahead",
            "Full log tiles read ahead of a request, for a reader going through the log in order",
            log_tiles_read_ahead.clone(),
        );
        let events = Family::<EventLabels, Counter>::default();
        registry.register(
            "events",
            "Lifecycle events: rotation, session_end, table_void, seat_commitment, seat_contribution, \
             draw_created, draw_client_seed, draw_run",
            events.clone(),
        );
        let witness_behind = Family::<WitnessLabels, Gauge>::default();
        registry.register(
            "witness_behind_entries",
            "Entries between the latest checkpoint and the largest one each witness cosigned",
            witness_behind.clone(),
        );
        let witness_failures = Family::<WitnessLabels, Counter>::default();
        registry.register(
            "witness_failures",
            "Submissions to each witness that got no cosignature (down, slow, refused, garbage)",
            witness_failures.clone(),
        );
        let witness_cosigning = Family::<WitnessLabels, Gauge>::default();
        registry.register(
            "witness_cosigning",
            "1 while each witness's last submission was cosigned, 0 while it is down, refuses or answers garbage",
            witness_cosigning.clone(),
        );
        let gauges = Gauges::default();
        for (name, help, gauge) in [
            (
                "db_pool_connections",
                "Connections the database pool holds",
                &gauges.pool_connections,
            ),
            (
                "db_pool_in_use",
                "Pool connections in use at the scrape",
                &gauges.pool_in_use,
            ),
            (
                "db_pool_idle",
                "Pool connections idle at the scrape",
                &gauges.pool_idle,
            ),
            (
                "log_entries",
                "Entries appended to the transparency log",
                &gauges.log_entries,
            ),
            (
                "log_checkpoint_size",
                "Entries in the latest signed checkpoint",
                &gauges.checkpoint_size,
            ),
            (
                "log_unintegrated_entries",
                "Entries appended but not yet in a checkpoint",
                &gauges.unintegrated,
            ),
            (
                "log_mirror_entries",
                "Entries in the log mirror (0 without one)",
                &gauges.mirror_entries,
            ),
            (
                "writes_refused",
                "1 while every write is refused: the database is behind its log mirror (a restore: run fairdeal recover), a recovery runs, or the mirror cannot be written",
                &gauges.writes_refused,
            ),
        ] {
            registry.register(name, help, gauge.clone());
        }
        registry.register(
            "db_acquire_seconds",
            "Seconds a database connection took to acquire, sampled at the scrape",
            gauges.acquire_seconds.clone(),
        );
        registry.register(
            "log_integration_lag_seconds",
            "How long entries have waited for a checkpoint (0 when none waits), at scrape granularity",
            gauges.waiting_seconds.clone(),
        );
        // Every series a counter can have that is known at start is
        // present from start, at 0: an alert on its rate sees a series
        // before the first event.
        for game in fairdeal_core::GAME_TYPES {
            rounds_dealt
                .get_or_create(&GameLabels {
                    game: game.to_owned(),
                })
                .inc_by(0);
        }
        for event in EVENTS {
            events.get_or_create(&EventLabels { event }).inc_by(0);
        }
        Self {
            registry: Mutex::new(registry),
            rounds_dealt,
            latency,
            responses,
            connections_refused,
            log_tiles_from_memory,
            log_tiles_from_database,
            log_tiles_read_ahead,
            events,
            witness_behind,
            witness_failures,
            witness_cosigning,
            gauges,
            caught_up_at: Mutex::new(crate::time::now_ms()),
        }
    }

    /// How far `witness` is behind the latest checkpoint, in entries.
    pub fn witness_behind(&self, witness: &str, entries: u64) {
        self.witness_behind
            .get_or_create(&WitnessLabels {
                witness: witness.to_owned(),
            })
            .set(entries as i64);
    }

    /// Whether `witness`'s last submission was cosigned.
    pub fn witness_cosigning(&self, witness: &str, cosigning: bool) {
        self.witness_cosigning
            .get_or_create(&WitnessLabels {
                witness: witness.to_owned(),
            })
            .set(i64::from(cosigning));
    }

    /// A submission to `witness` that got no cosignature.
    pub fn witness_failed(&self, witness: &str) {
        self.witness_failures
            .get_or_create(&WitnessLabels {
                witness: witness.to_owned(),
            })
            .inc();
    }

    /// A configured witness's series, at their start values (0 behind, not
    /// cosigning yet, no failures), before its first submission.
    pub fn witness_configured(&self, witness: &str) {
        let labels = WitnessLabels {
            witness: witness.to_owned(),
        };
        self.witness_failures.get_or_create(&labels).inc_by(0);
        self.witness_behind.get_or_create(&labels).set(0);
        self.witness_cosigning.get_or_create(&labels).set(0);
    }

    /// A witness no longer asked (removed from the set): its series go.
    pub fn witness_removed(&self, witness: &str) {
        let labels = WitnessLabels {
            witness: witness.to_owned(),
        };
        self.witness_failures.remove(&labels);
        self.witness_behind.remove(&labels);
        self.witness_cosigning.remove(&labels);
    }

    /// A lifecycle event (one of [`EVENTS`]).
    pub fn event(&self, event: &'static str) {
        debug_assert!(EVENTS.contains(&event), "an event not in EVENTS: {event}");
        self.events.get_or_create(&EventLabels { event }).inc();
    }

    /// Sets the gauges a scrape reads from the database and the log.
    pub fn snapshot(&self, now_ms: i64, snapshot: Snapshot) {
        let g = &self.gauges;
        g.pool_connections.set(i64::from(snapshot.pool_size));
        g.pool_idle.set(i64::from(snapshot.pool_idle));
        g.pool_in_use.set(i64::from(
            snapshot.pool_size.saturating_sub(snapshot.pool_idle),
        ));
        g.acquire_seconds.set(snapshot.acquire_seconds);
        let waiting = snapshot
            .log_entries
            .saturating_sub(snapshot.checkpoint_size);
        g.log_entries.set(snapshot.log_entries as i64);
        g.checkpoint_size.set(snapshot.checkpoint_size as i64);
        g.unintegrated.set(waiting as i64);
        if let Ok(mut caught_up) = self.caught_up_at.lock() {
            if waiting == 0 {
                *caught_up = now_ms;
            }
            g.waiting_seconds
                .set(now_ms.saturating_sub(*caught_up) as f64 / 1000.0);
        }
    }

    /// The log mirror as the last pass left it: its entries, and whether
    /// writes are refused.
    pub fn mirror(&self, entries: u64, refused: bool) {
        self.gauges.mirror_entries.set(entries as i64);
        self.gauges.writes_refused.set(i64::from(refused));
    }

    pub fn round_dealt(&self, game: &str) {
        self.rounds_dealt
            .get_or_create(&GameLabels {
                game: game.to_owned(),
            })
            .inc();
    }

    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let route_labels = RouteLabels {
            method: method.to_owned(),
            route: route.to_owned(),
        };
        self.latency.get_or_create(&route_labels).observe(seconds);
        self.responses
            .get_or_create(&ResponseLabels {
                method: method.to_owned(),
                route: route.to_owned(),
                status,
            })
            .inc();
    }

    /// A full log tile answered: from memory, or by a database read that
    /// also read `ahead` more.
    pub fn log_tile(&self, from_memory: bool, ahead: u64) {
        if from_memory {
            self.log_tiles_from_memory.inc();
        } else {
            self.log_tiles_from_database.inc();
            self.log_tiles_read_ahead.inc_by(ahead);
        }
    }

    /// A connection closed at once: the cap was reached.
    pub fn connection_refused(&self) {
        self.connections_refused.inc();
    }

    /// The text exposition format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if let Ok(registry) = self.registry.lock() {
            let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every family the registry exposes once each has a series (a
    /// counter by its `_total` name).
    fn families() -> BTreeSet<String> {
        let metrics = Metrics::new();
        metrics.witness_configured("w.example/one");
        metrics.observe("GET", "/healthz", 200, 0.001);
        metrics
            .encode()
            .lines()
            .filter_map(|line| line.strip_prefix("# TYPE "))
            .filter_map(|rest| rest.split_once(' '))
            .map(|(name, kind)| match kind {
                "counter" => format!("{name}_total"),
                _ => name.to_owned(),
            })
            .collect()
    }

    fn read(path: &str) -> String {
        std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
    }

    /// docs/OPERATIONS.md's metrics table is the registry's families, both
    /// ways, and docs/alerts.yml names only documented series.
    #[test]
    fn every_family_is_documented_and_the_alerts_name_real_series() {
        let exposed = families();
        assert_eq!(exposed.len(), 21, "{exposed:?}");
        let operations = read("docs/OPERATIONS.md");
        let section = operations
            .split("## Metrics")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("a Metrics section");
        let documented: BTreeSet<String> = section
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| rest.split_once('`'))
            .map(|(name, _)| name.to_owned())
            .collect();
        assert_eq!(
            documented, exposed,
            "OPERATIONS' metrics table against the registry"
        );
        let alerts = read("docs/alerts.yml");
        let mut named = 0;
        for word in alerts.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !word.starts_with("fairdeal_") {
                continue;
            }
            named += 1;
            let series = ["_bucket", "_count", "_sum"]
                .iter()
                .find_map(|suffix| word.strip_suffix(suffix))
                .unwrap_or(word);
            assert!(
                documented.contains(series),
                "docs/alerts.yml names {word}, which no family is"
            );
        }
        assert!(named >= 9, "{named}");
    }
}
