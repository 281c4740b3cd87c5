// The in-browser fairdeal-table-v1 against the published vectors.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import {
  contributionCommitment, tableClientSeed, checkTable, findContribution, randomContribution,
} from "../fairdeal-table.mjs";
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

/** A table pair's record as the service answers it, from a vector. */
function pairOf(v, { clientSeed = v.client_seed, revealed = v.seats.length, committed = v.seats.length } = {}) {
  return {
    id: "pair",
    client_seed: clientSeed,
    table: {
      protocol: "fairdeal-table-v1",
      seats: v.seats.map((seat, i) => ({
        seat,
        commitment: i < committed ? v.commitments[i] : null,
        contribution: i < revealed ? v.contributions[i] : null,
      })),
    },
  };
}

test("checkTable: an honest table passes every seat and the derived seed", async () => {
  for (const v of vectors) {
    const checked = await checkTable(pairOf(v));
    assert.deepEqual(checked.seats.map((r) => r.status), v.seats.map(() => "pass"), v.name);
    assert.deepEqual(checked.seats.map((r) => r.seat), v.seats);
    assert.deepEqual(checked.seats.map((r) => r.computed), v.commitments);
    assert.equal(checked.seed.status, "pass", v.name);
    assert.equal(checked.seed.computed, v.client_seed);
    assert.deepEqual(checked.failed, []);
    assert.deepEqual(checked.waiting, []);
  }
});

test("checkTable: a tampered contribution fails its seat and the seed", async () => {
  const v = vectors[1];
  const pair = pairOf(v);
  pair.table.seats[1].contribution = "🂡 ace of hearts";
  const checked = await checkTable(pair);
  assert.deepEqual(checked.seats.map((r) => r.status), ["pass", "fail", "pass", "pass", "pass", "pass"]);
  assert.deepEqual(checked.failed, [1]);
  assert.match(checked.seats[1].reason, new RegExp(`not the commitment ${v.commitments[1]}`));
  assert.equal(checked.seats[1].computed, await contributionCommitment("🂡 ace of hearts"));
  assert.equal(checked.seed.status, "fail");
  assert.notEqual(checked.seed.computed, v.client_seed);
  // A contribution and commitment both replaced: the seat opens, the seed does not.
  pair.table.seats[1].commitment = await contributionCommitment("🂡 ace of hearts");
  const swapped = await checkTable(pair);
  assert.equal(swapped.seats[1].status, "pass");
  assert.equal(swapped.seed.status, "fail");
});

test("checkTable: a client seed that is not the derived one fails", async () => {
  const v = vectors[0];
  const checked = await checkTable(pairOf(v, { clientSeed: "f".repeat(64) }));
  assert.deepEqual(checked.seats.map((r) => r.status), ["pass", "pass"]);
  assert.equal(checked.seed.status, "fail");
  assert.equal(checked.seed.computed, v.client_seed);
  assert.match(checked.seed.reason, /not the client seed f{64}/);
  // The player's own seed in place of the derived one.
  assert.equal((await checkTable(pairOf(v, { clientSeed: "correct horse" }))).seed.status, "fail");
});

test("checkTable: pending while seats commit and reveal; a seed set early fails", async () => {
  const v = vectors[0];
  const committing = await checkTable(pairOf(v, { clientSeed: null, revealed: 0, committed: 1 }));
  assert.deepEqual(checked(committing), [["pending", "pending"], "pending"]);
  assert.deepEqual(committing.waiting, [0, 1]);
  assert.match(committing.seats[1].reason, /not committed/);
  const revealing = await checkTable(pairOf(v, { clientSeed: null, revealed: 1 }));
  assert.deepEqual(checked(revealing), [["pass", "pending"], "pending"]);
  assert.match(revealing.seats[1].reason, /not revealed/);
  const early = await checkTable(pairOf(v, { revealed: 1 }));
  assert.deepEqual(checked(early), [["pass", "pending"], "fail"]);
  const unset = await checkTable(pairOf(v, { clientSeed: null }));
  assert.deepEqual(checked(unset), [["pass", "pass"], "pending"]);
  // Revealed without a commitment, or breaking the rules: fails its seat.
  const uncommitted = pairOf(v);
  uncommitted.table.seats[0].commitment = null;
  assert.equal((await checkTable(uncommitted)).seats[0].status, "fail");
  const long = pairOf(v);
  long.table.seats[0].contribution = "x".repeat(65);
  long.table.seats[0].commitment = createHash("sha256").update("x".repeat(65)).digest("hex");
  const broken = await checkTable(long);
  assert.equal(broken.seats[0].status, "fail");
  assert.match(broken.seats[0].reason, /1 to 64 bytes/);
  assert.equal(broken.seed.status, "fail");
  await assert.rejects(checkTable({ client_seed: "x" }), /not a table pair/);
});

function checked(result) {
  return [result.seats.map((r) => r.status), result.seed.status];
}

test("findContribution: names the seat, or says it matches none", async () => {
  const v = vectors[1];
  const honest = await checkTable(pairOf(v));
  for (const [i, c] of v.contributions.entries()) {
    const found = await findContribution(honest, c);
    assert.deepEqual([found.status, found.index, found.seat, found.reason], ["pass", i, v.seats[i], "in_seed"]);
  }
  assert.deepEqual(pick(await findContribution(honest, "Zoe")), ["fail", null, "no_seat"]);
  assert.deepEqual(pick(await findContribution(honest, "")), ["fail", null, "empty"]);
  const spaced = await findContribution(honest, " Zoë ");
  assert.deepEqual([spaced.status, spaced.hint], ["fail", { index: 3, seat: "seat 4" }]);
  // Seat 2's stored contribution altered: its player learns the record is not theirs.
  const pair = pairOf(v);
  pair.table.seats[1].contribution = "🂡 ace of hearts";
  const tampered = await checkTable(pair);
  assert.deepEqual(pick(await findContribution(tampered, v.contributions[1])), ["fail", 1, "other_contribution"]);
  assert.deepEqual(pick(await findContribution(tampered, v.contributions[0])), ["fail", 0, "seed_mismatch"]);
  assert.deepEqual(pick(await findContribution(tampered, "🂡 ace of hearts")), ["fail", 1, "shown_without_commitment"]);
  // Before every seat revealed, and on a voided table.
  const waiting = await checkTable(pairOf(v, { clientSeed: null, revealed: 3 }));
  assert.deepEqual(pick(await findContribution(waiting, v.contributions[0])), ["pending", 0, "others_not_revealed"]);
  assert.deepEqual(pick(await findContribution(waiting, v.contributions[4])), ["pending", 4, "not_revealed"]);
  const found = await findContribution(waiting, v.contributions[0], { voided: true });
  assert.deepEqual([...pick(found), found.void], ["pass", 0, "void", true]);
  assert.deepEqual(pick(await findContribution(waiting, v.contributions[4], { voided: true })), ["fail", 4, "void_unrevealed"]);
});

function pick(found) {
  return [found.status, found.index, found.reason];
}

test("randomContribution: 64 fresh hex characters and their commitment", async () => {
  const a = await randomContribution();
  const b = await randomContribution();
  assert.match(a.contribution, /^[0-9a-f]{64}$/);
  assert.notEqual(a.contribution, b.contribution);
  assert.equal(a.commitment, await contributionCommitment(a.contribution));
  assert.match(a.commitment, /^[0-9a-f]{64}$/);
});
