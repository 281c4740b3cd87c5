// The page against a dishonest operator, in a real headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core): every verdict
// from the log's signed entries, not from the operator's API. Started by
// tests/service/player_evidence.rs, which deals, tampers with the database
// and passes what to expect as JSON in FAIRDEAL_E2E.
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { launchChromium } from "./chromium.mjs";

const config = JSON.parse(process.env.FAIRDEAL_E2E);
const base = config.base;

const browser = await launchChromium();
const problems = [];
const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });

async function open(url, where = context) {
  const page = await where.newPage();
  page.on("console", (msg) => {
    // A receipt the service does not have (404) is a finding the page shows, not an error of the page.
    if (msg.type() === "error" && !/status of 404/.test(msg.text())) problems.push(`${url}: console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`${url}: page error: ${err.message}`));
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

/** The lookup's verdict, once drawn (it comes first): `{ result, text, warning }`. */
async function verdictOf(page) {
  await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector("#lookup-result").hasAttribute("data-rechecking")
    || document.querySelector("#lookup-result > [data-verdict]").dataset.verdict !== "pending", null, { timeout: 60_000 });
  return page.$eval("#lookup-result", (n) => ({
    first: n.firstElementChild.dataset.verdict !== undefined,
    result: n.querySelector(":scope > [data-verdict]").dataset.verdict,
    warning: n.querySelector(":scope > [data-verdict]").dataset.warning || null,
    text: n.querySelector(":scope > [data-verdict]").textContent,
  }));
}

const results = (page, selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.getAttribute("data-result")));
const step = (name) => console.log(`# ${name}`);

/** A signed note of `body` by the signed-note Ed25519 key `name` with the 32-byte seed `seedHex` (as a monitor signs). */
function signNote(name, seedHex, body) {
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"),
    Buffer.from(seedHex, "hex")]), format: "der", type: "pkcs8" });
  const publicRaw = Buffer.from(createPublicKey(key).export({ format: "jwk" }).x, "base64url");
  const id = createHash("sha256").update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([1]), publicRaw])).digest().subarray(0, 4);
  const signature = sign(null, Buffer.from(body), key);
  return `${body}\n\u2014 ${name} ${Buffer.concat([id, signature]).toString("base64")}\n`;
}

