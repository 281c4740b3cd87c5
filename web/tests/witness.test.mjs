// The page's witness checks (web/witness.mjs) against the vectors of the
// Rust side (src/tlog/cosignature.rs's tests: Cosigner::from_bytes([7; 32],
// "witness.example/w1"), its vkey and its line over the spec's example body,
// computed there independently too), and against lines made here with
// Node's own Ed25519: another key's line ignored, an altered body or
// timestamp refused, a log's type-0x01 line never counted.
// Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import {
  parseWitnessKey, verifyCosignature, vouching, witnessPolicy, cosignerNames, witnessNoteParts, WitnessKeyError,
  witnessKeysFromParams,
} from "../witness.mjs";

const BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
const NAME = "witness.example/w1";
// From src/tlog/cosignature.rs: the vkey of seed [7; 32] and its cosignature of BODY at 1679315147.
const VKEY = "witness.example/w1+aa4a09d1+BOpKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs";
const LINE = "\u2014 witness.example/w1 qkoJ0QAAAABkGFDLWr4Jea05CAgwNVtwky0Jgz6WfX0QJgM//FkB/W9BoT9TX0DkTxG+2cT4p/ViKNhUM/SnUwFcYQzugGFQ15LwDw==";
const TIME = 1679315147;

/** An Ed25519 key of Node's from a 32-byte seed. */
function keyOf(seed) {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(seed)]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(-32);
  return { privateKey, publicKey };
}

const keyId = (name, type, publicKey) =>
  createHash("sha256").update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([type]), publicKey])).digest().subarray(0, 4);

