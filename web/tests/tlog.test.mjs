// The page's transparency-log checks (web/tlog.mjs) against RFC 6962 proofs
// computed here from the RFC's own recursive definitions: every consistency
// proof between trees of 1 to 20 entries verifies, and every altered proof,
// root or size is refused. Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { verifyConsistency } from "../tlog.mjs";

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
