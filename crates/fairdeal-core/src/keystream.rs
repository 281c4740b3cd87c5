//! From the three round inputs to a stream of unbiased integers.
//!
//! round key = HMAC-SHA256(server seed, client seed ‖ ":" ‖ decimal nonce);
//! keystream = ChaCha20 (RFC 8439 block function) keyed by the round key, all-zero
//! nonce, block counter from 0, read as little-endian 32-bit words;
//! `uniform(bound)` = Lemire's multiply-and-reject over those words.

use core::fmt;

use chacha20::ChaCha20Rng;
use hmac::{Hmac, KeyInit, Mac};
use rand_core::{Rng, SeedableRng};
use sha2::Sha256;
use zeroize::ZeroizeOnDrop;

use crate::{ClientSeed, ServerSeed};

/// The server seed prepared as an HMAC-SHA256 key: the inner and outer
/// padded key blocks already compressed. A seed deals many rounds; each
/// round key from a `SeedKey` then costs two SHA-256 compressions (three
/// with a client seed over 44 bytes) instead of four.
///
/// As secret as the seed itself: redacted `Debug`. hmac 0.13 does not wipe
/// its state on drop (nor did the one-shot HMAC each round made before
/// this type existed); keep a `SeedKey` only as long as its seed.
#[derive(Clone)]
pub struct SeedKey(Hmac<Sha256>);

impl SeedKey {
    /// Prepares `server_seed`.
    pub fn new(server_seed: &ServerSeed) -> Self {
        Self(
            <Hmac<Sha256> as KeyInit>::new_from_slice(server_seed.as_bytes())
                .expect("HMAC takes keys of any length"),
        )
    }

    /// HMAC-SHA256 keyed by the server seed over `client_seed:nonce`.
    pub fn round_key(&self, client_seed: &ClientSeed, nonce: u64) -> RoundKey {
        let mut mac = self.0.clone();
        mac.update(client_seed.as_str().as_bytes());
        mac.update(b":");
        mac.update(Decimal::new(nonce).as_bytes());
        RoundKey(mac.finalize().into_bytes().into())
    }
}

impl fmt::Debug for SeedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SeedKey(<redacted>)")
    }
}

/// A `u64` in ASCII decimal, without leading zeros or sign (as `Display`
/// writes it), on the stack.
struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    fn new(mut n: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        Self { digits, start }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.digits[self.start..]
    }
}

/// The 32-byte key of one round's keystream.
///
/// Anyone holding it can compute that round's deal, so it is treated like the
/// server seed: redacted `Debug`, zeroed on drop.
#[derive(Clone, ZeroizeOnDrop)]
pub struct RoundKey([u8; 32]);

impl RoundKey {
    /// HMAC-SHA256 keyed by the server seed over `client_seed:nonce`. To
    /// derive many rounds of one seed, prepare it once as a [`SeedKey`].
    pub fn derive(server_seed: &ServerSeed, client_seed: &ClientSeed, nonce: u64) -> Self {
        SeedKey::new(server_seed).round_key(client_seed, nonce)
    }

    /// The raw key bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for RoundKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RoundKey(<redacted>)")
    }
}

/// A source of 32-bit words for [`uniform`] and [`crate::shuffle`].
///
/// fairdeal-v1 uses only [`Keystream`]; the trait exists so tests and audits
/// can run the very same sampling and shuffle code over other sources (for
/// example, to show what a narrow or biased source does to it).
pub trait WordSource {
    /// The next 32-bit word.
    fn next_word(&mut self) -> u32;
}

/// Words generated at a time: four ChaCha20 blocks, what one SIMD refill of
/// the generator makes (a 52-card deck reads 51 of them).
const BUFFER_WORDS: usize = 64;

/// The ChaCha20 keystream of one round, counting the words it has produced.
///
/// Words are generated [`BUFFER_WORDS`] at a time and served from a buffer.
/// The generator zeroes its key and state on drop; the buffer is not wiped:
/// its words decide nothing but this round's deal, which the caller holds
/// in the clear, and wiping 256 bytes would cost a quarter of a deal.
pub struct Keystream {
    rng: ChaCha20Rng,
    /// The keystream's next bytes; word `k` is bytes `4k..4k + 4`, little-endian.
    buffer: [u8; BUFFER_WORDS * 4],
    next: usize,
    words_read: u64,
}

