// The verifier's release, built from the page's modules (web/*.mjs,
// web/page/*.js) by esbuild:
//
//   fairdeal-verifier.html   one self-contained file: the page, its style
//                            and its code inlined, the worker inlined as a
//                            string, a classic script (a page opened from
//                            a file may import no module and start no
//                            worker but a classic one from a blob: URL);
//                            a strict Content-Security-Policy pins the
//                            script and the style by SHA-256
//   fairdeal-verify-V.tgz    the package for code: the same modules, the
//                            command line verifier (cli/) and its types
//   SHA256SUMS               the SHA-256 of each file released
//
// The build is reproducible: the same sources give the same bytes (no
// time, no path, no randomness enters the output; esbuild's output is a
// function of its input and options, which are pinned here and in
// package-lock.json). CI builds it twice from clean clones and compares.
//
//   node release/build.mjs [OUT_DIR]        (default: web/dist)

import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const web = new URL("../", import.meta.url);
const out = process.argv[2] ? new URL(`file://${process.argv[2].replace(/\/?$/, "/")}`) : new URL("dist/", web);
const read = (path) => readFileSync(new URL(path, web), "utf8");
const version = JSON.parse(read("package.json")).version;

const options = {
  bundle: true,
  write: false,
  format: "esm",
  target: "es2022",
  platform: "browser",
  charset: "utf8",
  legalComments: "none",
  logLevel: "warning",
};

const sha256 = (text) => createHash("sha256").update(text).digest();

/**
 * The package for code (`fairdeal-verify`): the page's modules and its HTML
 * laid out as in web/, with the command line verifier and its library
 * (cli/), packed by `npm pack` (fixed times and order: the same bytes from
 * the same files). Its bytes.
 */
function pack() {
  const stage = mkdtempSync(join(tmpdir(), "fairdeal-verify-"));
  try {
    const own = JSON.parse(read("package.json"));
    const modules = readdirSync(web).filter((name) => name.endsWith(".mjs"));
    const page = readdirSync(new URL("page/", web)).filter((name) => name.endsWith(".js")).map((name) => `page/${name}`);
    const cli = readdirSync(new URL("cli/", web)).map((name) => `cli/${name}`);
    mkdirSync(join(stage, "page"));
    mkdirSync(join(stage, "cli"));
    for (const name of [...modules, ...page, ...cli, "verify.html"]) copyFileSync(new URL(name, web), join(stage, name));
    const exported = Object.fromEntries(modules.filter((name) => name !== "verify-worker.mjs")
      .map((name) => [`./${name.replace(/\.mjs$/, "")}`, `./${name}`]));
    const manifest = {
      name: "fairdeal-verify",
      version,
      description: "The fairdeal verifier for code: the page's own checks of a round, a seed pair or a draw, and the protocols",
      license: "MIT OR Apache-2.0",
      type: "module",
      bin: { "fairdeal-verify": "cli/fairdeal-verify.mjs" },
      exports: { ".": { types: "./cli/verify.d.ts", default: "./cli/verify.mjs" }, ...exported },
      types: "cli/verify.d.ts",
      engines: { node: ">=20" },
      dependencies: { linkedom: own.devDependencies.linkedom },
    };
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(stage, "README.md"), `# fairdeal-verify ${version}\n\n`
      + "The fairdeal verification page's own checks, for code and the command line:\n\n"
      + "    fairdeal-verify round https://fairdeal.example ROUND_ID --log-key 'name+id+key'\n"
      + "    fairdeal-verify pair  https://fairdeal.example PAIR_ID  --pins pins.json\n"
      + "    fairdeal-verify draw  https://fairdeal.example DRAW_ID  --log-key 'name+id+key' --list entrants.txt\n\n"
      + "Exit status: 0 PASS, 1 FAIL, 3 not yet verifiable, 2 a usage error. No log key is trusted\n"
      + "on first use. `import { verify } from \"fairdeal-verify\"` gives the same verdict as an object;\n"
      + "`fairdeal-verify/fairdeal-v1` and the other protocol modules are exported as they are.\n");
    const packed = spawnSync("npm", ["pack", "--silent", "--pack-destination", stage], { cwd: stage, encoding: "utf8" });
    if (packed.status !== 0) throw new Error(`npm pack: ${packed.stderr}`);
    return readFileSync(join(stage, `fairdeal-verify-${version}.tgz`));
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
const cspSource = (text) => `'sha256-${sha256(text).toString("base64")}'`;

/** Fails the build when `text` could end the inline script or style it goes into. */
function inlinable(text, what) {
  const bad = /<\/(script|style)|<!--/i.exec(text);
  if (bad) throw new Error(`${what} holds ${JSON.stringify(bad[0])}, which would end its element`);
  return text;
}

// The worker as a classic script (an IIFE): started from a blob: URL, which
// a page opened from a file may do for a classic worker only.
const worker = await build({ ...options, format: "iife", entryPoints: [fileURLToPath(new URL("verify-worker.mjs", web))] });
const page = await build({
  ...options,
  entryPoints: [fileURLToPath(new URL("page/main.js", web))],
  define: { RELEASED: "true", WORKER_SOURCE: JSON.stringify(worker.outputFiles[0].text) },
});
const script = inlinable(page.outputFiles[0].text, "the page's script");
const style = inlinable(read("verify.css"), "the style sheet");
// Records are read from the service the player names: any http(s) origin.
const policy = [
  "default-src 'none'",
  `script-src ${cspSource(script)}`,
  `style-src ${cspSource(style)}`,
  "connect-src https: http:",
  "img-src data:",
  "worker-src blob:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");
const html = read("verify.html")
  .replace("{{CSP}}", () => policy)
  .replace("{{STYLE}}", () => style)
  .replace("{{SCRIPT}}", () => `<script type="module">${script}</script>`)
  .replace("<title>fairdeal verifier</title>", () => `<title>fairdeal verifier ${version}</title>`);
if (html.includes("{{")) throw new Error("a placeholder of verify.html was not filled");

mkdirSync(out, { recursive: true });
const files = { "fairdeal-verifier.html": html, [`fairdeal-verify-${version}.tgz`]: pack() };
for (const [name, bytes] of Object.entries(files)) writeFileSync(new URL(name, out), bytes);
const sums = Object.entries(files).map(([name, bytes]) => `${sha256(bytes).toString("hex")}  ${name}\n`).join("");
writeFileSync(new URL("SHA256SUMS", out), sums);
process.stdout.write(`fairdeal verifier ${version}\n${sums}`);
