// The in-browser fairdeal-v1 against the published vectors and RFC 8439.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import {
  chacha20Block, commitment, deal, hexToBytes, Keystream, roundKey, verifyRound,
  checkClientSeed, parseNonce, normaliseGame, FairdealError, sameInputsAsRound,
} from "../fairdeal-v1.mjs";

const vectors = JSON.parse(
  readFileSync(new URL("../../test-vectors/fairdeal-v1.json", import.meta.url), "utf8"),
).vectors;
const byName = (name) => vectors.find((v) => v.name === name);

test("RFC 8439 2.3.2 block function", () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const nonce = Uint8Array.from([0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0]);
  const words = Array.from(chacha20Block(key, 1, nonce));
  assert.deepEqual(words, [
    0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
    0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
  ]);
});

test("every published commitment matches", async () => {
  let checked = 0;
  for (const v of vectors) {
    if (!v.server_seed_hash) continue;
    assert.equal(await commitment(hexToBytes(v.server_seed)), v.server_seed_hash, v.name);
    checked += 1;
  }
  assert.equal(checked, 2);
});

test("vector A: keystream words and uniform with rejections", async () => {
  const v = byName("A");
  const key = await roundKey(hexToBytes(v.server_seed), v.client_seed, BigInt(v.nonce));
  const ks = new Keystream(key);
  assert.deepEqual(v.keystream_words.map(() => ks.nextWord().toString(16).padStart(8, "0")), v.keystream_words);
  const again = new Keystream(key);
  const results = v.uniform.results.map(() => String(again.uniform(Number(v.uniform.bound))));
  assert.deepEqual(results, v.uniform.results);
  assert.equal(again.wordsRead, v.uniform.words_consumed);
});

test("every published deal is reproduced", async () => {
  for (const v of vectors) {
    const got = await deal({ serverSeed: v.server_seed, clientSeed: v.client_seed, nonce: v.nonce, game: v.game });
    for (const key of ["deck", "hands", "board", "burns"]) {
      if (v.deal && v.deal[key]) assert.deepEqual(got.deal[key], v.deal[key], `${v.name} ${key}`);
    }
    if (v.deck_prefix) {
      assert.deepEqual(got.deal.deck.slice(0, v.deck_prefix.length), v.deck_prefix);
      assert.equal(got.deal.deck.length, v.deck_len);
      const digest = createHash("sha256").update(got.deal.deck.join(" ")).digest("hex");
      assert.equal(digest, v.deck_sha256, v.name);
    }
    if (v.rest_prefix) assert.deepEqual(got.deal.rest.slice(0, v.rest_prefix.length), v.rest_prefix);
  }
});

test("verifyRound passes a true record and names a swapped card or a wrong seed", async () => {
  const v = byName("B");
  const round = {
    server_seed: v.server_seed, server_seed_hash: v.server_seed_hash,
    client_seed: v.client_seed, nonce: Number(v.nonce), game: v.game, deal: v.deal,
  };
  const ok = await verifyRound(round);
  assert.equal(ok.commitment.ok, true);
  assert.equal(ok.deal.ok, true);
  const swapped = structuredClone(round);
  [swapped.deal.board[0], swapped.deal.board[1]] = [swapped.deal.board[1], swapped.deal.board[0]];
  const bad = await verifyRound(swapped);
  assert.equal(bad.commitment.ok, true);
  assert.equal(bad.deal.ok, false);
  assert.deepEqual(bad.deal.difference, { slot: "board[0]", computed: "Ad", recorded: "7s" });
  const wrongSeed = { ...round, server_seed: "00".repeat(32) };
  const worse = await verifyRound(wrongSeed);
  assert.equal(worse.commitment.ok, false);
});

