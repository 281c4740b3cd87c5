use super::*;
use crate::audit::cross::{ExportDigests, PairDigest, fields_digest, round_digest_of_text};

const GAME: &str = r#"{"players":2,"type":"holdem"}"#;

fn pair(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// An export of `pairs`, one round each, sealed.
fn export(pairs: impl Iterator<Item = u32>) -> ExportDigests {
    let mut export = ExportDigests::default();
    for n in pairs {
        export.round(u64::from(n), &pair(n), 0, GAME, "r", "aa", "bb", "c", false);
    }
    export.seal();
    export
}

/// A cross-check whose export has not arrived, and where it will.
fn waiting() -> (std::sync::mpsc::SyncSender<ExportDigests>, CrossCheck) {
    let (send, arriving) = std::sync::mpsc::sync_channel(1);
    let cross = CrossCheck {
        arriving: Some(arriving),
        ..CrossCheck::default()
    };
    (send, cross)
}

/// What the log says of pair `n`, as the export does, or with another
/// server seed.
fn reveal(cross: &mut CrossCheck, n: u32, honest: bool) {
    let seed = if honest { "bb" } else { "bc" };
    let fields = fields_digest("aa", seed, &crate::tlog::entry::client_seed_sha256("c"));
    cross.revealed(PairDigest {
        pair: pair(n).into(),
        index: u64::from(n),
        fields,
        rounds: round_digest_of_text(0, GAME, "r"),
        count: 1,
    });
}

#[test]
fn pairs_revealed_before_the_export_arrives_are_held_against_it_in_order() {
    let (send, mut cross) = waiting();
    // More than may wait: the last reveal waits for the export, which a
    // thread sends a moment later.
    let waiting = CrossCheck::MOST_PENDING as u32;
    for n in 0..waiting {
        reveal(&mut cross, n, n != 7);
    }
    assert_eq!(cross.pending.len(), CrossCheck::MOST_PENDING);
    assert!(
        cross.differing.is_empty(),
        "nothing judged before the export"
    );
    let sender = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        send.send(export((0..waiting + 10).filter(|n| *n != 3)))
            .expect("sent");
    });
    reveal(&mut cross, waiting, false);
    assert!(cross.arriving.is_none() && cross.pending.is_empty());
    reveal(&mut cross, waiting + 1, true);
    sender.join().expect("the sender");
    // Pair 3 is not in the export, 7 and `waiting` differ: in the log's
    // order, as if the export had been there from the start.
    assert_eq!(cross.differing, [pair(3), pair(7), pair(waiting)]);
    assert_eq!(cross.revealed_pairs, u64::from(waiting) + 2);
    let unmatched: Vec<u64> = cross.export.unmatched().map(|(line, _)| line).collect();
    let expected: Vec<u64> = [7, waiting]
        .into_iter()
        .chain(waiting + 2..waiting + 10)
        .map(u64::from)
        .collect();
    assert_eq!(unmatched, expected);
}

#[test]
fn long_ids_waiting_are_bounded_by_their_bytes() {
    let (send, mut cross) = waiting();
    let long = |n: u32| format!("{n}{}", "x".repeat(60_000));
    let digest = |pair: String| PairDigest {
        pair: pair.into(),
        index: 0,
        fields: [0; 16],
        rounds: 0,
        count: 1,
    };
    let mut n = 0;
    while cross.pending_bytes < CrossCheck::MOST_PENDING_BYTES {
        cross.revealed(digest(long(n)));
        n += 1;
    }
    assert!(n < 150 && cross.arriving.is_some(), "{n} waiting");
    let sender = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        send.send(export(0..1)).expect("sent");
    });
    // Over the bound: this reveal waits for the export.
    cross.revealed(digest(long(n)));
    sender.join().expect("the sender");
    assert!(cross.pending.is_empty() && cross.pending_bytes == 0);
    assert_eq!(cross.differing.len(), n as usize + 1);
    assert!(!cross.export_lost);
}

#[test]
fn an_export_that_never_arrives_leaves_every_revealed_pair_unmatched() {
    let (send, mut cross) = waiting();
    reveal(&mut cross, 1, true);
    drop(send);
    reveal(&mut cross, 2, true);
    assert_eq!(cross.differing, [pair(1), pair(2)]);
    assert!(cross.export_lost, "the log's reader is told to stop");
}

/// The cross-check of an export of `exported` pairs saying it covers
/// the reveals `from..size`, against a log revealing pairs `0..n` at
/// entries `0..n` (in `order`).
fn covered(exported: &[u32], from: u64, size: u64, order: impl Iterator<Item = u32>) -> CrossCheck {
    let (send, mut cross) = waiting();
    let mut digests = export(exported.iter().copied());
    digests.cover(Some(crate::audit::export::LogCoverage { from, size }));
    send.send(digests).expect("sent");
    for n in order {
        reveal(&mut cross, n, true);
    }
    cross.result()
}

