//! A transparency log served over HTTP from memory, for the tests that
//! hold the command line (`fairdeal monitor`, `fairdeal audit --log`)
//! against logs a dishonest operator could serve.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use fairdeal::tlog::key::LogKey;
use fairdeal::tlog::tiles::{TILE_WIDTH, TilePath, entry_bundle};
use fairdeal::tlog::tree;
use serde_json::Value;

/// What the server answers: path → body, and how many entry bundles it
/// was asked for.
#[derive(Debug, Default)]
pub struct Served {
    pub files: Mutex<std::collections::HashMap<String, Vec<u8>>>,
    pub bundle_requests: AtomicU64,
}

/// Serves `served` on a fresh port until the test ends; its base URL.
pub fn serve(served: Arc<Served>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let served = served.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut stream = stream;
                loop {
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 2 {
                        line.clear();
                    }
                    let path = request_line
                        .split(' ')
                        .nth(1)
                        .unwrap_or_default()
                        .to_owned();
                    if path.starts_with("/log/tile/entries/") {
                        served.bundle_requests.fetch_add(1, Ordering::SeqCst);
                    }
                    let body = served.files.lock().expect("lock").get(&path).cloned();
                    let (status, body) = match body {
                        Some(body) => ("200 OK", body),
                        None => ("404 Not Found", b"not found".to_vec()),
                    };
                    let head = format!(
                        "HTTP/1.1 {status}\r\ncontent-length: {}\r\ncontent-type: text/plain\r\n\r\n",
                        body.len()
                    );
                    if stream.write_all(head.as_bytes()).is_err()
                        || stream.write_all(&body).is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    base
}

/// The files of a log of `entries`, signed by `key` for `origin`, as the
/// service lays them out (key, checkpoint, entry bundles, hash tiles).
pub fn log_files(entries: &[Vec<u8>], key: &LogKey, origin: &str) -> Vec<(String, Vec<u8>)> {
    let stored = tree::stored_hashes_of(entries).expect("stored hashes");
    let size = entries.len() as u64;
    let root = tree::tree_hash(size, &stored).expect("root");
    let mut files = vec![
        ("/log/key".to_owned(), key.vkey().into_bytes()),
        (
            "/log/checkpoint".to_owned(),
            key.sign_note(&format!("{origin}\n{size}\n{root}\n"))
                .expect("sign")
                .into_bytes(),
        ),
    ];
    for index in 0..size.div_ceil(TILE_WIDTH) {
        let width = (size - index * TILE_WIDTH).min(TILE_WIDTH);
        let from = (index * TILE_WIDTH) as usize;
        let bundle = entry_bundle(
            entries[from..from + width as usize]
                .iter()
                .map(Vec::as_slice),
        )
        .expect("bundle");
        let path = TilePath {
            level: None,
            index,
            width,
        }
        .path();
        files.push((format!("/log/{path}"), bundle));
    }
    for (level, index, bytes) in tree::hash_tiles(size, &stored).expect("hash tiles") {
        let path = TilePath {
            level: Some(level),
            index,
            width: bytes.len() as u64 / 32,
        }
        .path();
        files.push((format!("/log/{path}"), bytes));
    }
    files
}

pub fn served(files: Vec<(String, Vec<u8>)>) -> Arc<Served> {
    let served = Arc::new(Served::default());
    served.files.lock().expect("lock").extend(files);
    served
}

pub fn bytes(entries: &[Value]) -> Vec<Vec<u8>> {
    entries
        .iter()
        .map(|e| serde_json::to_vec(e).expect("JSON"))
        .collect()
}

pub fn fairdeal(args: &[&str]) -> Output {
    Command::new(crate::fairdeal_bin())
        .args(args)
        .output()
        .expect("fairdeal runs")
}
