//! A seed pair's log evidence in bulk: a page of its rounds' log entries and
//! ONE deduplicated set of tree nodes from which a reader recomputes the root
//! of one signed checkpoint (a multiproof), instead of one inclusion proof
//! and one request per round. The verification page checks a pair of
//! 100,000 rounds this way (docs/TRANSPARENCY.md, "A pair's evidence in
//! bulk").

use std::collections::BTreeSet;

use crate::service::store::{LogCheckpoint, RoundLogRow, Store};

/// A complete subtree of the tree: `level` (its height; 0 is a leaf) and
/// `index` (its place among the subtrees of that level, from the left). It
/// covers leaves `[index·2^level, (index+1)·2^level)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Node {
    pub level: u8,
    pub index: u64,
}

/// The complete subtrees whose hashes, with the leaves at `leaves` (sorted,
/// distinct, each below `size`), determine the RFC 6962 root of the tree of
/// `size` leaves; in the order the recursion meets them (left to right).
///
/// The tree of `[lo, hi)` is split where RFC 6962 splits it (at the largest
/// power of two below its width); a range that holds none of `leaves` and is
/// a complete subtree is one node, and a range that is one of `leaves` is
/// that leaf. A reader recomputes the root by the same recursion, hashing
/// every range that holds one of its leaves and taking the node for every
/// other, so no node can stand in for a leaf it checks.
pub fn proof_nodes(size: u64, leaves: &[u64]) -> Vec<Node> {
    fn walk(lo: u64, hi: u64, leaves: &[u64], out: &mut Vec<Node>) {
        let width = hi - lo;
        if leaves.is_empty() && width.is_power_of_two() {
            let level = width.trailing_zeros();
            out.push(Node {
                level: level as u8,
                index: lo >> level,
            });
            return;
        }
        if width == 1 {
            return; // one of the leaves
        }
        let k = 1u64 << (63 - (width - 1).leading_zeros());
        let split = leaves.partition_point(|&leaf| leaf < lo + k);
        walk(lo, lo + k, &leaves[..split], out);
        walk(lo + k, hi, &leaves[split..], out);
    }
    let mut out = Vec::new();
    if size > 0 {
        walk(0, size, leaves, &mut out);
    }
    out
}

/// One round's part of the evidence.
#[derive(Debug)]
pub struct RoundEvidence {
    pub round: String,
    pub nonce: i64,
    pub log_index: Option<u64>,
    /// The entry's bytes (none for a round dealt before the log).
    pub entry: Option<Vec<u8>>,
    /// Whether the entry is in the checkpoint (below its size).
    pub in_checkpoint: bool,
}

/// A page of a pair's evidence against one checkpoint.
#[derive(Debug)]
pub struct PairEvidence {
    /// The checkpoint proven against; none while the log has none.
    pub checkpoint: Option<LogCheckpoint>,
    pub rounds: Vec<RoundEvidence>,
    /// Each node with its hash, by (level, index).
    pub nodes: Vec<(Node, [u8; 32])>,
    /// The last nonce of this page when more rounds follow.
    pub next_after: Option<i64>,
}

/// Why a page of evidence cannot be given.
#[derive(Debug)]
pub enum EvidenceRefused {
    /// No checkpoint of the asked size was signed.
    NoCheckpointOfSize { size: u64, latest: u64 },
}

