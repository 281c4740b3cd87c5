// The verification page against two builds of the service (benches/page/verdict.sh):
// time from navigation to the settled verdict, old (A) and new (B) alternating,
// each visit in a fresh browser profile; medians and the ratio.
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";
const A = JSON.parse(readFileSync(process.env.PAGE_BENCH_A, "utf8"));
const B = JSON.parse(readFileSync(process.env.PAGE_BENCH_B, "utf8"));
const N = Number(process.env.N || 15);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
async function visit(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const t0 = performance.now();
  await page.goto(url);
  await page.waitForFunction(() => {
    const v = document.querySelector("#lookup-result > [data-verdict]");
    return v && !document.querySelector("#lookup-result").hasAttribute("data-rechecking") && v.dataset.verdict !== undefined;
  }, null, { timeout: 60_000 });
  const ms = performance.now() - t0;
  const verdict = await page.$eval("#lookup-result > [data-verdict]", (n) => n.dataset.verdict);
  await context.close();
  return { ms, verdict };
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
for (const kind of ["round", "pair"]) {
  const times = { A: [], B: [] };
  for (let i = 0; i < N; i++) {
    for (const [name, svc] of i % 2 ? [["B", B], ["A", A]] : [["A", A], ["B", B]]) {
      const { ms, verdict } = await visit(svc.base + svc[kind]);
      if (verdict !== "pass") throw new Error(`${name} ${kind}: ${verdict}`);
      times[name].push(ms);
    }
  }
  const [a, b] = [median(times.A), median(times.B)];
  console.log(`${kind}: old median ${a.toFixed(0)} ms, new median ${b.toFixed(0)} ms, new/old ${(b / a).toFixed(2)}x (N=${N} each, alternating)`);
}
await browser.close();
