// The page's transparency-log checks (web/tlog.mjs) against RFC 6962 proofs
// computed here from the RFC's own recursive definitions: every consistency
// proof between trees of 1 to 20 entries verifies, and every altered proof,
// root or size is refused. Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { verifyConsistency, sameSeedFindings } from "../tlog.mjs";

const hash = (...parts) => createHash("sha256").update(Buffer.concat(parts)).digest();
const leafHash = (entry) => hash(Buffer.from([0]), entry);
const nodeHash = (l, r) => hash(Buffer.from([1]), l, r);
const b64 = (bytes) => Buffer.from(bytes).toString("base64");

/** The largest power of two below n (n > 1). */
function split(n) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 §2.1: MTH(D[n]). */
function mth(leaves) {
  if (leaves.length === 0) return hash(Buffer.alloc(0));
  if (leaves.length === 1) return leafHash(leaves[0]);
  const k = split(leaves.length);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 6962 §2.1.2: SUBPROOF(m, D[n], b). */
function subproof(m, leaves, complete) {
  const n = leaves.length;
  if (m === n) return complete ? [] : [mth(leaves)];
  const k = split(n);
  if (m <= k) return [...subproof(m, leaves.slice(0, k), complete), mth(leaves.slice(k))];
  return [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

const leaves = Array.from({ length: 20 }, (_, i) => Buffer.from(`entry ${i}`));

test("every consistency proof between sizes 1..20 verifies", async () => {
  let checked = 0;
  for (let n = 1; n <= leaves.length; n++) {
    for (let m = 1; m <= n; m++) {
      const proof = m === n ? [] : subproof(m, leaves.slice(0, n), true).map(b64);
      const ok = await verifyConsistency(m, b64(mth(leaves.slice(0, m))), n, b64(mth(leaves.slice(0, n))), proof);
      assert.ok(ok, `${m} -> ${n}`);
      checked += 1;
    }
  }
  assert.equal(checked, 210);
});

test("altered proofs, roots, sizes and a forked history are refused", async () => {
  for (let n = 2; n <= leaves.length; n++) {
    for (let m = 1; m < n; m++) {
      const newRoot = b64(mth(leaves.slice(0, n)));
      const oldRoot = b64(mth(leaves.slice(0, m)));
      const proof = subproof(m, leaves.slice(0, n), true).map(b64);
      for (let i = 0; i < proof.length; i++) {
        const bent = [...proof];
        bent[i] = b64(hash(Buffer.from(bent[i])));
        assert.equal(await verifyConsistency(m, oldRoot, n, newRoot, bent), false, `hash ${i} of ${m} -> ${n}`);
      }
      assert.equal(await verifyConsistency(m, oldRoot, n, newRoot, proof.slice(0, -1)), false, `short ${m} -> ${n}`);
      assert.equal(await verifyConsistency(m, oldRoot, n, newRoot, [...proof, oldRoot]), false, `long ${m} -> ${n}`);
      assert.equal(await verifyConsistency(m, newRoot, n, newRoot, proof), false, `old root ${m} -> ${n}`);
      if (m + 1 < n) {
        assert.equal(await verifyConsistency(m + 1, oldRoot, n, newRoot, proof), false, `size ${m} -> ${n}`);
      }
      // The old tree with one entry changed: another history, a fork.
      const forked = leaves.slice(0, m).map((x, i) => (i === m - 1 ? Buffer.from("other") : x));
      assert.equal(await verifyConsistency(m, b64(mth(forked)), n, newRoot, proof), false, `fork ${m} -> ${n}`);
    }
  }
  assert.equal(await verifyConsistency(3, b64(mth(leaves.slice(0, 3))), 3, b64(mth(leaves.slice(0, 3))), []), true);
  assert.equal(await verifyConsistency(0, b64(mth([])), 3, b64(mth(leaves.slice(0, 3))), []), false);
});

test("deal-shopping: a FAIL only for an overlapping pair of the same tenant", () => {
  const pair = { seed_pair: "p", status: "revealed", client_seed_log_index: 10, reveal_log_index: 20, same_tenant: true, lookalike: false };
  const other = (id, from, until, extra = {}) => ({
    seed_pair: id, status: until === null ? "active" : "revealed", client_seed_log_index: from, reveal_log_index: until, ...extra,
  });
  const body = {
    client_seed_sha256: "00", client_seed_lookalike_sha256: "11", pair, truncated: false,
    others: [
      other("same-time", 15, null, { same_tenant: true, lookalike: false }),
      other("same-time-lookalike", 5, 12, { same_tenant: true, lookalike: true }),
      other("other-tenant", 12, 18, { same_tenant: false, lookalike: false }),
      other("other-tenant-lookalike", 12, 18, { same_tenant: false, lookalike: true }),
      other("kept-after", 20, null, { same_tenant: true }),
      other("before", 2, 10, { same_tenant: true }),
      other("old-server", 11, 19), // no same_tenant, no lookalike: same tenant, byte-equal
      other("old-server-after", 25, 30),
    ],
  };
  const { others, shopped } = sameSeedFindings(body);
  assert.deepEqual(shopped.map((o) => o.seed_pair), ["same-time", "same-time-lookalike", "old-server"]);
  const by = Object.fromEntries(others.map((o) => [o.seed_pair, o]));
  assert.deepEqual([by["same-time-lookalike"].lookalike, by["same-time-lookalike"].when], [true, "same_time"]);
  assert.deepEqual([by["other-tenant"].overlap, by["other-tenant"].sameTenant, by["other-tenant"].shopped], [true, false, false]);
  assert.equal(by["other-tenant-lookalike"].shopped, false);
  assert.deepEqual([by["kept-after"].overlap, by["kept-after"].when], [false, "after"]);
  assert.deepEqual([by.before.overlap, by.before.when], [false, "before"]);
  assert.deepEqual([by["old-server"].sameTenant, by["old-server"].lookalike], [true, false]);
  assert.equal(by["old-server-after"].shopped, false);

  // A pair still live overlaps every later one of its tenant; a pair from before the log, revealed then, none.
  const live = sameSeedFindings({ ...body, pair: { ...pair, status: "active", reveal_log_index: null } });
  assert.ok(live.shopped.some((o) => o.seed_pair === "kept-after"));
  const ancient = sameSeedFindings({ ...body, pair: { ...pair, client_seed_log_index: null, reveal_log_index: null } });
  assert.deepEqual(ancient.shopped, []);
  // No others (or an answer without the list): nothing shopped.
  assert.deepEqual(sameSeedFindings({ pair, others: [] }).shopped, []);
  assert.deepEqual(sameSeedFindings({ pair }).others, []);
});
