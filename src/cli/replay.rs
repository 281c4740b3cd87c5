//! `fairdeal replay`: recompute one deal offline, from the seeds alone.
//!
//! Nothing here talks to a server: a player or auditor can run it on their own
//! machine against a revealed seed and the published commitment.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use fairdeal_core::{
    CHAIN_PROTOCOL, ClientSeed, Commitment, Contribution, Deal, Game, MAX_CHAIN_LENGTH, PROTOCOL,
    Seats, ServerSeed, chain_step, deal, parse_nonce, table_client_seed,
};
use serde::Serialize;

use super::InputError;
use super::render;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  fairdeal replay --server-seed d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c \\
      --client-seed 'my seed' --nonce 41 --game holdem --players 6
  fairdeal replay --server-seed … --client-seed … --nonce 0 --game deck --decks 6 --json
  fairdeal replay --server-seed … --client-seed … --nonce 0 --game shuffle --items 1000000 > order.txt
  fairdeal replay --server-seed … --table-seat alice=c0ffee --table-seat bob=my-secret \
      --nonce 0 --game holdem --players 2      (a table pair: the client seed is derived)
  fairdeal replay --server-seed <the round's seed> --chain-commitment <the pair's> \
      --client-seed … --nonce 7 --game holdem --players 6      (a fairdeal-chain-v1 round)

Exit status: 0 replayed (and the commitment matched, if given); 1 the seed does
not match --commitment or --chain-commitment; 2 invalid input.")]
pub struct ReplayOpts {
    /// The revealed server seed: 64 hex characters (32 bytes).
    #[arg(long, value_name = "HEX")]
    pub server_seed: String,
    /// The client seed: 1 to 64 bytes of UTF-8, no control characters.
    #[arg(
        long,
        value_name = "TEXT",
        required_unless_present_any = ["table_seat", "table_json"],
        conflicts_with_all = ["table_seat", "table_json"]
    )]
    pub client_seed: Option<String>,
    /// A table pair's seat and its revealed contribution (fairdeal-table-v1),
    /// once per seat in seat order: the client seed is derived from them.
    /// The label ends at the first `=` (see --table-json for labels with one).
    #[arg(long, value_name = "LABEL=CONTRIBUTION", conflicts_with = "table_json")]
    pub table_seat: Vec<String>,
    /// A table pair's seats from a JSON file: the pair as the API shows it
    /// (`GET /v1/seed-pairs/{id}`, its `table.seats`), or an array of
    /// `{"seat": …, "contribution": …}` in seat order. For labels with `=`.
    #[arg(long, value_name = "FILE")]
    pub table_json: Option<std::path::PathBuf>,
    /// The round's nonce: 0 to 18446744073709551615.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub nonce: String,
    /// The game: deck, holdem, omaha or hands; or shuffle (fairdeal-draw-v1:
    /// the permutation of --items list positions, written one index a line).
    #[arg(long, value_name = "GAME")]
    pub game: String,
    /// List positions to shuffle (shuffle only): 1 to 4294967295.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub items: Option<String>,
    /// Players (holdem 2-22, omaha 2-11, hands at least 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub players: Option<String>,
    /// Cards per player (hands only).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub cards: Option<String>,
    /// Decks in the shoe (deck and hands, 1-8; default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub decks: Option<String>,
    /// The published commitment (SHA-256 of the server seed) to check the
    /// seed against.
    #[arg(long, value_name = "HEX")]
    pub commitment: Option<String>,
    /// A fairdeal-chain-v1 round: the chain's commitment (its pair's
    /// `server_seed_hash`, s_0). The round's seed must give it after
    /// nonce + 1 SHA-256 steps (it is s_{nonce+1}); --commitment may give
    /// the previous round's seed, one step.
    #[arg(long, value_name = "HEX")]
    pub chain_commitment: Option<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// The inputs of one replay, checked.
#[derive(Debug)]
pub struct ReplayInput {
    pub server_seed: ServerSeed,
    pub client_seed: ClientSeed,
    pub nonce: u64,
    pub game: Game,
    pub commitment: Option<Commitment>,
    pub chain_commitment: Option<Commitment>,
}

