// The worker's bulk check (bulk.mjs) against fairdeal-v1.mjs's deal and
// against a tree computed here by RFC 6962's definition.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import * as v1 from "../fairdeal-v1.mjs";
import * as sync from "../sha256.mjs";
import * as bulk from "../bulk.mjs";

const games = [
  { type: "holdem", players: 6 }, { type: "holdem", players: 22 }, { type: "omaha", players: 3 },
  { type: "deck", decks: 1 }, { type: "deck", decks: 8 }, { type: "hands", players: 3, cards: 5, decks: 2 },
];

test("bulk deals are fairdeal-v1's deals, card for card", async () => {
  for (let r = 0; r < 60; r++) {
    const serverSeed = randomBytes(32).toString("hex");
    const clientSeed = r % 2 ? `player ${r} 🂡` : "x".repeat(64);
    const nonce = r === 0 ? 0 : r * 982451653 + (r % 3 === 0 ? 2 ** 52 : 0);
    const game = v1.normaliseGame(games[r % games.length]);
    const reference = await v1.deal({ serverSeed, clientSeed, nonce, game });
    const dealer = bulk.bulkDealer(v1.hexToBytes(serverSeed), clientSeed);
    const deck = bulk.bulkShuffle(dealer, nonce, game.type === "deck" || game.type === "hands" ? game.decks : 1);
    assert.deepEqual(v1.layOut(game, bulk.bulkNames(deck)), reference.deal, `round ${r}`);
    assert.equal(bulk.bulkDifference(game, deck, reference.deal), null);
    // One card swapped: named at its slot, as verifyRound names it.
    const tampered = structuredClone(reference.deal);
    const record = { ...reference, server_seed: serverSeed, client_seed: clientSeed, nonce, game, deal: tampered };
    const [slot] = v1.slots(tampered)[1];
    const path = slot.match(/^(\w+)\[(\d+)\](?:\[(\d+)\])?$/);
    const list = path[3] === undefined ? tampered[path[1]] : tampered[path[1]][Number(path[2])];
    const at = Number(path[3] ?? path[2]);
    list[at] = list[at] === "2c" ? "3c" : "2c";
    const expected = (await v1.verifyRound({ ...record, server_seed_hash: reference.server_seed_hash })).deal.difference;
    assert.deepEqual(bulk.bulkDifference(game, deck, tampered), expected, `round ${r}`);
    assert.equal(bulk.bulkDifference(game, deck, { ...reference.deal, extra: 1 }), null, "other keys are not slots");
    assert.ok(bulk.bulkDifference(game, deck, {}), "an empty record differs");
  }
});

const sha = (...parts) => createHash("sha256").update(Buffer.concat(parts)).digest();
const leafOf = (entry) => sha(Buffer.from([0]), Buffer.from(entry));

/** RFC 6962's MTH of leaf hashes. */
function mth(hashes) {
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return sha(Buffer.from([1]), mth(hashes.slice(0, k)), mth(hashes.slice(k)));
}

/** The nodes the service gives (service::evidence::proof_nodes), with their hashes. */
function nodesFor(hashes, size, leaves) {
  const out = new Map();
  const walk = (lo, hi, ls) => {
    const width = hi - lo;
    if (!ls.length && Number.isInteger(Math.log2(width))) {
      out.set(`${Math.log2(width)}/${lo / width}`, mth(hashes.slice(lo, hi)));
      return;
    }
    if (width === 1) return;
    let k = 1;
    while (k * 2 < width) k *= 2;
    walk(lo, lo + k, ls.filter((l) => l < lo + k));
    walk(lo + k, hi, ls.filter((l) => l >= lo + k));
  };
  walk(0, size, leaves);
  return out;
}

test("the root from some leaves and the other ranges' nodes; a forged node, a changed entry or a missing node fails", () => {
  const entries = Array.from({ length: 300 }, (_, i) => `{"entry":${i}}`);
  const hashes = entries.map(leafOf);
  for (const size of [1, 2, 3, 5, 8, 13, 100, 256, 257, 300]) {
    const root = mth(hashes.slice(0, size));
    for (const leaves of [[0], [size - 1], [...Array(size).keys()].filter((i) => i % 7 === 3), [...Array(size).keys()]]) {
      if (!leaves.length) continue;
      const nodes = nodesFor(hashes, size, leaves);
      const given = leaves.map((i) => [i, bulk.bulkLeafHash(new TextEncoder().encode(entries[i]))]);
      assert.ok(bulk.bulkSameBytes(bulk.bulkRoot(size, given, nodes), root), `size ${size}`);
      const changed = given.map(([i, h], k) => [i, k === 0 ? bulk.bulkLeafHash(new TextEncoder().encode("forged")) : h]);
      assert.ok(!bulk.bulkSameBytes(bulk.bulkRoot(size, changed, nodes), root));
      if (nodes.size) {
        const [first] = nodes.keys();
        const forged = new Map(nodes);
        forged.set(first, Buffer.alloc(32, 7));
        assert.ok(!bulk.bulkSameBytes(bulk.bulkRoot(size, given, forged), root));
        const missing = new Map(nodes);
        missing.delete(first);
        assert.throws(() => bulk.bulkRoot(size, given, missing), /lacks the tree node/);
        // A node cannot stand in for a leaf being checked: the leaf is hashed regardless.
        const cover = new Map(nodes);
        cover.set(`0/${leaves[0]}`, Buffer.alloc(32, 9));
        assert.ok(bulk.bulkSameBytes(bulk.bulkRoot(size, given, cover), root));
      }
    }
  }
  assert.throws(() => bulk.bulkRoot(4, [[4, Buffer.alloc(32)]], new Map()), /outside the checkpoint/);
});
