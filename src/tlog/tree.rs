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

/// The right edge of the tree as leaves arrive: the roots of its complete
/// subtrees, largest first (RFC 6962's root of any size folds them).
#[derive(Debug, Default)]
struct CompactRange {
    leaves: u64,
    /// (height, hash), heights strictly decreasing.
    stack: Vec<(u32, Hash)>,
}

impl CompactRange {
    /// Appends a leaf; `complete` gets every subtree hash it completes, as
    /// (height, index at that height, hash), the leaf itself first.
    fn push(&mut self, leaf: Hash, mut complete: impl FnMut(u32, u64, Hash)) {
        let index = self.leaves;
        self.leaves += 1;
        complete(0, index, leaf);
        let mut node = (0u32, leaf);
        while let Some(&(height, left)) = self.stack.last() {
            if height != node.0 {
                break;
            }
            self.stack.pop();
            let hash = tlog_tiles::node_hash(left, node.1);
            node = (height + 1, hash);
            complete(node.0, index >> node.0, hash);
        }
        self.stack.push(node);
    }

    /// The root of the leaves so far (SHA-256 of nothing for none).
    fn root(&self) -> Hash {
        use sha2::Digest as _;
        let mut iter = self.stack.iter().rev();
        let Some(&(_, mut root)) = iter.next() else {
            return Hash(sha2::Sha256::digest(b"").into());
        };
        for &(_, left) in iter {
            root = tlog_tiles::node_hash(left, root);
        }
        root
    }
}

/// A hash tile whose hashes are all known: level, index, the hashes it
/// holds (its width is their count).
#[derive(Debug)]
pub struct ExpectedTile {
    pub level: u8,
    pub index: u64,
    hashes: Vec<Hash>,
}

impl ExpectedTile {
    pub fn width(&self) -> u64 {
        self.hashes.len() as u64
    }

    /// The tile's bytes, as served.
    pub fn bytes(&self) -> Vec<u8> {
        self.hashes.iter().flat_map(|h| h.0).collect()
    }
}

/// The tree and its hash tiles, built as entries arrive, in memory that
/// grows with the tree's height, not its size: the right edge (a compact
/// range) and the tile being filled at each level. A reader checks a log
/// with it; a writer of tiles makes them with it.
#[derive(Debug, Default)]
pub struct TileBuilder {
    range: CompactRange,
    /// The hashes of the tile being filled, by level.
    filling: Vec<Vec<Hash>>,
}

impl TileBuilder {
    /// Entries taken so far.
    pub fn leaves(&self) -> u64 {
        self.range.leaves
    }

    /// The root of the entries so far.
    pub fn root(&self) -> Hash {
        self.range.root()
    }

    /// Takes the next entry; the tiles it completes (full ones, lowest
    /// level first).
    pub fn push(&mut self, entry: &[u8]) -> Vec<ExpectedTile> {
        self.push_hash(record_hash(entry))
    }

    /// [`TileBuilder::push`] of an entry whose record hash is `leaf`
    /// (computed elsewhere, for instance on another thread).
    pub fn push_hash(&mut self, leaf: Hash) -> Vec<ExpectedTile> {
        let width = crate::tlog::tiles::TILE_WIDTH;
        let filling = &mut self.filling;
        let mut ready = Vec::new();
        self.range.push(leaf, |height, at, hash| {
            if height % 8 != 0 {
                return;
            }
            let level = (height / 8) as usize;
            if filling.len() <= level {
                filling.resize_with(level + 1, Vec::new);
            }
            filling[level].push(hash);
            if at % width == width - 1 {
                ready.push(ExpectedTile {
                    level: level as u8,
                    index: at / width,
                    hashes: std::mem::take(&mut filling[level]),
                });
            }
        });
        ready
    }

