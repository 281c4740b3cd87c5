// fairdeal-v1 holdem deals as a Node.js game backend would write them, with
// the standard `crypto` module: HMAC-SHA256 for the round key, the
// `chacha20` cipher (OpenSSL) over zero bytes for the keystream, Lemire's
// method and Fisher–Yates. A peer for benches/peers/run.sh: it first checks
// itself against the published vector B, then times N deals.
// Usage: node benches/peers/node-fairdeal-v1.mjs [N]
import { createCipheriv, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";

const RANKS = "23456789TJQKA";
const FRESH = [..."cdhs"].flatMap((suit) => [...RANKS].map((rank) => rank + suit));
const ZEROS = Buffer.alloc(256);
const IV = Buffer.alloc(16); // 32-bit little-endian block counter 0, then an all-zero nonce

function holdem(seed, clientSeed, nonce, players) {
  const key = createHmac("sha256", seed).update(`${clientSeed}:${nonce}`).digest();
  const cipher = createCipheriv("chacha20", key, IV);
  let words = cipher.update(ZEROS);
  let at = 0;
  const next = () => {
    if (at === words.length) {
      words = cipher.update(ZEROS);
      at = 0;
    }
    const word = words.readUInt32LE(at);
    at += 4;
    return word;
  };
  const uniform = (bound) => {
    for (;;) {
      const product = next() * bound; // below 2^53: exact
      const low = product % 4294967296;
      if (low >= (4294967296 - bound) % bound) return Math.floor(product / 4294967296);
    }
  };
  const deck = FRESH.slice();
  for (let i = deck.length - 1; i > 0; i--) {
    const j = uniform(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const hands = Array.from({ length: players }, (_, p) => [deck[p], deck[players + p]]);
  const h = 2 * players;
  return {
    hands,
    board: [deck[h + 1], deck[h + 2], deck[h + 3], deck[h + 5], deck[h + 7]],
    burns: [deck[h], deck[h + 4], deck[h + 6]],
  };
}

const vectors = JSON.parse(readFileSync(new URL("../../test-vectors/fairdeal-v1.json", import.meta.url), "utf8")).vectors;
const b = vectors.find((v) => v.name === "B");
const got = holdem(Buffer.from(b.server_seed, "hex"), b.client_seed, b.nonce, b.game.players);
if (JSON.stringify(got) !== JSON.stringify(b.deal)) {
  console.error("the Node peer does not reproduce vector B:", JSON.stringify(got));
  process.exit(1);
}

const n = Number(process.argv[2] || 200000);
const seed = Buffer.alloc(32, 7);
let sink = 0;
const started = process.hrtime.bigint();
for (let nonce = 0; nonce < n; nonce++) sink += holdem(seed, "benchmark client seed", nonce, 6).board.length;
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`node ${process.version}: ${n} holdem-6 deals in ${seconds.toFixed(3)} s = ${(seconds / n * 1e9).toFixed(0)} ns/deal (${sink === 5 * n ? "ok" : "?"})`);
