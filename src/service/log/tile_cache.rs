//! Full log tiles read ahead for readers going through the log in order.
//!
//! A monitor's first run, or `audit --log`, reads every entry bundle and
//! every hash tile of the log one after the other. Each request read alone
//! is a database round trip (on SQLite a hand-off to the connection's
//! thread and back), and that, not the bytes, is most of what serving a
//! tile costs. When a full tile is asked for right after the one before it
//! (that one is still here), the next [`READ_AHEAD`] full tiles of its
//! level are read in one query and kept for the requests that follow.
//!
//! Only full tiles are kept: they never change (a tile of 256 entries or
//! hashes is fixed by the entries, which never change), so a kept tile is
//! never stale. The memory is bounded by the budget (`serve
//! --log-tile-cache-mib`), the oldest dropped first; a reader jumping about
//! reads a tile at a time, as without the cache: reading ahead needs the
//! tile before to have been served to a client, not only read ahead, and
//! stops before the first tile already kept.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use axum::body::Bytes;

/// Full tiles read in one query when a request follows its predecessor.
pub const READ_AHEAD: u64 = 16;

/// Bytes of tiles kept by default (`serve --log-tile-cache-mib`): a
/// read-ahead of entry bundles is about 1 MiB, so some fifteen readers in
/// order each find theirs.
pub const BUDGET_BYTES: usize = 16 << 20;

/// A tile: its level (-1 for entry bundles) and index.
type Key = (i32, u64);

/// Full tiles recently served or read ahead, within a byte budget.
#[derive(Debug)]
pub struct TileCache {
    budget: usize,
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    /// Each tile, and whether a client was served it (not only read ahead).
    tiles: HashMap<Key, (Bytes, bool)>,
    /// Keys in the order they were kept: the first is dropped first.
    order: VecDeque<Key>,
    bytes: usize,
}

impl Default for TileCache {
    fn default() -> Self {
        Self::with_budget(BUDGET_BYTES)
    }
}

