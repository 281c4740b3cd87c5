// The verification page's bulk check of a seed pair, run in its worker
// (verify-worker.mjs): fairdeal-v1 deals with a synchronous round key
// (sha256.mjs) and a ChaCha20 written for speed, compared card by card
// with the record; and the pair's log evidence (GET
// /v1/seed-pairs/{id}/evidence) recomputed up to one checkpoint's root.
// tests/bulk.test.mjs checks both against fairdeal-v1.mjs and the
// service's own tree.
//
// An ES module: it imports what it uses from fairdeal-v1.mjs and sha256.mjs.

import { layOut, slots } from "./fairdeal-v1.mjs";
import { syncHmac, syncHmacKey, syncSha256 } from "./sha256.mjs";

const BULK_NAMES = [];
for (const suit of "cdhs") for (const rank of "23456789TJQKA") BULK_NAMES.push(rank + suit);
const BULK_CODES = new Map(BULK_NAMES.map((name, code) => [name, code]));
const BULK_TWO32 = 4294967296;
const BULK_ENCODER = new TextEncoder();

/** A dealer for the many rounds of one server seed and client seed. */
export function bulkDealer(serverSeed, clientSeed) {
  return {
    key: syncHmacKey(serverSeed),
    prefix: BULK_ENCODER.encode(`${clientSeed}:`),
    roundKey: new Uint8Array(32),
    keyWords: new Uint32Array(8),
    block: new Uint32Array(16),
    working: new Uint32Array(16),
  };
}

/** The RFC 8439 block `counter` of key `k` (8 words), nonce 0, into `out`. */
function bulkChachaBlock(k, counter, x, out) {
  let x0 = 0x61707865, x1 = 0x3320646e, x2 = 0x79622d32, x3 = 0x6b206574;
  let x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3], x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
  let x12 = counter, x13 = 0, x14 = 0, x15 = 0;
  for (let i = 0; i < 10; i++) {
    x0 = (x0 + x4) | 0; x12 ^= x0; x12 = (x12 << 16) | (x12 >>> 16);
    x8 = (x8 + x12) | 0; x4 ^= x8; x4 = (x4 << 12) | (x4 >>> 20);
    x0 = (x0 + x4) | 0; x12 ^= x0; x12 = (x12 << 8) | (x12 >>> 24);
    x8 = (x8 + x12) | 0; x4 ^= x8; x4 = (x4 << 7) | (x4 >>> 25);
    x1 = (x1 + x5) | 0; x13 ^= x1; x13 = (x13 << 16) | (x13 >>> 16);
    x9 = (x9 + x13) | 0; x5 ^= x9; x5 = (x5 << 12) | (x5 >>> 20);
    x1 = (x1 + x5) | 0; x13 ^= x1; x13 = (x13 << 8) | (x13 >>> 24);
    x9 = (x9 + x13) | 0; x5 ^= x9; x5 = (x5 << 7) | (x5 >>> 25);
    x2 = (x2 + x6) | 0; x14 ^= x2; x14 = (x14 << 16) | (x14 >>> 16);
    x10 = (x10 + x14) | 0; x6 ^= x10; x6 = (x6 << 12) | (x6 >>> 20);
    x2 = (x2 + x6) | 0; x14 ^= x2; x14 = (x14 << 8) | (x14 >>> 24);
    x10 = (x10 + x14) | 0; x6 ^= x10; x6 = (x6 << 7) | (x6 >>> 25);
    x3 = (x3 + x7) | 0; x15 ^= x3; x15 = (x15 << 16) | (x15 >>> 16);
    x11 = (x11 + x15) | 0; x7 ^= x11; x7 = (x7 << 12) | (x7 >>> 20);
    x3 = (x3 + x7) | 0; x15 ^= x3; x15 = (x15 << 8) | (x15 >>> 24);
    x11 = (x11 + x15) | 0; x7 ^= x11; x7 = (x7 << 7) | (x7 >>> 25);
    x0 = (x0 + x5) | 0; x15 ^= x0; x15 = (x15 << 16) | (x15 >>> 16);
    x10 = (x10 + x15) | 0; x5 ^= x10; x5 = (x5 << 12) | (x5 >>> 20);
    x0 = (x0 + x5) | 0; x15 ^= x0; x15 = (x15 << 8) | (x15 >>> 24);
    x10 = (x10 + x15) | 0; x5 ^= x10; x5 = (x5 << 7) | (x5 >>> 25);
    x1 = (x1 + x6) | 0; x12 ^= x1; x12 = (x12 << 16) | (x12 >>> 16);
    x11 = (x11 + x12) | 0; x6 ^= x11; x6 = (x6 << 12) | (x6 >>> 20);
    x1 = (x1 + x6) | 0; x12 ^= x1; x12 = (x12 << 8) | (x12 >>> 24);
    x11 = (x11 + x12) | 0; x6 ^= x11; x6 = (x6 << 7) | (x6 >>> 25);
    x2 = (x2 + x7) | 0; x13 ^= x2; x13 = (x13 << 16) | (x13 >>> 16);
    x8 = (x8 + x13) | 0; x7 ^= x8; x7 = (x7 << 12) | (x7 >>> 20);
    x2 = (x2 + x7) | 0; x13 ^= x2; x13 = (x13 << 8) | (x13 >>> 24);
    x8 = (x8 + x13) | 0; x7 ^= x8; x7 = (x7 << 7) | (x7 >>> 25);
    x3 = (x3 + x4) | 0; x14 ^= x3; x14 = (x14 << 16) | (x14 >>> 16);
    x9 = (x9 + x14) | 0; x4 ^= x9; x4 = (x4 << 12) | (x4 >>> 20);
    x3 = (x3 + x4) | 0; x14 ^= x3; x14 = (x14 << 8) | (x14 >>> 24);
    x9 = (x9 + x14) | 0; x4 ^= x9; x4 = (x4 << 7) | (x4 >>> 25);
  }
  out[0] = x0 + 0x61707865; out[1] = x1 + 0x3320646e; out[2] = x2 + 0x79622d32; out[3] = x3 + 0x6b206574;
  out[4] = x4 + k[0]; out[5] = x5 + k[1]; out[6] = x6 + k[2]; out[7] = x7 + k[3];
  out[8] = x8 + k[4]; out[9] = x9 + k[5]; out[10] = x10 + k[6]; out[11] = x11 + k[7];
  out[12] = x12 + counter; out[13] = x13; out[14] = x14; out[15] = x15;
}

