//! The HTTP service, in one test binary.
//!
//! - `harness`: a fresh database per test (SQLite, or PostgreSQL with
//!   `TEST_DATABASE_URL`), the server in this process (`spawn_app`,
//!   `on_both_backends!`) or as the real `fairdeal serve` (`Deployment`,
//!   `Server`), and the one HTTP client (`Client`, `Reply`).
//! - In-process, each scenario on SQLite and on PostgreSQL: `seed_pairs`
//!   (commit, client seed, rotate, reveal), `rounds` (concurrent deals,
//!   paging, idempotent retries), `verify` (`POST /v1/verify`), `export`
//!   (`GET /v1/export`, `fairdeal export`, `fairdeal audit URL`), `tables`
//!   (table pairs: seats commit and reveal, voids, rotation, and their
//!   export, audit and monitor), `migrations` (upgrading a database that
//!   holds pairs and rounds), `auth`
//!   (operator keys), `bad_input` (one table of refused requests), `ops`
//!   (health, metrics, and `openapi.yaml` kept equal to the generated
//!   description).
//! - `process`: the real binary: secrecy scans of responses, logs, metrics and
//!   database; SIGTERM; SIGKILL mid-stream and restart; two processes on one
//!   PostgreSQL.
//! - `web_page`: the verification page in headless Chromium
//!   (web/tests/e2e.mjs) against the real binary.

mod harness;
mod identity;
use fairdeal_test_support::{snapshot, witness_process};

mod auth;
mod bad_input;
mod chain_probes;
mod chains;
mod draws;
mod evidence;
mod export;
mod limits;
mod listings;
mod log;
mod lookalikes;
mod migrations;
mod monitor;
mod ops;
mod outages;
mod player_evidence;
mod process;
mod restore;
mod rounds;
mod seed_pairs;
mod store;
mod tables;
mod tenants;
mod verify;
mod web_page;
mod witnesses;
