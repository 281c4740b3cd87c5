//! Dealing a round and checking a recorded one.

use crate::compact::compact_deal_with;
use crate::game::{Slot, shuffle};
use crate::{Card, ClientSeed, Commitment, Deal, Game, Keystream, SeedKey, ServerSeed, fresh_deck};

/// The shuffled order of `n_decks` decks for one round.
pub fn shuffled_deck(
    server_seed: &ServerSeed,
    client_seed: &ClientSeed,
    nonce: u64,
    n_decks: usize,
) -> Vec<Card> {
    shuffled_deck_with(&SeedKey::new(server_seed), client_seed, nonce, n_decks)
}

/// [`shuffled_deck`] from a prepared seed: for many rounds of one seed.
pub fn shuffled_deck_with(
    seed: &SeedKey,
    client_seed: &ClientSeed,
    nonce: u64,
    n_decks: usize,
) -> Vec<Card> {
    let mut keystream = Keystream::new(&seed.round_key(client_seed, nonce));
    let mut deck = fresh_deck(n_decks);
    shuffle(&mut deck, &mut keystream);
    deck
}

/// Deals one round of fairdeal-v1.
pub fn deal(server_seed: &ServerSeed, client_seed: &ClientSeed, nonce: u64, game: Game) -> Deal {
    deal_with(&SeedKey::new(server_seed), client_seed, nonce, game)
}

/// [`deal`] from a prepared seed: for many rounds of one seed (an audit, a
/// replay of a pair), each round then costs two SHA-256 compressions less.
pub fn deal_with(seed: &SeedKey, client_seed: &ClientSeed, nonce: u64, game: Game) -> Deal {
    compact_deal_with(seed, client_seed, nonce, game).to_deal()
}

/// Whether the revealed seed is the one that was committed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitmentCheck {
    /// SHA-256 of the seed equals the published commitment.
    Match,
    /// It does not: the operator revealed a different seed from the one it
    /// committed to, or the record was altered.
    Mismatch {
        /// The commitment that was published.
        published: Commitment,
        /// SHA-256 of the seed that was revealed.
        computed: Commitment,
    },
}

/// Whether recomputing the deal gives the recorded cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DealCheck {
    /// Every card is where fairdeal-v1 puts it.
    Match,
    /// The first card (in [`Deal::slots`] order) that differs.
    CardDiffers {
        /// Where.
        slot: Slot,
        /// What fairdeal-v1 deals there.
        computed: Card,
        /// What the record says.
        recorded: Card,
    },
    /// The record is not laid out as the game says (wrong number of hands,
    /// of cards, or another game's layout).
    LayoutDiffers {
        /// Cards fairdeal-v1 deals for this game.
        computed_cards: usize,
        /// Cards in the record.
        recorded_cards: usize,
    },
}

/// The outcome of checking one recorded round. A failed check is a value,
/// not an error: only malformed input is an `Err`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// The commitment check.
    pub commitment: CommitmentCheck,
    /// The deal check.
    pub deal: DealCheck,
    /// The deal fairdeal-v1 gives for these inputs.
    pub computed: Deal,
}

impl VerifyReport {
    /// Both checks passed.
    pub fn is_ok(&self) -> bool {
        self.commitment == CommitmentCheck::Match && self.deal == DealCheck::Match
    }
}

/// Checks a recorded round against its published commitment.
pub fn verify(
    server_seed: &ServerSeed,
    published: &Commitment,
    client_seed: &ClientSeed,
    nonce: u64,
    game: Game,
    recorded: &Deal,
) -> VerifyReport {
    let computed_commitment = server_seed.commitment();
    let commitment = if computed_commitment == *published {
        CommitmentCheck::Match
    } else {
        CommitmentCheck::Mismatch {
            published: *published,
            computed: computed_commitment,
        }
    };
    let computed = deal(server_seed, client_seed, nonce, game);
    let deal = compare_deals(&computed, recorded);
    VerifyReport {
        commitment,
        deal,
        computed,
    }
}

/// Compares a computed deal with a recorded one, naming the first difference.
pub fn compare_deals(computed: &Deal, recorded: &Deal) -> DealCheck {
    // The common case, without listing every slot.
    if computed == recorded {
        return DealCheck::Match;
    }
    let computed_slots = computed.slots();
    let recorded_slots = recorded.slots();
    let same_layout = computed_slots.len() == recorded_slots.len()
        && computed_slots
            .iter()
            .zip(&recorded_slots)
            .all(|((a, _), (b, _))| a == b);
    if !same_layout {
        return DealCheck::LayoutDiffers {
            computed_cards: computed_slots.len(),
            recorded_cards: recorded_slots.len(),
        };
    }
    computed_slots
        .iter()
        .zip(&recorded_slots)
        .find(|((_, a), (_, b))| a != b)
        .map_or(DealCheck::Match, |(&(slot, computed), &(_, recorded))| {
            DealCheck::CardDiffers {
                slot,
                computed,
                recorded,
            }
        })
}
