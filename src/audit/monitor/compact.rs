//! The checker's compact memory: lists that grow a chunk at a time, sorted
//! maps searched by spreading their keys, and pairs or draws grouped by their
//! client seeds. Memory is linear in the items, never their square.

use super::*;

/// Items (pairs, draws) grouped by their client seeds: an item joins the
/// group its bytes' hash or its lookalike hash (absent from entries of
/// older logs) already names. A group of one item is 33 bytes and two keys;
/// memory is linear in the items.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Groups {
    #[serde(with = "packed_keys")]
    pub(super) by_key: SortedMap<[u8; 16], u32>,
    #[serde(with = "packed_groups")]
    pub(super) groups: Chunked<Group>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct Group {
    pub(super) first: Id,
    /// The first item's hash of its bytes: a later item with other bytes
    /// makes the group a lookalike one.
    pub(super) first_exact: [u8; 16],
    /// Set once a second item joins.
    pub(super) more: Option<Box<Many>>,
}

/// Records per chunk of a [`Chunked`] list, and of a packed list in a
/// snapshot.
pub(super) const CHUNK: usize = 1 << 16;

/// A list that grows a chunk at a time: no copy of the whole when it grows,
/// and never more than a chunk of spare room (a `Vec` keeps up to half).
pub(super) struct Chunked<T> {
    pub(super) chunks: Vec<Vec<T>>,
    pub(super) len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `item`; its position.
    pub(super) fn push(&mut self, item: T) -> usize {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
        self.len - 1
    }

    pub(super) fn get_mut(&mut self, at: usize) -> Option<&mut T> {
        self.chunks.get_mut(at / CHUNK)?.get_mut(at % CHUNK)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

/// A map kept as one sorted array of its records, with the records added
/// since the last merge in a small hash map beside it: about the size of
/// its records (a hash map keeps twice as much room), at the cost of a
/// binary search a look-up. The batch is merged in once it is an eighth of
/// the array (a merge of two sorted runs).
pub(super) struct SortedMap<K, V> {
    pub(super) sorted: Vec<(K, V)>,
    pub(super) recent: HashMap<K, V>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            recent: HashMap::new(),
        }
    }
}

/// Where a key lies between the least and the greatest of its class, as a
/// number that grows with it (never shrinks when the key grows, within its
/// class; classes sort apart): the guide of [`SortedMap`]'s search.
pub(super) trait Spread {
    fn spread(&self) -> u64;

    fn class(&self) -> u8 {
        0
    }
}

impl Spread for [u8; 16] {
    fn spread(&self) -> u64 {
        u64::from_be_bytes(self[..8].try_into().unwrap_or_default())
    }
}

/// A UUID's leading bytes (random, or a time); numbered ids are another
/// class.
impl Spread for Id {
    fn spread(&self) -> u64 {
        u64::from_be_bytes(self.0[1..9].try_into().unwrap_or_default())
    }

    fn class(&self) -> u8 {
        self.0[0]
    }
}

#[cfg(test)]
impl Spread for u64 {
    fn spread(&self) -> u64 {
        *self
    }
}

/// The place of `key` in `sorted` (by `Ord`), as `binary_search` gives it:
/// first a guess where it would lie were the keys spread evenly (hashes
/// and random UUIDs are), bracketed by steps doubling away from it, twice;
/// then a binary search of what is left. A binary search of a million
/// records misses the cache about twenty times; the guess lands a few
/// hundred records away, so most steps stay near it. Keys that are not
/// spread evenly (a hostile log's) cost at most the bracketing steps more
/// than a binary search. Only keys of one class are guided (a log with a
/// numbered id among its UUIDs is searched by halves alone).
pub(super) fn search<K: Ord + Spread, V>(sorted: &[(K, V)], key: &K) -> Result<usize, usize> {
    let (mut lo, mut hi) = (0, sorted.len());
    let target = key.spread();
    for _ in 0..2 {
        if hi - lo <= 64
            || sorted[lo].0.class() != key.class()
            || sorted[hi - 1].0.class() != key.class()
        {
            break;
        }
        let (least, most) = (sorted[lo].0.spread(), sorted[hi - 1].0.spread());
        if target <= least || target >= most {
            break;
        }
        let span = (hi - 1 - lo) as u128;
        let guess = lo + (u128::from(target - least) * span / u128::from(most - least)) as usize;
        match sorted[guess].0.cmp(key) {
            std::cmp::Ordering::Equal => return Ok(guess),
            // The key lies in (guess, hi): step up until a record above it.
            std::cmp::Ordering::Less => {
                let mut step = 1;
                lo = guess + 1;
                while guess + step < hi {
                    match sorted[guess + step].0.cmp(key) {
                        std::cmp::Ordering::Equal => return Ok(guess + step),
                        std::cmp::Ordering::Less => lo = guess + step + 1,
                        std::cmp::Ordering::Greater => {
                            hi = guess + step;
                            break;
                        }
                    }
                    step *= 2;
                }
            }
            // The key lies in [lo, guess): step down.
            std::cmp::Ordering::Greater => {
                let mut step = 1;
                hi = guess;
                while step <= guess - lo {
                    match sorted[guess - step].0.cmp(key) {
                        std::cmp::Ordering::Equal => return Ok(guess - step),
                        std::cmp::Ordering::Greater => hi = guess - step,
                        std::cmp::Ordering::Less => {
                            lo = guess - step + 1;
                            break;
                        }
                    }
                    step *= 2;
                }
            }
        }
    }
    sorted[lo..hi]
        .binary_search_by(|(k, _)| k.cmp(key))
        .map(|at| lo + at)
        .map_err(|at| lo + at)
}

