//! The transparency log's service side, in one wing: the `mirror` every
//! entry is written to outside the database before its event is answered,
//! the `integrator` that folds new entries into the tree and signs
//! checkpoints (never past the mirror), `witnessing` (checkpoints sent to
//! witnesses, their cosignatures kept, a witness ahead of a restored
//! database stopping writes), the `witness_set` every process follows (kept
//! in the database, each change logged), the `tile_cache` of full tiles served under
//! `/log/tile/`, and a pair's `evidence` in bulk (a multiproof). The log's
//! format and checks are `crate::tlog`'s; its tables are the store's
//! (`store/log.rs`); its HTTP side is `http/log.rs`, `http/receipts.rs`
//! and `http/transparency.rs`.

pub mod evidence;
pub mod integrator;
pub mod mirror;
pub mod tile_cache;
pub mod witness_set;
pub mod witnessing;
