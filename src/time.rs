//! Time, at the bottom of the crate: the clock in milliseconds since the Unix
//! epoch (what the database stores) and the one way a stored time is written
//! for people and records (RFC 3339, UTC).

use std::time::{SystemTime, UNIX_EPOCH};

use time::OffsetDateTime;
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;

/// RFC 3339 in UTC with milliseconds, always: `2026-11-22T06:08:50.123Z`.
const RFC3339_MS: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// RFC 3339 UTC time with milliseconds, from milliseconds since the epoch:
/// the one format of every time the service and the tools write.
pub fn timestamp(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(RFC3339_MS).ok())
        .unwrap_or_default()
}

/// Milliseconds since the epoch of a time [`timestamp`] wrote; `None` for
/// any other text.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let time = time::PrimitiveDateTime::parse(text, RFC3339_MS).ok()?;
    i64::try_from(time.assume_utc().unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::{parse_timestamp, timestamp};

    #[test]
    fn a_written_time_reads_back() {
        assert_eq!(
            parse_timestamp("2026-11-22T06:08:50.007Z"),
            Some(1_795_327_730_007)
        );
        assert_eq!(parse_timestamp(&timestamp(0)), Some(0));
        assert_eq!(parse_timestamp("2026-11-22T06:08:50Z"), None);
    }

    #[test]
    fn every_time_is_written_with_milliseconds_in_utc() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(timestamp(1_795_327_730_007), "2026-11-22T06:08:50.007Z");
    }
}
