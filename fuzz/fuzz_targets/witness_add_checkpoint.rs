//! The body `fairdeal witness` reads for `POST /add-checkpoint`
//! (c2sp.org/tlog-witness: `old N`, proof lines, a blank line, a signed
//! checkpoint note), and the whole handling of it against an in-memory
//! state: `protocol::parse_request`, `Logs::verify` (one trusted log key),
//! `check_old_size`, `decide`, then the cosignature, as
//! `Witness::add_checkpoint` does with its database.
//!
//! The input is a sequence of up to four requests separated by NUL bytes
//! (which no valid body holds), handled in order against one state. Each segment's
//! first byte says how its request is made:
//! - `0`: the rest, as sent (any bytes);
//! - `1`: the rest up to its first blank line is the head (`old N` and
//!   the proof lines), after it the checkpoint body, which the trusted
//!   key signs (so the fuzzer gets past the signature);
//! - `2`: an honest log grows by the rest's lines; its checkpoint, signed,
//!   with the consistency proof from the size the witness holds;
//! - `3`: the same, but the log's entries are first forked (its first
//!   entry changed) where the witness holds a non-empty tree.
//!
//! Properties: what parses re-serializes to the same bytes (sizes,
//! proof lines and note are canonical); a refusal at parsing is a 400;
//! a cosigned request carries a signature by the trusted key over its
//! body (checked again by the signed-note crate), its size is at least
//! the size held before and at the same size the same root, its
//! cosignature line verifies over its body and the note with the line
//! verifies as a cosigned note; an honest extension of what is held is
//! always cosigned, a fork never is (409 or 422).
#![no_main]

use std::collections::HashMap;
use std::sync::OnceLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use fairdeal::tlog::cosignature::{CosignatureVerifier, Cosigner};
use fairdeal::tlog::key::{LogKey, verify_note};
use fairdeal::tlog::tree;
use fairdeal::witness::protocol::{
    self, AddCheckpoint, EMPTY_ROOT, Held, Logs, MAX_PROOF_LINES, MAX_REQUEST_BYTES,
    MAX_SIGNATURES, MAX_TREE_SIZE, Refusal,
};
use libfuzzer_sys::fuzz_target;

const ORIGIN: &str = "fuzz.example/log";
const NOW: u64 = 1_764_374_400;

struct Fixed {
    log: LogKey,
    logs: Logs,
    cosigner: Cosigner,
    verifier: CosignatureVerifier,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        let log = LogKey::from_hex(&"07".repeat(32), ORIGIN).expect("log key");
        let mut logs = Logs::new();
        logs.add_spec(&log.vkey()).expect("the log's vkey");
        let cosigner = Cosigner::from_bytes(&[9; 32], "fuzz.example/witness").expect("cosigner");
        let verifier = CosignatureVerifier::from_vkey(&cosigner.vkey()).expect("its vkey");
        Fixed {
            log,
            logs,
            cosigner,
            verifier,
        }
    })
}

/// What parses is the bytes given, in their one spelling.
fn check_parsed(bytes: &[u8], request: &AddCheckpoint) {
    assert!(bytes.len() <= MAX_REQUEST_BYTES);
    let text = std::str::from_utf8(bytes).expect("a parsed body is UTF-8");
    assert!(!text.chars().any(|c| c < ' ' && c != '\n'), "{text:?}");
    assert!(request.old <= MAX_TREE_SIZE && request.checkpoint.size <= MAX_TREE_SIZE);
    assert!(request.proof.len() <= MAX_PROOF_LINES);
    assert!((1..=MAX_SIGNATURES).contains(&request.signatures.len()));
    let proof: String = request
        .proof
        .iter()
        .map(|hash| format!("{}\n", BASE64.encode(hash.0)))
        .collect();
    let again = format!("old {}\n{proof}\n{}", request.old, request.note);
    assert_eq!(again.as_bytes(), bytes, "not re-serialized byte for byte");
    let lines: String = request.signatures.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(format!("{}\n{lines}", request.body), request.note);
    let checkpoint = &request.checkpoint;
    assert!(!checkpoint.origin.is_empty());
    assert!(request.body.starts_with(&format!(
        "{}\n{}\n{}\n",
        checkpoint.origin,
        checkpoint.size,
        BASE64.encode(checkpoint.root)
    )));
    assert_eq!(
        protocol::parse_checkpoint_body(&request.body).as_ref(),
        Ok(checkpoint)
    );
}