    /// The partial tiles at the right edge, once every entry is in.
    pub fn partial_tiles(&self) -> Vec<ExpectedTile> {
        let leaves = self.range.leaves;
        let mut tiles = Vec::new();
        for (level, hashes) in self.filling.iter().enumerate() {
            if !hashes.is_empty() {
                let count = leaves >> (level * 8);
                tiles.push(ExpectedTile {
                    level: level as u8,
                    index: count / crate::tlog::tiles::TILE_WIDTH,
                    hashes: hashes.clone(),
                });
            }
        }
        tiles
    }

    /// Its state as bytes, to resume from ([`TileBuilder::from_bytes`]):
    /// the leaves, the right edge and the tiles being filled.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.range.leaves.to_be_bytes().to_vec();
        out.extend((self.range.stack.len() as u32).to_be_bytes());
        for (height, hash) in &self.range.stack {
            out.extend(height.to_be_bytes());
            out.extend(hash.0);
        }
        out.extend((self.filling.len() as u32).to_be_bytes());
        for level in &self.filling {
            out.extend((level.len() as u32).to_be_bytes());
            for hash in level {
                out.extend(hash.0);
            }
        }
        out
    }

    /// A builder resumed from [`TileBuilder::to_bytes`]; `None` when the
    /// bytes are not one.
    pub fn from_bytes(mut bytes: &[u8]) -> Option<Self> {
        fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, rest) = bytes.split_at_checked(n)?;
            *bytes = rest;
            Some(head)
        }
        let u32_of = |bytes: &mut &[u8]| -> Option<u32> {
            Some(u32::from_be_bytes(take(bytes, 4)?.try_into().ok()?))
        };
        let hash_of =
            |bytes: &mut &[u8]| -> Option<Hash> { Some(Hash(take(bytes, 32)?.try_into().ok()?)) };
        let leaves = u64::from_be_bytes(take(&mut bytes, 8)?.try_into().ok()?);
        let mut stack = Vec::new();
        for _ in 0..u32_of(&mut bytes)?.min(64) {
            let height = u32_of(&mut bytes)?;
            stack.push((height, hash_of(&mut bytes)?));
        }
        let mut filling = Vec::new();
        for _ in 0..u32_of(&mut bytes)?.min(8) {
            let mut level = Vec::new();
            for _ in 0..u32_of(&mut bytes)?.min(256) {
                level.push(hash_of(&mut bytes)?);
            }
            filling.push(level);
        }
        // The right edge is one subtree per bit of `leaves`, highest first;
        // the tile being filled at each level holds the nodes of that level
        // past its last full tile.
        let heights: Vec<u32> = (0..64u32).rev().filter(|h| leaves >> h & 1 == 1).collect();
        let edge = stack.iter().map(|(h, _)| *h).eq(heights);
        let tiles = (0..8usize).all(|level| {
            let expected = ((leaves >> (8 * level)) % crate::tlog::tiles::TILE_WIDTH) as usize;
            filling.get(level).map_or(0, Vec::len) == expected
        });
        (bytes.is_empty() && edge && tiles).then_some(Self {
            range: CompactRange { leaves, stack },
            filling,
        })
    }
}

/// Every stored hash of a log of `entries`, in memory (for tests, tools and
/// fuzzing: the service keeps its own in the database).
pub fn stored_hashes_of<E: AsRef<[u8]>>(entries: &[E]) -> anyhow::Result<MemoryHashes> {
    let mut stored = MemoryHashes::default();
    for (n, entry) in entries.iter().enumerate() {
        let added = append(n as u64, entry.as_ref(), &stored)?;
        let first = first_stored_index(n as u64);
        for (i, hash) in added.into_iter().enumerate() {
            stored.0.insert(first + i as u64, hash);
        }
    }
    Ok(stored)
}