test("inputs are checked with the specification's rules", () => {
  assert.throws(() => hexToBytes("abc"), FairdealError);
  assert.throws(() => checkClientSeed(""), /client_seed/);
  assert.throws(() => checkClientSeed("x".repeat(65)), /64 bytes/);
  assert.doesNotThrow(() => checkClientSeed("🂡".repeat(16)));
  assert.throws(() => checkClientSeed("🂡".repeat(17)), /68/);
  assert.throws(() => checkClientSeed("a\nb"), /control/);
  assert.throws(() => checkClientSeed("a\u0085b"), /control/);
  assert.equal(parseNonce("18446744073709551615"), 18446744073709551615n);
  assert.throws(() => parseNonce("18446744073709551616"), /nonce/);
  assert.throws(() => parseNonce("-1"), /nonce/);
  assert.throws(() => normaliseGame({ type: "holdem", players: 23 }), /game.players/);
  assert.throws(() => normaliseGame({ type: "deck", players: 2 }), /does not take/);
  assert.throws(() => normaliseGame({ type: "hands", players: 4, cards: 14 }), /52/);
  assert.throws(() => normaliseGame({ type: "poker" }), /game.type/);
  assert.deepEqual(normaliseGame({ type: "hands", players: 4, cards: 5 }), { type: "hands", players: 4, cards: 5, decks: 1 });
});

test("recomputed from values: the cards are a round's only when every input is the round's", async () => {
  const serverSeed = "d4905855cea6d293c9b84ccf823ec7840e6c1562df0e5b4d796ecd45dce3801c";
  const game = { type: "holdem", players: 6 };
  const recorded = await deal({ serverSeed, clientSeed: "lucky7", nonce: 41, game });
  const round = { id: "r", server_seed_hash: recorded.server_seed_hash, client_seed: "lucky7", nonce: 41, game, deal: recorded.deal };
  const typed = await deal({ serverSeed, clientSeed: "lucky7", nonce: "41", game: { type: "holdem", players: "6" } });
  assert.deepEqual(sameInputsAsRound(typed, { clientSeed: "lucky7", nonce: "41" }, round),
    { commitment: true, clientSeed: true, nonce: true, game: true, cards: true });
  // The same server seed (so the commitment matches) with another client seed: not the round's cards.
  const other = await deal({ serverSeed, clientSeed: "lucky7\u200b", nonce: 41, game });
  assert.deepEqual(sameInputsAsRound(other, { clientSeed: "lucky7\u200b", nonce: 41 }, round),
    { commitment: true, clientSeed: false, nonce: true, game: true, cards: false });
  const lookalike = await deal({ serverSeed, clientSeed: "l\u0443cky7", nonce: 41, game }); // Cyrillic у
  assert.equal(sameInputsAsRound(lookalike, { clientSeed: "l\u0443cky7", nonce: 41 }, round).clientSeed, false);
  const later = await deal({ serverSeed, clientSeed: "lucky7", nonce: 42, game });
  assert.deepEqual(sameInputsAsRound(later, { clientSeed: "lucky7", nonce: 42 }, round),
    { commitment: true, clientSeed: true, nonce: false, game: true, cards: false });
  const omaha = await deal({ serverSeed, clientSeed: "lucky7", nonce: 41, game: { type: "omaha", players: 6 } });
  assert.equal(sameInputsAsRound(omaha, { clientSeed: "lucky7", nonce: 41 }, round).game, false);
  // A record with its cards swapped, and one with no cards listed.
  const swapped = structuredClone(round.deal);
  [swapped.hands[0][0], swapped.hands[1][0]] = [swapped.hands[1][0], swapped.hands[0][0]];
  assert.equal(sameInputsAsRound(typed, { clientSeed: "lucky7", nonce: 41 }, { ...round, deal: swapped }).cards, false);
  assert.equal(sameInputsAsRound(typed, { clientSeed: "lucky7", nonce: 41 }, { ...round, deal: undefined }).cards, null);
  assert.equal(sameInputsAsRound(typed, { clientSeed: "lucky7", nonce: 41 }, { ...round, server_seed_hash: "0".repeat(64) }).commitment, false);
});