impl Keystream {
    /// Starts the keystream of `key` at block 0, word 0.
    pub fn new(key: &RoundKey) -> Self {
        Self {
            rng: ChaCha20Rng::from_seed(key.0),
            buffer: [0; BUFFER_WORDS * 4],
            next: BUFFER_WORDS,
            words_read: 0,
        }
    }

    /// How many 32-bit words have been read so far.
    pub fn words_read(&self) -> u64 {
        self.words_read
    }

    /// The next [`BUFFER_WORDS`] words. Out of line, so that reading a word
    /// stays small enough to inline into the shuffle.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        self.rng.fill_bytes(&mut self.buffer);
        self.next = 0;
    }
}

impl WordSource for Keystream {
    #[inline]
    fn next_word(&mut self) -> u32 {
        if self.next == BUFFER_WORDS {
            self.refill();
        }
        let at = self.next * 4;
        let word = u32::from_le_bytes([
            self.buffer[at],
            self.buffer[at + 1],
            self.buffer[at + 2],
            self.buffer[at + 3],
        ]);
        self.next += 1;
        self.words_read += 1;
        word
    }
}

impl fmt::Debug for Keystream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keystream")
            .field("words_read", &self.words_read)
            .finish_non_exhaustive()
    }
}

/// Largest bound [`uniform`] accepts: 2^32.
pub const UNIFORM_MAX_BOUND: u64 = 1 << 32;

/// An integer in `0..bound`, exactly uniform if the words are.
///
/// Lemire's multiply-and-reject: with t = (2^32 − bound) mod bound, draw x and
/// take m = x · bound (64-bit) until the low 32 bits of m are ≥ t; answer the
/// high 32 bits. Of the 2^32 word values exactly ⌊2^32 / bound⌋ map to each
/// result; the t leftovers are rejected and redrawn.
///
/// # Panics
/// If `bound` is outside `2..=2^32`. Deals never ask for more than 416.
#[inline]
pub fn uniform<S: WordSource + ?Sized>(source: &mut S, bound: u64) -> u64 {
    assert!(
        (2..=UNIFORM_MAX_BOUND).contains(&bound),
        "uniform: bound {bound} outside 2..=2^32"
    );
    lemire::<32>(|| u64::from(source.next_word()), bound)
}

