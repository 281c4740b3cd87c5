//! Fair exports made straight from the protocol library (no server), in the
//! format of `GET /v1/export`, for the audit tests and benchmarks: the writer
//! of `export_writer.rs`, and the same export as lines in memory.

pub use crate::export_writer::write_fair_export;

/// `n_pairs` revealed pairs of `rounds_per_pair` rounds each, as the lines of
/// the export.
pub fn fair_export(n_pairs: usize, rounds_per_pair: u64) -> Vec<String> {
    let mut bytes = Vec::new();
    write_fair_export(&mut bytes, n_pairs as u64, rounds_per_pair, None).expect("in memory");
    String::from_utf8(bytes)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}
