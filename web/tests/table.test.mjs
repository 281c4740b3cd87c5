// The in-browser fairdeal-table-v1 against the published vectors.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { contributionCommitment, tableClientSeed } from "../fairdeal-table.mjs";
import { deal } from "../fairdeal-v1.mjs";

const vectors = JSON.parse(
  readFileSync(new URL("../../test-vectors/fairdeal-table-v1.json", import.meta.url), "utf8"),
).vectors;

test("every table vector: commitments, client seed, and its deal", async () => {
  assert.equal(vectors.length, 3);
  for (const v of vectors) {
    const commitments = await Promise.all(v.contributions.map(contributionCommitment));
    assert.deepEqual(commitments, v.commitments, v.name);
    const clientSeed = await tableClientSeed(v.seats, v.contributions);
    assert.equal(clientSeed, v.client_seed, v.name);
    if (v.deal) {
      const got = await deal({ serverSeed: v.deal.server_seed, clientSeed, nonce: v.deal.nonce, game: v.deal.game });
      for (const key of ["hands", "board", "burns"]) assert.deepEqual(got.deal[key], v.deal[key], `${v.name} ${key}`);
    }
  }
});

test("any one changed contribution changes the seed; bad inputs are named", async () => {
  const v = vectors[1];
  const base = await tableClientSeed(v.seats, v.contributions);
  for (let seat = 0; seat < v.seats.length; seat++) {
    const changed = v.contributions.slice();
    changed[seat] = `${changed[seat]}!`.slice(-64);
    assert.notEqual(await tableClientSeed(v.seats, changed), base, `seat ${seat}`);
  }
  await assert.rejects(tableClientSeed(["a"], ["x"]), /2 to 22 seats/);
  await assert.rejects(tableClientSeed(["a", "a"], ["x", "y"]), /distinct/);
  await assert.rejects(tableClientSeed(["a", "b"], ["x"]), /one per seat/);
  await assert.rejects(tableClientSeed(["a", "b"], ["x", "\n"]), /seat 1 contribution/);
  await assert.rejects(tableClientSeed(["a", "b"], ["x", "y".repeat(65)]), /seat 1 contribution/);
});
