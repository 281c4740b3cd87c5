// The released single file (web/release/build.mjs) in a real headless
// Chromium, from origins the operator does not control: served by a static
// server on another origin, and opened from file://. Started by
// tests/service/web_page.rs, which runs the service, deals and reveals a
// round (and a pair of rounds checked by the worker), builds the release,
// and runs a second service with a log key of its own: the "fake" one a
// link may name. What to expect comes as JSON in FAIRDEAL_E2E.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { launchChromium } from "./chromium.mjs";

const config = JSON.parse(process.env.FAIRDEAL_E2E);
const file = readFileSync(config.release);
const step = (name) => console.log(`# ${name}`);

// The second origin: a static host that serves the released file, nothing else.
const host = createServer((request, response) => {
  if (new URL(request.url, "http://x").pathname !== "/fairdeal-verifier.html") {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(file);
});
await new Promise((resolve) => host.listen(0, "127.0.0.1", resolve));
const elsewhere = `http://127.0.0.1:${host.address().port}/fairdeal-verifier.html`;

const browser = await launchChromium();
const problems = [];

async function open(context, url) {
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`${url}: page error: ${err.message}`));
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

/** The verdict drawn for the record looked up: `{ result, text }`. */
async function verdictOf(page, expected = null) {
  if (expected) {
    await page.waitForFunction((want) => document.querySelector("#lookup-result > [data-verdict]")?.dataset.verdict === want,
      expected, { timeout: 60_000 }).catch(() => {});
  }
  await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
  return page.$eval("#lookup-result > [data-verdict]", (n) => ({ result: n.dataset.verdict, text: n.textContent }));
}

const link = (origin, service, kind, id) =>
  `${origin}?service=${encodeURIComponent(service)}&${kind}=${encodeURIComponent(id)}`;

try {
  for (const [where, origin] of [["another origin", elsewhere], ["file://", `file://${config.release}`]]) {
    const context = await browser.newContext();
    step(`${where}: a round of a service whose log key the player has not trusted fails, and says why`);
    let page = await open(context, link(origin, config.base, "round", config.round));
    let verdict = await verdictOf(page);
    assert.notEqual(verdict.result, "pass", verdict.text);
    assert.equal(await page.$eval("[data-log-pin]", (n) => n.dataset.logPin), "untrusted");
    assert.equal(await page.$eval("#service-current", (n) => n.dataset.service), config.base);

    step(`${where}: trusted by the player, the same round passes, checked against the service's log`);
    await page.click("[data-log-pin-accept]");
    verdict = await verdictOf(page, "pass");
    assert.equal(verdict.result, "pass", verdict.text);

    step(`${where}: a whole pair, checked by the worker the file carries`);
    page = await open(context, link(origin, config.base, "pair", config.pair));
    verdict = await verdictOf(page, "pass");
    assert.equal(verdict.result, "pass", verdict.text);

    step(`${where}: a link naming another service (another log key) passes nothing`);
    page = await open(context, link(origin, config.fake_base, "round", config.fake_round));
    verdict = await verdictOf(page);
    assert.notEqual(verdict.result, "pass", verdict.text);
    assert.equal(await page.$eval("[data-log-pin]", (n) => n.dataset.logPin), "untrusted");

    step(`${where}: an address that is not one is refused, naming the rule`);
    await page.fill("#service-address", "javascript:alert(1)");
    await page.click("#service-form button[type=submit]");
    const said = await page.$eval("#service-error", (n) => (n.hidden ? "" : n.textContent));
    assert.match(said, /must start with https:\/\//);
    await context.close();
  }
  assert.deepEqual(problems, []);
  console.log("e2e-released: all checks passed");
} finally {
  await browser.close();
  host.close();
}
