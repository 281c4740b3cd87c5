//! `fairdeal draw`: recompute a draw (fairdeal-draw-v1) offline, from the
//! entrant list file and the seeds.
//!
//! The list is read twice in chunks — once to check and hash it, once to
//! find the winners' lines — so its size is bounded by the disk, not by
//! memory (duplicates are found by a 32-byte hash a line).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use fairdeal_core::{
    ClientSeed, Commitment, DRAW_PROTOCOL, Draw, DuplicateFinder, ListCommitment, ListError,
    ListScanner, ScanError, ServerSeed, draw, parse_nonce,
};
use serde::Serialize;

use super::InputError;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  fairdeal draw --entries entrants.txt --server-seed 10dc… --client-seed 'raffle-2026-12' \\
      --winners 3 --commitment 4cfc… --entries-sha256 5ecc…
  fairdeal draw --count 4000000000 --server-seed … --client-seed … --winners 10 --json

Exit status: 0 drawn (and every given commitment matched); 1 the seed or the
list does not match its commitment; 2 invalid input (a bad list names its line).")]
pub struct DrawOpts {
    /// The entrant list: UTF-8, one entrant a line, each line ending with LF.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "count",
        conflicts_with = "count"
    )]
    pub entries: Option<PathBuf>,
    /// Without the list: the number of entrants, 2 to 4294967295 (winners are
    /// then indices only).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// The revealed server seed: 64 hex characters.
    #[arg(long, value_name = "HEX")]
    pub server_seed: String,
    /// The client seed: 1 to 64 bytes of UTF-8, no control characters.
    #[arg(long, value_name = "TEXT")]
    pub client_seed: String,
    /// How many winners: 1 to the number of entrants.
    #[arg(long, value_name = "K")]
    pub winners: u64,
    /// The nonce (a draw run by the service is nonce 0).
    #[arg(
        long,
        value_name = "N",
        default_value = "0",
        allow_hyphen_values = true
    )]
    pub nonce: String,
    /// The published commitment of the server seed, to check it against.
    #[arg(long, value_name = "HEX")]
    pub commitment: Option<String>,
    /// The published SHA-256 of the list, to check the file against.
    #[arg(long, value_name = "HEX")]
    pub entries_sha256: Option<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One winner, as printed.
#[derive(Debug, Serialize)]
struct Winner {
    rank: u32,
    entry: u32,
    line_number: u64,
    text: Option<String>,
}

/// `fairdeal draw --json` output.
#[derive(Debug, Serialize)]
struct DrawRecord {
    protocol: &'static str,
    server_seed_hash: Commitment,
    client_seed: String,
    nonce: u64,
    entries_sha256: Option<String>,
    entries: u64,
    winners: Vec<Winner>,
}

/// Reads `path` in chunks, handing each to `feed`.
fn read_chunks(
    path: &Path,
    mut feed: impl FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let unreadable =
        |err: std::io::Error| InputError::new("--entries", format!("{}: {err}", path.display()));
    let file = File::open(path).map_err(unreadable)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buffer).map_err(unreadable)?;
        if n == 0 {
            return Ok(());
        }
        feed(&buffer[..n])?;
    }
}

fn list_error(err: ListError) -> anyhow::Error {
    InputError::new("--entries", err).into()
}

/// Checks and hashes the list: its commitment.
fn scan(path: &Path) -> anyhow::Result<ListCommitment> {
    let mut scanner = ListScanner::new();
    let mut duplicates = DuplicateFinder::new();
    read_chunks(path, |chunk| {
        scanner
            .feed(chunk, |index, text| duplicates.check(index, text))
            .map_err(|err| match err {
                ScanError::List(err) | ScanError::Caller(err) => list_error(err),
            })
    })?;
    scanner.finish().map_err(list_error)
}

/// The lines at `wanted` (index → rank).
fn lines_at(path: &Path, wanted: &HashMap<u32, usize>) -> anyhow::Result<Vec<Option<String>>> {
    let mut found = vec![None; wanted.len()];
    let mut scanner = ListScanner::new();
    read_chunks(path, |chunk| {
        scanner
            .feed(chunk, |index, text| {
                if let Some(&rank) = u32::try_from(index).ok().and_then(|i| wanted.get(&i)) {
                    found[rank] = Some(text.to_owned());
                }
                Ok::<(), ListError>(())
            })
            .map_err(|err| match err {
                ScanError::List(err) | ScanError::Caller(err) => list_error(err),
            })
    })?;
    Ok(found)
}

