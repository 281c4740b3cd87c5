//! The Merkle tree (RFC 6962: leaf = SHA-256(0x00 ‖ entry), node =
//! SHA-256(0x01 ‖ left ‖ right)) over "stored hashes", the layout of Go's
//! sumdb `tlog` package: every complete subtree's hash has a fixed index,
//! so appending leaf n writes a few new hashes and never rewrites one.
//!
//! The storage behind it is anything that answers [`HashReader`]; the
//! service keeps stored hashes in the database.

use std::collections::HashMap;

pub use tlog_tiles::{Hash, HashReader, record_hash};

/// The index at which leaf `n`'s stored hashes start.
pub fn first_stored_index(n: u64) -> u64 {
    tlog_tiles::stored_hash_index(0, n)
}

/// The stored hashes that appending `entry` as leaf `n` adds, in index order
/// from [`first_stored_index`]`(n)`. Reads a few earlier hashes from `stored`.
pub fn append(n: u64, entry: &[u8], stored: &impl HashReader) -> anyhow::Result<Vec<Hash>> {
    Ok(tlog_tiles::stored_hashes(n, entry, stored)?)
}

/// The root hash of the first `size` leaves.
pub fn tree_hash(size: u64, stored: &impl HashReader) -> anyhow::Result<Hash> {
    Ok(tlog_tiles::tree_hash(size, stored)?)
}

/// The inclusion proof of leaf `index` in the tree of `size` leaves.
pub fn inclusion_proof(
    size: u64,
    index: u64,
    stored: &impl HashReader,
) -> anyhow::Result<Vec<Hash>> {
    Ok(tlog_tiles::prove_record(size, index, stored)?)
}

/// Checks an inclusion proof of `entry` at `index` against the root of `size` leaves.
pub fn check_inclusion(proof: &[Hash], size: u64, root: Hash, index: u64, entry: &[u8]) -> bool {
    tlog_tiles::check_record(&proof.to_vec(), size, root, index, record_hash(entry)).is_ok()
}

/// The consistency proof from the tree of `old_size` leaves to `size`.
pub fn consistency_proof(
    size: u64,
    old_size: u64,
    stored: &impl HashReader,
) -> anyhow::Result<Vec<Hash>> {
    Ok(tlog_tiles::prove_tree(size, old_size, stored)?)
}

/// Checks that the tree `old_root` of `old_size` leaves is a prefix of `root`.
pub fn check_consistency(
    proof: &[Hash],
    size: u64,
    root: Hash,
    old_size: u64,
    old_root: Hash,
) -> bool {
    tlog_tiles::check_tree(&proof.to_vec(), size, root, old_size, old_root).is_ok()
}

/// Stored hashes held in memory, e.g. those fetched for one integration.
/// Reading an index it does not hold fails, naming nothing secret.
#[derive(Debug, Default)]
pub struct MemoryHashes(pub HashMap<u64, Hash>);

impl HashReader for MemoryHashes {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<Hash>, tlog_tiles::Error> {
        indexes
            .iter()
            .map(|i| {
                self.0
                    .get(i)
                    .copied()
                    .ok_or(tlog_tiles::Error::IndexesNotInTree)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// RFC 6962's tree hash, computed directly from the leaves.
    fn reference_root(leaves: &[Vec<u8>]) -> [u8; 32] {
        match leaves.len() {
            0 => Sha256::digest(b"").into(),
            1 => {
                let mut h = Sha256::new();
                h.update([0u8]);
                h.update(&leaves[0]);
                h.finalize().into()
            }
            n => {
                let k = n.next_power_of_two() / 2;
                let mut h = Sha256::new();
                h.update([1u8]);
                h.update(reference_root(&leaves[..k]));
                h.update(reference_root(&leaves[k..]));
                h.finalize().into()
            }
        }
    }

    #[test]
    fn appended_leaves_give_the_rfc_6962_root_and_proofs_verify() {
        let leaves: Vec<Vec<u8>> = (0..300u32)
            .map(|i| format!("entry {i}").into_bytes())
            .collect();
        let mut stored = MemoryHashes::default();
        let mut roots = Vec::new();
        for (n, leaf) in leaves.iter().enumerate() {
            let n = n as u64;
            let added = append(n, leaf, &stored).expect("append");
            for (offset, hash) in added.into_iter().enumerate() {
                stored.0.insert(first_stored_index(n) + offset as u64, hash);
            }
            let root = tree_hash(n + 1, &stored).expect("root");
            assert_eq!(
                root.0,
                reference_root(&leaves[..=n as usize]),
                "size {}",
                n + 1
            );
            roots.push(root);
        }
        let (size, root) = (300, roots[299]);
        for index in [0u64, 1, 128, 255, 256, 299] {
            let proof = inclusion_proof(size, index, &stored).expect("proof");
            assert!(check_inclusion(
                &proof,
                size,
                root,
                index,
                &leaves[index as usize]
            ));
            assert!(!check_inclusion(
                &proof,
                size,
                root,
                index,
                b"another entry"
            ));
        }
        for old in [1u64, 7, 256, 299] {
            let proof = consistency_proof(size, old, &stored).expect("proof");
            assert!(check_consistency(
                &proof,
                size,
                root,
                old,
                roots[old as usize - 1]
            ));
            let wrong = record_hash(b"not the root of any prefix");
            assert!(!check_consistency(&proof, size, root, old, wrong));
        }
    }
}
