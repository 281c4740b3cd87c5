// Witness cosignatures in the browser (and in Node), written from
// c2sp.org/tlog-cosignature: cosignature/v1 with Ed25519 (signed-note
// signature type 0x04). A witness keeps its own copy of a log's latest
// checkpoint and cosigns a new one only when the log proves it only grew;
// a player who requires k of the witnesses they trust is shown the history
// everyone else is shown. No DOM.
//
// A verifier key is `<name>+<key id hex>+<base64(0x04 ‖ 32-byte public key)>`
// with key id = SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key)[:4]. A cosignature
// is a further signature line of the checkpoint's note,
// `— <name> base64(key id (4) ‖ timestamp (8, big-endian) ‖ signature (64))`,
// the signature over `cosignature/v1\ntime <timestamp>\n` and the note's
// body (with its final newline, no signature lines).
//
// Self-contained: no import, no DOM.

const WITNESS_ENCODER = new TextEncoder();
/** The signed-note signature type of an Ed25519 cosignature/v1. */
const WITNESS_KEY_TYPE = 0x04;
/** Bytes of a decoded cosignature: key id, timestamp, signature. */
const WITNESS_BLOB_LENGTH = 4 + 8 + 64;
/** The largest timestamp a cosignature may carry: 2^63 − 1. */
const WITNESS_MAX_TIME = (1n << 63n) - 1n;

/** A witness key the page cannot use; `message` says why, in words. */
export class WitnessKeyError extends Error {}

/** Strict base64 (padding required, nothing else): bytes, or null. */
function witnessBase64(text) {
  if (typeof text !== "string" || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function witnessHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function witnessSha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * A signed note's body (its text up to and with the newline before its last
 * blank line) and its signature lines (without their newlines), or null
 * when it is not a signed note.
 */
export function witnessNoteParts(note) {
  if (typeof note !== "string") return null;
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) return null;
  const signatures = note.slice(at + 2, -1);
  if (!signatures) return null;
  const lines = signatures.split("\n");
  if (!lines.every((line) => /^\u2014 [^ ]+ [^ ]+$/.test(line))) return null;
  return { body: note.slice(0, at + 1), lines };
}

/**
 * A witness's cosignature/v1 verifier key, checked: `{ vkey, name, keyId,
 * key }` (`key` a WebCrypto Ed25519 key). Throws a WitnessKeyError naming
 * what is wrong; a log's own key (type 0x01) is refused.
 */
export async function parseWitnessKey(text) {
  const vkey = String(text).trim();
  const first = vkey.indexOf("+");
  const second = first < 0 ? -1 : vkey.indexOf("+", first + 1);
  if (first < 0 || second < 0) throw new WitnessKeyError("a witness key is <name>+<key id>+<key>, with two '+' signs");
  const name = vkey.slice(0, first);
  const keyId = vkey.slice(first + 1, second).toLowerCase();
  if (!name) throw new WitnessKeyError("the witness key's name is empty");
  if (/[\s\p{Cc}]/u.test(name)) throw new WitnessKeyError("the witness key's name holds white space or a control character");
  if (!/^[0-9a-f]{8}$/.test(keyId)) throw new WitnessKeyError("the witness key's key id must be 8 hexadecimal digits");
  const material = witnessBase64(vkey.slice(second + 1));
  if (!material || material.length === 0) throw new WitnessKeyError("the witness key's key is not base64");
  if (material[0] === 0x01) {
    throw new WitnessKeyError("this is a log's key (type 0x01), not a witness's cosignature key (type 0x04)");
  }
  if (material[0] !== WITNESS_KEY_TYPE) {
    throw new WitnessKeyError(`the witness key's type is 0x${material[0].toString(16).padStart(2, "0")}; `
      + "only Ed25519 cosignature/v1 keys (0x04) are supported");
  }
  if (material.length !== 33) throw new WitnessKeyError(`the witness key's Ed25519 key is ${material.length - 1} bytes, not 32`);
  const digest = await witnessSha256(new Uint8Array([...WITNESS_ENCODER.encode(`${name}\n`), ...material]));
  const expected = witnessHex(digest.slice(0, 4));
  if (keyId !== expected) {
    throw new WitnessKeyError(`the witness key's key id is ${keyId}, but its name and key give ${expected}`);
  }
  let key;
  try {
    key = await crypto.subtle.importKey("raw", material.slice(1), { name: "Ed25519" }, false, ["verify"]);
  } catch {
    throw new WitnessKeyError("the witness key's key is not an Ed25519 public key");
  }
  return { vkey: `${name}+${keyId}+${vkey.slice(second + 1)}`, name, keyId, key };
}

