//! Cosignatures and witness keys as another party writes them
//! (`tlog::cosignature`, `service::log::witnessing::Witness::parse`,
//! `service::log::witness_set`). The first byte picks what the rest is:
//! - `0`: a cosigner's verifier key, and a witness as an operator or a
//!   stored set writes it (`VKEY@URL`): what parses re-serializes (the
//!   vkey as `vkey()` writes it, the URL as kept) and parses again to the
//!   same; the name is the text's, the URL starts with http:// or https://;
//! - `1`: a note: `split_note` gives back the note's bytes (body, blank
//!   line, lines) and `verify_note` agrees with `verify_line` on each line;
//! - `2`: a body and a time: a line made by a `Cosigner` over the body
//!   verifies (with and without its newline, alone and on the note), gives
//!   its time back, and not with another key of the same name; any change
//!   of a byte of the body or of the line makes it fail;
//! - `3`: a stored witness set (JSON, `WitnessSet::from_setting`): what
//!   reads writes (`to_setting`) and reads again equal; one that holds
//!   together (`check`) has witnesses that re-parse to themselves.
#![no_main]

use std::sync::OnceLock;

use fairdeal::service::log::witness_set::{WitnessSet, parse_witness, vkey_name};
use fairdeal::service::log::witnessing::Witness;
use fairdeal::tlog::cosignature::{
    CosignatureVerifier, Cosigner, MAX_TIMESTAMP, split_note,
};
use libfuzzer_sys::fuzz_target;

struct Fixed {
    cosigner: Cosigner,
    verifier: CosignatureVerifier,
    /// Same name, another key.
    twin: CosignatureVerifier,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        let cosigner = Cosigner::from_bytes(&[9; 32], "fuzz.example/witness").expect("key");
        let verifier = CosignatureVerifier::from_vkey(&cosigner.vkey()).expect("vkey");
        let twin = Cosigner::from_bytes(&[10; 32], "fuzz.example/witness")
            .expect("key")
            .verifier();
        Fixed {
            cosigner,
            verifier,
            twin,
        }
    })
}

fn vkey_and_witness(text: &str) {
    if let Ok(verifier) = CosignatureVerifier::from_vkey(text) {
        let written = verifier.vkey();
        let again = CosignatureVerifier::from_vkey(&written).expect("its own vkey parses");
        assert_eq!(again.vkey(), written);
        assert_eq!((again.name(), again.key_id()), (verifier.name(), verifier.key_id()));
        // The same text but for the key id's case.
        let mut given = text.trim().splitn(3, '+');
        let (name, id, material) = (given.next(), given.next(), given.next());
        let expected = format!(
            "{}+{}+{}",
            name.unwrap_or_default(),
            id.unwrap_or_default().to_ascii_lowercase(),
            material.unwrap_or_default()
        );
        assert_eq!(written, expected, "{text:?}");
        assert_eq!(vkey_name(&written), verifier.name());
        assert!(!verifier.name().is_empty() && !verifier.name().contains('+'));
    }
    if let Ok(witness) = Witness::parse(text) {
        assert!(
            witness.url.starts_with("http://") || witness.url.starts_with("https://"),
            "{text:?} kept the URL {:?}",
            witness.url
        );
        assert!(!witness.url.ends_with('/'));
        assert_eq!(witness.vkey(), witness.verifier.vkey());
        let written = format!("{}@{}", witness.vkey(), witness.url);
        let again = Witness::parse(&written)
            .unwrap_or_else(|err| panic!("{text:?} parses, but not as written, {written:?}: {err}"));
        assert_eq!((again.vkey(), again.url.as_str()), (witness.vkey(), witness.url.as_str()));
        let logged = parse_witness(text).expect("parse_witness agrees with Witness::parse");
        assert_eq!((logged.vkey.as_str(), logged.url.as_str()), (witness.vkey(), witness.url.as_str()));
        assert_eq!(parse_witness(&written), Ok(logged));
    } else {
        assert!(parse_witness(text).is_err());
    }
}

fn note(text: &str) {
    let f = fixed();
    let Some((body, lines)) = split_note(text) else {
        assert_eq!(f.verifier.verify_note(text), None);
        return;
    };
    assert!(body.ends_with('\n'));
    assert!(!lines.is_empty());
    let joined: String = lines.iter().map(|line| format!("{line}\n")).collect();
    assert_eq!(format!("{body}\n{joined}"), text);
    for line in &lines {
        assert!(line.starts_with("\u{2014} ") && !line.contains('\n'));
    }
    let first = lines.iter().find_map(|line| f.verifier.verify_line(body, line));
    assert_eq!(f.verifier.verify_note(text), first);
    if let Some(time) = first {
        assert!(time <= MAX_TIMESTAMP);
    }
}

fn cosign(rest: &[u8]) {
    let f = fixed();
    let mut head = [0u8; 12];
    let n = rest.len().min(12);
    head[..n].copy_from_slice(&rest[..n]);
    let time = u64::from_be_bytes(head[..8].try_into().expect("8 bytes")) & MAX_TIMESTAMP;
    let at = usize::from(u16::from_be_bytes([head[8], head[9]]));
    let (in_line, byte) = (head[10] & 1 == 1, head[11]);
    let mut body = String::from_utf8_lossy(&rest[n..]).into_owned();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    let line = f.cosigner.cosign(&body, time);
    assert!(line.starts_with("\u{2014} fuzz.example/witness ") && line.ends_with('\n'));
    assert_eq!(f.verifier.verify_line(&body, &line), Some(time));
    assert_eq!(f.verifier.verify_line(&body, line.trim_end_matches('\n')), Some(time));
    assert_eq!(f.twin.verify_line(&body, &line), None);
    let cosigned = format!("{body}\n{line}");
    assert_eq!(split_note(&cosigned), Some((body.as_str(), vec![line.trim_end_matches('\n')])));
    assert_eq!(f.verifier.verify_note(&cosigned), Some(time));
    // One byte changed, in the body or in the line.
    let original = if in_line { &line } else { &body };
    let mut changed = original.as_bytes().to_vec();
    let at = at % changed.len();
    changed[at] = byte;
    let Ok(changed) = String::from_utf8(changed) else {
        return;
    };
    if changed == *original {
        return;
    }
    let verified = if in_line {
        f.verifier.verify_line(&body, &changed)
    } else {
        f.verifier.verify_line(&changed, &line)
    };
    assert_eq!(verified, None, "a changed {} verifies: {changed:?}", if in_line { "line" } else { "body" });
}

fn setting(text: &str) {
    let Ok(set) = WitnessSet::from_setting(text) else {
        return;
    };
    let written = set.to_setting();
    let again = WitnessSet::from_setting(&written).expect("what is written reads");
    assert_eq!(again, set, "{text:?} reads, writes {written:?}, which reads otherwise");
    assert_eq!(again.to_setting(), written);
    if set.check().is_ok() {
        let count = set.witnesses.len() as u64;
        if count > 0 {
            assert!((1..=count).contains(&set.quorum()), "{text:?}");
        }
        for logged in &set.witnesses {
            let text = format!("{}@{}", logged.vkey, logged.url);
            let parsed = parse_witness(&text).expect("a checked set's witness parses");
            assert_eq!(parse_witness(&format!("{}@{}", parsed.vkey, parsed.url)), Ok(parsed));
        }
        assert!(set.build(None).is_ok());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 4 {
        0 => vkey_and_witness(&String::from_utf8_lossy(rest)),
        1 => note(&String::from_utf8_lossy(rest)),
        2 => cosign(rest),
        _ => setting(&String::from_utf8_lossy(rest)),
    }
});
