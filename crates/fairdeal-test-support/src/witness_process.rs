//! A real `fairdeal witness` process, as the witness tests, the service's
//! witnessing tests and the page's Chromium test start it.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use fairdeal::tlog::cosignature::CosignatureVerifier;

/// A `fairdeal witness` process (killed when dropped): its submission URL,
/// its cosigner vkey, and the file its stderr goes to.
#[derive(Debug)]
pub struct WitnessProcess {
    child: Child,
    pub url: String,
    pub vkey: String,
    #[allow(
        dead_code,
        reason = "read by tests/witness.rs, not by the service tests"
    )]
    pub stderr: PathBuf,
}

impl Drop for WitnessProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl WitnessProcess {
    /// `fairdeal witness --name NAME --listen LISTEN` of the log
    /// `origin`=`log_vkey`, its data (and key) in `dir`, with `extra`
    /// arguments; returns once it listens and has printed its vkey.
    pub fn start(
        dir: &Path,
        listen: &str,
        name: &str,
        origin: &str,
        log_vkey: &str,
        extra: &[&str],
    ) -> Self {
        // A log whose origin is its key's name (a fairdeal log's) is given
        // by its verifier key alone, as an operator copies it from GET
        // /log/key.
        let log = if log_vkey.split('+').next() == Some(origin) {
            log_vkey.to_owned()
        } else {
            format!("{origin}={log_vkey}")
        };
        Self::start_with(dir, listen, name, &["--log", &log], extra)
    }

    /// `fairdeal witness --name NAME --listen LISTEN --log-url URL` (the
    /// log's key read from the service and pinned on first use).
    pub fn start_from_url(dir: &Path, listen: &str, name: &str, url: &str, extra: &[&str]) -> Self {
        Self::start_with(dir, listen, name, &["--log-url", url], extra)
    }

    fn start_with(dir: &Path, listen: &str, name: &str, log: &[&str], extra: &[&str]) -> Self {
        std::fs::create_dir_all(dir).expect("dir");
        let stderr = dir.join(format!("stderr-{}.txt", uuid::Uuid::new_v4().simple()));
        let mut child = Command::new(crate::fairdeal_bin())
            .args(["witness", "--listen", listen, "--name", name])
            .arg("--data-dir")
            .arg(dir)
            .args(log)
            .args(extra)
            .env_remove("FAIRDEAL_WITNESS_DATABASE_URL")
            .env_remove("FAIRDEAL_WITNESS_KEY_FILE")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("fairdeal witness starts");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let (mut url, mut vkey) = (None, None);
        while url.is_none() || vkey.is_none() {
            let mut line = String::new();
            if out.read_line(&mut line).expect("read stdout") == 0 {
                let _ = child.wait();
                panic!(
                    "the witness exited: {}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                );
            }
            if let Some(rest) = line.trim().strip_prefix("fairdeal witness listening on ") {
                url = Some(rest.to_owned());
            }
            if let Some(rest) = line.trim().strip_prefix("cosigner vkey: ") {
                vkey = Some(rest.to_owned());
            }
        }
        // Whatever it prints later must not meet a closed pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Self {
            child,
            url: url.expect("url"),
            vkey: vkey.expect("vkey"),
            stderr,
        }
    }

    /// Its cosigner's verifier.
    pub fn verifier(&self) -> CosignatureVerifier {
        CosignatureVerifier::from_vkey(&self.vkey).expect("the witness's vkey")
    }
}