step("honest: a revealed round by the link its deal gave, and its pair, pass on the log's entries");
{
  const page = await open(`${base}${config.honest.link}`);
  const verdict = await verdictOf(page);
  assert.ok(verdict.first, "the verdict comes first");
  assert.equal(verdict.result, "pass", verdict.text);
  assert.deepEqual(await results(page, "[data-check=link]"), ["pass"]);
  assert.deepEqual(await results(page, "[data-check='commitment in log']"), ["pass"]);
  assert.deepEqual(await results(page, "[data-check='client seed in log']"), ["pass"]);
  // The first visit pinned the log's key, and says so with its fingerprint.
  assert.match(await page.textContent("[data-log-pin=new]"), /remembers this log's key.*\([0-9a-f]{4}(:[0-9a-f]{4}){3}\)/);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.honest.pair}`);
  assert.equal((await verdictOf(pair)).result, "pass");
  assert.equal(await pair.$("[data-log-pin]"), null, "the same key: nothing to say");
  assert.deepEqual(await results(pair, "[data-pair-checks] > [data-check='client seed in log']"), ["pass"]);
  await pair.close();
  const chain = await open(`${base}${config.honest_chain.link}`);
  assert.equal((await verdictOf(chain)).result, "pass", "an honest chain round passes");
  await chain.close();
}

step("a receipt withheld as not yet in a checkpoint, though its entry is inside a signed one, fails at once");
{
  const page = await context.newPage();
  await page.route("**/receipt", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    await route.fulfill({ status: 202, headers: { "retry-after": "1" }, json: { ...body, proof: null } });
  });
  await page.goto(`${base}${config.honest.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.match(await page.getAttribute("[data-check='commitment in log']", "title"), /withholds its proof/);
  await page.close();
}

step("a receipt read just before its checkpoint was signed is read again, not failed: an honest race passes");
{
  const page = await context.newPage();
  const seen = new Set();
  await page.route("**/receipt", async (route) => {
    const response = await route.fetch();
    const url = route.request().url();
    if (seen.has(url)) return route.fulfill({ response });
    seen.add(url);
    // The first read of each receipt: the service had not yet signed the checkpoint that holds it.
    const body = await response.json();
    await route.fulfill({ status: 202, headers: { "retry-after": "1" }, json: { ...body, proof: null } });
  });
  await page.goto(`${base}${config.honest.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pass", verdict.text);
  assert.ok(seen.size >= 2, `the receipts were withheld once each (${seen.size})`);
  await page.close();
}

step("an error instead of a receipt is never a PASS: not yet verifiable, looked at again");
{
  for (const [pattern, status] of [["**/v1/seed-pairs/*/receipt", 500], ["**/receipt", 429], ["**/same-client-seed", 503],
    [(url) => url.searchParams.get("entry") === "client_seed", 500]]) {
    const page = await context.newPage();
    await page.route(pattern, (route) => route.fulfill({ status, contentType: "application/problem+json", body: "{}" }));
    await page.goto(`${base}${config.swapped.link}`);
    await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
    const shown = await page.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict);
    assert.notEqual(shown, "pass", `${pattern} ${status}`);
    await page.close();
    // The honest round with the same error: pending, looked at again (never a FAIL for a busy service).
    const honest = await context.newPage();
    await honest.route(pattern, (route) => route.fulfill({ status, contentType: "application/problem+json", body: "{}" }));
    await honest.goto(`${base}${config.honest.link}`);
    await honest.waitForSelector("#lookup-result[data-rechecking] > [data-verdict]", { timeout: 60_000 });
    assert.equal(await honest.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict), "pending", `${pattern} ${status}`);
    assert.notEqual(await honest.$(`[data-unanswered="${status}"]`), null);
    await honest.close();
  }
}

step("a round shown with a client seed that is not text fails");
{
  const page = await context.newPage();
  await page.route("**/v1/rounds/*", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    await route.fulfill({ response, json: { ...body, client_seed: [body.client_seed] } });
  });
  await page.goto(`${base}${config.honest.link}`);
  assert.equal((await verdictOf(page)).result, "fail");
  assert.deepEqual(await results(page, "[data-check='client seed in log']"), ["fail"]);
  await page.close();
}

step("a link whose log index is not a number says so; the round is checked without it");
{
  const page = await open(`${base}${config.honest.link.replace(/log=\d+/, "log=2.0")}`);
  assert.equal((await verdictOf(page)).result, "pass");
  assert.match(await page.textContent("[data-bad-link]"), /not a whole number/);
  await page.close();
}

