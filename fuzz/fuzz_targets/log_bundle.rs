//! An entry bundle as a hostile log serves it (`tlog::tiles::split_entry_bundle`):
//! never a panic; what parses is written back byte for byte by
//! `entry_bundle`, so two readers cannot see two different lists of entries
//! in one bundle.
#![no_main]

use fairdeal::tlog::tiles::{entry_bundle, split_entry_bundle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = split_entry_bundle(data) {
        let again = entry_bundle(entries.iter().map(Vec::as_slice)).expect("writes back");
        assert_eq!(again, data);
    }
});
