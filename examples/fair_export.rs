//! Writes a fair export (the NDJSON of `GET /v1/export`) of any size, straight
//! from the protocol library, for measuring `fairdeal audit` on large inputs.
//!
//! cargo run --release --example fair_export -- PAIRS ROUNDS_PER_PAIR [TAMPER_LINE] > export.ndjson
//!
//! With TAMPER_LINE, that line's round gets two cards swapped, as a dishonest
//! operator's record would.

use std::io::{BufWriter, Write};

use fairdeal_test_support::export_writer as exports;

fn main() -> anyhow::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let [pairs, per_pair, rest @ ..] = &args[..] else {
        anyhow::bail!("usage: fair_export PAIRS ROUNDS_PER_PAIR [TAMPER_LINE]");
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    exports::write_fair_export(&mut out, *pairs, *per_pair, rest.first().copied())?;
    out.flush()?;
    Ok(())
}
