//! The transparency log: every commitment, client seed, round and reveal as
//! an entry of a public, append-only Merkle tree (RFC 6962 hashing), served
//! as C2SP tlog-tiles with signed tlog-checkpoints (signed-note, Ed25519).
//!
//! This module wraps the `tlog_tiles` and `signed_note` crates (ports of
//! Go's sumdb `tlog` and `note` packages) so that they can be swapped; the
//! rest of the service speaks of entries, keys, checkpoints and tiles.
//!
//! - `entry`: what an entry says, as RFC 8785 canonical JSON.
//! - `key`: the log's Ed25519 key, its verifier key, checkpoint and receipt
//!   signatures.
//! - `tree`: the Merkle tree over stored hashes (appending, tree hash,
//!   inclusion and consistency proofs).
//! - `tiles`: C2SP tile paths and entry bundles.
//! - `integrator`: folds appended entries into the tree and signs
//!   checkpoints (the entries themselves are appended by the store, in each
//!   event's own transaction).

pub mod entry;
pub mod integrator;
pub mod key;
pub mod tiles;
pub mod tree;
