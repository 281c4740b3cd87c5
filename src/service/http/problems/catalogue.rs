//! Every kind of problem the API answers, declared once: its `type` URI
//! (`/problems/<slug>`, resolvable against the service, where
//! `GET /problems/<slug>` says what it means and what to do), its title
//! (the same for every answer of the kind) and its status. Handlers name a
//! kind; `ApiError` answers it; `openapi.yaml` lists every kind as the
//! values of `Problem.type`. A backend switches on `type`, never on
//! `title` or `detail`.

use axum::http::StatusCode;

macro_rules! problem_kinds {
    ($($(#[doc = $doc:literal])+ $variant:ident = ($slug:literal, $status:ident, $title:literal);)+) => {
        /// One kind of problem (RFC 9457 problem type).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ProblemKind {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ProblemKind {
            /// Every kind, in the order declared.
            pub const ALL: &[ProblemKind] = &[$(ProblemKind::$variant),+];

            /// The `type` URI: `/problems/<slug>`.
            pub fn uri(self) -> &'static str {
                match self {
                    $(Self::$variant => concat!("/problems/", $slug),)+
                }
            }

            pub fn slug(self) -> &'static str {
                match self {
                    $(Self::$variant => $slug,)+
                }
            }

            pub fn status(self) -> StatusCode {
                match self {
                    $(Self::$variant => StatusCode::$status,)+
                }
            }

            /// The title every answer of this kind carries.
            pub fn title(self) -> &'static str {
                match self {
                    $(Self::$variant => $title,)+
                }
            }

            /// What it means and what to do, in a few sentences.
            pub fn explanation(self) -> &'static str {
                match self {
                    $(Self::$variant => concat!($($doc, "\n"),+),)+
                }
            }
        }
    };
}

