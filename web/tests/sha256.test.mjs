// The worker's synchronous SHA-256 and HMAC-SHA256 against Node's crypto
// (the same as WebCrypto's) on every length around the block boundaries.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { syncSha256, syncHmac, syncHmacKey } from "../sha256.mjs";

const hex = (bytes) => Buffer.from(bytes).toString("hex");

test("SHA-256 of every length from 0 to 300 bytes, and in parts", () => {
  for (let n = 0; n <= 300; n++) {
    const data = randomBytes(n);
    assert.equal(hex(syncSha256(data)), createHash("sha256").update(data).digest("hex"), `${n} bytes`);
    const cut = Math.floor(n / 3);
    assert.equal(hex(syncSha256(data.subarray(0, cut), data.subarray(cut))), createHash("sha256").update(data).digest("hex"));
  }
  assert.equal(hex(syncSha256(new TextEncoder().encode("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const big = randomBytes(100_000);
  assert.equal(hex(syncSha256(big)), createHash("sha256").update(big).digest("hex"));
});

test("HMAC-SHA256 with keys of 0 to 130 bytes and messages of 0 to 150", () => {
  for (const keyLength of [0, 1, 31, 32, 33, 63, 64, 65, 130]) {
    const key = randomBytes(keyLength);
    const made = syncHmacKey(key);
    for (let n = 0; n <= 150; n += 7) {
      const message = randomBytes(n);
      assert.equal(hex(syncHmac(made, message)), createHmac("sha256", key).update(message).digest("hex"), `key ${keyLength}, message ${n}`);
    }
  }
});