step("a pair's history logged again with another seed after its round was dealt: the player's link fails");
{
  const page = await open(`${base}${config.relogged.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.deepEqual(await results(page, "[data-check=link]"), ["fail"], "the receipt names the entry logged again");
  assert.ok((await results(page, "[data-check='round order']")).includes("fail"));
  await page.close();
  // Even with the round's receipt withheld, the link's own entry comes before the new commitment.
  const withheld = await context.newPage();
  await withheld.route("**/v1/rounds/*/receipt", (route) => route.fulfill({ status: 500, body: "{}" }));
  await withheld.goto(`${base}${config.relogged.link}`);
  const shown = await verdictOf(withheld);
  assert.equal(shown.result, "fail", shown.text);
  assert.match(await withheld.getAttribute("[data-check='round order']", "title"), /your link/);
  await withheld.close();
}

step("a client seed changed in the database after the player set it fails, naming both hashes");
{
  const page = await open(`${base}${config.changed_seed.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.match(verdict.text, /transparency log does not back/);
  assert.deepEqual(await results(page, "[data-check='client seed in log']"), ["fail"]);
  // Every card is what the chain deals from the changed seed: only the log tells.
  assert.deepEqual(await results(page, "[data-check=deal]"), ["pass"]);
  const why = await page.textContent("[data-explain=client-seed-entry]");
  assert.ok(why.includes(config.changed_seed.logged) && why.includes(config.changed_seed.shown), why);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.changed_seed.pair}`);
  assert.equal((await verdictOf(pair)).result, "fail");
  assert.deepEqual(await results(pair, "[data-pair-checks] > [data-check='client seed in log']"), ["fail"]);
  await pair.close();
}

step("a commitment swapped after the client seed was set fails on the round and the pair");
{
  const page = await open(`${base}${config.swapped.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.deepEqual(await results(page, "[data-check='commitment in log']"), ["fail"]);
  assert.deepEqual(await results(page, "[data-check=commitment]"), ["pass"], "the swapped seed opens the swapped hash");
  assert.deepEqual(await results(page, "[data-check=deal]"), ["pass"], "and deals the swapped cards");
  assert.match(await page.textContent("[data-explain=commit-entry]"), /changed after it was published/);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.swapped.pair}`);
  assert.equal((await verdictOf(pair)).result, "fail");
  assert.deepEqual(await results(pair, "[data-pair-checks] > [data-check=log]"), ["fail"]);
  await pair.close();
}

step("the same with the pair's log reference cleared: a missing commit receipt fails, it is not skipped");
{
  const page = await open(`${base}${config.cleared.link}`);
  assert.equal((await verdictOf(page)).result, "fail");
  assert.deepEqual(await results(page, "[data-check='commitment in log']"), ["fail"]);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.cleared.pair}`);
  assert.equal((await verdictOf(pair)).result, "fail");
  assert.deepEqual(await results(pair, "[data-pair-checks] > [data-check=log]"), ["fail"]);
  await pair.close();
}

step("a deleted round whose log entry the service will not serve: not yet verifiable, the link not blamed");
{
  const page = await context.newPage();
  await page.route("**/v1/log/entries/*", (route) => route.fulfill({ status: 500, contentType: "application/problem+json", body: "{}" }));
  await page.goto(`${base}${config.redealt.first}`);
  await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
  const verdict = await page.$eval("#lookup-result > [data-verdict]", (n) => ({ result: n.dataset.verdict, text: n.textContent }));
  assert.equal(verdict.result, "pending", verdict.text);
  assert.match(verdict.text, /Keep your link/);
  await page.close();
}

