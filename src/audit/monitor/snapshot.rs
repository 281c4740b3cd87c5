//! A checker's memory at the end of an accepted run, as a CBOR snapshot
//! beside the monitor's state file (packed, and hashed as it is written and
//! read), to resume from.

use super::*;

/// A checker's memory at the end of an accepted run, to resume from: the
/// state it accepted, the tree at that size, and what its entries left to
/// check. Written beside the monitor's state file.
#[derive(Serialize, Deserialize)]
pub struct Snapshot {
    pub(super) format: String,
    pub(super) state: MonitorState,
    pub(super) tree: Bytes,
    pub(super) memory: Memory,
}

/// A reader or writer that hashes what passes through it.
pub(super) struct Hashing<T> {
    pub(super) inner: T,
    pub(super) hasher: Sha256,
}

impl<T: std::io::Write> std::io::Write for Hashing<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<T: std::io::Read> std::io::Read for Hashing<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// The format of a [`Snapshot`]: a snapshot of another is not resumed.
pub(super) const SNAPSHOT_FORMAT: &str = "fairdeal-monitor-snapshot-5";

/// Bytes, serialized as one byte string.
#[derive(Default)]
pub(super) struct Bytes(pub(super) Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        deserializer.deserialize_byte_buf(Visit)
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

// The large parts of a snapshot (an id per pair, a key per client seed, a
// group per client seed) are written as lists of byte strings, each of
// [`CHUNK`] records at most: written and read back a chunk at a time, a
// million pairs' worth in a fraction of a second and little memory beyond
// the checker's own.

/// Writes `records` as byte strings of [`CHUNK`] records at most.
pub(super) fn write_records<S: serde::Serializer, const N: usize>(
    s: S,
    records: impl Iterator<Item = [u8; N]>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq as _;
    let mut records = records.peekable();
    let mut seq = s.serialize_seq(None)?;
    while records.peek().is_some() {
        let chunk: Vec<u8> = records.by_ref().take(CHUNK).flatten().collect();
        seq.serialize_element(&Bytes(chunk))?;
    }
    seq.end()
}

/// Reads what [`write_records`] wrote, handing each record to `each`.
pub(super) fn read_records<'de, D: serde::Deserializer<'de>, const N: usize>(
    d: D,
    each: impl FnMut([u8; N]) -> Result<(), String>,
) -> Result<(), D::Error> {
    struct Visit<F, const N: usize>(F);
    impl<'de, F: FnMut([u8; N]) -> Result<(), String>, const N: usize> serde::de::Visitor<'de>
        for Visit<F, N>
    {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of byte strings of {N}-byte records")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            use serde::de::Error as _;
            while let Some(Bytes(chunk)) = seq.next_element()? {
                if !chunk.len().is_multiple_of(N) {
                    return Err(A::Error::custom(format!(
                        "a chunk of {N}-byte records is {} bytes",
                        chunk.len()
                    )));
                }
                for record in chunk.chunks_exact(N) {
                    let mut bytes = [0; N];
                    bytes.copy_from_slice(record);
                    (self.0)(bytes).map_err(A::Error::custom)?;
                }
            }
            Ok(())
        }
    }
    d.deserialize_seq(Visit(each))
}

pub(super) fn split16(record: &[u8]) -> ([u8; 16], &[u8]) {
    let mut head = [0; 16];
    head.copy_from_slice(&record[..16]);
    (head, &record[16..])
}

pub(super) mod packed_ids {
    use super::*;

    pub fn serialize<S: serde::Serializer>(
        ids: &SortedMap<Id, ()>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        write_records(s, ids.iter().map(|(id, ())| id.0))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<SortedMap<Id, ()>, D::Error> {
        let mut ids = Vec::new();
        read_records::<D, 17>(d, |record| {
            ids.push((Id(record), ()));
            Ok(())
        })?;
        Ok(SortedMap::from_records(ids.into_iter()))
    }
}

pub(super) mod packed_keys {
    use super::*;

    pub fn serialize<S: serde::Serializer>(
        keys: &SortedMap<[u8; 16], u32>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        write_records(
            s,
            keys.iter().map(|(key, group)| {
                let mut record = [0; 20];
                record[..16].copy_from_slice(&key);
                record[16..].copy_from_slice(&group.to_be_bytes());
                record
            }),
        )
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<SortedMap<[u8; 16], u32>, D::Error> {
        let mut keys = Vec::new();
        read_records::<D, 20>(d, |record| {
            let (key, group) = split16(&record);
            let group = u32::from_be_bytes(group.try_into().map_err(|_| "a short record")?);
            keys.push((key, group));
            Ok(())
        })?;
        Ok(SortedMap::from_records(keys.into_iter()))
    }
}

pub(super) mod packed_groups {
    use super::*;

