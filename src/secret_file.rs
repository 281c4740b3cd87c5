//! Files that hold secrets (the master key, the log key): created readable
//! by their owner only, at the bottom of the crate so every layer can use it.

use std::path::Path;

/// Writes a file readable only by its owner (created with mode 0600 on Unix,
/// never briefly world-readable).
pub fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}