step("a round deleted and its nonce dealt again: the first round's link fails, naming the log's entry");
{
  const page = await open(`${base}${config.redealt.first}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.ok(verdict.text.includes(config.redealt.first_id) && verdict.text.includes(`nonce ${config.redealt.nonce}`)
    && verdict.text.includes(config.redealt.pair) && verdict.text.includes("no round with that id"), verdict.text);
  assert.notEqual(await page.$("[data-linked-missing]"), null);
  assert.deepEqual(await results(page, "[data-check=link]"), ["pass"], "the entry itself is the log's, proven");
  await page.close();
  // The round dealt in its place is honest in itself (its pair is not revealed yet).
  const second = await open(`${base}${config.redealt.second}`);
  assert.notEqual((await verdictOf(second)).result, "fail");
  assert.deepEqual(await results(second, "[data-check=link]"), ["pass"]);
  await second.close();
  // A link naming another round's entry is not this round's.
  const other = await open(`${base}${config.honest.link.replace(/log=\d+/, `log=${new URL(config.redealt.second, base).searchParams.get("log")}`)}`);
  const mismatched = await verdictOf(other);
  assert.equal(mismatched.result, "fail", mismatched.text);
  assert.deepEqual(await results(other, "[data-check=link]"), ["fail"]);
  await other.close();
}

step("with a monitor the player keeps, the nonce dealt again fails on the round dealt in its place, and on its pair");
{
  const kept = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const setup = await open(`${base}/verify`, kept);
  await setup.fill("#monitor-keys", config.monitor.vkey);
  await setup.click("#monitor-form button[type=submit]");
  await setup.waitForFunction((name) => document.querySelector("#monitor-current").dataset.monitors === name, config.monitor.name);
  await setup.close();
  const page = await open(`${base}${config.redealt.second}`, kept);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", verdict.text);
  assert.match(verdict.text, /monitor you keep/);
  assert.deepEqual(await results(page, `[data-check='monitor ${config.monitor.name}']`), ["fail"]);
  const findings = await page.textContent("[data-monitor-findings]");
  assert.ok(findings.includes(config.redealt.pair) && /order/.test(findings), findings);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.redealt.pair}`, kept);
  assert.equal((await verdictOf(pair)).result, "fail");
  await pair.close();
  // The pair logged again: its second commitment is the monitor's finding, so its page fails too.
  const relogged = await open(`${base}/verify?pair=${config.relogged.pair}`, kept);
  assert.equal((await verdictOf(relogged)).result, "fail");
  assert.deepEqual(await results(relogged, `[data-check='monitor ${config.monitor.name}']`), ["fail"]);
  await relogged.close();
  // The honest control: the monitor read past it and found nothing there.
  const honest = await open(`${base}${config.honest.link}`, kept);
  assert.equal((await verdictOf(honest)).result, "pass");
  assert.deepEqual(await results(honest, `[data-check='monitor ${config.monitor.name}']`), ["pass"]);
  assert.match(await honest.textContent("[data-monitor-state=clear]"), /found nothing on this record/);
  await honest.close();
  // Statements the kept monitor signed, served as the operator chooses: each is the monitor's word, never more.
  const note = await (await fetch(`${base}/log/checkpoint`)).text();
  const [origin, size, root] = note.split("\n");
  const honestPair = config.honest.pair;
  const cases = [
    ["findings it did not list", `findings 2\norder - pair 0000 deals nonce Some(1) where 0 was next\n`, "warning", "unlisted"],
    ["a late reveal of this pair", `findings 1\nstale_commitment - pair ${honestPair} committed long ago and not revealed\n`, "warning", "late"],
    ["a log found unsound", "findings 1\ntile 3 hash tile 0/000 differs\n", "fail", null],
  ];
  for (const [what, tail, expected, state] of cases) {
    const body = `fairdeal-monitor-statement/v1\n${origin}\n${size}\n${root}\ntime ${Math.floor(Date.now() / 1000)}\n${tail}`;
    const signed = signNote(config.monitor.name, config.monitor.seed, body);
    const page2 = await kept.newPage();
    page2.on("pageerror", (err) => problems.push(`crafted statement: ${err.message}`));
    await page2.route("**/v1/log/monitor-statements", (route) => route.fulfill({ json: { statements: [
      { monitor: config.monitor.vkey, size: Number(size), note: signed }] } }));
    await page2.goto(`${base}${config.honest.link}`);
    const shown = await verdictOf(page2);
    assert.equal(shown.result, expected, `${what}: ${shown.text}`);
    if (state) {
      assert.equal(shown.warning, "monitor", what);
      assert.notEqual(await page2.$(`[data-monitor-state=${state}]`), null, what);
    }
    await page2.close();
  }
  // A statement of a checkpoint larger than any the log signed cannot be tied to this log: never a PASS.
  const ahead = await kept.newPage();
  const aheadNote = signNote(config.monitor.name, config.monitor.seed,
    `fairdeal-monitor-statement/v1\n${origin}\n${Number(size) + 5}\n${"A".repeat(43)}=\ntime 1\nfindings 0\n`);
  await ahead.route("**/v1/log/monitor-statements", (route) => route.fulfill({ json: { statements: [
    { monitor: config.monitor.vkey, size: Number(size) + 5, note: aheadNote }] } }));
  await ahead.goto(`${base}${config.honest.link}`);
  await ahead.waitForSelector("#lookup-result > [data-verdict]", { timeout: 60_000 });
  assert.equal(await ahead.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict), "pending");
  assert.notEqual(await ahead.$("[data-monitor-state=unproven]"), null);
  await ahead.close();
  // Withheld: no statement by the kept monitor is a warning.
  const withheld = await kept.newPage();
  await withheld.route("**/v1/log/monitor-statements", (route) => route.fulfill({ json: { statements: [] } }));
  await withheld.goto(`${base}${config.honest.link}`);
  const none = await verdictOf(withheld);
  assert.equal(none.result, "warning", none.text);
  assert.notEqual(await withheld.$("[data-monitor-state=none]"), null);
  await withheld.close();
  // Not a monitor key: refused, naming why.
  const wrong = await open(`${base}/verify`, kept);
  await wrong.fill("#monitor-keys", "monitor.example/x+00000000+AQ==");
  await wrong.click("#monitor-form button[type=submit]");
  await wrong.waitForSelector("#monitor-error:not([hidden])");
  assert.match(await wrong.textContent("#monitor-error"), /not used/);
  await wrong.close();
  await kept.close();
}

