//! Files the tests keep equal to what the code generates (openapi.yaml, the
//! shuffle evidence). `FAIRDEAL_BLESS=1` rewrites them; review the diff.

/// Fails unless the file at `relative_path` (from the repository root) holds
/// exactly `generated`; with `FAIRDEAL_BLESS` set, writes it first.
pub fn assert_file_current(relative_path: &str, generated: &str, how_to_regenerate: &str) {
    let path = crate::repository_root().join(relative_path);
    if std::env::var_os("FAIRDEAL_BLESS").is_some() {
        std::fs::write(&path, generated).unwrap_or_else(|e| panic!("write {relative_path}: {e}"));
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{relative_path} is stale: {how_to_regenerate} (or rerun with FAIRDEAL_BLESS=1) and review the diff.\n\n{generated}"
    );
}
