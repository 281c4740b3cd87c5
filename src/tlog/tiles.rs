//! C2SP tlog-tiles: tile paths (`tile/<L>/<N>[.p/<W>]`,
//! `tile/entries/<N>[.p/<W>]`, N in 3-digit groups with `x` before all but
//! the last) and entry bundles (each entry a big-endian uint16 length and its
//! bytes). Tiles have height 8: a level-L tile holds up to 256 hashes of tree
//! level 8·L.

/// Hashes (or entries) in a full tile.
pub const TILE_WIDTH: u64 = 256;

/// A tile of the log: hashes of level `level`, or entries, with index `index`
/// and `width` items (a full tile has 256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TilePath {
    /// `None` for an entry bundle.
    pub level: Option<u8>,
    pub index: u64,
    pub width: u64,
}

/// `n` in C2SP's path form: `000`, `007`, `x001/x234/067`.
fn encode_index(mut n: u64) -> String {
    let mut path = format!("{:03}", n % 1000);
    while n >= 1000 {
        n /= 1000;
        path = format!("x{:03}/{path}", n % 1000);
    }
    path
}

impl TilePath {
    /// The path below the log's prefix, e.g. `tile/0/x001/234.p/5`.
    pub fn path(&self) -> String {
        let level = match self.level {
            Some(level) => level.to_string(),
            None => "entries".to_owned(),
        };
        let partial = if self.width == TILE_WIDTH {
            String::new()
        } else {
            format!(".p/{}", self.width)
        };
        format!("tile/{level}/{}{partial}", encode_index(self.index))
    }

    /// Reads a path below `tile/` (e.g. `0/x001/234.p/5`); `None` unless it
    /// is in the one canonical form.
    pub fn parse(text: &str) -> Option<Self> {
        let (level, tail) = text.split_once('/')?;
        let level = match level {
            "entries" => None,
            digits => {
                let level: u8 = digits.parse().ok()?;
                (level.to_string() == digits && level < 8).then_some(Some(level))?
            }
        };
        let (index_part, width) = match tail.split_once(".p/") {
            Some((index, width)) => {
                let width: u64 = width.parse().ok()?;
                ((1..TILE_WIDTH).contains(&width) && width.to_string() == width_text(tail))
                    .then_some((index, width))?
            }
            None => (tail, TILE_WIDTH),
        };
        let groups: Vec<&str> = index_part.split('/').collect();
        let (last, leading) = groups.split_last()?;
        let mut index: u64 = 0;
        for group in leading {
            let digits = group.strip_prefix('x')?;
            index = index
                .checked_mul(1000)?
                .checked_add(three_digits(digits)?)?;
        }
        index = index.checked_mul(1000)?.checked_add(three_digits(last)?)?;
        let tile = Self {
            level,
            index,
            width,
        };
        (tile.path() == format!("tile/{text}")).then_some(tile)
    }
}

fn width_text(tail: &str) -> &str {
    tail.split_once(".p/").map_or("", |(_, w)| w)
}

fn three_digits(text: &str) -> Option<u64> {
    (text.len() == 3 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// An entry bundle: each entry as a big-endian uint16 length, then its bytes.
pub fn entry_bundle<'a>(entries: impl IntoIterator<Item = &'a [u8]>) -> anyhow::Result<Vec<u8>> {
    let mut bundle = Vec::new();
    for entry in entries {
        let length = u16::try_from(entry.len())
            .map_err(|_| anyhow::anyhow!("a log entry is longer than 65535 bytes"))?;
        bundle.extend_from_slice(&length.to_be_bytes());
        bundle.extend_from_slice(entry);
    }
    Ok(bundle)
}

/// The entries of an entry bundle, as slices of it, in order; an error
/// (and nothing after it) where it is not one.
pub fn entries_of(bundle: &[u8]) -> impl Iterator<Item = anyhow::Result<&[u8]>> {
    let mut rest = bundle;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let Some(&[high, low]) = rest.get(..2) else {
            rest = &[];
            return Some(Err(anyhow::anyhow!("an entry bundle ends inside a length")));
        };
        let length = usize::from(u16::from_be_bytes([high, low]));
        let Some(entry) = rest.get(2..2 + length) else {
            rest = &[];
            return Some(Err(anyhow::anyhow!("an entry bundle ends inside an entry")));
        };
        rest = &rest[2 + length..];
        Some(Ok(entry))
    })
}

/// How many entries an entry bundle holds, or why it is not one, without
/// copying them (a hostile bundle of empty entries holds millions).
pub fn count_entry_bundle(bundle: &[u8]) -> anyhow::Result<usize> {
    entries_of(bundle).try_fold(0, |count, entry| entry.map(|_| count + 1))
}

/// The entries of an entry bundle, or why it is not one.
pub fn split_entry_bundle(bundle: &[u8]) -> anyhow::Result<Vec<Vec<u8>>> {
    entries_of(bundle)
        .map(|entry| entry.map(<[u8]>::to_vec))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_is_counted_as_it_is_split_and_refused_alike() {
        let bundle = entry_bundle([&b"one"[..], &[], &b"three"[..]]).expect("a bundle");
        assert_eq!(count_entry_bundle(&bundle).expect("counted"), 3);
        assert_eq!(split_entry_bundle(&bundle).expect("split").len(), 3);
        assert_eq!(count_entry_bundle(&[]).expect("empty"), 0);
        assert_eq!(
            count_entry_bundle(&[0; 2_000]).expect("empty entries"),
            1_000
        );
        for broken in [&bundle[..bundle.len() - 1], &[0][..], &[0, 9, 1][..]] {
            let counted = count_entry_bundle(broken).map_err(|e| e.to_string());
            let split = split_entry_bundle(broken).map_err(|e| e.to_string());
            assert!(counted.is_err(), "{broken:?}");
            assert_eq!(counted.err(), split.err(), "{broken:?}");
        }
    }

    #[test]
    fn paths_follow_the_c2sp_encoding_and_parse_back() {
        let cases = [
            (Some(0), 0, 256, "tile/0/000"),
            (Some(0), 7, 256, "tile/0/007"),
            (Some(1), 1_234_067, 256, "tile/1/x001/x234/067"),
            (Some(0), 273, 112, "tile/0/273.p/112"),
            (None, 1234, 5, "tile/entries/x001/234.p/5"),
        ];
        for (level, index, width, path) in cases {
            let tile = TilePath {
                level,
                index,
                width,
            };
            assert_eq!(tile.path(), path);
            assert_eq!(
                TilePath::parse(path.trim_start_matches("tile/")),
                Some(tile)
            );
        }
        for bad in [
            "0/7",
            "0/0007",
            "0/x000/007",
            "00/000",
            "8/000",
            "0/000.p/256",
            "0/000.p/0",
            "0/000.p/05",
            "x/000",
        ] {
            assert_eq!(TilePath::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_entry_bundle_prefixes_each_entry_with_its_length() {
        let bundle = entry_bundle([&b"ab"[..], &b""[..], &b"xyz"[..]]).expect("bundle");
        assert_eq!(bundle, b"\x00\x02ab\x00\x00\x00\x03xyz");
        let entries = split_entry_bundle(&bundle).expect("splits");
        assert_eq!(entries, [b"ab".to_vec(), Vec::new(), b"xyz".to_vec()]);
        assert!(split_entry_bundle(&bundle[..bundle.len() - 1]).is_err());
        assert!(entry_bundle([&vec![0u8; 70_000][..]]).is_err());
    }
}
