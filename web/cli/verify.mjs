// The released verifier's checks in Node: the page's own modules (the same
// files the page and the released single file are built from), run against
// a DOM of the page's own HTML (linkedom), so that what this answers is
// exactly the page's verdict, check for check. No key is trusted on first
// use: the caller names the log keys it trusts, as the player does in the
// released file (docs/RELEASES.md).
//
//   import { verify } from "fairdeal-verify";
//   const { verdict, text, checks } = await verify({
//     service: "https://fairdeal.example", kind: "round", id, logKeys: [vkey] });
//
// `verdict` is the page's: "pass", "warning", "fail" or "pending" (not yet
// verifiable: looked at again later). One verification per process: the
// page's modules hold their state (pins, the checkpoint seen) in module
// scope, as the page holds it for one visit.

import { readFileSync } from "node:fs";
import { Worker as ThreadWorker } from "node:worker_threads";
import { parseHTML } from "linkedom";

const KINDS = ["round", "pair", "draw"];
let used = false;

/** The page's Worker, on a Node thread (cli/thread.mjs). */
class PageWorker {
  constructor(url) {
    this.thread = new ThreadWorker(new URL("./thread.mjs", import.meta.url), { workerData: { url: String(url) } });
    this.thread.on("message", (data) => this.onmessage?.({ data }));
    this.thread.on("error", (error) => this.onerror?.({ message: error.message }));
  }

  postMessage(data) {
    this.thread.postMessage(data);
  }

  terminate() {
    this.thread.terminate();
  }
}

/**
 * Checks record `id` (`kind`: round, pair or draw) of `service` as the
 * released page does, trusting only `logKeys` (verifier keys, `name+id+key`)
 * and the pins in `pins` (the page's own format: `{ services, logs }`). A
 * draw is checked with `list` (the bytes of the player's own copy of its
 * entrant list), as on the page. Resolves to `{ verdict, text, checks }`,
 * `checks` each `{ name, result, text }`.
 */
export async function verify({ service, kind, id, logKeys = [], pins = null, list = null, listName = "entrants.txt" }) {
  if (used) throw new Error("one verification per process: the page's modules keep one visit's state");
  used = true;
  if (!KINDS.includes(kind)) throw new Error(`kind must be one of ${KINDS.join(", ")}, not ${JSON.stringify(kind)}`);
  if (typeof id !== "string" || !id.trim()) throw new Error("id must be a record's id");
  const html = readFileSync(new URL("../verify.html", import.meta.url), "utf8")
    .replace("{{CSP}}", "").replace("{{STYLE}}", "").replace("{{SCRIPT}}", "");
  const { window, document, Node, HTMLElement } = parseHTML(html);
  const kept = new Map();
  if (pins) kept.set("fairdeal-log-pins", JSON.stringify(pins));
  Object.assign(globalThis, {
    RELEASED: true,
    window,
    document,
    Node,
    HTMLElement,
    location: new URL("https://released-verifier.invalid/"),
    history: { replaceState() {} },
    localStorage: {
      getItem: (key) => kept.get(key) ?? null,
      setItem: (key, value) => kept.set(key, String(value)),
      removeItem: (key) => kept.delete(key),
    },
    Worker: PageWorker,
  });
  const views = await import("../page/views.js");
  views.useService(service);
  const trust = await import("../page/trust.js");
  for (const vkey of logKeys) trust.acceptLogKey(views.service, vkey);
  let target;
  if (kind === "draw") {
    const draw = await import("../page/draw.js");
    await draw.loadDraw(id);
    if (list) {
      draw.drawField("draw-file").files = [new File([list], listName)];
      await draw.readDrawFile();
    }
    target = document.getElementById("draw-result");
  } else {
    const lookup = await import("../page/lookup.js");
    await lookup.lookUp(id, kind);
    target = document.getElementById("lookup-result");
    // A pair is checked by the worker: wait for its verdict.
    for (let i = 0; i < 6000 && kind === "pair" && busy(target); i++) await new Promise((r) => setTimeout(r, 50));
  }
  const shown = target.querySelector(":scope > [data-verdict]");
  const checks = [...target.querySelectorAll("[data-check]")].map((node) => ({
    name: node.dataset.check,
    result: node.dataset.result || null,
    text: squeeze(node.textContent),
  }));
  if (!shown) {
    return { verdict: "fail", text: squeeze(target.textContent) || "no verdict was drawn", checks };
  }
  return { verdict: shown.dataset.verdict, text: squeeze(shown.textContent), checks };
}

/** Whether a pair's check is still under way (no verdict drawn yet). */
function busy(target) {
  return target.querySelector(":scope > [data-verdict]") === null;
}

function squeeze(text) {
  return String(text || "").replace(/\s+/g, " ").trim();
}
