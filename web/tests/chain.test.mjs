// The in-browser fairdeal-chain-v1 against the published vectors.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chainSeeds, checkChainPrefix } from "../fairdeal-chain.mjs";
import { deal } from "../fairdeal-v1.mjs";

const vectors = JSON.parse(
  readFileSync(new URL("../../test-vectors/fairdeal-chain-v1.json", import.meta.url), "utf8"),
).vectors;

test("every chain vector: its seeds, each round's deal, and the successor's commitment", async () => {
  assert.equal(vectors.length, 2);
  for (const v of vectors) {
    const seeds = await chainSeeds(v.tip, v.length);
    assert.deepEqual(seeds, v.seeds, v.name);
    assert.equal(seeds[0], v.commitment, v.name);
    assert.equal(await checkChainPrefix(v.commitment, seeds.slice(1)), null, v.name);
    for (const round of v.rounds) {
      const k = Number(round.nonce);
      assert.equal(round.server_seed, seeds[k + 1], `${v.name} round ${k}`);
      const got = await deal({ serverSeed: round.server_seed, clientSeed: round.client_seed, nonce: round.nonce, game: round.game });
      assert.equal(got.server_seed_hash, seeds[k], `${v.name} round ${k}: its commitment is the seed before it`);
      for (const key of Object.keys(round.deal)) assert.deepEqual(got.deal[key], round.deal[key], `${v.name} round ${k} ${key}`);
    }
    for (const t of v.tampered ?? []) {
      assert.equal(await checkChainPrefix(v.commitment, t.published), t.fails_at, `${v.name}: ${t.what}`);
    }
    if (v.successor) {
      assert.equal((await chainSeeds(v.successor.tip, v.successor.length))[0], v.successor.commitment, `${v.name} successor`);
    }
  }
});

test("a chain's length out of range is refused", async () => {
  await assert.rejects(chainSeeds("00".repeat(32), 0), /1 to/);
  await assert.rejects(chainSeeds("00".repeat(32), 2 ** 24 + 1), /1 to/);
});