impl TileCache {
    /// A cache keeping at most `budget` bytes of tiles (0: none, and no
    /// reading ahead).
    pub fn with_budget(budget: usize) -> Self {
        Self {
            budget,
            inner: Mutex::new(Kept::default()),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Nothing kept can be left half-changed by a panic: use it as is.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The full tile `index` of `level`, if kept, for a client: marked
    /// served.
    pub fn get(&self, level: i32, index: u64) -> Option<Bytes> {
        let mut kept = self.kept();
        let (body, served) = kept.tiles.get_mut(&(level, index))?;
        *served = true;
        Some(body.clone())
    }

    /// How many full tiles to read for a request of `index` that missed:
    /// when a client was served the tile before it (a reader in order), up
    /// to [`READ_AHEAD`] and to an eighth of the budget (by the size of
    /// the tile before), stopping before the first one kept; else one. A
    /// tile only read ahead does not count: a client skipping through the
    /// log one batch at a time gets one tile a read, not sixteen.
    pub fn to_read(&self, level: i32, index: u64) -> u64 {
        let kept = self.kept();
        let before = index
            .checked_sub(1)
            .and_then(|before| kept.tiles.get(&(level, before)))
            .filter(|(_, served)| *served);
        let Some((before, _)) = before else {
            return 1;
        };
        // Tiles of a level are about the same size: a read is held to an
        // eighth of the budget by the one before (a level of large entries
        // reads fewer ahead, none when one is an eighth of the budget).
        let fits = (self.budget / 8 / before.len().max(1)) as u64;
        let most = fits.clamp(1, READ_AHEAD);
        (1..most)
            .find(|ahead| {
                index
                    .checked_add(*ahead)
                    .is_none_or(|next| kept.tiles.contains_key(&(level, next)))
            })
            .unwrap_or(most)
    }

    /// Keeps the full tile `index` of `level` (`served`: to a client, not
    /// only read ahead), dropping the oldest kept beyond the budget (a
    /// tile larger than the budget is not kept).
    pub fn insert(&self, level: i32, index: u64, body: Bytes, served: bool) {
        if body.len() > self.budget {
            return;
        }
        let mut kept = self.kept();
        let key = (level, index);
        if kept.tiles.contains_key(&key) {
            return;
        }
        kept.bytes += body.len();
        kept.tiles.insert(key, (body, served));
        kept.order.push_back(key);
        while kept.bytes > self.budget {
            let Some(oldest) = kept.order.pop_front() else {
                break;
            };
            if let Some((dropped, _)) = kept.tiles.remove(&oldest) {
                kept.bytes -= dropped.len();
            }
        }
    }

    /// Bytes of tiles kept.
    pub fn bytes(&self) -> usize {
        self.kept().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(byte: u8, len: usize) -> Bytes {
        Bytes::from(vec![byte; len])
    }

    #[test]
    fn reads_ahead_only_for_a_request_that_follows_a_served_tile() {
        let cache = TileCache::default();
        assert_eq!(cache.to_read(-1, 0), 1);
        assert_eq!(cache.to_read(-1, 5), 1);
        cache.insert(-1, 4, tile(4, 10), true);
        assert_eq!(cache.to_read(-1, 5), READ_AHEAD);
        // Another level, or a gap, is not a reader in order.
        assert_eq!(cache.to_read(0, 5), 1);
        assert_eq!(cache.to_read(-1, 6), 1);
        assert_eq!(cache.get(-1, 4), Some(tile(4, 10)));
        assert_eq!(cache.get(0, 4), None);
        // Read ahead but never served: a request after it reads one.
        cache.insert(-1, 20, tile(20, 10), false);
        assert_eq!(cache.to_read(-1, 21), 1);
        assert_eq!(cache.get(-1, 20), Some(tile(20, 10)));
        assert_eq!(cache.to_read(-1, 21), READ_AHEAD);
        // Up to the first tile already kept, not past it.
        cache.insert(-1, 9, tile(9, 10), false);
        assert_eq!(cache.to_read(-1, 5), 4);
        assert_eq!(cache.to_read(-1, u64::MAX), 1);
    }

    #[test]
    fn keeps_within_its_budget_dropping_the_oldest() {
        let cache = TileCache::with_budget(100);
        for index in 0..10 {
            cache.insert(0, index, tile(index as u8, 30), false);
        }
        assert!(cache.bytes() <= 100, "{} bytes kept", cache.bytes());
        assert_eq!(cache.bytes(), 90);
        for index in 0..7 {
            assert_eq!(cache.get(0, index), None, "tile {index} kept");
        }
        for index in 7..10 {
            assert_eq!(cache.get(0, index), Some(tile(index as u8, 30)));
        }
        // Kept again: counted once.
        cache.insert(0, 9, tile(9, 30), true);
        assert_eq!(cache.bytes(), 90);
        // Larger than the budget: not kept, nothing dropped for it.
        cache.insert(0, 10, tile(10, 101), true);
        assert_eq!(cache.get(0, 10), None);
        assert_eq!(cache.bytes(), 90);
    }

    #[test]
    fn reads_ahead_at_most_an_eighth_of_the_budget() {
        let cache = TileCache::with_budget(8 * 1000);
        // Tiles of 100 bytes: ten fit in an eighth of the budget.
        cache.insert(0, 0, tile(0, 100), true);
        assert_eq!(cache.to_read(0, 1), 10);
        // Tiles of 250 bytes: four.
        cache.insert(-1, 0, tile(0, 250), true);
        assert_eq!(cache.to_read(-1, 1), 4);
        // A tile of an eighth of the budget or more: one at a time.
        cache.insert(1, 0, tile(0, 1000), true);
        assert_eq!(cache.to_read(1, 1), 1);
        // Small tiles: never more than READ_AHEAD.
        cache.insert(2, 0, tile(0, 1), true);
        assert_eq!(cache.to_read(2, 1), READ_AHEAD);
    }

    #[test]
    fn a_budget_of_nothing_keeps_nothing_and_never_reads_ahead() {
        let cache = TileCache::with_budget(0);
        cache.insert(-1, 0, tile(0, 1), true);
        assert_eq!(cache.get(-1, 0), None);
        assert_eq!(cache.to_read(-1, 1), 1);
        assert_eq!(cache.bytes(), 0);
    }
}