pub fn run(opts: DrawOpts) -> anyhow::Result<ExitCode> {
    let core = |err: fairdeal_core::Error| InputError::from_core(&err);
    let server_seed = ServerSeed::from_hex(&opts.server_seed).map_err(core)?;
    let client_seed = ClientSeed::new(opts.client_seed.as_str()).map_err(core)?;
    let nonce = parse_nonce(&opts.nonce).map_err(core)?;
    let commitment = opts
        .commitment
        .as_deref()
        .map(Commitment::from_hex)
        .transpose()
        .map_err(core)?;
    if opts.entries_sha256.is_some() && opts.entries.is_none() {
        return Err(InputError::new(
            "--entries-sha256",
            "needs --entries: the list file to check against it",
        )
        .into());
    }
    if let Some(text) = opts.entries_sha256.as_deref()
        && (text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(InputError::new("--entries-sha256", "must be 64 hex characters").into());
    }
    let list = match (&opts.entries, opts.count) {
        (Some(path), _) => Some(scan(path)?),
        (None, _) => None,
    };
    let n = list.map_or(opts.count.unwrap_or_default(), |l| l.entries);
    let params = Draw::new(n, opts.winners).map_err(|err| {
        let flag = match err.field() {
            "winners" => "--winners",
            _ if list.is_some() => "--entries",
            _ => "--count",
        };
        InputError::new(flag, err)
    })?;

    let computed = server_seed.commitment();
    let mut mismatch = false;
    if let Some(published) = commitment
        && published != computed
    {
        eprintln!(
            "error: commitment mismatch: SHA-256 of the given server seed is {computed},\n\
             but the published commitment is {published}. This is not the committed seed."
        );
        mismatch = true;
    }
    if let (Some(published), Some(list)) = (opts.entries_sha256.as_deref(), list)
        && !published.eq_ignore_ascii_case(&list.sha256_hex())
    {
        eprintln!(
            "error: list mismatch: SHA-256 of {} is {},\n\
             but the published entries_sha256 is {published}. This is not the committed list.",
            opts.entries
                .as_deref()
                .map_or_else(String::new, |p| p.display().to_string()),
            list.sha256_hex()
        );
        mismatch = true;
    }

    let indices = draw(&server_seed, &client_seed, nonce, params);
    let texts = match &opts.entries {
        Some(path) => {
            let wanted: HashMap<u32, usize> = indices
                .iter()
                .enumerate()
                .map(|(rank, &i)| (i, rank))
                .collect();
            lines_at(path, &wanted)?
        }
        None => vec![None; indices.len()],
    };
    let winners: Vec<Winner> = indices
        .iter()
        .zip(texts)
        .enumerate()
        .map(|(rank, (&entry, text))| Winner {
            rank: rank as u32 + 1,
            entry,
            line_number: u64::from(entry) + 1,
            text,
        })
        .collect();
    if opts.json {
        let record = DrawRecord {
            protocol: DRAW_PROTOCOL,
            server_seed_hash: computed,
            client_seed: client_seed.as_str().to_owned(),
            nonce,
            entries_sha256: list.map(|l| l.sha256_hex()),
            entries: n,
            winners,
        };
        println!("{}", serde_json::to_string(&record)?);
    } else {
        println!("protocol          {DRAW_PROTOCOL}");
        println!(
            "server seed hash  {computed}{}",
            match commitment {
                Some(c) if c == computed => "  (matches the commitment)",
                Some(_) => "  (DOES NOT match the commitment)",
                None => "",
            }
        );
        if let Some(list) = list {
            println!(
                "entries sha256    {}{}",
                list.sha256_hex(),
                match opts.entries_sha256.as_deref() {
                    Some(p) if p.eq_ignore_ascii_case(&list.sha256_hex()) =>
                        "  (matches the published list)",
                    Some(_) => "  (DOES NOT match the published list)",
                    None => "",
                }
            );
        }
        println!("entries           {n}");
        println!(
            "client seed       {}",
            super::render::shown_seed(client_seed.as_str()).replace("\n    ", "\n         ")
        );
        println!("nonce             {nonce}");
        println!();
        println!("rank  line        entrant");
        for winner in &winners {
            println!(
                "{:>4}  {:<10}  {}",
                winner.rank,
                winner.line_number,
                winner
                    .text
                    .as_deref()
                    .unwrap_or("(index only: no list given)")
            );
        }
    }
    Ok(if mismatch {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
