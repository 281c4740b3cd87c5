// The transparency log's checks in the browser, written from
// docs/TRANSPARENCY.md: receipt signatures and signed-note checkpoints
// (Ed25519 with WebCrypto) and RFC 9162 inclusion proofs (SHA-256 with
// WebCrypto). Shares no code with the server.

const encoder = new TextEncoder();

function fromBase64(text) {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A signed-note verifier key: `<name>+<8 hex key id>+<base64(0x01 ‖ key)>`. */
export function parseVkey(vkey) {
  const first = vkey.indexOf("+");
  const second = vkey.indexOf("+", first + 1);
  if (first < 1 || second < 0) throw new Error("not a verifier key");
  const key = fromBase64(vkey.slice(second + 1));
  if (key.length !== 33 || key[0] !== 1) throw new Error("not an Ed25519 verifier key");
  return { name: vkey.slice(0, first), id: vkey.slice(first + 1, second), publicKey: key.slice(1) };
}

async function ed25519Verify(publicKey, signature, message) {
  const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

/** Whether a receipt's signature is the log key's, over its index and entry. */
export async function verifyReceipt(vkey, receipt) {
  const { publicKey } = parseVkey(vkey);
  const message = concat(encoder.encode(`fairdeal-receipt/v1\n${receipt.log_index}\n`), encoder.encode(receipt.entry));
  return ed25519Verify(publicKey, fromBase64(receipt.signature), message);
}

/**
 * Verifies a signed note (c2sp.org/signed-note) with a signed-note Ed25519
 * verifier key; its body (with its final newline), or throws (`what`
 * names the note in the message).
 */
export async function verifySignedNote(vkey, note, what = "the note") {
  const { name, id, publicKey } = parseVkey(vkey);
  const split = note.indexOf("\n\n");
  if (split < 0) throw new Error(`${what} is not a signed note`);
  const body = note.slice(0, split + 1);
  const prefix = `\u2014 ${name} `;
  for (const line of note.slice(split + 2).split("\n")) {
    if (!line.startsWith(prefix)) continue;
    let blob;
    try {
      blob = fromBase64(line.slice(prefix.length));
    } catch {
      continue;
    }
    const keyId = Array.from(blob.slice(0, 4), (b) => b.toString(16).padStart(2, "0")).join("");
    if (keyId !== id || blob.length !== 68) continue;
    if (await ed25519Verify(publicKey, blob.slice(4), encoder.encode(body))) return body;
  }
  throw new Error(`${what} has no valid signature by ${name}`);
}

/** Verifies a signed checkpoint; its origin, size and root, or throws. */
export async function verifyCheckpoint(vkey, note) {
  const body = await verifySignedNote(vkey, note, "the checkpoint");
  const [origin, size, root] = body.split("\n");
  return { origin, size: Number(size), root };
}

/**
 * Reads a monitor's statement body (fairdeal-monitor-statement/v1, docs/
 * TRANSPARENCY.md "Monitor statements"): `{ origin, size, root, time,
 * found, findings: [{ kind, index, detail }] }`, or throws naming the line.
 */
export function parseStatement(body) {
  if (!body.endsWith("\n")) throw new Error("the statement does not end with a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines[0] !== "fairdeal-monitor-statement/v1") throw new Error("the statement's first line is not fairdeal-monitor-statement/v1");
  if (lines.length < 6) throw new Error("the statement is cut short");
  const whole = (text, what) => {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) throw new Error(`the statement's ${what} is not a decimal number`);
    return Number(text);
  };
  const origin = lines[1];
  const size = whole(lines[2], "tree size");
  const root = lines[3];
  if (!/^[A-Za-z0-9+/]{43}=$/.test(root)) throw new Error("the statement's root is not a base64 SHA-256 hash");
  if (!lines[4].startsWith("time ")) throw new Error("the statement has no time line");
  const time = whole(lines[4].slice(5), "time");
  if (!lines[5].startsWith("findings ")) throw new Error("the statement has no findings line");
  const found = whole(lines[5].slice(9), "findings");
  const findings = lines.slice(6).map((line) => {
    const [kind, index, ...rest] = line.split(" ");
    if (!/^[a-z_]{1,64}$/.test(kind || "")) throw new Error("a finding's kind is not a word");
    if (index === undefined) throw new Error("a finding has no log index (or -)");
    return { kind, index: index === "-" ? null : whole(index, "finding's log index"), detail: rest.join(" ") };
  });
  if (findings.length > found) throw new Error("the statement lists more findings than it counts");
  return { origin, size, root, time, found, findings };
}

/**
 * Checks a c2sp.org/tlog-proof for `entry` against the log key: the
 * checkpoint's signature, then the inclusion path (RFC 9162 §2.1.3.2).
 * Returns the verified checkpoint and the index; throws when it fails.
 */
export async function verifyInclusion(vkey, proofText, entry) {
  const split = proofText.indexOf("\n\n");
  const lines = proofText.slice(0, split).split("\n");
  if (lines[0] !== "c2sp.org/tlog-proof@v1" || !lines[1].startsWith("index ")) {
    throw new Error("not a c2sp.org/tlog-proof");
  }
  const index = Number(lines[1].slice("index ".length));
  const path = lines.slice(2).map(fromBase64);
  const checkpoint = await verifyCheckpoint(vkey, proofText.slice(split + 2));
  let fn = index;
  let sn = checkpoint.size - 1;
  let r = await sha256(concat(new Uint8Array([0]), encoder.encode(entry)));
  for (const p of path) {
    if (sn === 0) throw new Error("the inclusion path is too long");
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(concat(new Uint8Array([1]), p, r));
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await sha256(concat(new Uint8Array([1]), r, p));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0 || !sameBytes(r, fromBase64(checkpoint.root))) {
    throw new Error("the entry is not in the checkpoint at that index");
  }
  return { checkpoint, index };
}

/** Whether `n` (a whole number up to 2^53) is 1, 2, 4, 8, … */
function isPowerOfTwo(n) {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}

/**
 * Checks an RFC 9162 §2.1.4.2 consistency proof: that the tree of `oldSize`
 * entries with root `oldRoot` is a prefix of the tree of `newSize` entries
 * with root `newRoot` (roots and proof hashes base64). True or false.
 */
export async function verifyConsistency(oldSize, oldRoot, newSize, newRoot, proof) {
  const first = fromBase64(oldRoot);
  const second = fromBase64(newRoot);
  const path = proof.map(fromBase64);
  if (oldSize < 1 || oldSize > newSize) return false;
  if (oldSize === newSize) return path.length === 0 && sameBytes(first, second);
  if (path.length === 0) return false;
  // A power of two: the old tree is a complete subtree, its root the first step.
  if (isPowerOfTwo(oldSize)) path.unshift(first);
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await sha256(concat(new Uint8Array([1]), c, fr));
      sr = await sha256(concat(new Uint8Array([1]), c, sr));
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = await sha256(concat(new Uint8Array([1]), sr, c));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(fr, first) && sameBytes(sr, second);
}

/**
 * The other pairs of `GET /v1/seed-pairs/{id}/same-client-seed` (`body`),
 * each with what it means for this pair (`body.pair`). A pair is live from
 * its client seed's log entry to its reveal's (`[client_seed_log_index,
 * reveal_log_index)`); a pair from before the log has no indexes: live since
 * before it, and ended before it if it was revealed then. Each other pair
 * comes back with
 *
 *   overlap:    its live interval overlaps this pair's;
 *   sameTenant: it belongs to the same tenant (brand) of the service
 *               (`same_tenant`; missing, from an older server: true);
 *   lookalike:  its client seed is not byte-equal to this one but looks the
 *               same (`lookalike`; missing: false);
 *   shopped:    overlap and sameTenant: the operator could have dealt each
 *               hand on both and shown the better (deal-shopping);
 *   when:       "same_time", "after" (it got the seed after this pair was
 *               revealed) or "before" (it was revealed before this pair got it).
 *
 * Returns `{ others, shopped }` (`shopped` the others with shopped true).
 * An overlap with another tenant's pair, or a seed reused after a reveal, is
 * not deal-shopping: two players may choose the same seed, and a player may
 * keep theirs across a rotation.
 */
export function sameSeedFindings(body) {
  const from = (p) => (p && Number.isSafeInteger(p.client_seed_log_index) ? p.client_seed_log_index : -Infinity);
  const until = (p) => (p && Number.isSafeInteger(p.reveal_log_index) ? p.reveal_log_index
    : p && p.status === "revealed" ? -Infinity : Infinity);
  const pair = body && body.pair;
  const others = (body && Array.isArray(body.others) ? body.others : []).map((o) => {
    const overlap = from(o) < until(pair) && from(pair) < until(o);
    const sameTenant = o.same_tenant !== false;
    const lookalike = o.lookalike === true;
    return {
      ...o,
      overlap,
      sameTenant,
      lookalike,
      shopped: overlap && sameTenant,
      when: overlap ? "same_time" : from(o) >= until(pair) ? "after" : "before",
    };
  });
  return { others, shopped: others.filter((o) => o.shopped) };
}