/** A cosigner made here: its vkey and `cosign(body, time)` → a line (no newline). */
function cosigner(seed, name) {
  const { privateKey, publicKey } = keyOf(seed);
  const id = keyId(name, 4, publicKey);
  return {
    vkey: `${name}+${id.toString("hex")}+${Buffer.concat([Buffer.from([4]), publicKey]).toString("base64")}`,
    cosign(body, time) {
      const stamp = Buffer.alloc(8);
      stamp.writeBigUInt64BE(BigInt(time));
      const signature = sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${body}`), privateKey);
      return `\u2014 ${name} ${Buffer.concat([id, stamp, signature]).toString("base64")}`;
    },
  };
}

/** A log key (signed-note Ed25519, type 0x01): its vkey and the signed note of a body. */
function logKey(seed, name) {
  const { privateKey, publicKey } = keyOf(seed);
  const id = keyId(name, 1, publicKey);
  return {
    vkey: `${name}+${id.toString("hex")}+${Buffer.concat([Buffer.from([1]), publicKey]).toString("base64")}`,
    line: (body) => `\u2014 ${name} ${Buffer.concat([id, sign(null, Buffer.from(body), privateKey)]).toString("base64")}`,
  };
}

const log = logKey(new Uint8Array(32).fill(9), "example.com/behind-the-sofa");
const note = (...lines) => `${BODY}\n${[log.line(BODY), ...lines].join("\n")}\n`;

test("the Rust side's vkey parses and its line verifies, with its timestamp", async () => {
  // Node computes the same vkey from the same seed: the two sides agree.
  assert.equal(cosigner(new Uint8Array(32).fill(7), NAME).vkey, VKEY);
  const witness = await parseWitnessKey(VKEY);
  assert.equal(witness.name, NAME);
  assert.equal(witness.keyId, "aa4a09d1");
  assert.equal(await verifyCosignature(witness, BODY, LINE), TIME);
  assert.equal(await verifyCosignature(witness, BODY, `${LINE}\n`), TIME);
  // Node's line is the Rust side's, byte for byte (Ed25519 is deterministic).
  assert.equal(cosigner(new Uint8Array(32).fill(7), NAME).cosign(BODY, TIME), LINE);
  const policy = await witnessPolicy([VKEY]);
  assert.deepEqual(await vouching(policy, note(LINE)), [NAME]);
});

test("an altered body or timestamp is refused", async () => {
  const witness = await parseWitnessKey(VKEY);
  assert.equal(await verifyCosignature(witness, BODY.replace("20852163", "20852164"), LINE), null);
  const blob = Buffer.from(LINE.split(" ")[2], "base64");
  for (const at of [11, 4, 20, 75]) {
    const altered = Buffer.from(blob);
    altered[at] ^= 1;
    assert.equal(await verifyCosignature(witness, BODY, `\u2014 ${NAME} ${altered.toString("base64")}`), null, `byte ${at}`);
  }
  const policy = await witnessPolicy([VKEY]);
  const other = note(LINE).replace("20852163", "20852164");
  assert.deepEqual(await vouching(policy, other), []);
});

test("lines by other keys are ignored, and its own is found among them", async () => {
  const policy = await witnessPolicy([VKEY]);
  const stranger = cosigner(new Uint8Array(32).fill(8), NAME); // the same name, another key
  const renamed = cosigner(new Uint8Array(32).fill(7), "witness.example/w2"); // the same key, another name
  const theirs = [stranger.cosign(BODY, TIME), renamed.cosign(BODY, TIME)];
  assert.deepEqual(await vouching(policy, note(...theirs)), []);
  assert.deepEqual(await vouching(policy, note(...theirs, LINE)), [NAME]);
  // Both of two trusted witnesses, in the policy's order; a quorum of one.
  const two = await witnessPolicy([renamed.vkey, VKEY], 1);
  assert.equal(two.quorum, 1);
  assert.deepEqual(await vouching(two, note(LINE, theirs[1])), ["witness.example/w2", NAME]);
  // Unchecked, the names a checkpoint's cosignature lines carry (not the log's).
  assert.deepEqual(cosignerNames(note(LINE, theirs[1]), "example.com/behind-the-sofa"), [NAME, "witness.example/w2"]);
  assert.deepEqual(cosignerNames(note(), "example.com/behind-the-sofa"), []);
});

test("a log's type-0x01 line is never a cosignature, and a log's key is no witness key", async () => {
  const witness = await parseWitnessKey(VKEY);
  // The log key of the witness's own seed and name signs the body.
  const asLog = logKey(new Uint8Array(32).fill(7), NAME);
  const logLine = asLog.line(BODY);
  assert.equal(await verifyCosignature(witness, BODY, logLine), null);
  assert.deepEqual(await vouching(await witnessPolicy([VKEY]), note(logLine)), []);
  // A type-0x04 blob under the 0x01 key id: refused as well.
  const blob = Buffer.from(LINE.split(" ")[2], "base64");
  Buffer.from(asLog.vkey.split("+")[1], "hex").copy(blob, 0);
  assert.equal(await verifyCosignature(witness, BODY, `\u2014 ${NAME} ${blob.toString("base64")}`), null);
  await assert.rejects(parseWitnessKey(asLog.vkey), (e) => e instanceof WitnessKeyError && /type 0x01/.test(e.message));
  await assert.rejects(parseWitnessKey(log.vkey), /log's key/);
});

test("bad keys and policies are refused, naming what is wrong", async () => {
  const [name, id, material] = VKEY.split("+"); // this key's base64 holds no '+'
  for (const [vkey, says] of [
    ["nothing", "two '+'"],
    [`+${id}+${material}`, "name is empty"],
    [`${name}+0000000g+${material}`, "8 hexadecimal"],
    [`${name}+00000000+${material}`, "key id is 00000000"],
    [`${name}+${id}+!!!!`, "not base64"],
    [`${name}+${id}+${Buffer.alloc(5, 4).toString("base64")}`, "4 bytes"],
    [`${name}+${id}+${Buffer.alloc(33, 6).toString("base64")}`, "0x06"],
    [`other+${id}+${material}`, "name and key give"],
  ]) {
    await assert.rejects(parseWitnessKey(vkey), (e) => e instanceof WitnessKeyError && e.message.includes(says), vkey);
  }
  // A key id in capitals is the same key.
  assert.equal((await parseWitnessKey(VKEY.replace("aa4a09d1", "AA4A09D1"))).vkey, VKEY);
  await assert.rejects(witnessPolicy([]), /no witness key/);
  await assert.rejects(witnessPolicy([VKEY], 2), /from 1 to 1/);
  await assert.rejects(witnessPolicy([VKEY], 0), /from 1 to 1/);
  const same = cosigner(new Uint8Array(32).fill(8), NAME);
  await assert.rejects(witnessPolicy([VKEY, same.vkey]), /two different keys/);
  // The same key twice counts once.
  assert.equal((await witnessPolicy([VKEY, ` ${VKEY} `])).witnesses.length, 1);
});

test("notes split at their last blank line, as signed-note says", () => {
  assert.deepEqual(witnessNoteParts("a\n\nb\n\n\u2014 k AAAA\n\u2014 j BBBB\n"), { body: "a\n\nb\n", lines: ["\u2014 k AAAA", "\u2014 j BBBB"] });
  for (const bad of ["a\nb\n", "a\n\n", "a\n\n\u2014 k AAAA", "a\n\nnot a signature\n", "a\n\n\u2014 k\n", "a\n\n\u2014 k AAAA\n\n"]) {
    assert.equal(witnessNoteParts(bad), null, JSON.stringify(bad));
  }
});

test("keys in a page address whose '+' signs were not encoded still read, a '+' at the end too", async () => {
  // Seeds until a key's base64 ends in '+' and one's begins its key part so
  // (one key in 64 ends so: a test with random keys failed that often).
  let ending = null;
  for (let seed = 0; ending === null; seed++) {
    const witness = cosigner(new Uint8Array(32).fill(seed), NAME);
    if (witness.vkey.endsWith("+")) ending = witness.vkey;
  }
  for (const vkey of [VKEY, ending]) {
    const unencoded = new URLSearchParams(`witness=${vkey.replace(/\//g, "%2F")}&quorum=1`);
    assert.deepEqual(witnessKeysFromParams(unencoded), [vkey]);
    const encoded = new URLSearchParams(`witness=${encodeURIComponent(vkey)}`);
    assert.deepEqual(witnessKeysFromParams(encoded), [vkey]);
    assert.equal((await witnessPolicy(witnessKeysFromParams(unencoded))).witnesses.length, 1);
  }
  // Stray whitespace around a key, and empty parameters, are dropped.
  assert.deepEqual(witnessKeysFromParams(new URLSearchParams(`witness=%0A${encodeURIComponent(VKEY)}%09&witness=`)), [VKEY]);
});