fn parse_count(flag: &'static str, text: Option<&str>) -> Result<Option<u32>, InputError> {
    text.map(|text| {
        text.parse::<u32>()
            .map_err(|_| InputError::new(flag, format!("must be a whole number, got {text:?}")))
    })
    .transpose()
}

impl ReplayOpts {
    /// The client seed given, or derived from the table's seats.
    pub fn client_seed(&self) -> Result<ClientSeed, InputError> {
        if let Some(text) = &self.client_seed {
            return ClientSeed::new(text.as_str()).map_err(|e| InputError::from_core(&e));
        }
        if let Some(path) = &self.table_json {
            return table_json_seed(path);
        }
        let (labels, contributions): (Vec<String>, Vec<Contribution>) = self
            .table_seat
            .iter()
            .map(|given| {
                let (label, contribution) = given.split_once('=').ok_or_else(|| {
                    InputError::new(
                        "--table-seat",
                        format!("must be LABEL=CONTRIBUTION; got {given:?}"),
                    )
                })?;
                let contribution = Contribution::new(contribution).map_err(|err| {
                    InputError::new("--table-seat", format!("seat {label:?}: {err}"))
                })?;
                Ok((label.to_owned(), contribution))
            })
            .collect::<Result<Vec<_>, InputError>>()?
            .into_iter()
            .unzip();
        let seats = Seats::new(labels).map_err(|err| InputError::new("--table-seat", err))?;
        table_client_seed(&seats, &contributions)
            .map_err(|err| InputError::new("--table-seat", err))
    }

    /// Checks every flag, reporting the first one at fault.
    pub fn parse(&self) -> Result<ReplayInput, InputError> {
        let core = |err: fairdeal_core::Error| InputError::from_core(&err);
        let server_seed = ServerSeed::from_hex(&self.server_seed).map_err(core)?;
        let client_seed = self.client_seed()?;
        let nonce = parse_nonce(&self.nonce).map_err(core)?;
        let game = Game::from_parts(
            &self.game,
            parse_count("--players", self.players.as_deref())?,
            parse_count("--cards", self.cards.as_deref())?,
            parse_count("--decks", self.decks.as_deref())?,
        )
        .map_err(core)?;
        let commitment = self
            .commitment
            .as_deref()
            .map(Commitment::from_hex)
            .transpose()
            .map_err(core)?;
        let chain_commitment = self
            .chain_commitment
            .as_deref()
            .map(|text| {
                Commitment::from_hex(text).map_err(|err| InputError::new("--chain-commitment", err))
            })
            .transpose()?;
        if chain_commitment.is_some() && nonce >= MAX_CHAIN_LENGTH {
            return Err(InputError::new(
                "--nonce",
                format!(
                    "a fairdeal-chain-v1 round's nonce is below the longest chain, {MAX_CHAIN_LENGTH}; got {nonce}"
                ),
            ));
        }
        Ok(ReplayInput {
            server_seed,
            client_seed,
            nonce,
            game,
            commitment,
            chain_commitment,
        })
    }
}

