//! fairdeal-chain-v1 pairs in the service (docs/PROTOCOL.md §13): the chain
//! walked once when the pair is made, its seeds kept sealed every
//! [`ANCHOR_SPACING`] positions; a round's seed found from the first anchor
//! at or above it; the seeds of ended rounds published in nonce order.

use anyhow::Context;
use fairdeal_core::{Commitment, ServerSeed, chain_step};

use super::super::sealing::MasterKey;
use crate::service::store::{ChainWork, NewChain, PublishedSeed};
use crate::time::timestamp;
use crate::tlog::entry::Entry;

/// Positions between two sealed seeds of a chain: a deal hashes down at
/// most `ANCHOR_SPACING − 1` times (64 on average, about 5 µs), and a chain
/// of a million rounds keeps 7,813 sealed seeds (72 bytes each).
pub const ANCHOR_SPACING: u64 = 128;

/// The longest chain the service makes: 1,000,000 rounds. Making one walks
/// it twice (its own and its successor's), about 0.2 s of one core; the
/// protocol allows up to 2^24 (`fairdeal_core::MAX_CHAIN_LENGTH`).
pub const MAX_SERVICE_CHAIN: u64 = 1_000_000;

/// A chain made for pair `pair_id`: its commitment `s_0` and its sealed
/// anchors, the tip among them.
#[derive(Clone, Debug)]
pub struct PreparedChain {
    pub commitment: Commitment,
    pub chain: NewChain,
}

/// Walks the chain of `tip` (length `length`) down to `s_0`, sealing the
/// seeds at every multiple of [`ANCHOR_SPACING`] and at the tip for pair
/// `pair_id`. O(length) hashes: run it off the async threads.
pub fn prepare(
    key: &MasterKey,
    pair_id: &str,
    tip: &ServerSeed,
    length: u64,
) -> anyhow::Result<PreparedChain> {
    anyhow::ensure!(
        (1..=MAX_SERVICE_CHAIN).contains(&length),
        "a chain's length must be 1 to {MAX_SERVICE_CHAIN}"
    );
    let mut anchors = Vec::with_capacity((length / ANCHOR_SPACING) as usize + 1);
    anchors.push((length, key.seal_chain_seed(tip, pair_id, length)?));
    let mut seed = tip.clone();
    for i in (0..length).rev() {
        seed = chain_step(&seed); // s_i
        if i > 0 && i % ANCHOR_SPACING == 0 {
            anchors.push((i, key.seal_chain_seed(&seed, pair_id, i)?));
        }
    }
    anchors.reverse();
    Ok(PreparedChain {
        commitment: Commitment::from_bytes(*seed.as_bytes()),
        chain: NewChain { length, anchors },
    })
}

/// The commitment `s_0` of a fresh chain of `length` from `tip`: a
/// successor's, published in advance.
pub fn commitment_of(tip: &ServerSeed, length: u64) -> anyhow::Result<Commitment> {
    fairdeal_core::chain_commitment(tip, length).map_err(|e| anyhow::anyhow!("{e}"))
}

/// `s_position` from the sealed anchor `s_anchor` of pair `pair_id`
/// (`position ≤ anchor`).
pub fn seed_at(
    key: &MasterKey,
    pair_id: &str,
    anchor: u64,
    sealed: &[u8],
    position: u64,
) -> anyhow::Result<ServerSeed> {
    anyhow::ensure!(
        (1..=anchor).contains(&position),
        "chain position {position} is not below its anchor {anchor}"
    );
    let mut seed = key
        .open_chain_seed(sealed, pair_id, anchor)
        .context("opening a chain's sealed seed")?;
    for _ in position..anchor {
        seed = chain_step(&seed);
    }
    Ok(seed)
}

/// The seeds `work` publishes: each round's `s_{k+1}` (hex), its deal
/// opened, and the log entry that publishes it, in nonce order.
pub fn publish(
    key: &MasterKey,
    work: &ChainWork,
    at_ms: i64,
) -> anyhow::Result<Vec<PublishedSeed>> {
    let Some(last) = work.rounds.last() else {
        return Ok(Vec::new());
    };
    let top = last.nonce + 1;
    let mut seed = seed_at(
        key,
        &work.pair_id,
        work.anchor_position,
        &work.anchor_sealed,
        top,
    )?;
    let mut position = top;
    let mut published = Vec::with_capacity(work.rounds.len());
    for round in work.rounds.iter().rev() {
        while position > round.nonce + 1 {
            seed = chain_step(&seed);
            position -= 1;
        }
        anyhow::ensure!(
            position == round.nonce + 1,
            "a chain's rounds out of nonce order"
        );
        let deal = match &round.deal_sealed {
            Some(sealed) => Some(
                key.open_deal(sealed, &round.id)
                    .context("opening a round's sealed deal")?,
            ),
            None => None,
        };
        let server_seed = seed.reveal_hex();
        let log_entry = Entry::RoundSeed {
            seed_pair: work.pair_id.clone(),
            round: round.id.clone(),
            nonce: round.nonce,
            server_seed: server_seed.clone(),
            time: timestamp(at_ms),
        }
        .to_bytes()?;
        published.push(PublishedSeed {
            round_id: round.id.clone(),
            server_seed,
            deal,
            log_entry,
        });
    }
    published.reverse();
    Ok(published)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> MasterKey {
        MasterKey::from_hex(&"11".repeat(32)).expect("key")
    }

    #[test]
    fn every_seed_found_from_its_anchor_is_the_chain_seed() {
        let key = key();
        let tip = ServerSeed::from_bytes([5; 32]);
        let length = 3 * ANCHOR_SPACING + 17;
        let prepared = prepare(&key, "p", &tip, length).expect("chain");
        assert_eq!(
            prepared.commitment,
            fairdeal_core::chain_commitment(&tip, length).expect("commitment")
        );
        let positions: Vec<u64> = prepared.chain.anchors.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            positions,
            vec![
                ANCHOR_SPACING,
                2 * ANCHOR_SPACING,
                3 * ANCHOR_SPACING,
                length
            ]
        );
        for position in 1..=length {
            let (anchor, sealed) = prepared
                .chain
                .anchors
                .iter()
                .find(|(p, _)| *p >= position)
                .expect("an anchor above every position");
            let seed = seed_at(&key, "p", *anchor, sealed, position).expect("seed");
            let expected = fairdeal_core::chain_seed_at(&tip, length, position).expect("seed");
            assert_eq!(seed.as_bytes(), expected.as_bytes(), "position {position}");
        }
        // An anchor opens only for its own pair and position.
        let (anchor, sealed) = &prepared.chain.anchors[0];
        assert!(seed_at(&key, "q", *anchor, sealed, 1).is_err());
        assert!(key.open_chain_seed(sealed, "p", anchor + 1).is_err());
    }

    #[test]
    fn a_chain_outside_the_service_limits_is_refused() {
        let tip = ServerSeed::from_bytes([5; 32]);
        assert!(prepare(&key(), "p", &tip, 0).is_err());
        assert!(prepare(&key(), "p", &tip, MAX_SERVICE_CHAIN + 1).is_err());
    }
}
