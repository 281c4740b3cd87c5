//! The paging cursors taken from query strings and the command line: the
//! export's `after` (`audit::export::parse_cursor`) and the pair listing's
//! `after` (`store::parse_listing_cursor`). What parses round-trips.
#![no_main]

use fairdeal::audit::export::parse_cursor;
use fairdeal::service::http::wire::parse_pair_cursor;
use fairdeal::service::store::parse_listing_cursor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_cursor(text) {
        Ok(n) => {
            assert!(n >= 0, "{text:?}");
            assert_eq!(text.parse::<i64>(), Ok(n));
            assert_eq!(parse_cursor(&n.to_string()), Ok(n));
        }
        Err(why) => assert!(!why.is_empty()),
    }
    let listing = parse_listing_cursor(text);
    assert_eq!(parse_pair_cursor(text).ok(), listing);
    if let Some((ms, id)) = listing {
        assert!(text.ends_with(id), "{text:?}");
        let again = format!("{ms}.{id}");
        assert_eq!(parse_listing_cursor(&again), Some((ms, id)), "{text:?}");
    }
});