/**
 * Whether `line` (`— <name> <base64>`) is `witness`'s cosignature of `body`
 * (a note body with its final newline): its timestamp (POSIX seconds, a
 * Number) if so, else null. Lines by other keys — another name, another key
 * id, a log's own signature (type 0x01, 68 bytes) — give null.
 */
export async function verifyCosignature(witness, body, line) {
  const text = String(line).replace(/\n$/, "");
  const prefix = `\u2014 ${witness.name} `;
  if (!text.startsWith(prefix)) return null;
  const blob = witnessBase64(text.slice(prefix.length));
  if (!blob || blob.length !== WITNESS_BLOB_LENGTH) return null;
  if (witnessHex(blob.slice(0, 4)) !== witness.keyId) return null;
  const time = new DataView(blob.buffer, blob.byteOffset + 4, 8).getBigUint64(0);
  if (time > WITNESS_MAX_TIME) return null;
  const message = WITNESS_ENCODER.encode(`cosignature/v1\ntime ${time}\n${body}`);
  let ok = false;
  try {
    ok = await crypto.subtle.verify({ name: "Ed25519" }, witness.key, blob.slice(12), message);
  } catch {
    ok = false;
  }
  return ok ? Number(time) : null;
}

/**
 * The verifier keys a page address's `witness=` parameters give (a
 * URLSearchParams). A key's '+' arrives as a space when the address did not
 * encode it (a key holds no space): spaces are read as '+' before the ends
 * are trimmed, so that a key whose base64 ends in '+' keeps it.
 */
export function witnessKeysFromParams(params) {
  return params.getAll("witness").map((v) => String(v).replace(/ /g, "+").trim()).filter(Boolean);
}

/**
 * A player's witness policy from the verifier keys they trust and the
 * number of them that must cosign (`quorum`; null or missing: all). Keys
 * are checked (parseWitnessKey); the same key twice counts once; two keys
 * of one name are refused (a cosignature does not name its cosigner's key).
 * `{ witnesses, quorum }`, or throws a WitnessKeyError.
 */
export async function witnessPolicy(vkeys, quorum = null) {
  const witnesses = [];
  for (const text of vkeys) {
    if (!String(text).trim()) continue;
    let witness;
    try {
      witness = await parseWitnessKey(text);
    } catch (error) {
      throw new WitnessKeyError(`${String(text).trim().slice(0, 60)}: ${error.message}`);
    }
    const same = witnesses.find((w) => w.name === witness.name);
    if (same && same.vkey === witness.vkey) continue;
    if (same) throw new WitnessKeyError(`two different keys are named ${witness.name}: give one key per witness`);
    witnesses.push(witness);
  }
  if (!witnesses.length) throw new WitnessKeyError("no witness key is given");
  const k = quorum === null || quorum === undefined || quorum === "" ? witnesses.length : Number(quorum);
  if (!Number.isInteger(k) || k < 1 || k > witnesses.length) {
    throw new WitnessKeyError(`the number of witnesses required must be from 1 to ${witnesses.length}`);
  }
  return { witnesses, quorum: k };
}

/**
 * The names of `policy`'s witnesses whose cosignatures of `note` (a signed
 * checkpoint) verify, in the policy's order. Lines by other keys are
 * ignored; a note that is not a signed note is vouched for by nobody.
 */
export async function vouching(policy, note) {
  const parts = witnessNoteParts(note);
  if (!parts) return [];
  const names = [];
  for (const witness of policy.witnesses) {
    for (const line of parts.lines) {
      if ((await verifyCosignature(witness, parts.body, line)) !== null) {
        names.push(witness.name);
        break;
      }
    }
  }
  return names;
}

/**
 * The names on `note`'s signature lines that could be witnesses'
 * cosignatures (76 bytes, not by `logName`), unchecked: what the page can
 * say of a checkpoint's witnesses when the player named none to trust.
 */
export function cosignerNames(note, logName) {
  const parts = witnessNoteParts(note);
  if (!parts) return [];
  const names = [];
  for (const line of parts.lines) {
    const [, name, encoded] = line.split(" ");
    const blob = witnessBase64(encoded);
    if (name !== logName && blob && blob.length === WITNESS_BLOB_LENGTH && !names.includes(name)) names.push(name);
  }
  return names;
}
