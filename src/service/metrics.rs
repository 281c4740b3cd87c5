//! Prometheus metrics: rounds dealt by game, request latency by route,
//! responses by status, and connections refused at the cap. Labels are route templates (`/v1/rounds/{id}`), never
//! concrete paths, ids or anything from a body.

use std::sync::Mutex;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
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

/// The service's metrics and their registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Mutex<Registry>,
    rounds_dealt: Family<GameLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    responses: Family<ResponseLabels, Counter>,
    connections_refused: Counter,
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
        Self {
            registry: Mutex::new(registry),
            rounds_dealt,
            latency,
            responses,
            connections_refused,
        }
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
