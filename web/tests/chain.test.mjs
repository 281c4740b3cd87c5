// The in-browser fairdeal-chain-v1 against the published vectors.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import * as v1 from "../fairdeal-v1.mjs";
import * as sync from "../sha256.mjs";
import {
  chainSeeds, checkChainPrefix, chainHashDown, chainHashDownInChunks, chainLinker, chainCheckTip, chainHiddenWords, chainWaitingWords,
} from "../fairdeal-chain.mjs";
const { deal } = v1;

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

test("hashing down in chunks: each seed of a vector reaches the commitment in `position` hashes, pausing between chunks", async () => {
  for (const v of vectors) {
    for (let p = 0; p < v.seeds.length; p++) {
      assert.equal(await chainHashDownInChunks(v.seeds[p], p, { chunk: 2 }), v.commitment, `${v.name} s_${p}`);
      assert.equal(v1.bytesToHex(chainHashDown(v1.hexToBytes(v.seeds[p]), p)), v.commitment);
    }
  }
  const pauses = [];
  const progress = [];
  const seed = "ab".repeat(32);
  const got = await chainHashDownInChunks(seed, 10, { chunk: 4, pause: async () => pauses.push(1), onProgress: (d, t) => progress.push([d, t]) });
  assert.deepEqual(progress, [[4, 10], [8, 10], [10, 10]]);
  assert.equal(pauses.length, 2, "a pause between chunks, none after the last");
  let reference = Buffer.from(seed, "hex");
  for (let i = 0; i < 10; i++) reference = createHash("sha256").update(reference).digest();
  assert.equal(got, reference.toString("hex"));
  await assert.rejects(chainHashDownInChunks(seed, -1), /position/);
  await assert.rejects(chainHashDownInChunks("xyz", 1), /64 hexadecimal/);
});

test("the worker's linker passes C1's published seeds and names the wrong one in each tampered prefix", () => {
  const c1 = vectors[0];
  const all = chainLinker(c1.commitment);
  c1.seeds.slice(1).forEach((seed, k) => {
    const r = all.link(k, seed);
    assert.equal(r.ok, true, `round ${k}`);
    assert.equal(r.hashes, 1);
    assert.equal(r.against, k);
  });
  assert.equal(all.position, c1.length);
  for (const t of c1.tampered) {
    const linker = chainLinker(c1.commitment);
    const failed = t.published.map((seed, k) => [k, linker.link(k, seed)]).filter(([, r]) => !r.ok).map(([k]) => k);
    assert.equal(failed[0], t.fails_at, t.what);
  }
  // One round's seed replaced: that round fails, and the rounds after it
  // still link to the chain (over it, two hashes back).
  const replaced = [...c1.seeds.slice(1)];
  replaced[2] = "ab".repeat(32);
  const linker = chainLinker(c1.commitment);
  const results = replaced.map((seed, k) => linker.link(k, seed));
  assert.deepEqual(results.map((r) => r.ok), [true, true, false, true, true]);
  assert.equal(results[2].against, 2, "compared with round 1's seed");
  assert.equal(results[2].computed, createHash("sha256").update(Buffer.from("ab".repeat(32), "hex")).digest("hex"));
  assert.deepEqual([results[3].against, results[3].hashes], [2, 2], "round 3 hashes twice to round 1's seed");
  // A gap in the rounds listed is bridged too; a seed too far is not hashed.
  const gap = chainLinker(c1.commitment);
  assert.equal(gap.link(3, c1.seeds[4]).ok, true);
  const far = chainLinker(c1.commitment, { maxHashes: 2 });
  assert.deepEqual([far.link(3, c1.seeds[4]).ok, far.link(3, c1.seeds[4]).tooFar], [false, true]);
  assert.match(chainLinker(c1.commitment).link(0, "not hex").reason, /64 hexadecimal/);
  const again = chainLinker(c1.commitment);
  again.link(0, c1.seeds[1]);
  assert.match(again.link(0, c1.seeds[1]).reason, /not after/);
});

test("a revealed chain's tip hashes down to the last round's seed and to the commitment", () => {
  for (const v of vectors) {
    for (let p = 0; p <= v.length; p++) {
      const r = chainCheckTip(v.tip, v.length, v.commitment, p, v.seeds[p]);
      assert.deepEqual([r.toLast, r.toCommitment], [true, true], `${v.name} position ${p}`);
    }
    assert.equal(chainCheckTip(v.tip, v.length, v.commitment).toLast, null);
    const wrong = chainCheckTip("ab".repeat(32), v.length, v.commitment, 1, v.seeds[1]);
    assert.deepEqual([wrong.toLast, wrong.toCommitment], [false, false]);
    // The right tip, a wrong last seed.
    assert.deepEqual([chainCheckTip(v.tip, v.length, v.commitment, 0, "cd".repeat(32)).toLast], [false]);
  }
  assert.throws(() => chainCheckTip("ab".repeat(32), 0, "00".repeat(32)), /1 to/);
});

test("a million hashes take about a second or less (the most a round of a service chain needs)", () => {
  const started = performance.now();
  const out = chainHashDown(v1.hexToBytes("ab".repeat(32)), 1_000_000);
  const ms = performance.now() - started;
  console.log(`# 1,000,000 chained SHA-256 hashes: ${ms.toFixed(0)} ms`);
  assert.equal(out.length, 32);
  assert.ok(ms < 10_000, `${ms} ms`);
});

test("why a chain round's seed is hidden, in words: its own hand, or the earlier hand in play, by nonce", () => {
  const own = chainHiddenWords({ nonce: 3, status: "in_play" }, { nonce: 3, status: "in_play" });
  assert.match(own, /^This hand is still in play\./);
  assert.doesNotMatch(own, /earlier hand/);
  assert.equal(chainHiddenWords({ nonce: 3, status: "in_play" }, null), own, "the pair unread: its own hand");
  const both = chainHiddenWords({ nonce: 3, status: "in_play" }, { nonce: 1, status: "in_play" });
  assert.match(both, /earlier hand of the same seed pair \(nonce 1\) is still in play too/);
  const earlier = chainHiddenWords({ nonce: 3, status: "closed" }, { nonce: 1, status: "in_play" });
  assert.match(earlier, /^This hand has ended, but an earlier hand of the same seed pair \(nonce 1\) is still in play/);
  assert.match(earlier, /every hand before it have ended/);
  assert.match(chainHiddenWords({ nonce: 3, status: "closed" }, { nonce: 2, status: "closed" }), /\(nonce 2\) is not published yet/);
  assert.match(chainHiddenWords({ nonce: 3, status: "closed" }, null), /not published yet.*Check again/);
  for (const text of [own, both, earlier]) assert.doesNotMatch(text, /in_play|undefined|null|NaN/);
});

test("what a chain pair's unpublished rounds wait for", () => {
  assert.equal(chainWaitingWords(0, null, 0), "");
  assert.match(chainWaitingWords(1, { nonce: 4, status: "in_play" }, 1), /^1 round still to be published\. The first of them, nonce 4, is still in play\. /);
  assert.match(chainWaitingWords(3, { nonce: 4, status: "in_play" }, 2), /^3 rounds .*nonce 4, is still in play \(2 of them are in play\)/);
  assert.match(chainWaitingWords(2, { nonce: 4, status: "closed" }, 1), /nonce 4, has ended, but its seed is not published yet \(1 of them is in play\)/);
});