/// The client seed of the table in the JSON file at `path` (see
/// `--table-json`).
fn table_json_seed(path: &std::path::Path) -> Result<ClientSeed, InputError> {
    let flag = "--table-json";
    let text = std::fs::read_to_string(path)
        .map_err(|err| InputError::new(flag, format!("cannot read {}: {err}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|err| InputError::new(flag, format!("{} is not JSON: {err}", path.display())))?;
    let seats = value["table"]["seats"]
        .as_array()
        .or_else(|| value.as_array())
        .ok_or_else(|| {
            InputError::new(
                flag,
                "must hold a table pair (with table.seats) or an array of {\"seat\", \"contribution\"}",
            )
        })?;
    let mut labels = Vec::with_capacity(seats.len());
    let mut contributions = Vec::with_capacity(seats.len());
    for (i, seat) in seats.iter().enumerate() {
        let label = seat["seat"]
            .as_str()
            .ok_or_else(|| InputError::new(flag, format!("seat {i} has no \"seat\" label")))?;
        let contribution = seat["contribution"].as_str().ok_or_else(|| {
            InputError::new(
                flag,
                format!("seat {i} ({label:?}) has no contribution: the table is not complete"),
            )
        })?;
        labels.push(label.to_owned());
        contributions.push(
            Contribution::new(contribution)
                .map_err(|err| InputError::new(flag, format!("seat {label:?}: {err}")))?,
        );
    }
    let seats = Seats::new(labels).map_err(|err| InputError::new(flag, err))?;
    table_client_seed(&seats, &contributions).map_err(|err| InputError::new(flag, err))
}

/// The steps a mistaken commitment is searched for along a chain: a
/// second or so of hashing, chains of up to a million rounds.
const CHAIN_SEARCH_STEPS: u64 = 1 << 20;

/// The nonce `n` for which `commitment` is `seed` hashed `n + 1` times (the
/// commitment of a chain in which `seed` is round `n`'s), if within
/// [`CHAIN_SEARCH_STEPS`]; `n = 0` is a plain commitment, never asked here.
fn chain_position(seed: &ServerSeed, commitment: &Commitment) -> Option<u64> {
    let mut step = chain_step(seed);
    for nonce in 1..CHAIN_SEARCH_STEPS {
        step = chain_step(&step);
        if step.as_bytes() == commitment.as_bytes() {
            return Some(nonce);
        }
    }
    None
}

/// `fairdeal replay --json` output.
#[derive(Debug, Serialize)]
pub struct ReplayRecord<'a> {
    pub protocol: &'static str,
    pub server_seed_hash: Commitment,
    /// With --chain-commitment: the chain's commitment the seed reaches
    /// after `nonce + 1` steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_commitment: Option<Commitment>,
    pub client_seed: &'a ClientSeed,
    pub nonce: u64,
    pub game: Game,
    pub deal: &'a Deal,
}

pub fn run(opts: ReplayOpts) -> anyhow::Result<ExitCode> {
    if opts.game == "shuffle" {
        return shuffle(&opts);
    }
    if opts.items.is_some() {
        return Err(InputError::new("--items", "is taken by --game shuffle only").into());
    }
    let input = opts.parse()?;
    let computed = input.server_seed.commitment();
    if let Some(published) = input.commitment
        && published != computed
    {
        // A chain pair's `server_seed_hash` (the chain's commitment) given
        // as the round's own: say so, and where the right values are.
        if let Some(round) = chain_position(&input.server_seed, &published) {
            eprintln!(
                "error: {published} is not this round's commitment but the commitment of a \
                 fairdeal-chain-v1 chain in which the given seed is round {round}'s (the pair's \
                 server_seed_hash). Give it as --chain-commitment, with --nonce {round}; the \
                 round's own commitment is its chain.round_commitment."
            );
            return Ok(ExitCode::FAILURE);
        }
        eprintln!(
            "error: commitment mismatch: SHA-256 of the given server seed is {computed},\n\
             but the published commitment is {published}.\n\
             This seed is not the one that was committed to; its deals prove nothing."
        );
        return Ok(ExitCode::FAILURE);
    }
    if let Some(chain) = input.chain_commitment {
        let mut seed = input.server_seed.clone();
        for _ in 0..=input.nonce {
            seed = chain_step(&seed);
        }
        if seed.as_bytes() != chain.as_bytes() {
            eprintln!(
                "error: chain mismatch: SHA-256 applied {} times to the given server seed does \
                 not give the chain's commitment {chain}.\n\
                 This seed is not round {}'s seed of that chain; its deals prove nothing.",
                input.nonce + 1,
                input.nonce
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    let dealt = deal(
        &input.server_seed,
        &input.client_seed,
        input.nonce,
        input.game,
    );
    if opts.json {
        let record = ReplayRecord {
            protocol: if input.chain_commitment.is_some() {
                CHAIN_PROTOCOL
            } else {
                PROTOCOL
            },
            server_seed_hash: computed,
            chain_commitment: input.chain_commitment,
            client_seed: &input.client_seed,
            nonce: input.nonce,
            game: input.game,
            deal: &dealt,
        };
        let text = serde_json::to_string(&record).context("encoding the replay as JSON")?;
        println!("{text}");
    } else {
        if let Some(chain) = input.chain_commitment {
            println!(
                "fairdeal-chain-v1: {} SHA-256 steps from the server seed give the chain's commitment {chain}",
                input.nonce + 1
            );
        }
        if !opts.table_seat.is_empty() || opts.table_json.is_some() {
            println!(
                "client seed derived from the table's seats (fairdeal-table-v1): {}",
                input.client_seed.as_str()
            );
        }
        print!(
            "{}",
            replay_table(&input, &computed, &dealt, input.commitment.is_some())
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--game shuffle --items N`: the permutation of N list positions
/// (docs/PROTOCOL.md §8), streamed to stdout one index a line.
fn shuffle(opts: &ReplayOpts) -> anyhow::Result<ExitCode> {
    use std::io::Write;

    let core = |err: fairdeal_core::Error| InputError::from_core(&err);
    for (flag, given) in [
        ("--players", opts.players.is_some()),
        ("--cards", opts.cards.is_some()),
        ("--decks", opts.decks.is_some()),
        ("--json", opts.json),
    ] {
        if given {
            return Err(InputError::new(flag, "is not taken by --game shuffle").into());
        }
    }
    let server_seed = ServerSeed::from_hex(&opts.server_seed).map_err(core)?;
    let client_seed = opts.client_seed()?;
    let nonce = parse_nonce(&opts.nonce).map_err(core)?;
    let Some(items) = opts.items.as_deref() else {
        return Err(InputError::new("--items", "is required with --game shuffle").into());
    };
    let items: u64 = items.parse().map_err(|_| {
        InputError::new("--items", format!("must be a whole number, got {items:?}"))
    })?;
    if let Some(published) = opts
        .commitment
        .as_deref()
        .map(Commitment::from_hex)
        .transpose()
        .map_err(core)?
        && published != server_seed.commitment()
    {
        eprintln!(
            "error: commitment mismatch: SHA-256 of the given server seed is {},\n\
             but the published commitment is {published}.",
            server_seed.commitment()
        );
        return Ok(ExitCode::FAILURE);
    }
    // The permutation is held whole (4 bytes an item) while it is made;
    // say so rather than abort when memory is short.
    if let Ok(n) = usize::try_from(items)
        && Vec::<u32>::new().try_reserve_exact(n).is_err()
    {
        return Err(InputError::new(
            "--items",
            format!(
                "{items} items need {} bytes of memory, which this machine cannot give",
                items * 4
            ),
        )
        .into());
    }
    let order = fairdeal_core::shuffled_items(&server_seed, &client_seed, nonce, items)
        .map_err(|err| InputError::new("--items", err))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    for item in order {
        writeln!(out, "{item}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The human form of `fairdeal replay`.
fn replay_table(
    input: &ReplayInput,
    commitment: &Commitment,
    deal: &Deal,
    commitment_checked: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{PROTOCOL} replay");
    let _ = writeln!(out, "  game         {}", input.game);
    let _ = writeln!(
        out,
        "  commitment   {commitment}{}",
        if commitment_checked {
            "  (matches the published commitment)"
        } else {
            "  (SHA-256 of the server seed)"
        }
    );
    let _ = writeln!(
        out,
        "  client seed  {}",
        render::shown_seed(input.client_seed.as_str())
    );
    let _ = writeln!(out, "  nonce        {}", input.nonce);
    let _ = writeln!(out);
    match deal {
        Deal::Deck { deck } => render::wrapped(&mut out, "deck, top first", deck, 0),
        Deal::Board {
            hands,
            board,
            burns,
        } => {
            for (seat, hand) in hands.iter().enumerate() {
                let _ = writeln!(out, "  seat {:<3}  {}", seat + 1, render::cards(hand));
            }
            let _ = writeln!(
                out,
                "  board     {}   {}   {}   (flop, turn, river)",
                render::cards(&board[..3]),
                render::cards(&board[3..4]),
                render::cards(&board[4..])
            );
            let _ = writeln!(out, "  burns     {}", render::cards(burns));
        }
        Deal::Hands { hands, rest } => {
            for (seat, hand) in hands.iter().enumerate() {
                let _ = writeln!(out, "  player {:<3}  {}", seat + 1, render::cards(hand));
            }
            let dealt: usize = hands.iter().map(Vec::len).sum();
            if !rest.is_empty() {
                render::wrapped(&mut out, "rest, next card first", rest, dealt);
            }
        }
    }
    out
}
