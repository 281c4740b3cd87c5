// Signs a release's SHA256SUMS with the project's release key (Ed25519),
// so that a player's own tools can check the verifier came from the
// project: `openssl pkeyutl -verify -pubin -inkey release-key.pem -rawin
// -in SHA256SUMS -sigfile SHA256SUMS.sig`, then `sha256sum -c SHA256SUMS`.
//
//   node release/sign.mjs --new-key DIR        makes a key: DIR/release-key.private.pem
//                                              (mode 0600) and DIR/release-key.pem
//   node release/sign.mjs --key PRIVATE OUT    signs OUT/SHA256SUMS into OUT/SHA256SUMS.sig
//   node release/sign.mjs --check PUBLIC OUT   checks OUT/SHA256SUMS.sig and every sum
//
// The private key never enters CI or the repository: docs/RELEASES.md says
// how it is kept and rotated.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const [flag, first, second] = process.argv.slice(2);

function fail(message) {
  process.stderr.write(`sign.mjs: ${message}\n`);
  process.exit(1);
}

/** Every `<sha256>  <name>` line of `sums` holds for the file `name` beside it. */
function checkSums(dir, sums) {
  const lines = sums.split("\n").filter(Boolean);
  if (lines.length === 0) fail("SHA256SUMS lists no file");
  for (const line of lines) {
    const match = /^([0-9a-f]{64}) {2}([A-Za-z0-9._-]+)$/.exec(line);
    if (!match) fail(`SHA256SUMS: not a sum line: ${JSON.stringify(line)}`);
    const actual = createHash("sha256").update(readFileSync(join(dir, match[2]))).digest("hex");
    if (actual !== match[1]) fail(`${match[2]}: its SHA-256 is ${actual}, not the ${match[1]} signed`);
  }
  return lines.length;
}

if (flag === "--new-key" && first) {
  mkdirSync(first, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(join(first, "release-key.private.pem"), privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600, flag: "wx" });
  writeFileSync(join(first, "release-key.pem"), publicKey.export({ type: "spki", format: "pem" }), { flag: "wx" });
  process.stdout.write(`made ${join(first, "release-key.pem")} (publish) and release-key.private.pem (keep offline)\n`);
} else if (flag === "--key" && first && second) {
  const key = createPrivateKey(readFileSync(first));
  if (key.asymmetricKeyType !== "ed25519") fail(`${first} is not an Ed25519 private key`);
  const sums = readFileSync(join(second, "SHA256SUMS"));
  checkSums(second, sums.toString("utf8"));
  writeFileSync(join(second, "SHA256SUMS.sig"), sign(null, sums, key));
  process.stdout.write(`signed ${join(second, "SHA256SUMS")}\n`);
} else if (flag === "--check" && first && second) {
  const key = createPublicKey(readFileSync(first));
  if (key.asymmetricKeyType !== "ed25519") fail(`${first} is not an Ed25519 public key`);
  const sums = readFileSync(join(second, "SHA256SUMS"));
  if (!verify(null, sums, key, readFileSync(join(second, "SHA256SUMS.sig")))) {
    fail("SHA256SUMS.sig is not the release key's signature of SHA256SUMS");
  }
  const files = checkSums(second, sums.toString("utf8"));
  process.stdout.write(`good: SHA256SUMS signed by the release key, ${files} file(s) as signed\n`);
} else {
  fail("usage: --new-key DIR | --key PRIVATE.pem OUT_DIR | --check PUBLIC.pem OUT_DIR");
}
