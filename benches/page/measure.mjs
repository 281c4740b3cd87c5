// Opens /verify?pair=ID in headless Chromium (Debian's) and measures the
// time from the navigation to the pair's verdict, and the tab's memory: the
// peak private memory of its renderer process (RssAnon: the anonymous pages
// it alone holds, the page's and its worker's heaps and everything Blink
// allocates, without the shared libraries' pages; what Chromium's task
// manager calls the tab's memory footprint), its whole resident memory, and
// the JS heaps of the page and of its worker (sampled every 50 ms and
// 200 ms). Prints one JSON line. The verdict must be PASS unless
// `--expect fail`.
//
// Chromium is driven over its DevTools pipe with no domain enabled but what
// reading the verdict needs, as a player's tab runs. A driver that enables
// the Network domain (Playwright does, to serve response bodies) makes the
// renderer keep a copy of every response it reads: 100–130 MB more at
// 100,000 rounds, which is the driver's memory, not the page's.
// `--playwright` measures that way instead (playwright-core from
// web/node_modules), to compare.
//
//   node benches/page/measure.mjs BASE PAIR [--runs N] [--expect pass|fail] [--playwright]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [base, pair, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : fallback;
};
const runs = Number(option("--runs", "3"));
const expect = option("--expect", "pass");
const playwright = rest.includes("--playwright");
const executable = process.env.CHROMIUM || "/usr/bin/chromium";
const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const mb = (bytes) => (bytes === null ? null : Math.round(bytes / 2 ** 20));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory of every Chromium renderer process: { rss, anon } in bytes. */
function renderers() {
  const out = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes("--type=renderer")) continue;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      const anon = /RssAnon:\s+(\d+) kB/.exec(status);
      if (rss) out.push({ rss: Number(rss[1]) * 1024, anon: anon ? Number(anon[1]) * 1024 : 0 });
    } catch {
      // The process ended.
    }
  }
  return out;
}

/** The peaks of the renderers' memory, sampled every 50 ms until stopped. */
function sampler() {
  const peaks = { rss: 0, anon: 0 };
  const sample = () => {
    for (const { rss, anon } of renderers()) {
      peaks.rss = Math.max(peaks.rss, rss);
      peaks.anon = Math.max(peaks.anon, anon);
    }
  };
  const timer = setInterval(sample, 50);
  peaks.stop = () => {
    clearInterval(timer);
    sample();
  };
  return peaks;
}

/** Chromium over --remote-debugging-pipe: send(method, params, session). */
function devtools() {
  const profile = mkdtempSync(join(tmpdir(), "fairdeal-page-"));
  const child = spawn(executable, [...flags, `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank"],
    { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
  const pending = new Map();
  const listeners = [];
  let id = 0;
  let buffer = "";
  child.stdio[4].on("data", (chunk) => {
    buffer += chunk.toString();
    for (let end; (end = buffer.indexOf("\0")) >= 0;) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined && pending.has(message.id)) {
        const [resolve, reject] = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`));
        else resolve(message.result);
      } else if (message.method) {
        for (const listener of listeners) listener(message);
      }
    }
  });
  const send = (method, params = {}, sessionId = undefined) => new Promise((resolve, reject) => {
    id += 1;
    pending.set(id, [resolve, reject]);
    child.stdio[3].write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const close = async () => {
    await Promise.race([send("Browser.close").catch(() => {}), sleep(2000)]);
    child.kill();
    await exited;
    // Chromium's helpers can still write into the profile for a moment.
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        rmSync(profile, { recursive: true, force: true });
        break;
      } catch {
        await sleep(250);
      }
    }
  };
  return { send, on: (listener) => listeners.push(listener), close };
}

