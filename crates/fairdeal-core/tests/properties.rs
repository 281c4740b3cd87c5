//! Properties every fairdeal-v1 deal has, whatever the inputs.

use fairdeal_core::{
    Card, ClientSeed, CompactDeal, Deal, Game, SeedKey, ServerSeed, compact_deal_with, deal,
    deal_with, fresh_deck, shuffled_deck,
};
use proptest::prelude::*;

fn server_seed() -> impl Strategy<Value = ServerSeed> {
    any::<[u8; 32]>().prop_map(ServerSeed::from_bytes)
}

fn client_seed() -> impl Strategy<Value = ClientSeed> {
    // Any printable text of 1..=16 characters (at most 64 bytes).
    "[^\\p{Cc}]{1,16}".prop_map(|s| ClientSeed::new(s).expect("generated seeds are valid"))
}

fn game() -> impl Strategy<Value = Game> {
    prop_oneof![
        (1u32..=8).prop_map(|d| Game::deck(d).expect("valid")),
        (2u32..=22).prop_map(|p| Game::holdem(p).expect("valid")),
        (2u32..=11).prop_map(|p| Game::omaha(p).expect("valid")),
        (1u32..=8, 1u32..=52, 1u32..=52)
            .prop_filter_map("fits the shoe", |(d, p, c)| { Game::hands(p, c, d).ok() }),
    ]
}

fn sorted(mut cards: Vec<Card>) -> Vec<Card> {
    cards.sort();
    cards
}

fn all_cards(deal: &Deal) -> Vec<Card> {
    deal.slots().into_iter().map(|(_, card)| card).collect()
}

/// Every game type and several shapes, over fixed seeds and nonces: the
/// proptest below draws games at random, this makes sure each kind is seen.
#[test]
fn dealt_order_is_the_top_of_the_shuffled_deck_for_every_game_type() {
    let games = [
        Game::deck(1),
        Game::deck(2),
        Game::holdem(2),
        Game::holdem(9),
        Game::holdem(22),
        Game::omaha(2),
        Game::omaha(6),
        Game::omaha(11),
        Game::hands(1, 1, 1),
        Game::hands(4, 5, 1),
        Game::hands(52, 1, 1),
        Game::hands(1, 52, 1),
        Game::hands(3, 17, 1),
        Game::hands(4, 14, 2),
        Game::hands(6, 50, 6),
    ]
    .map(|game| game.expect("valid game"));
    let clients = ["player", "🂡 x", "c"].map(|c| ClientSeed::new(c).expect("valid"));
    for (seed_idx, client) in clients.iter().enumerate() {
        let seed = ServerSeed::from_bytes(core::array::from_fn(|i| (i * 7 + seed_idx * 31) as u8));
        for nonce in [0, 1, 41, 1 << 32, u64::MAX] {
            for game in games {
                let dealt = deal(&seed, client, nonce, game);
                let deck = shuffled_deck(&seed, client, nonce, game.decks() as usize);
                let order = dealt.dealt_order();
                assert_eq!(order.len(), dealt.n_cards(), "{game}, nonce {nonce}");
                assert_eq!(order, deck[..order.len()], "{game}, nonce {nonce}");
                if matches!(dealt, Deal::Deck { .. } | Deal::Hands { .. }) {
                    assert_eq!(order, deck, "{game}, nonce {nonce}");
                }
            }
        }
    }
}