impl<K: Ord + std::hash::Hash + Copy + Spread, V: Copy> SortedMap<K, V> {
    pub(super) fn get(&self, key: &K) -> Option<V> {
        if let Some(value) = self.recent.get(key) {
            return Some(*value);
        }
        search(&self.sorted, key).ok().map(|at| self.sorted[at].1)
    }

    pub(super) fn contains(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Adds `key` with `value` unless it is there already.
    pub(super) fn insert_new(&mut self, key: K, value: V) {
        if self.contains(&key) {
            return;
        }
        self.recent.insert(key, value);
        if self.recent.len() >= (self.sorted.len() / 8).max(1 << 12) {
            self.merge();
        }
    }

    pub(super) fn merge(&mut self) {
        let mut batch: Vec<(K, V)> = self.recent.drain().collect();
        batch.sort_unstable_by_key(|r| r.0);
        self.sorted.reserve_exact(batch.len());
        self.sorted.extend(batch);
        // Two sorted runs: the stable sort merges them in one pass.
        self.sorted.sort_by_key(|r| r.0);
        self.recent = HashMap::new();
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.sorted
            .iter()
            .copied()
            .chain(self.recent.iter().map(|(k, v)| (*k, *v)))
    }

    /// A map of `records` (the first of a key stands).
    pub(super) fn from_records(records: impl Iterator<Item = (K, V)>) -> Self {
        let mut sorted: Vec<(K, V)> = records.collect();
        sorted.sort_by_key(|r| r.0);
        sorted.dedup_by(|later, first| later.0 == first.0);
        sorted.shrink_to_fit();
        Self {
            sorted,
            recent: HashMap::new(),
        }
    }
}

/// A group of two items or more.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Many {
    pub(super) lookalike: bool,
    pub(super) members: u64,
    /// The first [`MAX_NAMED`] members.
    pub(super) named: Vec<Id>,
    /// Members by tenant: every one (draws), or the live ones (pairs).
    pub(super) tenants: HashMap<u32, u32>,
    /// Members given the seed while another of their tenant held it live.
    pub(super) shopped: u64,
    pub(super) first_shopped_at: Option<u64>,
    pub(super) shopped_named: Vec<Id>,
}

impl Many {
    pub(super) fn count(&self, tenant: u32) -> u32 {
        self.tenants.get(&tenant).copied().unwrap_or(0)
    }

    pub(super) fn add(&mut self, tenant: u32) {
        *self.tenants.entry(tenant).or_default() += 1;
    }

    pub(super) fn release(&mut self, tenant: u32) {
        if let Some(n) = self.tenants.get_mut(&tenant) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.tenants.remove(&tenant);
            }
        }
    }

    /// Whether a member of `tenant` would overlap a live member of the same
    /// tenant (an entry without a tenant could be anyone's).
    pub(super) fn live_same_tenant(&self, tenant: u32) -> bool {
        match tenant {
            0 => !self.tenants.is_empty(),
            _ => self.count(tenant) + self.count(0) > 0,
        }
    }
}

impl Groups {
    /// The group `item` joins (and whether it is a new one); the first
    /// item of a group that grows is described by `first` (its tenant, if
    /// it counts).
    pub(super) fn join(
        &mut self,
        item: Id,
        exact: [u8; 16],
        lookalike: Option<[u8; 16]>,
        first: impl FnOnce(Id) -> Option<u32>,
    ) -> (u32, Option<&mut Many>) {
        // Both keys, always: a seed meets the same bytes whatever lookalike
        // hash an entry claims, and a lookalike whatever its bytes.
        let keys = [lookalike, Some(exact)];
        let found = keys.iter().flatten().find_map(|key| self.by_key.get(key));
        let group = match found {
            Some(group) => group,
            None => self.groups.push(Group {
                first: item,
                first_exact: exact,
                more: None,
            }) as u32,
        };
        for key in keys.iter().flatten() {
            self.by_key.insert_new(*key, group);
        }
        let Some(g) = self
            .groups
            .get_mut(group as usize)
            .filter(|_| found.is_some())
        else {
            return (group, None);
        };
        let head = g.first;
        let more = g.more.get_or_insert_with(|| {
            let mut more = Box::new(Many {
                members: 1,
                named: vec![head],
                ..Many::default()
            });
            if let Some(tenant) = first(head) {
                more.add(tenant);
            }
            more
        });
        more.members += 1;
        more.lookalike |= g.first_exact != exact;
        if more.named.len() < MAX_NAMED {
            more.named.push(item);
        }
        (group, Some(more))
    }

    /// The groups of two items or more.
    pub(super) fn many(&self) -> impl Iterator<Item = &Many> {
        self.groups.iter().filter_map(|g| g.more.as_deref())
    }
}