/// Every hash tile of a tree of `size` leaves, read from its stored hashes
/// as a log serves them: (level, index, bytes), full tiles and the partial
/// one at the right edge of each level.
pub fn hash_tiles(size: u64, stored: &MemoryHashes) -> anyhow::Result<Vec<(u8, u64, Vec<u8>)>> {
    use crate::tlog::tiles::TILE_WIDTH;
    let mut tiles = Vec::new();
    for level in 0..8u8 {
        let count = size >> (u32::from(level) * 8);
        for index in 0..count.div_ceil(TILE_WIDTH) {
            let width = (count - index * TILE_WIDTH).min(TILE_WIDTH);
            let indexes: Vec<u64> = (0..width)
                .map(|k| tlog_tiles::stored_hash_index(level * 8, index * TILE_WIDTH + k))
                .collect();
            let hashes = stored.read_hashes(&indexes)?;
            tiles.push((level, index, hashes.iter().flat_map(|h| h.0).collect()));
        }
    }
    Ok(tiles)
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

    /// The RFC 6962 vectors of Certificate Transparency's reference code
    /// (transparency-dev/merkle, `testonly/constants.go`,
    /// `testonly/reference_test.go`, `proof/verify_test.go`): eight leaves,
    /// the root of every size, and published inclusion and consistency
    /// proofs, which this tree must produce and accept byte for byte.
    #[test]
    fn certificate_transparency_reference_vectors() {
        const LEAVES: [&str; 8] = [
            "",
            "00",
            "10",
            "2021",
            "3031",
            "40414243",
            "5051525354555657",
            "606162636465666768696a6b6c6d6e6f",
        ];
        const ROOTS: [&str; 8] = [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        // (leaf index, tree size, proof)
        const INCLUSION: [(u64, u64, &[&str]); 6] = [
            (0, 1, &[]),
            (
                0,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                5,
                8,
                &[
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (
                2,
                3,
                &["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
            ),
            (
                1,
                5,
                &[
                    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
            (
                1,
                2,
                &["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"],
            ),
        ];
        // (old size, new size, proof)
        const CONSISTENCY: [(u64, u64, &[&str]); 5] = [
            (1, 1, &[]),
            (
                1,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                2,
                5,
                &[
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
            (
                6,
                8,
                &[
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (
                6,
                7,
                &[
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
        ];
        let hash = |text: &str| {
            Hash(
                hex::decode(text)
                    .expect("hex")
                    .try_into()
                    .expect("32 bytes"),
            )
        };
        let leaves: Vec<Vec<u8>> = LEAVES
            .iter()
            .map(|l| hex::decode(l).expect("hex"))
            .collect();
        let mut stored = MemoryHashes::default();
        for (n, leaf) in leaves.iter().enumerate() {
            let n = n as u64;
            let added = append(n, leaf, &stored).expect("append");
            for (offset, h) in added.into_iter().enumerate() {
                stored.0.insert(first_stored_index(n) + offset as u64, h);
            }
            assert_eq!(
                tree_hash(n + 1, &stored).expect("root"),
                hash(ROOTS[n as usize]),
                "root of size {}",
                n + 1
            );
        }
        for (index, size, expected) in INCLUSION {
            let expected: Vec<Hash> = expected.iter().map(|h| hash(h)).collect();
            let root = hash(ROOTS[size as usize - 1]);
            let made = inclusion_proof(size, index, &stored).expect("proof");
            assert_eq!(made, expected, "inclusion of {index} in {size}");
            assert!(check_inclusion(
                &expected,
                size,
                root,
                index,
                &leaves[index as usize]
            ));
            let other = &leaves[(index as usize + 1) % 8];
            assert!(!check_inclusion(&expected, size, root, index, other));
        }
        for (old, size, expected) in CONSISTENCY {
            let expected: Vec<Hash> = expected.iter().map(|h| hash(h)).collect();
            let (old_root, root) = (
                hash(ROOTS[old as usize - 1]),
                hash(ROOTS[size as usize - 1]),
            );
            let made = consistency_proof(size, old, &stored).expect("proof");
            assert_eq!(made, expected, "consistency of {old} with {size}");
            assert!(check_consistency(&expected, size, root, old, old_root));
            if old != size {
                assert!(!check_consistency(&expected, size, root, old, root));
            }
        }
        // Go's sumdb tlog TestFormatTree: RecordHash("hello world").
        assert_eq!(
            record_hash(b"hello world").to_string(),
            "TszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0="
        );
    }
}