step("the player's seed live at a second tenant: a warning, not a PASS and not a FAIL, on the round and the pair");
{
  const page = await open(`${base}${config.shared.link}`);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "warning", verdict.text);
  assert.equal(verdict.warning, "other-tenant");
  assert.match(await page.textContent("[data-other-tenant]"), /cannot tell a real second brand/);
  await page.close();
  const pair = await open(`${base}/verify?pair=${config.shared.pair}`);
  const pairVerdict = await verdictOf(pair);
  assert.equal(pairVerdict.result, "warning", pairVerdict.text);
  assert.equal(await pair.getAttribute("[data-other-tenant]", "data-other-tenant"), "1");
  await pair.close();
}

step("deal-shopping hidden by pointing the twin's interval past the log: never a PASS, looked at again");
{
  for (const url of [`${base}${config.twinned.link}`, `${base}/verify?pair=${config.twinned.pair}`]) {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("#lookup-result[data-rechecking] > [data-verdict]", { timeout: 60_000 });
    assert.equal(await page.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict), "pending", url);
    assert.equal(await page.getAttribute("[data-same-seed-unread]", "data-same-seed-unread"), "1");
    await page.close();
  }
}

step("a chain round whose seed-publishing entry is not answered is never a PASS");
{
  const page = await context.newPage();
  await page.route("**/seed-receipt", (route) => route.fulfill({ status: 500, contentType: "application/problem+json", body: "{}" }));
  await page.goto(`${base}${config.honest_chain.link}`);
  await page.waitForSelector("#lookup-result[data-rechecking] > [data-verdict]", { timeout: 60_000 });
  assert.equal(await page.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict), "pending");
  await page.close();
}

step("a round's whole link pasted in the lookup box is read as the link: its log entry checked too");
{
  const page = await open(`${base}/verify`);
  await page.fill("#lookup-id", `  ${base}${config.honest.link}  `);
  await page.click("#lookup-form button[type=submit]");
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "pass", verdict.text);
  assert.deepEqual(await results(page, "[data-check=link]"), ["pass"], "the link's log entry was read");
  assert.match(await page.evaluate(() => location.search), /round=.*log=/);
  // A draw's link in the same box opens the draw.
  await page.fill("#lookup-id", `${base}/verify?draw=${config.draws.honest}`);
  await page.click("#lookup-form button[type=submit]");
  await page.waitForSelector("#draw-result > [data-verdict]", { timeout: 60_000 });
  assert.equal(await page.inputValue("#draw-id"), config.draws.honest);
  await page.close();
}

step("a link with the round id in upper case is the same round");
{
  const page = await open(`${base}${config.honest.link.replace(/round=([^&]+)/, (_, id) => `round=${id.toUpperCase()}`)}`);
  assert.equal((await verdictOf(page)).result, "pass");
  await page.close();
}

