// The verification page's witness policy in a real headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core). Started by
// tests/service/web_page.rs, which runs the service with two real `fairdeal
// witness` processes, deals a round both cosigned, stops witness two, deals
// a round only witness one cosigned, and passes what to expect as JSON in
// FAIRDEAL_E2E.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import { launchChromium } from "./chromium.mjs";

const config = JSON.parse(process.env.FAIRDEAL_E2E);
const base = config.base;
const ONE = "witness.example/one";
const TWO = "witness.example/two";

const browser = await launchChromium();
const problems = [];
const sent = [];

/** A fresh browser profile (its own storage). */
async function fresh() {
  return browser.newContext({ viewport: { width: 1100, height: 900 } });
}

async function open(context, url) {
  const page = await context.newPage();
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`${url}: console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`${url}: page error: ${err.message}`));
  page.on("request", (request) => sent.push(request.url()));
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

/** The page, with the round or pair looked up, once its verdict is drawn. */
async function verdictOf(page) {
  await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
  return page.$eval("#lookup-result > [data-verdict]", (n) => ({ result: n.dataset.verdict, text: n.textContent }));
}

const results = (page, selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.getAttribute("data-result")));
const attribute = (page, selector, name) => page.$eval(selector, (n, a) => n.getAttribute(a), name);
const policyUrl = (keys, quorum) => keys.map((k) => `witness=${encodeURIComponent(k)}`).join("&") + (quorum ? `&quorum=${quorum}` : "");
const step = (name) => console.log(`# ${name}`);

/** A new cosignature/v1 witness key named `name` (nobody holds a witness with it). */
function witnessKey(name) {
  const { publicKey } = generateKeyPairSync("ed25519");
  const material = Buffer.concat([Buffer.from([4]), Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url")]);
  const id = createHash("sha256").update(Buffer.concat([Buffer.from(`${name}\n`), material])).digest("hex").slice(0, 8);
  return `${name}+${id}+${material.toString("base64")}`;
}

/**
 * A page opened by a link that proposes witnesses: the proposal is shown and
 * not used; the player accepts it, and the page (reloaded, without the
 * link's parameters) uses the witnesses kept.
 */
async function openAccepting(context, url) {
  const page = await open(context, url);
  await page.waitForSelector("[data-witness-accept]");
  assert.equal(await attribute(page, "#witness-current", "data-witnesses"), "", "a link's witnesses are not used before they are accepted");
  await page.click("[data-witness-accept]");
  await page.waitForFunction(() => !location.search.includes("witness="));
  await page.reload();
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

step("a policy of both witnesses: a round they both cosigned passes, naming both");
{
  const context = await fresh();
  const page = await openAccepting(context, `${base}/verify?round=${config.both_round}&${policyUrl([config.one, config.two])}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pass", verdict.text);
  assert.deepEqual(await results(page, "[data-check=log]"), ["pass"]);
  assert.equal(await attribute(page, "[data-check=log]", "data-witnessed-by"), `${ONE} ${TWO}`);
  const note = await page.textContent("[data-witnessed]");
  assert.ok(note.includes(ONE) && note.includes(TWO) && note.includes("2 of the 2 witnesses you trust"), note);
  // The newest checkpoint lacks witness two: the page checked against the witnessed one, and says so.
  assert.equal(await attribute(page, "[data-witnessed]", "data-witnessed-size"), String(config.witnessed_size));
  assert.ok(note.includes("newest checkpoint") && note.includes("not yet signed by 2 of the 2"), note);
  // The policy is shown, and kept in this browser.
  assert.equal(await attribute(page, "#witness-current", "data-witnesses"), `${ONE} ${TWO}`);
  if (config.screenshot) await page.screenshot({ path: `${config.screenshot}-trusted.png`, fullPage: true });
  await page.close();

  step("the same policy, kept: a round only witness one cosigned is not yet trusted");
  const later = await open(context, `${base}/verify?round=${config.one_round}`);
  const untrusted = await verdictOf(later);
  assert.equal(untrusted.result, "pending", untrusted.text);
  assert.ok(untrusted.text.startsWith("NOT YET TRUSTED"), untrusted.text);
  assert.ok(untrusted.text.includes("every card is what fairdeal-v1 deals"), untrusted.text);
  assert.deepEqual(await results(later, "[data-check=log]"), ["untrusted"]);
  assert.deepEqual(await results(later, "[data-check=deal]"), ["pass"]);
  const why = await later.textContent("[data-untrusted]");
  for (const words of ["Not yet trusted", "A witness is an independent party", "to you alone", "Check again later",
    `Signed so far by: ${ONE}`, `Not signed by: ${TWO}`]) {
    assert.ok(why.includes(words), `${words}: ${why}`);
  }
  assert.equal(await attribute(later, "[data-untrusted]", "data-witnessed-by"), ONE);
  if (config.screenshot) await later.screenshot({ path: `${config.screenshot}-untrusted.png`, fullPage: true });

  step("the form: one of the two suffices; then a stranger; then forgotten");
  await later.fill("#witness-quorum", "1");
  await later.click("#witness-form button[type=submit]");
  await later.waitForFunction(() => document.querySelector("#witness-current").dataset.quorum === "1");
  await later.waitForSelector("[data-check=log][data-result=pass]", { timeout: 60_000 });
  assert.equal((await verdictOf(later)).result, "pass");
  assert.equal(await attribute(later, "[data-check=log]", "data-witnessed-by"), ONE);
  assert.ok(!later.url().includes("witness="), later.url());

  await later.fill("#witness-keys", config.stranger);
  await later.fill("#witness-quorum", "");
  await later.click("#witness-form button[type=submit]");
  await later.waitForSelector("[data-check=log][data-result=untrusted]", { timeout: 60_000 });
  assert.equal((await verdictOf(later)).result, "pending");
  assert.equal(await attribute(later, "#witness-current", "data-witnesses"), "witness.example/stranger");

  // Not a witness key: refused, naming why; the policy in force stays.
  await later.fill("#witness-keys", "example.com/log+00000000+AQ==");
  await later.click("#witness-form button[type=submit]");
  await later.waitForSelector("#witness-error:not([hidden])");
  assert.ok((await later.textContent("#witness-error")).includes("not used"));

  await later.click("#witness-forget");
  await later.waitForFunction(() => document.querySelector("#witness-current").dataset.witnesses === "");
  await later.close();
  const forgotten = await open(context, `${base}/verify?round=${config.one_round}`);
  assert.equal((await verdictOf(forgotten)).result, "pass");
  assert.deepEqual(await results(forgotten, "[data-check=log]"), ["pass"]);
  await forgotten.close();
  await context.close();
}

step("a link proposing other witnesses never replaces the player's: shown beside them, an impostor flagged");
{
  const context = await fresh();
  const kept = await openAccepting(context, `${base}/verify?round=${config.one_round}&${policyUrl([config.one, config.two])}`);
  assert.equal((await verdictOf(kept)).result, "pending", "witness two did not cosign this round's checkpoint");
  await kept.close();
  // The operator's link: witness one alone would do, and its own key under witness two's name.
  const page = await open(context, `${base}/verify?round=${config.one_round}&${policyUrl([config.one, config.impostor], 1)}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pending", `the kept policy decides: ${verdict.text}`);
  assert.ok(verdict.text.startsWith("NOT YET TRUSTED"), verdict.text);
  await page.waitForSelector("[data-witness-proposal]:not([hidden]) [data-witness-accept]");
  assert.equal(await attribute(page, "#witness-current", "data-witnesses"), `${ONE} ${TWO}`);
  assert.equal(await attribute(page, "#witness-proposal", "data-impostors"), TWO);
  const flagged = await page.textContent("[data-witness-impostor]");
  assert.ok(flagged.includes(TWO) && flagged.includes("another key"), flagged);
  // Told apart by key: the two witnesses named two show different fingerprints.
  const printOf = (where, name) => page.$$eval(`${where} .key-name`, (nodes, n) => nodes
    .filter((node) => node.querySelector(".mono").textContent === n).map((node) => node.querySelector(".fingerprint").textContent), name);
  const [keptTwo, proposedTwo] = [await printOf("#witness-current", TWO), await printOf("#witness-proposal", TWO)];
  assert.equal(keptTwo.length, 1);
  assert.equal(proposedTwo.length, 1);
  assert.notEqual(keptTwo[0], proposedTwo[0], "the player's witness two and the link's show different fingerprints");
  assert.deepEqual(await printOf("#witness-current", ONE), await printOf("#witness-proposal", ONE), "one key, one fingerprint");
  assert.notEqual(await page.$("[data-proposal-notice]"), null, "the lookup says a proposal waits");
  await page.close();
  // A lookalike of a kept name (a Cyrillic letter) with another key is flagged too, its name marked.
  const lookalike = witnessKey("witness.example/tw\u043e");
  const look = await open(context, `${base}/verify?round=${config.one_round}&${policyUrl([lookalike], 1)}`);
  await look.waitForSelector("[data-witness-impostor]");
  assert.ok((await look.textContent("[data-witness-impostor]")).includes("U+043E"));
  assert.equal((await verdictOf(look)).result, "pending");
  await look.close();
  // Later, the player's own link: still the kept policy.
  const later = await open(context, `${base}/verify?round=${config.one_round}`);
  assert.equal((await verdictOf(later)).result, "pending");
  assert.equal(await attribute(later, "#witness-current", "data-witnesses"), `${ONE} ${TWO}`);
  assert.equal(await later.$("[data-witness-accept]"), null);
  await later.close();
  await context.close();
}

step("a policy naming a witness that did not cosign: not yet trusted");
{
  const context = await fresh();
  const page = await openAccepting(context, `${base}/verify?round=${config.both_round}&${policyUrl([config.stranger])}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pending", verdict.text);
  assert.ok(verdict.text.startsWith("NOT YET TRUSTED"), verdict.text);
  assert.deepEqual(await results(page, "[data-check=log]"), ["untrusted"]);
  const why = await page.textContent("[data-untrusted]");
  assert.ok(why.includes("No checkpoint of this log is signed by 1 of the 1 witness you trust yet"), why);
  assert.ok(why.includes("Not signed by: witness.example/stranger"), why);
  await page.close();
  await context.close();
}

step("a key in the address whose '+' signs were not encoded still reads");
{
  const context = await fresh();
  const page = await openAccepting(context, `${base}/verify?round=${config.both_round}&witness=${config.one.replace(/\//g, "%2F")}`);
  assert.equal((await verdictOf(page)).result, "pass");
  assert.equal(await attribute(page, "[data-check=log]", "data-witnessed-by"), ONE);
  await page.close();
  await context.close();
}

step("no policy: the page passes as before and names the checkpoint's cosigners, unchecked");
{
  const context = await fresh();
  const page = await open(context, `${base}/verify?round=${config.both_round}`);
  assert.equal((await verdictOf(page)).result, "pass");
  assert.deepEqual(await results(page, "[data-check=log]"), ["pass"]);
  const names = await attribute(page, "[data-cosigners]", "data-cosigners");
  assert.equal(names, ONE, "the latest checkpoint carries witness one's line (two is stopped)");
  assert.ok((await page.textContent("[data-cosigners]")).includes("did not check their signatures"));
  assert.equal(await page.$("[data-untrusted]"), null);
  await page.close();

  step("a whole pair without a policy: its rounds proven against the cosigned latest checkpoint");
  const pair = await open(context, `${base}/verify?pair=${config.both_pair}`);
  const verdict = await verdictOf(pair);
  assert.equal(verdict.result, "pass", verdict.text);
  assert.deepEqual(await results(pair, "[data-pair-checks] > [data-check='rounds in log']"), ["pass"]);
  await pair.close();
  await context.close();
}

step("a whole pair with a policy: proven against the witnessed checkpoint, or not yet trusted");
{
  const context = await fresh();
  const policy = policyUrl([config.one, config.two]);
  const page = await openAccepting(context, `${base}/verify?pair=${config.both_pair}&${policy}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pass", verdict.text);
  assert.deepEqual(await results(page, "[data-pair-checks] > [data-check='rounds in log']"), ["pass"]);
  assert.equal(await attribute(page, "[data-pair-checks] > [data-check='rounds in log']", "data-witnessed-by"), `${ONE} ${TWO}`);
  assert.equal(await attribute(page, "[data-pair-checks] > [data-check='rounds in log']", "data-proven"), "1");
  await page.close();

  const later = await open(context, `${base}/verify?pair=${config.one_pair}`);
  const untrusted = await verdictOf(later);
  assert.equal(untrusted.result, "pending", untrusted.text);
  assert.ok(untrusted.text.startsWith("NOT YET TRUSTED"), untrusted.text);
  assert.deepEqual(await results(later, "[data-pair-checks] > [data-check='rounds in log']"), ["untrusted"]);
  assert.deepEqual(await results(later, "[data-pair-checks] > [data-check=log]"), ["untrusted"]);
  await later.close();
  await context.close();
}

await browser.close();
// The page reads only its own origin, and never sends a key.
const foreign = sent.filter((url) => !url.startsWith(base) && !url.startsWith("blob:") && !url.startsWith("data:"));
assert.deepEqual(foreign, [], "no request leaves the page's origin");
assert.deepEqual(problems, [], "no console errors (a CSP violation would show here)");
console.log("e2e witnesses: all checks passed");
