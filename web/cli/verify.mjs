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

/** Where the page keeps what the player trusts (log.js, monitors.js). */
const WITNESS_POLICY_KEY = "fairdeal-witness-policy";
const MONITOR_POLICY_KEY = "fairdeal-monitors";

/**
 * Checks record `id` (`kind`: round, pair or draw) of `service` as the
 * released page does, trusting only `logKeys` (verifier keys, `name+id+key`)
 * and the pins in `pins` (the page's own format: `{ services, logs }`). A
 * draw is checked with `list` (the bytes of the player's own copy of its
 * entrant list), as on the page. `witnesses` (their verifier keys) with
 * `quorum` (how many must cosign; all by default) and `monitors` (their
 * keys) are the page's "Witnesses you trust" and "Monitors you trust".
 * `state` is what the page keeps in the browser between visits (the log
 * checkpoint seen, when an entry was first seen waiting, the pins): an
 * object of strings, as returned by the last call; give it back to compare
 * this visit's log with the last one's. `wait` (ms): how long to let the
 * page look again by itself while entries await their checkpoint. Resolves
 * to `{ verdict, text, checks, state }`, `checks` each `{ name, result, text, detail }`
 * (detail: why it passed or failed, as the page's tooltip says it).
 */
export async function verify({ service, kind, id, logKeys = [], pins = null, list = null, listName = "entrants.txt",
  witnesses = [], quorum = null, monitors = [], state = null, wait = 0 }) {
  if (used) throw new Error("one verification per process: the page's modules keep one visit's state");
  used = true;
  if (!KINDS.includes(kind)) throw new Error(`kind must be one of ${KINDS.join(", ")}, not ${JSON.stringify(kind)}`);
  if (typeof id !== "string" || !id.trim()) throw new Error("id must be a record's id");
  if (!Number.isFinite(wait) || wait < 0) throw new Error("wait must be a number of milliseconds from 0");
  const html = readFileSync(new URL("../verify.html", import.meta.url), "utf8")
    .replace("{{CSP}}", "").replace("{{STYLE}}", "").replace("{{SCRIPT}}", "");
  const { window, document, Node, HTMLElement } = parseHTML(html);
  const store = new Map();
  if (state !== null) {
    if (typeof state !== "object" || Array.isArray(state) || !Object.values(state).every((v) => typeof v === "string")) {
      throw new Error("state must be an object of strings, as the last verify returned it");
    }
    for (const [key, value] of Object.entries(state)) store.set(key, value);
  }
  if (pins) store.set("fairdeal-log-pins", JSON.stringify(pins));
  if (witnesses.length) {
    const { witnessPolicy } = await import("../witness.mjs");
    // The page would show a policy it cannot read and check without it: here it is the caller's mistake.
    await witnessPolicy(witnesses, quorum === null ? null : String(quorum)).catch((error) => {
      throw new Error(`witnesses: ${error.message || error}`);
    });
    store.set(WITNESS_POLICY_KEY, JSON.stringify({ vkeys: witnesses, quorum: quorum === null ? null : String(quorum) }));
  } else if (quorum !== null) {
    throw new Error("quorum is how many of the witnesses given must cosign: give witnesses too");
  }
  Object.assign(globalThis, {
    RELEASED: true,
    window,
    document,
    Node,
    HTMLElement,
    location: new URL("https://released-verifier.invalid/"),
    history: { replaceState() {} },
    localStorage: {
      getItem: (key) => store.get(key) ?? null,
      setItem: (key, value) => store.set(key, String(value)),
      removeItem: (key) => store.delete(key),
    },
    Worker: PageWorker,
  });
  if (monitors.length) {
    const { parseMonitorKey } = await import("../page/monitors.js");
    for (const vkey of monitors) {
      await parseMonitorKey(vkey).catch((error) => {
        throw new Error(`monitors: ${error.message || error}`);
      });
    }
    store.set(MONITOR_POLICY_KEY, JSON.stringify(monitors));
  }
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
  // Entries awaiting their checkpoint: the page looks again by itself, for at most `wait`.
  for (const until = Date.now() + wait; target.dataset.rechecking !== undefined && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const kept = Object.fromEntries(store);
  const shown = target.querySelector(":scope > [data-verdict]");
  const checks = [...target.querySelectorAll("[data-check]")].map((node) => ({
    name: node.dataset.check,
    result: node.dataset.result || null,
    text: squeeze(node.textContent),
    detail: squeeze(node.getAttribute("title")) || null,
  }));
  if (!shown) {
    return { verdict: "fail", text: squeeze(target.textContent) || "no verdict was drawn", checks, state: kept };
  }
  return { verdict: shown.dataset.verdict, text: squeeze(shown.textContent), checks, state: kept };
}

/** Whether a pair's check is still under way (no verdict drawn yet). */
function busy(target) {
  return target.querySelector(":scope > [data-verdict]") === null;
}

function squeeze(text) {
  return String(text || "").replace(/\s+/g, " ").trim();
}