/**
 * The shuffled shoe of round `nonce` (a whole number) for `decks` decks:
 * each card as its code (0..51, fresh-deck order c d h s, 2..A), exactly as
 * fairdeal-v1.mjs's deal shuffles it.
 */
export function bulkShuffle(dealer, nonce, decks) {
  const message = new Uint8Array(dealer.prefix.length + 20);
  message.set(dealer.prefix);
  const digits = String(nonce);
  let length = dealer.prefix.length;
  for (let i = 0; i < digits.length; i++) message[length++] = digits.charCodeAt(i);
  const key = syncHmac(dealer.key, message.subarray(0, length), dealer.roundKey);
  const words = dealer.keyWords;
  for (let i = 0; i < 8; i++) {
    words[i] = key[4 * i] | (key[4 * i + 1] << 8) | (key[4 * i + 2] << 16) | (key[4 * i + 3] << 24);
  }
  const size = 52 * decks;
  const deck = new Uint8Array(size);
  for (let i = 0; i < size; i++) deck[i] = i % 52;
  const block = dealer.block;
  let counter = 0;
  let at = 16;
  for (let i = size - 1; i >= 1; i--) {
    const bound = i + 1;
    const threshold = (BULK_TWO32 - bound) % bound;
    let j;
    for (;;) {
      if (at === 16) {
        bulkChachaBlock(words, counter, null, block);
        counter += 1;
        at = 0;
      }
      const m = block[at++] * bound; // below 2^41: exact
      if (m % BULK_TWO32 >= threshold) {
        j = Math.floor(m / BULK_TWO32);
        break;
      }
    }
    const swap = deck[i];
    deck[i] = deck[j];
    deck[j] = swap;
  }
  return deck;
}

/** The names of a shuffled shoe's codes. */
export function bulkNames(deck) {
  return Array.from(deck, (code) => BULK_NAMES[code]);
}

