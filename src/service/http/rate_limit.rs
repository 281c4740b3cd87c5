//! Rate limits per API key: each key may make `burst` requests at once and
//! `per_second` a second after that (GCRA, governor's keyed limiter), in
//! this process. A request over it is answered 429 `/problems/rate-limited`
//! with `Retry-After` before its handler runs, so nothing is dealt or
//! changed; every answer to a keyed request says where the key stands
//! (`RateLimit-Policy` and `RateLimit`, draft-ietf-httpapi-ratelimit-headers).
//!
//! Only a key that authenticates is counted: a request with a wrong secret
//! cannot spend another key's allowance. Public reads without a key are not
//! limited here (a proxy in front limits them by address, docs/OPERATIONS.md).

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::Response;
use governor::clock::{Clock as _, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::error::ApiError;

/// A key's limit: `burst` requests at once, then `per_second` a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    pub per_second: NonZeroU32,
    pub burst: NonZeroU32,
}

impl RateLimit {
    /// The quota's window in whole seconds: how long an emptied allowance
    /// takes to fill again.
    fn window_seconds(self) -> u32 {
        self.burst.get().div_ceil(self.per_second.get())
    }

    /// `RateLimit-Policy`: `burst` requests in a window of that many
    /// seconds' refill.
    fn policy(self) -> String {
        format!(
            "\"per-key\";q={};w={}",
            self.burst.get(),
            self.window_seconds()
        )
    }
}

type KeyedLimiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// The limiter every request of this process shares, one allowance a key.
/// Only keys that authenticated are entered, so the table is as large as
/// the set of the operator's keys, whatever clients send.
pub struct KeyLimits {
    limit: RateLimit,
    limiter: KeyedLimiter,
    /// `RateLimit-Policy`, the same on every answer: made once.
    policy: HeaderValue,
}

impl std::fmt::Debug for KeyLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyLimits")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// Where a key stands after a request was counted.
#[derive(Clone, Copy, Debug)]
struct Standing {
    remaining: u32,
    /// Whole seconds until the allowance is full again (or, refused, until
    /// the next request is taken).
    reset: u32,
}

/// What the request's handler left for the answer's headers.
#[derive(Clone, Default)]
struct Slot(Arc<Mutex<Option<Standing>>>);

impl KeyLimits {
    pub fn new(limit: RateLimit) -> Arc<Self> {
        let quota = Quota::per_second(limit.per_second).allow_burst(limit.burst);
        Arc::new(Self {
            limit,
            limiter: RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
            policy: HeaderValue::from_str(&limit.policy())
                .expect("a policy of ASCII digits and punctuation"),
        })
    }

    /// Counts a request of `key_id` (a key that authenticated); the 429 to
    /// answer when it is over its limit.
    fn check(&self, key_id: &str) -> Result<Standing, ApiError> {
        let per_second = self.limit.per_second.get();
        match self.limiter.check_key(&key_id.to_owned()) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let spent = self.limit.burst.get().saturating_sub(remaining);
                Ok(Standing {
                    remaining,
                    reset: spent.div_ceil(per_second),
                })
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.limiter.clock().now());
                Err(ApiError::rate_limited(wait, self.limit))
            }
        }
    }
}

/// Counts a request made with the key `key_id` against its limit, when the
/// process has one; `Err` is the 429 to answer.
pub fn count(parts: &Parts, key_id: &str) -> Result<(), ApiError> {
    let Some(limits) = parts.extensions.get::<Arc<KeyLimits>>() else {
        return Ok(());
    };
    let standing = limits.check(key_id);
    if let Some(slot) = parts.extensions.get::<Slot>() {
        let shown = match &standing {
            Ok(standing) => *standing,
            Err(refused) => Standing {
                remaining: 0,
                reset: refused.retry_after().unwrap_or(1),
            },
        };
        *slot.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(shown);
    }
    standing.map(|_| ())
}

/// The layer: the limiter and an empty slot in the request's extensions,
/// and, when a key was counted, where it stands in the answer's headers.
pub async fn layer(
    State(limits): State<Arc<KeyLimits>>,
    mut request: Request,
    next: Next,
) -> Response {
    let slot = Slot::default();
    let policy = limits.policy.clone();
    request.extensions_mut().insert(limits);
    request.extensions_mut().insert(slot.clone());
    let mut response = next.run(request).await;
    let standing = *slot.0.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(standing) = standing {
        let headers = response.headers_mut();
        headers.insert("ratelimit-policy", policy);
        let now = format!("\"per-key\";r={};t={}", standing.remaining, standing.reset);
        if let Ok(value) = HeaderValue::from_str(&now) {
            headers.insert("ratelimit", value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(per_second: u32, burst: u32) -> RateLimit {
        RateLimit {
            per_second: NonZeroU32::new(per_second).expect("nonzero"),
            burst: NonZeroU32::new(burst).expect("nonzero"),
        }
    }

    #[test]
    fn a_key_gets_its_burst_then_waits_and_others_are_apart() {
        let limits = KeyLimits::new(limit(1, 3));
        let remaining: Vec<u32> = (0..3)
            .map(|_| limits.check("a").expect("within the burst").remaining)
            .collect();
        assert_eq!(remaining, [2, 1, 0]);
        let refused = limits.check("a").expect_err("over the burst");
        assert_eq!(refused.retry_after(), Some(1));
        // Another key has its own allowance.
        assert_eq!(limits.check("b").expect("its own").remaining, 2);
    }

    #[test]
    fn the_policy_states_the_burst_and_its_refill() {
        assert_eq!(limit(100, 200).policy(), "\"per-key\";q=200;w=2");
        assert_eq!(limit(10, 5).policy(), "\"per-key\";q=5;w=1");
        assert_eq!(limit(3, 10).window_seconds(), 4);
    }
}
