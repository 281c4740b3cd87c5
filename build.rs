//! Records the git commit the binary is built from, for `fairdeal --version`
//! and `GET /version`. `FAIRDEAL_GIT_COMMIT` overrides it (a build without
//! the repository, such as a container build); otherwise `unknown`.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FAIRDEAL_GIT_COMMIT");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    // sqlx::migrate! embeds the migrations; a new file must rebuild the crate.
    println!("cargo:rerun-if-changed=migrations");
    let commit = std::env::var("FAIRDEAL_GIT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let out = Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=FAIRDEAL_GIT_COMMIT={commit}");
}