/** Whether `recorded` (a record's list of cards) holds exactly `codes[from..]` in order. */
function bulkSame(recorded, codes, positions) {
  if (!Array.isArray(recorded) || recorded.length !== positions.length) return false;
  for (let i = 0; i < positions.length; i++) {
    if (BULK_CODES.get(recorded[i]) !== codes[positions[i]]) return false;
  }
  return true;
}

const BULK_RANGE = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * Whether the recorded deal is the layout of `deck` for `game` (normalised):
 * null when every card matches, else the first difference as
 * fairdeal-v1.mjs's verifyRound names it (`{ slot, computed, recorded }`).
 */
export function bulkDifference(game, deck, recorded) {
  const deal = recorded || {};
  const keys = Object.keys(deal).filter((k) => ["deck", "hands", "board", "burns", "rest"].includes(k)).sort().join();
  let same = false;
  if (game.type === "deck") {
    same = keys === "deck" && bulkSame(deal.deck, deck, BULK_RANGE(0, deck.length));
  } else {
    const per = game.type === "holdem" ? 2 : game.type === "omaha" ? 4 : game.cards;
    const players = game.players;
    const h = per * players;
    same = Array.isArray(deal.hands) && deal.hands.length === players
      && deal.hands.every((hand, p) => bulkSame(hand, deck, BULK_RANGE(0, per).map((k) => k * players + p)));
    if (game.type === "hands") {
      same = same && keys === "hands,rest" && bulkSame(deal.rest, deck, BULK_RANGE(h, deck.length));
    } else {
      same = same && keys === "board,burns,hands"
        && bulkSame(deal.board, deck, [h + 1, h + 2, h + 3, h + 5, h + 7])
        && bulkSame(deal.burns, deck, [h, h + 4, h + 6]);
    }
  }
  if (same) return null;
  // The slow path, only for a round that differs: name the first slot.
  const mine = slots(layOut(game, bulkNames(deck)));
  const theirs = slots(deal);
  if (mine.length !== theirs.length || mine.some(([slot], i) => theirs[i][0] !== slot)) {
    return { slot: "layout", computed: `${mine.length} cards`, recorded: `${theirs.length} cards` };
  }
  const i = mine.findIndex(([, card], k) => theirs[k][1] !== card);
  return i < 0 ? null : { slot: mine[i][0], computed: mine[i][1], recorded: theirs[i][1] };
}

// ---- The log's evidence ----------------------------------------------------

const BULK_ZERO = new Uint8Array([0]);
const BULK_ONE = new Uint8Array([1]);

/** RFC 6962's leaf hash of an entry (its bytes). */
export function bulkLeafHash(entryBytes) {
  return syncSha256(BULK_ZERO, entryBytes);
}

/**
 * The root of the tree of `size` leaves from the hashes of some of its
 * leaves (`leaves`: [index, hash] sorted by index, distinct) and the nodes
 * of every other range (`nodes`: a Map from "level/index" to its hash), by
 * RFC 6962's recursion: a range that holds one of the leaves is always
 * hashed from its halves, so no node can stand in for a leaf being
 * checked. Throws naming a node that is needed and not given.
 */
export function bulkRoot(size, leaves, nodes) {
  const walk = (lo, hi, from, to) => {
    const width = hi - lo;
    if (from === to && Number.isInteger(Math.log2(width))) {
      const level = Math.log2(width);
      const hash = nodes.get(`${level}/${lo / width}`);
      if (!hash) throw new Error(`the evidence lacks the tree node at level ${level}, index ${lo / width}`);
      return hash;
    }
    if (width === 1) return leaves[from][1];
    let k = 1;
    while (k * 2 < width) k *= 2;
    let split = from;
    while (split < to && leaves[split][0] < lo + k) split++;
    return syncSha256(BULK_ONE, walk(lo, lo + k, from, split), walk(lo + k, hi, split, to));
  };
  if (size < 1) throw new Error("an empty tree proves nothing");
  if (leaves.length && (leaves[0][0] < 0 || leaves[leaves.length - 1][0] >= size)) {
    throw new Error(`a log index is outside the checkpoint's ${size} entries`);
  }
  return walk(0, size, 0, leaves.length);
}

/** Decodes base64 to bytes. */
export function bulkBase64(text) {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** Whether two byte arrays are equal. */
export function bulkSameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
