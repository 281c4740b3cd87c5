//! The ids the log audit keys pairs and draws by, shared by the log checker
//! (`monitor/`) and the export's cross-check (`cross.rs`), so that neither
//! imports the other for them.

use serde::{Deserialize, Serialize};

/// A pair's or a draw's id in 17 bytes: 0 and its UUID when the text is
/// one in the service's form (lower case, hyphenated); else 1 and a number
/// given to that text the first time it was kept (the log checker's `Names`). The two never
/// meet, whatever text a log holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct Id(pub(crate) [u8; 17]);

impl Id {
    pub(crate) fn uuid(bytes: [u8; 16]) -> Self {
        let mut id = [0; 17];
        id[1..].copy_from_slice(&bytes);
        Self(id)
    }

    pub(crate) fn numbered(n: u64) -> Self {
        let mut id = [0; 17];
        id[0] = 1;
        id[1..9].copy_from_slice(&n.to_be_bytes());
        Self(id)
    }

    /// The id of a text never kept: it matches nothing.
    pub(crate) const UNKNOWN: Self = Self([2; 17]);
}

/// The UUID of `text`, when it is one in the service's form (lower case,
/// hyphenated).
pub(crate) fn uuid_of(text: &str) -> Option<[u8; 16]> {
    if text.len() == 36 && !text.bytes().any(|b| b.is_ascii_uppercase()) {
        return uuid::Uuid::try_parse(text).ok().map(uuid::Uuid::into_bytes);
    }
    None
}
