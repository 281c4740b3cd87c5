//! A game and a recorded deal as JSON (`fairdeal_core::{Game, Deal}` through
//! serde). A game that parses round-trips, deals without panicking, and
//! (with one deck) deals no card twice; a recorded deal that parses can be
//! read back in dealt order and compared with a computed one.
#![no_main]

use fairdeal_core::{
    ClientSeed, Deal, DealCheck, Game, ServerSeed, compare_deals, deal, shuffled_deck, verify,
};
use libfuzzer_sys::fuzz_target;

fn no_duplicate(cards: &[fairdeal_core::Card]) -> bool {
    let mut sorted = cards.to_vec();
    sorted.sort();
    sorted.windows(2).all(|w| w[0] != w[1])
}

fuzz_target!(|data: &[u8]| {
    let seed = ServerSeed::from_bytes([0x5a; 32]);
    let client = ClientSeed::new("fuzz client seed").expect("valid client seed");
    let nonce = 7;

    if let Ok(game) = serde_json::from_slice::<Game>(data) {
        let text = serde_json::to_string(&game).expect("a game serializes");
        assert_eq!(serde_json::from_str::<Game>(&text).ok(), Some(game), "{text}");
        let _ = game.to_string();

        let dealt = deal(&seed, &client, nonce, game);
        let order = dealt.dealt_order();
        assert_eq!(order.len(), dealt.n_cards(), "{game}");
        assert_eq!(dealt.slots().len(), dealt.n_cards(), "{game}");
        let deck = shuffled_deck(&seed, &client, nonce, game.decks() as usize);
        assert_eq!(order[..], deck[..order.len()], "{game}");
        if game.decks() == 1 {
            assert!(no_duplicate(&order), "{game}: a card dealt twice");
        }
        assert!(verify(&seed, &seed.commitment(), &client, nonce, game, &dealt).is_ok());
        let text = serde_json::to_string(&dealt).expect("a deal serializes");
        assert_eq!(serde_json::from_str::<Deal>(&text).ok(), Some(dealt), "{text}");
    }

    if let Ok(recorded) = serde_json::from_slice::<Deal>(data) {
        let order = recorded.dealt_order();
        assert_eq!(order.len(), recorded.n_cards());
        assert_eq!(recorded.slots().len(), recorded.n_cards());
        let computed = deal(&seed, &client, nonce, Game::holdem(2).expect("valid game"));
        let check = compare_deals(&computed, &recorded);
        assert_eq!(check == DealCheck::Match, computed == recorded);
        assert_eq!(compare_deals(&recorded, &recorded), DealCheck::Match);
        let _ = serde_json::to_string(&recorded).expect("a deal serializes");
    }
});