async function measureOverPipe() {
  const chromium = devtools();
  const workers = new Set(); // sessions of the page's workers
  chromium.on((message) => {
    if (message.method === "Target.attachedToTarget" && message.params.targetInfo.type.includes("worker")) {
      workers.add(message.params.sessionId);
    } else if (message.method === "Target.detachedFromTarget") {
      workers.delete(message.params.sessionId);
    }
  });
  const results = [];
  for (let run = 0; run < runs; run++) {
    const { browserContextId } = await chromium.send("Target.createBrowserContext");
    const { targetId } = await chromium.send("Target.createTarget", { url: "about:blank", browserContextId });
    const { sessionId } = await chromium.send("Target.attachToTarget", { targetId, flatten: true });
    // The worker's session, for its heap only (no domain is enabled in it).
    await chromium.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId);
    const evaluate = async (expression) => {
      const answer = await chromium.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId);
      return answer.result ? answer.result.value : undefined;
    };
    const heaps = { page: 0, worker: 0 };
    const heapTimer = setInterval(async () => {
      try {
        heaps.page = Math.max(heaps.page, (await chromium.send("Runtime.getHeapUsage", {}, sessionId)).usedSize);
        for (const worker of workers) {
          heaps.worker = Math.max(heaps.worker, (await chromium.send("Runtime.getHeapUsage", {}, worker)).usedSize);
        }
      } catch {
        // The worker ended.
      }
    }, 200);
    const peaks = sampler();
    const started = performance.now();
    await chromium.send("Page.navigate", { url: `${base}/verify?pair=${pair}` }, sessionId);
    let verdict = null;
    while (performance.now() - started < 600_000) {
      verdict = await evaluate("document.querySelector('#lookup-result > [data-verdict]')?.dataset.verdict ?? null").catch(() => null);
      if (verdict) break;
      await sleep(50);
    }
    const seconds = (performance.now() - started) / 1000;
    peaks.stop();
    clearInterval(heapTimer);
    heaps.page = Math.max(heaps.page, (await chromium.send("Runtime.getHeapUsage", {}, sessionId)).usedSize);
    const summary = await evaluate("document.querySelector('[data-summary]')?.textContent ?? null");
    const verdictText = await evaluate("document.querySelector('#lookup-result > [data-verdict]')?.textContent ?? null");
    const errors = verdict ? [] : ["no verdict in 600 s"];
    results.push({ run: run + 1, seconds: Number(seconds.toFixed(2)), verdict, summary,
      peak_renderer_private_mb: mb(peaks.anon), peak_renderer_rss_mb: mb(peaks.rss),
      peak_page_js_heap_mb: mb(heaps.page), peak_worker_js_heap_mb: mb(heaps.worker), errors });
    if (verdict !== expect) {
      console.error(`run ${run + 1}: the verdict is ${verdict}, expected ${expect}: ${verdictText}`);
      process.exitCode = 1;
    }
    await chromium.send("Target.disposeBrowserContext", { browserContextId });
    await sleep(500);
  }
  await chromium.close();
  return results;
}

async function measureWithPlaywright() {
  const require = createRequire(new URL("../../web/package.json", import.meta.url));
  const { chromium } = require("playwright-core");
  const browser = await chromium.launch({ executablePath: executable, args: flags });
  const results = [];
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    const peaks = sampler();
    const started = performance.now();
    await page.goto(`${base}/verify?pair=${pair}`);
    await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 600_000 });
    const seconds = (performance.now() - started) / 1000;
    peaks.stop();
    const verdict = await page.getAttribute("#lookup-result > [data-verdict]", "data-verdict");
    const summary = await page.textContent("[data-summary]").catch(() => null);
    const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
    results.push({ run: run + 1, seconds: Number(seconds.toFixed(2)), verdict, summary,
      peak_renderer_private_mb: mb(peaks.anon), peak_renderer_rss_mb: mb(peaks.rss), page_js_heap_mb: mb(heap), errors });
    if (verdict !== expect) {
      console.error(`run ${run + 1}: the verdict is ${verdict}, expected ${expect}: ${await page.textContent("#lookup-result > [data-verdict]")}`);
      process.exitCode = 1;
    }
    await context.close();
  }
  await browser.close();
  return results;
}

const results = playwright ? await measureWithPlaywright() : await measureOverPipe();
const driver = playwright ? "playwright" : "devtools pipe";
console.log(JSON.stringify({ pair, driver, runs: results }));
const range = (key, unit) => {
  const values = results.map((r) => r[key]).filter((v) => typeof v === "number");
  return values.length ? `${Math.min(...values)}–${Math.max(...values)}${unit}` : "–";
};
console.log(`${driver}: to the verdict ${range("seconds", " s")}, renderer private ${range("peak_renderer_private_mb", " MB")}, `
  + `renderer RSS ${range("peak_renderer_rss_mb", " MB")}, page JS heap ${range(playwright ? "page_js_heap_mb" : "peak_page_js_heap_mb", " MB")}`
  + `${playwright ? "" : `, worker JS heap ${range("peak_worker_js_heap_mb", " MB")}`}`);