problem_kinds! {
    /// The body is not the JSON this endpoint takes (not JSON at all, a
    /// field of the wrong type, an unknown field). `field` names the place.
    /// Fix the request; retrying it as it is fails again.
    MalformedRequest = ("malformed-request", BAD_REQUEST, "Malformed request");
    /// A value breaks a rule: `field` names it (a dotted path) and `detail`
    /// the rule. Nothing was changed. Fix the value; for a client seed,
    /// ask the player for another.
    InvalidRequest = ("invalid-request", UNPROCESSABLE_ENTITY, "Invalid request");
    /// No valid operator key: send `Authorization: Bearer fdk_…` with a key
    /// made by `fairdeal keys create` that is not revoked. On a public
    /// read, a key that is present must be valid too.
    Unauthorized = ("unauthorized", UNAUTHORIZED, "Unauthorized");
    /// No such resource (or it belongs to another tenant), or no endpoint
    /// at this path. Check the id; openapi.yaml lists the endpoints.
    NotFound = ("not-found", NOT_FOUND, "Not found");
    /// This path does not take that method; openapi.yaml lists the methods.
    MethodNotAllowed = ("method-not-allowed", METHOD_NOT_ALLOWED, "Method not allowed");
    /// The request was not read and answered in time (a slow body, or a
    /// slow database). A deal may still have been dealt: retry it with the
    /// same Idempotency-Key to get that round, not a new one.
    RequestTimeout = ("request-timeout", REQUEST_TIMEOUT, "Request timeout");
    /// The body is over the endpoint's limit (16 KiB for JSON bodies; an
    /// uploaded list has its own). Send less.
    BodyTooLarge = ("body-too-large", PAYLOAD_TOO_LARGE, "Request body too large");
    /// The body's media type or encoding is not taken: JSON bodies must be
    /// `application/json`, UTF-8, not compressed; an entrant list is
    /// `text/plain`.
    UnsupportedMediaType = ("unsupported-media-type", UNSUPPORTED_MEDIA_TYPE, "Unsupported media type");
    /// The seed pair does not take this now: it awaits its client seed (set
    /// it first), or it is revealed (deal on its successor, named in the
    /// pair), or it is a table still collecting its seats' contributions.
    PairNotActive = ("pair-not-active", CONFLICT, "Seed pair not active");
    /// The pair dealt its last nonce (2^53 − 1, the most the log states
    /// exactly; for a chain pair, the last round of its chain). Rotate it
    /// and deal on the successor.
    PairExhausted = ("pair-exhausted", CONFLICT, "Seed pair exhausted");
    /// The pair already has another client seed; a client seed is set once.
    /// (The same seed again is answered as a retry.) Rotate to give the
    /// player a new one.
    ClientSeedAlreadySet = ("client-seed-already-set", CONFLICT, "Client seed already set");
    /// Another of the tenant's pairs that is not revealed holds this client
    /// seed or one that looks like it (for a draw: another draw of the same
    /// list): the operator could deal each hand on both and show the one it
    /// liked. Ask the player for another seed, or rotate the other pair
    /// first; `"allow_reuse": true` insists, and the log shows it.
    ClientSeedInUse = ("client-seed-in-use", CONFLICT, "Client seed in use");
    /// The pair is a table: its client seed is derived from its seats'
    /// contributions, never set.
    TableClientSeed = ("table-client-seed", CONFLICT, "Client seed of a table");
    /// Rounds of the pair are still in play (`rounds_in_play` lists them);
    /// revealing the seed now would show their undealt cards. Close them,
    /// then rotate again.
    RoundsInPlay = ("rounds-in-play", CONFLICT, "Rounds still in play");
    /// The draw's list is still being uploaded by another request; wait for
    /// it to finish, or start a new draw.
    UploadInProgress = ("upload-in-progress", CONFLICT, "Upload in progress");
    /// The draw cannot run yet (its client seed is not set) or cannot take
    /// this any more (it is drawn).
    DrawNotReady = ("draw-not-ready", CONFLICT, "Draw not ready");
    /// A restored database lost this draw's client seed or result (the
    /// log holds them; `fairdeal recover` found them lost). Drawing it
    /// again with another seed would be a re-roll, so it never takes a
    /// client seed or runs: announce it void and commit a new draw.
    DrawLostInRestore = ("draw-lost-in-restore", CONFLICT, "Draw lost in a restore");
    /// The draw's list was committed by its hash alone: the operator keeps
    /// the list and the service has none to serve. Ask the operator for it;
    /// its SHA-256 must be the draw's `entries_sha256`.
    ListNotHeld = ("list-not-held", CONFLICT, "List not held");
    /// The pair is not a table: it has no seats.
    NotATable = ("not-a-table", CONFLICT, "Not a table");
    /// The table is not collecting seats' commitments or contributions now
    /// (it is active, revealed or void).
    TableNotCollecting = ("table-not-collecting", CONFLICT, "Table not collecting");
    /// The table's phase deadline has passed: it is void, or about to be.
    PastTheDeadline = ("past-the-deadline", CONFLICT, "Past the deadline");
    /// Seats are still committing: no contribution is revealed until every
    /// seat has committed.
    SeatsStillCommitting = ("seats-still-committing", CONFLICT, "Seats still committing");
    /// Every seat has committed: the commit phase is over.
    CommitPhaseOver = ("commit-phase-over", CONFLICT, "Commit phase over");
    /// The seat already committed to another contribution.
    SeatAlreadyCommitted = ("seat-already-committed", CONFLICT, "Seat already committed");
    /// This API key made more requests than its limit in this process
    /// (`RateLimit-Policy` states it: `q` requests at once, refilled over
    /// `w` seconds). The request was not handled: nothing was dealt or
    /// changed. Wait the `Retry-After` seconds and send it again (a deal
    /// with the same Idempotency-Key); `RateLimit` on every answer says how
    /// many remain.
    RateLimited = ("rate-limited", TOO_MANY_REQUESTS, "Rate limited");
    /// The service is starting or stopping, or over a limit; retry after
    /// the `Retry-After` delay.
    ServiceUnavailable = ("service-unavailable", SERVICE_UNAVAILABLE, "Service unavailable");
    /// The database did not answer in time. Nothing is wrong with the
    /// request: retry after the `Retry-After` delay (a deal with the same
    /// Idempotency-Key, so a round dealt meanwhile is the one answered).
    DatabaseUnavailable = ("database-unavailable", SERVICE_UNAVAILABLE, "Database unavailable");
    /// The database is behind the transparency log: it was restored from a
    /// backup, a snapshot or a lagging replica, and holds fewer entries
    /// than were already acknowledged or published (or other ones). Nothing
    /// is dealt, drawn or signed until an operator runs `fairdeal recover`;
    /// reads go on. Retry after the `Retry-After` delay with the same
    /// Idempotency-Key: a deal retried after the recovery is never a hand
    /// dealt before.
    DatabaseBehindLog = ("database-behind-log", SERVICE_UNAVAILABLE, "Database behind its log");
    /// The server failed; the cause is in its log, not in the answer. A
    /// deal may still have been dealt: retry with the same Idempotency-Key.
    InternalError = ("internal-error", INTERNAL_SERVER_ERROR, "Internal error");
}

#[cfg(test)]
mod tests {
    use super::ProblemKind;

    #[test]
    fn every_kind_has_its_own_uri_and_title() {
        let mut uris: Vec<&str> = ProblemKind::ALL.iter().map(|k| k.uri()).collect();
        let mut titles: Vec<&str> = ProblemKind::ALL.iter().map(|k| k.title()).collect();
        uris.sort_unstable();
        uris.dedup();
        titles.sort_unstable();
        titles.dedup();
        assert_eq!(uris.len(), ProblemKind::ALL.len());
        assert_eq!(titles.len(), ProblemKind::ALL.len());
        for kind in ProblemKind::ALL {
            assert!(kind.uri().starts_with("/problems/"));
            assert!(kind.explanation().len() > 40, "{kind:?}");
            assert!(kind.status().is_client_error() || kind.status().is_server_error());
        }
    }
}