step("a new log key at the same site: a red warning, the pinned key's checks, and a knowing acceptance");
{
  // A browser that first met this site serving another log (another key of the same name).
  const vkey = await (await fetch(`${base}/log/key`)).text();
  const name = vkey.trim().split("+")[0];
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
  const material = Buffer.concat([Buffer.from([1]), raw]);
  const keyId = createHash("sha256").update(Buffer.concat([Buffer.from(`${name}\n`), material])).digest("hex").slice(0, 8);
  const other = `${name}+${keyId}+${material.toString("base64")}`;
  const fresh = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const before = await fresh.newPage();
  await before.route("**/log/key", (route) => route.fulfill({ status: 200, contentType: "text/plain", body: other }));
  await before.goto(`${base}${config.honest.link}`);
  await before.waitForSelector("[data-log-pin=new]", { timeout: 60_000 });
  await before.close();

  const page = await open(`${base}${config.honest.link}`, fresh);
  const verdict = await verdictOf(page);
  assert.equal(verdict.result, "fail", `the new key's signatures fail under the pinned one: ${verdict.text}`);
  const warning = await page.textContent("[data-log-pin=changed]");
  assert.match(warning, /log's key has changed/);
  assert.ok(warning.includes(name), warning);
  await page.click("[data-log-pin-accept]");
  await page.waitForFunction(() => document.querySelector("#lookup-result > [data-verdict]")?.dataset.verdict === "pass",
    null, { timeout: 60_000 });
  assert.equal(await page.$("[data-log-pin=changed]"), null);
  await page.close();
  const later = await open(`${base}${config.honest.link}`, fresh);
  assert.equal((await verdictOf(later)).result, "pass");
  assert.equal(await later.$("[data-log-pin]"), null, "the accepted key is pinned now");
  // Pins of a shape this page did not write are replaced, and then hold.
  await later.evaluate(() => localStorage.setItem("fairdeal-log-pins", JSON.stringify({ services: [], logs: [] })));
  await later.reload();
  await later.waitForSelector("[data-log-pin=new]", { timeout: 60_000 });
  await later.reload();
  assert.equal((await verdictOf(later)).result, "pass");
  assert.equal(await later.$("[data-log-pin]"), null, "pinned again");
  await later.close();
  await fresh.close();
}

/** A draw's verdict, once its list file (if any) is read and no check is looked at again. */
async function drawVerdictOf(page) {
  await page.waitForFunction(() => {
    const result = document.querySelector("#draw-result");
    const verdict = result.querySelector(":scope > [data-verdict]");
    return verdict && (!result.hasAttribute("data-rechecking") || verdict.dataset.verdict !== "pending")
      && !result.querySelector("[data-check=list][data-result=pending]");
  }, null, { timeout: 60_000 });
  return page.$eval("#draw-result > [data-verdict]", (n) => ({ result: n.dataset.verdict, text: n.textContent }));
}

async function openDraw(id, where = context) {
  const page = await open(`${base}/verify?draw=${encodeURIComponent(id)}`, where);
  await page.waitForSelector("#draw-result > [data-verdict]", { timeout: 60_000 });
  await page.setInputFiles("#draw-file", config.draws.list);
  return page;
}

step("draws are held to the log: an honest one passes; a client seed changed before the draw, and a commitment swapped after it, fail");
{
  const d = config.draws;
  const honest = await openDraw(d.honest);
  const verdict = await drawVerdictOf(honest);
  assert.equal(verdict.result, "pass", verdict.text);
  for (const name of ["commitment in log", "client seed in log", "result in log", "list", "commitment", "winners"]) {
    assert.deepEqual(await results(honest, `#draw-result [data-check='${name}']`), ["pass"], name);
  }
  await honest.close();

  const reseeded = await openDraw(d.reseeded);
  const changed = await drawVerdictOf(reseeded);
  assert.equal(changed.result, "fail", changed.text);
  assert.match(changed.text, /transparency log does not back this draw.*client seed's SHA-256/);
  // The protocol's own checks hold: the record is consistent with the changed seed; only the log tells.
  assert.deepEqual(await results(reseeded, "#draw-result [data-check=winners]"), ["pass"]);
  assert.deepEqual(await results(reseeded, "#draw-result [data-check='draw as logged']"), ["fail"]);
  assert.ok((await reseeded.textContent("#draw-result [data-explain=draw-log]")).includes(d.reseeded_logged));
  await reseeded.close();

  const swapped = await openDraw(d.swapped);
  const swap = await drawVerdictOf(swapped);
  assert.equal(swap.result, "fail", swap.text);
  assert.match(swap.text, /server seed commitment/);
  assert.deepEqual(await results(swapped, "#draw-result [data-check=commitment]"), ["pass"]);
  await swapped.close();
}

step("a record answered in place of the one asked for fails: a round, a pair, a draw");
{
  const honestRound = new URL(`${base}${config.honest.link}`).searchParams.get("round");
  const otherRound = new URL(`${base}${config.honest_chain.link}`).searchParams.get("round");
  const swaps = [
    [`/v1/rounds/${honestRound}`, `/v1/rounds/${otherRound}`, `${base}${config.honest.link}`, "#lookup-result"],
    [`/v1/seed-pairs/${config.honest.pair}`, `/v1/seed-pairs/${config.honest_chain.pair}`, `${base}/verify?pair=${config.honest.pair}`, "#lookup-result"],
    [`/v1/draws/${config.draws.honest}`, `/v1/draws/${config.draws.donor}`, `${base}/verify?draw=${config.draws.honest}`, "#draw-result"],
  ];
  for (const [asked, answered, url, where] of swaps) {
    const other = await (await fetch(`${base}${answered}`)).json();
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`${url}: page error: ${err.message}`));
    await page.route(`${base}${asked}`, (route) => route.fulfill({ json: other }));
    await page.goto(url);
    await page.waitForSelector(`${where} > [data-verdict]`, { timeout: 60_000 });
    const shown = await page.$eval(`${where} > [data-verdict]`, (n) => ({ result: n.dataset.verdict, text: n.textContent,
      another: n.dataset.answeredAnother }));
    assert.equal(shown.result, "fail", `${asked}: ${shown.text}`);
    assert.ok(shown.another && shown.text.includes(other.id), `${asked}: ${shown.text}`);
    if (where === "#draw-result") {
      // Choosing the list file afterwards checks nothing the service did not answer for.
      await page.setInputFiles("#draw-file", config.draws.list);
      await page.waitForTimeout(500);
      assert.equal(await page.$eval("#draw-result > [data-verdict]", (n) => n.dataset.answeredAnother), "draw");
    }
    await page.close();
  }
}

