// The verifier's release (web/release/): one self-contained file, the same
// bytes from the same sources, its script and style pinned by the policy it
// carries, and a signature the release key's holder makes and anyone checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const web = new URL("../", import.meta.url).pathname;
const node = (...args) => spawnSync(process.execPath, args, { cwd: web, encoding: "utf8" });

// The build needs esbuild (`npm ci` in web/); CI always has it.
const built = existsSync(join(web, "node_modules", "esbuild"));
if (!built && process.env.CI) throw new Error("CI must build the release: run `npm ci` in web/");
const skip = built ? false : "esbuild is not installed (npm ci in web/)";

test("the release is one self-contained file, the same bytes twice, pinned by its own policy", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "fairdeal-release-"));
  try {
    for (const n of [1, 2]) assert.equal(node("release/build.mjs", join(dir, `${n}`)).status, 0);
    const [one, two] = [1, 2].map((n) => readFileSync(join(dir, `${n}`, "fairdeal-verifier.html")));
    assert.ok(one.equals(two), "two builds give the same bytes");
    const html = one.toString("utf8");
    const cargo = readFileSync(new URL("../../Cargo.toml", import.meta.url), "utf8");
    const version = /^version = "([^"]+)"/m.exec(cargo)[1];
    assert.match(html, new RegExp(`<title>fairdeal verifier ${version.replaceAll(".", "\\.")}</title>`), "the service's version");
    assert.equal(html.match(/<script/g).length, 1, "one script");
    assert.doesNotMatch(html, /<script[^>]*\ssrc=|<link[^>]*stylesheet|import\s*\{[^}]*\}\s*from\s*"/, "nothing loaded from elsewhere");
    const script = /<script type="module">([\s\S]*)<\/script>/.exec(html)[1];
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)[1];
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)[1];
    const pin = (text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    assert.ok(policy.includes(`script-src ${pin(script)};`), policy);
    assert.ok(policy.includes(`style-src ${pin(style)};`), policy);
    assert.ok(policy.includes("worker-src blob:"), policy);
    assert.doesNotMatch(policy, /unsafe/);
    assert.ok(script.includes("fairdeal pair check"), "the worker is carried inline");
    const sums = readFileSync(join(dir, "1", "SHA256SUMS"), "utf8");
    assert.ok(sums.startsWith(`${createHash("sha256").update(one).digest("hex")}  fairdeal-verifier.html\n`), sums);
    for (const name of readdirSync(join(dir, "1")).filter((n) => n !== "SHA256SUMS")) {
      assert.ok(readFileSync(join(dir, "1", name)).equals(readFileSync(join(dir, "2", name))), `${name}: the same bytes twice`);
      assert.ok(sums.includes(`  ${name}\n`), `${name} is in SHA256SUMS`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a signed release checks; a changed file or a signature by another key does not", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "fairdeal-signed-"));
  try {
    const out = join(dir, "out");
    assert.equal(node("release/build.mjs", out).status, 0);
    for (const who of ["project", "other"]) assert.equal(node("release/sign.mjs", "--new-key", join(dir, who)).status, 0);
    const signed = node("release/sign.mjs", "--key", join(dir, "project", "release-key.private.pem"), out);
    assert.equal(signed.status, 0, signed.stderr);
    const check = (who) => node("release/sign.mjs", "--check", join(dir, who, "release-key.pem"), out);
    assert.equal(check("project").status, 0, check("project").stderr);
    const other = check("other");
    assert.equal(other.status, 1);
    assert.match(other.stderr, /not the release key's signature/);
    const file = join(out, "fairdeal-verifier.html");
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from(" ")]));
    const changed = check("project");
    assert.equal(changed.status, 1);
    assert.match(changed.stderr, /fairdeal-verifier\.html: its SHA-256 is/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the package installs as it is and its command answers", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "fairdeal-package-"));
  try {
    const out = join(dir, "out");
    assert.equal(node("release/build.mjs", out).status, 0);
    const tarball = readdirSync(out).find((name) => name.endsWith(".tgz"));
    assert.match(tarball, /^fairdeal-verify-\d+\.\d+\.\d+\.tgz$/);
    const app = join(dir, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "a-player", private: true, type: "module" }));
    const installed = spawnSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(out, tarball)],
      { cwd: app, encoding: "utf8" });
    assert.equal(installed.status, 0, installed.stderr);
    const bin = join(app, "node_modules", ".bin", "fairdeal-verify");
    const usage = spawnSync(bin, ["hand", "https://fairdeal.example", "id"], { encoding: "utf8" });
    assert.equal(usage.status, 2, usage.stderr);
    assert.match(usage.stderr, /the kind must be round, pair or draw/);
    writeFileSync(join(app, "use.mjs"), [
      'import { verify } from "fairdeal-verify";',
      'import { deal, PROTOCOL } from "fairdeal-verify/fairdeal-v1";',
      'import { drawDifferences } from "fairdeal-verify/evidence";',
      'console.log(typeof verify, PROTOCOL, typeof deal, typeof drawDifferences);',
    ].join("\n"));
    const used = spawnSync(process.execPath, ["use.mjs"], { cwd: app, encoding: "utf8" });
    assert.equal(used.status, 0, used.stderr);
    assert.equal(used.stdout.trim(), "function fairdeal-v1 function function");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
