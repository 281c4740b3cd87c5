// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), synchronous, for the
// verification page's worker: WebCrypto's subtle.digest answers through a
// promise per hash, which costs more than the hash for the millions of
// small ones a large pair needs (a leaf per round, nodes, a round key per
// round). tests/sha256.test.mjs checks it against Node's crypto on many
// lengths and keys; the page's other code keeps using WebCrypto.
//
// Self-contained: no import, no DOM.

const SYNC_K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const SYNC_IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const SYNC_W = new Int32Array(64);

/** Compresses the 64-byte block of `bytes` at `at` into `state` (8 words). */
function syncCompress(state, bytes, at) {
  const w = SYNC_W;
  for (let i = 0; i < 16; i++) {
    const j = at + 4 * i;
    w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15];
    const b = w[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0] | 0, b = state[1] | 0, c = state[2] | 0, d = state[3] | 0;
  let e = state[4] | 0, f = state[5] | 0, g = state[6] | 0, h = state[7] | 0;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + SYNC_K[i] + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0;
    d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0; state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0; state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0; state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0; state[7] = (state[7] + h) | 0;
}

const SYNC_TAIL = new Uint8Array(128);

/**
 * Continues a hash whose `state` has absorbed `prefixBytes` bytes (a whole
 * number of blocks) with `parts` (Uint8Arrays), and returns the digest (32
 * bytes; into `out` when given). `state` is not changed.
 */
export function syncSha256From(state, prefixBytes, parts, out = new Uint8Array(32)) {
  const s = Int32Array.from(state);
  const tail = SYNC_TAIL;
  let fill = 0;
  let total = prefixBytes;
  for (const part of parts) {
    total += part.length;
    let i = 0;
    if (fill > 0) {
      while (fill < 64 && i < part.length) tail[fill++] = part[i++];
      if (fill === 64) { syncCompress(s, tail, 0); fill = 0; }
    }
    for (; i + 64 <= part.length; i += 64) syncCompress(s, part, i);
    while (i < part.length) tail[fill++] = part[i++];
  }
  tail[fill++] = 0x80;
  const end = fill <= 56 ? 64 : 128;
  tail.fill(0, fill, end);
  const bits = total * 8;
  const high = Math.floor(bits / 0x100000000);
  tail[end - 8] = high >>> 24; tail[end - 7] = high >>> 16; tail[end - 6] = high >>> 8; tail[end - 5] = high;
  tail[end - 4] = bits >>> 24; tail[end - 3] = bits >>> 16; tail[end - 2] = bits >>> 8; tail[end - 1] = bits;
  syncCompress(s, tail, 0);
  if (end === 128) syncCompress(s, tail, 64);
  for (let i = 0; i < 8; i++) {
    out[4 * i] = s[i] >>> 24; out[4 * i + 1] = s[i] >>> 16; out[4 * i + 2] = s[i] >>> 8; out[4 * i + 3] = s[i];
  }
  return out;
}

/** SHA-256 of the concatenation of `parts` (Uint8Arrays). */
export function syncSha256(...parts) {
  return syncSha256From(SYNC_IV, 0, parts);
}

/**
 * An HMAC-SHA256 key made once for many messages: the inner and outer
 * states after the padded key, so each message costs the hashing of the
 * message and one block more.
 */
export function syncHmacKey(key) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? syncSha256(key) : key);
  const inner = Int32Array.from(SYNC_IV);
  const outer = Int32Array.from(SYNC_IV);
  const pad = new Uint8Array(64);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
  syncCompress(inner, pad, 0);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
  syncCompress(outer, pad, 0);
  return { inner, outer };
}

/** HMAC-SHA256 of `message` under a key from syncHmacKey. */
export function syncHmac(key, message, out = new Uint8Array(32)) {
  const innerDigest = syncSha256From(key.inner, 64, [message]);
  return syncSha256From(key.outer, 64, [innerDigest], out);
}