    /// Every group's first item and its hash; then the groups of more than
    /// one, by position.
    pub fn serialize<S: serde::Serializer>(
        groups: &Chunked<Group>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        struct Heads<'a>(&'a Chunked<Group>);
        impl Serialize for Heads<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                write_records(
                    s,
                    self.0.iter().map(|g| {
                        let mut record = [0; 33];
                        record[..17].copy_from_slice(&g.first.0);
                        record[17..].copy_from_slice(&g.first_exact);
                        record
                    }),
                )
            }
        }
        let many: Vec<(u32, &Many)> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some((i as u32, g.more.as_deref()?)))
            .collect();
        let mut tuple = s.serialize_tuple(2)?;
        tuple.serialize_element(&Heads(groups))?;
        tuple.serialize_element(&many)?;
        tuple.end()
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Chunked<Group>, D::Error> {
        struct Heads(Chunked<Group>);
        impl<'de> Deserialize<'de> for Heads {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut groups = Chunked::default();
                read_records::<D, 33>(d, |record| {
                    let mut first = [0; 17];
                    first.copy_from_slice(&record[..17]);
                    let (first_exact, _) = split16(&record[17..]);
                    groups.push(Group {
                        first: Id(first),
                        first_exact,
                        more: None,
                    });
                    Ok(())
                })?;
                Ok(Heads(groups))
            }
        }
        let (Heads(mut groups), many) = <(Heads, Vec<(u32, Many)>)>::deserialize(d)?;
        for (at, more) in many {
            let group = groups
                .get_mut(at as usize)
                .ok_or_else(|| serde::de::Error::custom("a group beyond the list"))?;
            group.more = Some(Box::new(more));
        }
        Ok(groups)
    }
}

impl Snapshot {
    /// Writes the snapshot to `out`: CBOR, then the SHA-256 of it (a
    /// snapshot damaged on disk is not read back, and costs a full run
    /// instead of a false finding).
    pub fn write(&self, out: impl std::io::Write) -> anyhow::Result<()> {
        let mut hashing = Hashing {
            inner: out,
            hasher: Sha256::new(),
        };
        ciborium::into_writer(self, &mut hashing)?;
        let digest = hashing.hasher.finalize();
        hashing.inner.write_all(&digest)?;
        Ok(())
    }

    /// A snapshot read back; `None` when what is read is not one of this
    /// format, is damaged, or does not hold together.
    pub fn read(from: impl std::io::Read) -> Option<Self> {
        use std::io::Read as _;
        let mut hashing = Hashing {
            inner: from,
            hasher: Sha256::new(),
        };
        let snapshot: Self = ciborium::from_reader(&mut hashing).ok()?;
        let digest = hashing.hasher.finalize();
        let mut trailer = Vec::new();
        hashing.inner.take(33).read_to_end(&mut trailer).ok()?;
        if trailer != digest.as_slice() {
            return None;
        }
        let m = &snapshot.memory;
        let fits = |groups: &Groups| {
            let n = groups.groups.len() as u32;
            groups.by_key.iter().all(|(_, g)| g < n)
        };
        let tables_hold =
            m.live.values().filter_map(|p| p.table.as_deref()).all(|t| {
                t.commitments.len() == t.seats.len() && t.contributed.len() == t.seats.len()
            });
        let holds = snapshot.format == SNAPSHOT_FORMAT
            && TileBuilder::from_bytes(&snapshot.tree.0).is_some()
            && fits(&m.pair_seeds)
            && fits(&m.draw_seeds)
            && tables_hold
            && m.live.values().all(|p| {
                p.group
                    .is_none_or(|g| (g as usize) < m.pair_seeds.groups.len())
            });
        holds.then_some(snapshot)
    }

    /// The state it was taken at.
    pub fn state(&self) -> &MonitorState {
        &self.state
    }

    /// How far its ledger of revealed pairs' digests goes, when it kept one.
    pub fn ledger(&self) -> Option<LedgerMark> {
        self.memory.ledger
    }
}