/// A page of the pair's rounds (nonce > `after`, at most `limit`) with their
/// entries and the nodes that prove them in the checkpoint of `size`
/// entries (the latest when `None`).
pub async fn pair_evidence(
    store: &Store,
    pair_id: &str,
    after: Option<i64>,
    limit: u32,
    size: Option<u64>,
) -> anyhow::Result<Result<PairEvidence, EvidenceRefused>> {
    let latest = store.log_checkpoint().await?;
    let checkpoint = match size {
        None => latest,
        Some(size) => match store.log_checkpoint_of_size(size).await? {
            Some(checkpoint) => Some(checkpoint),
            None => {
                return Ok(Err(EvidenceRefused::NoCheckpointOfSize {
                    size,
                    latest: latest.map_or(0, |c| c.size),
                }));
            }
        },
    };
    let tree_size = checkpoint.as_ref().map_or(0, |c| c.size);
    let rows: Vec<RoundLogRow> = store
        .rounds_with_log_entries(pair_id, after, i64::from(limit) + 1)
        .await?;
    let more = rows.len() > limit as usize;
    let rounds: Vec<RoundEvidence> = rows
        .into_iter()
        .take(limit as usize)
        .map(|row| {
            let log_index = row.log_index.and_then(|i| u64::try_from(i).ok());
            RoundEvidence {
                in_checkpoint: log_index.is_some_and(|i| i < tree_size) && row.entry.is_some(),
                round: row.id,
                nonce: row.nonce,
                log_index,
                entry: row.entry,
            }
        })
        .collect();
    let leaves: BTreeSet<u64> = rounds
        .iter()
        .filter(|r| r.in_checkpoint)
        .filter_map(|r| r.log_index)
        .collect();
    let leaves: Vec<u64> = leaves.into_iter().collect();
    let nodes = if leaves.is_empty() {
        Vec::new()
    } else {
        proof_nodes(tree_size, &leaves)
    };
    let indexes: Vec<u64> = nodes
        .iter()
        .map(|n| tlog_tiles::stored_hash_index(n.level, n.index))
        .collect();
    let hashes = store.log_hashes_by_index(&indexes).await?;
    let nodes = nodes
        .into_iter()
        .zip(&indexes)
        .map(|(node, index)| (node, hashes[index]))
        .collect();
    let next_after = if more {
        rounds.last().map(|r| r.nonce)
    } else {
        None
    };
    Ok(Ok(PairEvidence {
        checkpoint,
        rounds,
        nodes,
        next_after,
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use sha2::{Digest, Sha256};

    use super::*;
    use crate::tlog::tree::{self, record_hash};

    fn node_hash(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update([1u8]);
        h.update(left);
        h.update(right);
        h.finalize().into()
    }

    /// The reader's side: the root from the leaves' hashes and the nodes, or
    /// None when a needed hash is missing.
    fn root_from(
        lo: u64,
        hi: u64,
        leaves: &HashMap<u64, [u8; 32]>,
        nodes: &HashMap<Node, [u8; 32]>,
    ) -> Option<[u8; 32]> {
        let width = hi - lo;
        let holds = leaves.keys().any(|&l| lo <= l && l < hi);
        if !holds && width.is_power_of_two() {
            let level = width.trailing_zeros();
            return nodes
                .get(&Node {
                    level: level as u8,
                    index: lo >> level,
                })
                .copied();
        }
        if width == 1 {
            return leaves.get(&lo).copied();
        }
        let k = 1u64 << (63 - (width - 1).leading_zeros());
        Some(node_hash(
            &root_from(lo, lo + k, leaves, nodes)?,
            &root_from(lo + k, hi, leaves, nodes)?,
        ))
    }

    #[test]
    fn the_nodes_and_the_leaves_give_the_root_of_every_size() {
        let entries: Vec<Vec<u8>> = (0..300u32)
            .map(|i| format!("entry {i}").into_bytes())
            .collect();
        let stored = tree::stored_hashes_of(&entries).expect("hashes");
        for size in [1u64, 2, 3, 7, 8, 9, 100, 255, 256, 257, 300] {
            let root = tree::tree_hash(size, &stored).expect("root").0;
            for leaves in [
                vec![0],
                vec![size - 1],
                (0..size).step_by(3).collect::<Vec<_>>(),
                (size / 2..size).collect(),
                (0..size).collect(),
            ] {
                let nodes = proof_nodes(size, &leaves);
                let unique: BTreeSet<Node> = nodes.iter().copied().collect();
                assert_eq!(unique.len(), nodes.len(), "no node twice");
                let hashes: HashMap<Node, [u8; 32]> = nodes
                    .iter()
                    .map(|n| {
                        let index = tlog_tiles::stored_hash_index(n.level, n.index);
                        (*n, stored.0[&index].0)
                    })
                    .collect();
                let leaf_hashes: HashMap<u64, [u8; 32]> = leaves
                    .iter()
                    .map(|&l| (l, record_hash(&entries[l as usize]).0))
                    .collect();
                assert_eq!(
                    root_from(0, size, &leaf_hashes, &hashes),
                    Some(root),
                    "size {size}, leaves {leaves:?}"
                );
                // A changed entry gives another root.
                let mut changed = leaf_hashes.clone();
                changed.insert(leaves[0], record_hash(b"another entry").0);
                assert_ne!(root_from(0, size, &changed, &hashes), Some(root));
            }
        }
    }

    #[test]
    fn contiguous_rounds_need_few_nodes() {
        // 1,000 leaves in a row of a tree of a million: the two edges only.
        let leaves: Vec<u64> = (500_000..501_000).collect();
        assert!(proof_nodes(1_000_000, &leaves).len() <= 2 * 20);
    }
}