step("a draw record the page cannot read, or one that hides its client seed's source, is never a PASS, list file or not");
{
  const honest = await (await fetch(`${base}/v1/draws/${config.draws.honest}`)).json();
  const { client_seed_source: _source, ...sourceless } = honest;
  for (const [what, body] of [["a label that is no text", { ...honest, label: { toString: 1 } }], ["no stated source", sourceless]]) {
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`${what}: page error: ${err.message}`));
    let reads = 0;
    await page.route(`${base}/v1/draws/${config.draws.honest}`, (route) => {
      reads += 1;
      return route.fulfill({ json: body });
    });
    await page.goto(`${base}/verify?draw=${config.draws.honest}`);
    await page.waitForSelector("#draw-result > [data-verdict]", { timeout: 60_000 });
    await page.setInputFiles("#draw-file", config.draws.list);
    await page.waitForTimeout(500);
    const shown = await page.$eval("#draw-result > [data-verdict]", (n) => ({ result: n.dataset.verdict, text: n.textContent }));
    assert.equal(shown.result, "pending", `${what}: ${shown.text}`);
    assert.match(shown.text, /not a draw this page can read/, what);
    assert.ok(reads >= 1);
    await page.close();
  }
}

step("an answer that is not a JSON object is not yet verifiable, and says so");
{
  const honestRound = new URL(`${base}${config.honest.link}`).searchParams.get("round");
  for (const [asked, url, where, body] of [
    [`/v1/rounds/${honestRound}`, `${base}${config.honest.link}`, "#lookup-result", "null"],
    [`/v1/draws/${config.draws.honest}`, `${base}/verify?draw=${config.draws.honest}`, "#draw-result", "[1, 2]"],
  ]) {
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`${url}: page error: ${err.message}`));
    await page.route(`${base}${asked}`, (route) => route.fulfill({ status: 200, contentType: "application/json", body }));
    await page.goto(url);
    await page.waitForSelector(`${where} > [data-verdict]`, { timeout: 60_000 });
    const shown = await page.$eval(`${where} > [data-verdict]`, (n) => ({ result: n.dataset.verdict, text: n.textContent }));
    assert.equal(shown.result, "pending", shown.text);
    assert.ok(shown.text.includes(`answer to ${asked} (200) is not a JSON object`), shown.text);
    await page.close();
  }
}

await browser.close();
assert.deepEqual(problems, [], "no console errors (a CSP violation would show here)");
console.log("e2e player: all checks passed");