/// Lemire's method over `BITS`-bit words (BITS ≤ 32). fairdeal-v1 uses 32;
/// the narrower widths exist so tests can enumerate every word exhaustively
/// and prove the method exactly uniform with this very code.
#[inline]
pub(crate) fn lemire<const BITS: u32>(mut next_word: impl FnMut() -> u64, bound: u64) -> u64 {
    let mask = (1u64 << BITS) - 1;
    let mut product = next_word() * bound;
    let mut low = product & mask;
    // t < bound, so a low part ≥ bound is accepted without computing t (and
    // without its division). The words consumed are the same as the spec's.
    if low < bound {
        let threshold = ((1u64 << BITS) - bound) % bound;
        while low < threshold {
            product = next_word() * bound;
            low = product & mask;
        }
    }
    product >> BITS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8439 §2.3.2: the block function with a known key, counter and nonce.
    /// The RNG splits the 128 bits after the constants and key as a 64-bit
    /// block counter (words 12–13) and a 64-bit stream (words 14–15); with the
    /// RFC's 32-bit counter and 96-bit nonce the same words are set this way.
    #[test]
    fn keystream_is_the_rfc_8439_block_function() {
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let mut rng = ChaCha20Rng::from_seed(key);
        // counter = 1, nonce = 00:00:00:09:00:00:00:4a:00:00:00:00
        let word12 = 1u64;
        let word13 = u64::from(u32::from_le_bytes([0, 0, 0, 9]));
        rng.set_stream(u64::from(u32::from_le_bytes([0, 0, 0, 0x4a])));
        rng.set_word_pos(u128::from(word12 | (word13 << 32)) * 16);
        let expected: [u32; 16] = [
            0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204,
            0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de,
            0xe883d0cb, 0x4e3c50a2,
        ];
        let got: [u32; 16] = core::array::from_fn(|_| rng.next_u32());
        assert_eq!(got, expected);
    }

    /// Runs [`lemire`] over every `BITS`-bit word for every bound in
    /// `bounds`: each result must come from exactly ⌊2^BITS / bound⌋ words and
    /// the other 2^BITS mod bound words must be rejected. This is the same
    /// function fairdeal-v1 runs with 32-bit words.
    fn assert_lemire_exactly_uniform<const BITS: u32>(bounds: core::ops::RangeInclusive<u64>) {
        let n_words = 1u64 << BITS;
        for bound in bounds {
            let mut hits = vec![0u64; bound as usize];
            let mut rejected = 0u64;
            for word in 0..n_words {
                // Feed one word; a rejection asks for a second, which we mark.
                // The all-ones word is accepted for every bound, so the
                // second draw ends the call.
                let mut calls = 0;
                let result = lemire::<BITS>(
                    || {
                        calls += 1;
                        if calls == 1 { word } else { n_words - 1 }
                    },
                    bound,
                );
                if calls == 1 {
                    hits[result as usize] += 1;
                } else {
                    rejected += 1;
                }
            }
            let per_result = n_words / bound;
            assert!(
                hits.iter().all(|&h| h == per_result),
                "{BITS}-bit words, bound {bound}"
            );
            assert_eq!(rejected, n_words % bound, "{BITS}-bit words, bound {bound}");
        }
    }

    /// Every 8-bit word, for every bound an 8-bit source can serve.
    #[test]
    fn lemire_is_exactly_uniform_over_every_8_bit_word() {
        assert_lemire_exactly_uniform::<8>(2..=256);
    }

    /// Every 16-bit word, for every bound up to 600 (an 8-deck shoe needs 416).
    #[test]
    fn lemire_is_exactly_uniform_over_every_16_bit_word() {
        assert_lemire_exactly_uniform::<16>(2..=600);
    }

    /// The buffered words are the generator's own words, in order, across
    /// many refills (an 8-deck shoe reads 415).
    #[test]
    fn buffered_words_are_the_generators_words() {
        let key = RoundKey(core::array::from_fn(|i| (i * 3) as u8));
        let mut keystream = Keystream::new(&key);
        let mut rng = ChaCha20Rng::from_seed(key.0);
        for n in 0..1000u64 {
            assert_eq!(keystream.next_word(), rng.next_u32(), "word {n}");
        }
        assert_eq!(keystream.words_read(), 1000);
    }

    #[test]
    fn nonces_are_written_as_display_writes_them() {
        for n in [
            0u64,
            1,
            9,
            10,
            99,
            100,
            12_345,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ] {
            assert_eq!(Decimal::new(n).as_bytes(), n.to_string().as_bytes(), "{n}");
        }
    }

    #[test]
    fn a_prepared_seed_derives_the_keys_a_fresh_hmac_does() {
        let seed = ServerSeed::from_bytes(core::array::from_fn(|i| i as u8 * 7));
        let prepared = SeedKey::new(&seed);
        // Client seeds that keep the message in one block and that need two.
        for client in ["c", &"x".repeat(44), &"y".repeat(64)] {
            let client = ClientSeed::new(client).expect("valid");
            for nonce in [0u64, 1, 42, u64::MAX] {
                let mut mac =
                    <Hmac<Sha256> as KeyInit>::new_from_slice(seed.as_bytes()).expect("any length");
                mac.update(format!("{}:{nonce}", client.as_str()).as_bytes());
                let expected: [u8; 32] = mac.finalize().into_bytes().into();
                assert_eq!(prepared.round_key(&client, nonce).as_bytes(), &expected);
            }
        }
    }

    #[test]
    fn round_keys_are_redacted_and_zeroed_on_drop() {
        fn zeroed_on_drop<T: ZeroizeOnDrop>() {}
        zeroed_on_drop::<RoundKey>();
        assert_eq!(
            format!("{:?}", SeedKey::new(&ServerSeed::from_bytes([1; 32]))),
            "SeedKey(<redacted>)"
        );
        let seed = ServerSeed::from_bytes([0xab; 32]);
        let client = ClientSeed::new("player").expect("valid");
        let key = RoundKey::derive(&seed, &client, 7);
        assert_eq!(format!("{key:?}"), "RoundKey(<redacted>)");
    }

    #[test]
    fn lemire_accepts_the_full_32_bit_bound() {
        let mut words = [7u32, 9].into_iter();
        let mut source = || u64::from(words.next().expect("one word"));
        // bound = 2^32: t = 0, every word accepted, result = the word itself.
        assert_eq!(lemire::<32>(&mut source, UNIFORM_MAX_BOUND), 7);
    }
}