proptest! {
    /// A seed prepared once deals every round exactly as the seed itself.
    #[test]
    fn a_prepared_seed_deals_what_the_seed_deals(
        seed in server_seed(),
        client in client_seed(),
        nonces in proptest::collection::vec(any::<u64>(), 1..8),
        game in game(),
    ) {
        let prepared = SeedKey::new(&seed);
        for nonce in nonces {
            prop_assert_eq!(deal_with(&prepared, &client, nonce, game), deal(&seed, &client, nonce, game));
        }
    }

    /// The inline deal is the same deal: the top of the shuffled deck (dealt
    /// here by the separate `Vec` path), the same layout, the same JSON, and
    /// `matches` tells it from a record with any one card changed.
    #[test]
    fn a_compact_deal_is_the_same_deal(
        seed in server_seed(),
        client in client_seed(),
        nonce in any::<u64>(),
        game in game(),
        changed in any::<prop::sample::Index>(),
    ) {
        let compact = compact_deal_with(&SeedKey::new(&seed), &client, nonce, game);
        let deck = shuffled_deck(&seed, &client, nonce, game.decks() as usize);
        prop_assert_eq!(compact.dealt_order(), &deck[..compact.n_cards()]);
        prop_assert_eq!(compact.n_cards(), game.dealt_cards() as usize);
        let dealt = compact.to_deal();
        prop_assert_eq!(dealt.dealt_order(), compact.dealt_order());
        prop_assert!(compact.matches(&dealt));
        #[cfg(feature = "serde")]
        prop_assert_eq!(
            serde_json::to_string(&compact).expect("serializes"),
            serde_json::to_string(&dealt).expect("serializes")
        );
        // Another card in one slot (the next face, so never the same card).
        let mut slots = dealt.slots();
        let at = changed.index(slots.len());
        slots[at].1 = Card::from_deck_index(slots[at].1.deck_index() + 1);
        let tampered: Vec<Card> = slots.into_iter().map(|(_, card)| card).collect();
        let mut cards = tampered.into_iter();
        let mut take = |n: usize| cards.by_ref().take(n).collect::<Vec<Card>>();
        let altered = match &dealt {
            Deal::Deck { deck } => Deal::Deck { deck: take(deck.len()) },
            Deal::Board { hands, board, burns } => Deal::Board {
                hands: hands.iter().map(|h| take(h.len())).collect(),
                board: take(board.len()),
                burns: take(burns.len()),
            },
            Deal::Hands { hands, rest } => Deal::Hands {
                hands: hands.iter().map(|h| take(h.len())).collect(),
                rest: take(rest.len()),
            },
        };
        prop_assert!(!compact.matches(&altered));
        // Read back from a record: the same deal, or none for a record of
        // another shape.
        let read_back = CompactDeal::from_deal(game, &dealt);
        prop_assert_eq!(read_back.as_ref(), Some(&compact));
        prop_assert_eq!(
            CompactDeal::from_deal(game, &altered).map(|c| c.dealt_order() == compact.dealt_order()),
            Some(false)
        );
        let mut short = dealt.clone();
        match &mut short {
            Deal::Deck { deck } => drop(deck.pop()),
            Deal::Board { board, .. } => drop(board.pop()),
            Deal::Hands { hands, .. } => drop(hands.last_mut().and_then(Vec::pop)),
        }
        prop_assert!(CompactDeal::from_deal(game, &short).is_none());
        prop_assert!(!compact.matches(&short));
        let mut json = Vec::new();
        compact.write_json(&mut json);
        #[cfg(feature = "serde")]
        prop_assert_eq!(
            String::from_utf8(json).expect("ASCII"),
            serde_json::to_string(&dealt).expect("serializes")
        );
    }

    #[test]
    fn every_shuffle_is_a_permutation_of_the_shoe(
        seed in server_seed(), client in client_seed(), nonce in any::<u64>(), decks in 1usize..=8
    ) {
        let deck = shuffled_deck(&seed, &client, nonce, decks);
        prop_assert_eq!(sorted(deck), sorted(fresh_deck(decks)));
    }

    #[test]
    fn every_deal_lays_out_the_shuffled_deck_without_loss_or_repeat(
        seed in server_seed(), client in client_seed(), nonce in any::<u64>(), game in game()
    ) {
        let dealt = deal(&seed, &client, nonce, game);
        let deck = shuffled_deck(&seed, &client, nonce, game.decks() as usize);
        let cards = all_cards(&dealt);
        match &dealt {
            Deal::Deck { deck: d } => prop_assert_eq!(d, &deck),
            Deal::Board { hands, board, burns } => {
                let players = game.players().expect("players") as usize;
                let per = game.cards_per_player().expect("cards") as usize;
                prop_assert_eq!(hands.len(), players);
                prop_assert_eq!(board.len(), 5);
                prop_assert_eq!(burns.len(), 3);
                for (seat, hand) in hands.iter().enumerate() {
                    for (k, card) in hand.iter().enumerate() {
                        prop_assert_eq!(*card, deck[k * players + seat]);
                    }
                }
                // One deck, so every dealt card is distinct, and they are
                // exactly the top cards of the shuffled deck.
                prop_assert_eq!(sorted(cards), sorted(deck[..players * per + 8].to_vec()));
            }
            Deal::Hands { hands, rest } => {
                let players = game.players().expect("players") as usize;
                let per = game.cards_per_player().expect("cards") as usize;
                prop_assert_eq!(hands.len(), players);
                prop_assert!(hands.iter().all(|h| h.len() == per));
                prop_assert_eq!(rest.as_slice(), &deck[players * per..]);
                prop_assert_eq!(sorted(cards), sorted(fresh_deck(game.decks() as usize)));
            }
        }
    }

    #[test]
    fn dealt_order_is_the_top_of_the_shuffled_deck(
        seed in server_seed(), client in client_seed(), nonce in any::<u64>(), game in game()
    ) {
        let dealt = deal(&seed, &client, nonce, game);
        let deck = shuffled_deck(&seed, &client, nonce, game.decks() as usize);
        let order = dealt.dealt_order();
        prop_assert_eq!(order.len(), dealt.n_cards());
        prop_assert_eq!(&order[..], &deck[..order.len()]);
    }

    #[test]
    fn the_same_inputs_always_give_the_same_deal(
        seed in server_seed(), client in client_seed(), nonce in any::<u64>(), game in game()
    ) {
        prop_assert_eq!(deal(&seed, &client, nonce, game), deal(&seed, &client, nonce, game));
    }

    /// A whole 52-card order repeats by chance with probability 1/52! ≈ 1.2e-68.
    #[test]
    fn changing_any_input_changes_the_shuffle(
        seed in any::<[u8; 32]>(), bit in 0usize..256, client in client_seed(), nonce in 0u64..u64::MAX
    ) {
        let original = ServerSeed::from_bytes(seed);
        let deck = shuffled_deck(&original, &client, nonce, 1);

        let mut flipped = seed;
        flipped[bit / 8] ^= 1 << (bit % 8);
        prop_assert_ne!(&deck, &shuffled_deck(&ServerSeed::from_bytes(flipped), &client, nonce, 1));

        let other_client = ClientSeed::new(format!("{}x", &client.as_str()[..client.as_str().len().min(60)]))
            .expect("still valid");
        prop_assert_ne!(&deck, &shuffled_deck(&original, &other_client, nonce, 1));

        prop_assert_ne!(&deck, &shuffled_deck(&original, &client, nonce + 1, 1));
    }

    /// `client:nonce` is unambiguous in the HMAC message only because the
    /// nonce is digits and comes last; this pins the separator's role.
    #[test]
    fn moving_digits_between_client_seed_and_nonce_changes_the_shuffle(
        seed in server_seed(), nonce in 10u64..1_000_000
    ) {
        let text = nonce.to_string();
        let (head, tail) = text.split_at(1);
        let a = ClientSeed::new(format!("c{head}")).expect("valid");
        let b = ClientSeed::new("c").expect("valid");
        let tail: u64 = tail.parse().expect("digits");
        // "c1:23456" vs "c:123456" — different messages, so different decks.
        prop_assert_ne!(shuffled_deck(&seed, &a, tail, 1), shuffled_deck(&seed, &b, nonce, 1));
    }
}
