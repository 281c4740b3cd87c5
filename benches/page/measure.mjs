// Opens /verify?pair=ID in headless Chromium (Debian's, driven by
// playwright-core from web/node_modules) and measures the time from the
// navigation to the pair's verdict, and the tab's memory: the peak resident
// memory of its renderer process (which runs the page's worker too), all of
// it and its private part (RssAnon: without the shared libraries' pages),
// sampled every 50 ms, and the page's JS heap at the end. Prints one JSON
// line. Optionally first alters nothing: the verdict must be PASS unless
// `--expect fail`.
//
//   node benches/page/measure.mjs BASE PAIR [--runs N] [--expect pass|fail]
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../web/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const [base, pair, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : fallback;
};
const runs = Number(option("--runs", "3"));
const expect = option("--expect", "pass");

/** Resident memory of every Chromium renderer process, by pid: { rss, anon } in bytes (anon: its private anonymous pages, what it alone holds). */
function renderers() {
  const out = new Map();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes("--type=renderer")) continue;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      const anon = /RssAnon:\s+(\d+) kB/.exec(status);
      if (rss) out.set(pid, { rss: Number(rss[1]) * 1024, anon: anon ? Number(anon[1]) * 1024 : 0 });
    } catch {
      // The process ended.
    }
  }
  return out;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const results = [];
for (let run = 0; run < runs; run++) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  let peak = 0;
  let peakAnon = 0;
  const sample = () => {
    for (const { rss, anon } of renderers().values()) {
      peak = Math.max(peak, rss);
      peakAnon = Math.max(peakAnon, anon);
    }
  };
  const sampler = setInterval(sample, 50);
  const started = performance.now();
  await page.goto(`${base}/verify?pair=${pair}`);
  await page.waitForSelector("#lookup-result > [data-verdict]", { timeout: 600_000 });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  sample();
  const verdict = await page.getAttribute("#lookup-result > [data-verdict]", "data-verdict");
  const summary = await page.textContent("[data-summary]").catch(() => null);
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
  results.push({ run: run + 1, seconds: Number(seconds.toFixed(2)), verdict, summary, peak_renderer_rss_mb: Math.round(peak / 2 ** 20),
    peak_renderer_private_mb: Math.round(peakAnon / 2 ** 20),
    page_js_heap_mb: heap === null ? null : Math.round(heap / 2 ** 20), errors });
  if (verdict !== expect) {
    console.error(`run ${run + 1}: the verdict is ${verdict}, expected ${expect}: ${await page.textContent("#lookup-result > [data-verdict]")}`);
    process.exitCode = 1;
  }
  await context.close();
}
await browser.close();
console.log(JSON.stringify({ pair, runs: results }));
