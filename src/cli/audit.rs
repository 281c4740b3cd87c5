//! `fairdeal audit SOURCE`: replay every round of an export and give a verdict.

use std::fs::File;
use std::io::{BufReader, IsTerminal, Read};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use super::InputError;
use crate::audit::{Report, audit};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A verdict and one line per problem.
    Text,
    /// One JSON object.
    Json,
}

#[derive(Debug, Args)]
#[command(after_help = "\
SOURCE is an export file (from `fairdeal export` or GET /v1/export), `-` for
standard input, or the base URL of a running service (http://host:port), whose
/v1/export is read.

Exit status: 0 every round verified and the export is complete; 1 a problem was
found (each is listed with its line); 2 the source could not be read.")]
pub struct AuditOpts {
    /// Export file, `-` for stdin, or a service's base URL.
    pub source: String,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Opens the source; the second value is its size in bytes when known.
fn open(source: &str) -> Result<(Box<dyn Read + Send>, Option<u64>), InputError> {
    if source == "-" {
        return Ok((Box::new(std::io::stdin()), None));
    }
    if source.starts_with("http://") || source.starts_with("https://") {
        let url = format!("{}/v1/export", source.trim_end_matches('/'));
        let response = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()
            .and_then(|client| client.get(&url).send())
            .map_err(|e| InputError::new("SOURCE", format!("cannot read {url}: {e}")))?;
        if !response.status().is_success() {
            return Err(InputError::new(
                "SOURCE",
                format!("{url} answered {}", response.status()),
            ));
        }
        return Ok((Box::new(response), None));
    }
    let file = File::open(source)
        .map_err(|e| InputError::new("SOURCE", format!("cannot open {source}: {e}")))?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), size))
}

/// Counts bytes read, for the progress bar.
struct Counting<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

fn progress_bar(size: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match size {
        Some(total) => ProgressBar::new(total).with_style(
            ProgressStyle::with_template(
                "{bar:30} {bytes}/{total_bytes} {msg} · {binary_bytes_per_sec} · ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {bytes} read · {msg} · {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn print_text(source: &str, report: &Report, seconds: f64) {
    println!("fairdeal audit of {source}");
    println!(
        "  {} lines, {} seed pairs, {} rounds; {} rounds verified ({:.0} rounds/s)",
        report.lines,
        report.seed_pairs,
        report.rounds,
        report.rounds_verified,
        report.rounds as f64 / seconds.max(1e-9)
    );
    for finding in &report.findings {
        println!("  {finding}");
    }
    if report.problems as usize > report.findings.len() {
        println!(
            "  … and {} more problems",
            report.problems as usize - report.findings.len()
        );
    }
    if report.passed() {
        println!("verdict: PASS: every commitment, card and nonce checks out");
    } else {
        println!("verdict: FAIL: {} problem(s)", report.problems);
    }
}

pub fn run(opts: AuditOpts) -> anyhow::Result<ExitCode> {
    let (input, size) = open(&opts.source)?;
    let bar = progress_bar(size, opts.quiet);
    let reader = BufReader::with_capacity(
        1 << 20,
        Counting {
            inner: input,
            bar: bar.clone(),
        },
    );
    let started = Instant::now();
    let report = {
        let bar = bar.clone();
        let mut progress = move |_lines: u64, rounds: u64| {
            let rate = rounds as f64 / started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("{rounds} rounds · {rate:.0} rounds/s"));
        };
        audit(reader, &mut progress).context("reading the export")?
    };
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    match opts.format {
        Format::Text => print_text(&opts.source, &report, seconds),
        Format::Json => {
            let verdict = if report.passed() { "pass" } else { "fail" };
            let mut value = serde_json::to_value(&report)?;
            value["verdict"] = verdict.into();
            value["source"] = opts.source.clone().into();
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