/// One request, handled as `Witness::add_checkpoint` handles it, against
/// `state` in place of the database.
fn add(state: &mut HashMap<String, Held>, bytes: &[u8]) -> Result<String, Refusal> {
    let f = fixed();
    let parsed = protocol::parse_request(bytes);
    let request = match parsed {
        Ok(request) => request,
        Err(refusal) => {
            assert_eq!(refusal.status(), 400, "{refusal:?}");
            assert!(refusal.body().ends_with('\n'));
            return Err(refusal);
        }
    };
    check_parsed(bytes, &request);
    f.logs.verify(&request)?;
    protocol::check_old_size(&request)?;
    let held = state.get(&request.checkpoint.origin).cloned();
    protocol::decide(&request, held.as_ref())?;
    // Accepted: the checkpoint is the log's, and moves forward only.
    assert_eq!(request.checkpoint.origin, ORIGIN);
    let by_log = request.signatures.iter().any(|line| {
        verify_note(&format!("{}\n{line}\n", request.body), &f.log.vkey()).is_ok()
    });
    assert!(by_log, "cosigned without a valid signature by the log: {request:?}");
    let (held_size, held_root) = held.as_ref().map_or((0, EMPTY_ROOT), |h| (h.size, h.root));
    assert_eq!(request.old, held_size);
    assert!(request.checkpoint.size >= held_size);
    if request.checkpoint.size == held_size {
        assert_eq!(request.checkpoint.root, held_root);
    }
    state.insert(
        request.checkpoint.origin.clone(),
        Held {
            size: request.checkpoint.size,
            root: request.checkpoint.root,
            note: request.note.clone(),
        },
    );
    let line = f.cosigner.cosign(&request.body, NOW);
    // The answer is a cosignature of the body: the note with it verifies
    // (split_note, then verify_line on each line).
    assert_eq!(
        f.verifier.verify_note(&format!("{}{line}", request.note)),
        Some(NOW)
    );
    Ok(line)
}

/// The request that an honest log of `entries` makes, from the size held.
fn honest_request(entries: &[Vec<u8>], held: u64) -> Option<Vec<u8>> {
    let f = fixed();
    let size = entries.len() as u64;
    let stored = tree::stored_hashes_of(entries).ok()?;
    let root = tree::tree_hash(size, &stored).ok()?;
    let proof = if held == 0 || held == size {
        Vec::new()
    } else {
        tree::consistency_proof(size, held, &stored).ok()?
    };
    let proof: String = proof
        .iter()
        .map(|hash| format!("{}\n", BASE64.encode(hash.0)))
        .collect();
    let note = f
        .log
        .sign_note(&format!("{ORIGIN}\n{size}\n{}\n", BASE64.encode(root.0)))
        .ok()?;
    Some(format!("old {held}\n{proof}\n{note}").into_bytes())
}

fuzz_target!(|data: &[u8]| {
    let f = fixed();
    let mut state: HashMap<String, Held> = HashMap::new();
    // The honest log's entries, and whether the witness's state is its.
    let mut entries: Vec<Vec<u8>> = Vec::new();
    let mut honest = true;
    for segment in data.split(|b| *b == 0).take(4) {
        let Some((&how, rest)) = segment.split_first() else {
            continue;
        };
        match how % 4 {
            0 => {
                let before = state.get(ORIGIN).map(|h| (h.size, h.root));
                if add(&mut state, rest).is_ok() && state.get(ORIGIN).map(|h| (h.size, h.root)) != before {
                    honest = false;
                }
            }
            1 => {
                let text = String::from_utf8_lossy(rest);
                let (head, body) = text.split_once("\n\n").unwrap_or(("old 0", &text));
                let mut body = body.to_owned();
                if !body.ends_with('\n') {
                    body.push('\n');
                }
                let Ok(note) = f.log.sign_note(&body) else {
                    continue;
                };
                let before = state.get(ORIGIN).map(|h| (h.size, h.root));
                let request = format!("{head}\n\n{note}");
                if add(&mut state, request.as_bytes()).is_ok()
                    && state.get(ORIGIN).map(|h| (h.size, h.root)) != before
                {
                    honest = false;
                }
            }
            kind => {
                if !honest || entries.len() > 4096 {
                    continue;
                }
                let held = state.get(ORIGIN).map_or(0, |h| h.size);
                assert_eq!(held, entries.len() as u64);
                let mut grown = entries.clone();
                grown.extend(rest.split(|b| *b == b'\n').map(<[u8]>::to_vec));
                let fork = kind == 3 && held > 0;
                if fork {
                    grown[0].push(b'!');
                }
                let Some(request) = honest_request(&grown, held) else {
                    continue;
                };
                match add(&mut state, &request) {
                    Ok(_) => {
                        assert!(!fork, "a fork was cosigned");
                        entries = grown;
                    }
                    Err(refusal) => {
                        assert!(fork, "an honest extension was refused: {refusal:?}");
                        assert!(
                            matches!(refusal, Refusal::BadProof(_) | Refusal::RootMismatch { .. }),
                            "{refusal:?}"
                        );
                    }
                }
            }
        }
    }
});
