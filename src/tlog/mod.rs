//! The transparency log's formats, at the bottom of the crate: shared by the
//! service, which writes and signs the log (`service::log::integrator`, the
//! store), and by the auditor's monitor, which reads and checks it. Every
//! commitment, client seed, round and reveal is an entry of a public,
//! append-only Merkle tree (RFC 6962 hashing), published as C2SP
//! tlog-tiles with signed tlog-checkpoints (signed-note, Ed25519).
//!
//! This module wraps the `tlog_tiles` and `signed_note` crates (ports of
//! Go's sumdb `tlog` and `note` packages) so that they can be swapped; the
//! rest of the crate speaks of entries, keys, checkpoints and tiles.
//!
//! - `entry`: what an entry says, as RFC 8785 canonical JSON.
//! - `key`: the log's Ed25519 key, its verifier key, checkpoint and receipt
//!   signatures.
//! - `tree`: the Merkle tree over stored hashes (appending, tree hash,
//!   inclusion and consistency proofs).
//! - `tiles`: C2SP tile paths and entry bundles.
//!
//! The integrator that folds entries into the tree and signs checkpoints is
//! the service's (`service::log::integrator`); the entries are appended by the
//! store, in each event's own transaction.

pub mod cosignature;
pub mod entry;
pub mod key;
pub mod statement;
pub mod tiles;
pub mod tree;