#[test]
fn an_export_is_held_to_the_reveals_it_covers_and_counts_the_rest() {
    // The export says it covers entries 3 to 6 (resumed after pair 2's
    // reveal, ended when the log had 7) and holds pairs 3, 4 and 6, and
    // 8, beyond what it says; the log reveals pairs 0 to 9.
    let held = [3, 4, 6, 8];
    for order in [(0..10).collect::<Vec<_>>(), (5..10).chain(0..5).collect()] {
        let cross = covered(&held, 3, 7, order.into_iter());
        // 5 lies within what the export covers: left out, named.
        assert_eq!(cross.differing, [pair(5)]);
        // 7 lies before 8, which the export holds: one run of the
        // log's reveals has no gap, whatever the end line says.
        assert_eq!(cross.missing_within, [7]);
        assert_eq!((cross.before_export, cross.after_export), (3, 1));
        assert_eq!(cross.resumed_after, Some(pair(2)));
        assert_eq!(cross.export.unmatched().count(), 0);
    }

    // A dishonest end line: it claims the log had 5 entries, to leave
    // out pair 5 while holding 6 and 7; or that it resumed after entry
    // 5, to leave out pair 2 while holding 3. Both named all the same.
    let cross = covered(&[0, 1, 2, 3, 4, 6, 7], 0, 5, 0..8);
    assert_eq!(cross.missing_within, [5]);
    let cross = covered(&[0, 1, 3, 4], 6, 6, 0..6);
    assert_eq!(cross.missing_within, [2, 5]);
    assert_eq!(cross.resumed_after, Some(pair(5)));
    // Or that it covers what lies beyond the log, to excuse every
    // reveal before it: the pairs it holds are outside what it says.
    let cross = covered(&[3, 4], 1_000, 1_000, 0..6);
    assert_eq!(cross.held_outside, [(pair(3), 3), (pair(4), 4)]);
    assert!(
        covered(&held, 3, 7, 0..10).held_outside.len() == 1,
        "8, revealed after 7"
    );
    // An export that holds nothing and says it covers nothing: every
    // reveal is another export's (the summary says how many).
    let cross = covered(&[], 0, 0, 0..4);
    assert_eq!((cross.before_export, cross.after_export), (0, 4));
    assert!(cross.missing_within.is_empty() && cross.differing.is_empty());

    // Without a coverage (an export made before exports said), every
    // reveal is the export's.
    let (send, mut cross) = waiting();
    send.send(export([3, 4].into_iter())).expect("sent");
    for n in 0..6 {
        reveal(&mut cross, n, true);
    }
    let cross = cross.result();
    assert_eq!(cross.differing, [pair(0), pair(1), pair(2), pair(5)]);
    assert_eq!((cross.before_export, cross.after_export), (0, 0));
}

#[test]
fn a_ledger_record_reads_back_as_written_and_a_damaged_one_is_an_error() {
    let records = [
        PairDigest {
            pair: pair(1).into(),
            index: 7,
            fields: [3; 16],
            rounds: u128::MAX - 5,
            count: 6,
        },
        PairDigest {
            pair: "ünïcode-id".into(),
            index: u64::MAX,
            fields: [0; 16],
            rounds: 1,
            count: 0,
        },
    ];
    // A record's size: its id's length and text, then 48 bytes.
    let size = |record: &PairDigest| 4 + record.pair.len() + 48;
    let mut bytes = Vec::new();
    for record in &records {
        record.write(&mut bytes);
    }
    assert_eq!(bytes.len(), records.iter().map(size).sum::<usize>());
    let mut from = bytes.as_slice();
    for record in &records {
        assert_eq!(
            PairDigest::read(&mut from).expect("read").as_ref(),
            Some(record)
        );
    }
    assert_eq!(PairDigest::read(&mut from).expect("the end"), None);
    // Cut short anywhere inside a record, or an id too long to be one:
    // an error, never a record.
    for cut in 1..size(&records[0]) {
        let mut from = &bytes[..cut];
        assert!(PairDigest::read(&mut from).is_err(), "cut at {cut}");
    }
    let mut long = bytes.clone();
    long[..4].copy_from_slice(&(1u32 << 20).to_le_bytes());
    assert!(PairDigest::read(&mut long.as_slice()).is_err());
    // Any one byte changed: another record, or none, and another
    // link of the hash chain.
    let chain = LedgerMark::default().after(&bytes[..size(&records[0])]);
    for at in 0..size(&records[0]) {
        let mut damaged = bytes[..size(&records[0])].to_vec();
        damaged[at] ^= 0x10;
        let read = PairDigest::read(&mut damaged.as_slice());
        assert!(
            read.as_ref()
                .map_or(true, |r| r.as_ref() != Some(&records[0])),
            "byte {at}"
        );
        assert_ne!(LedgerMark::default().after(&damaged), chain, "byte {at}");
    }
}
