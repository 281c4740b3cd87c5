//! `fairdeal healthcheck`: asks a running server whether it is ready, for
//! an orchestrator's health check (the container image has no HTTP client
//! of its own). Exit 0 when it answers 200, 1 otherwise.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when the server answers 200, 1 when it answers anything else
or nothing within --timeout. Docker: HEALTHCHECK CMD [\"fairdeal\", \"healthcheck\"]
(the image sets FAIRDEAL_LISTEN, so the address needs no flag).")]
pub struct HealthcheckOpts {
    /// The server's address, as `serve --listen` was given it; an
    /// unspecified address (0.0.0.0, [::]) is asked on the loopback.
    #[arg(
        long,
        env = "FAIRDEAL_LISTEN",
        default_value = super::serve::DEFAULT_LISTEN,
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,
    /// Ask `/healthz` (the process runs) instead of `/readyz` (it answers
    /// and its database answers): for a liveness probe.
    #[arg(long)]
    pub live: bool,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3.0, value_name = "SECONDS")]
    pub timeout: f64,
}

pub fn run(opts: HealthcheckOpts) -> anyhow::Result<ExitCode> {
    if !(opts.timeout.is_finite() && opts.timeout > 0.0 && opts.timeout <= 3600.0) {
        return Err(super::InputError::new(
            "--timeout",
            "must be a number of seconds above 0, at most 3600",
        )
        .into());
    }
    let mut addr = opts.listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        });
    }
    let path = if opts.live { "/healthz" } else { "/readyz" };
    let url = format!("http://{addr}{path}");
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs_f64(opts.timeout))
        .build()?;
    match client.get(&url).send() {
        Ok(answer) if answer.status().is_success() => {
            println!("{url}: {}", answer.status());
            Ok(ExitCode::SUCCESS)
        }
        Ok(answer) => {
            let status = answer.status();
            let body = answer.text().unwrap_or_default();
            let said: String = body.chars().take(300).collect();
            eprintln!("{url}: {status}: {}", said.trim());
            Ok(ExitCode::FAILURE)
        }
        Err(err) => {
            eprintln!("{url}: no answer: {err}");
            Ok(ExitCode::FAILURE)
        }
    }
}
