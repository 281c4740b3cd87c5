// Monitors the player keeps, as they keep witnesses: a monitor reads the
// whole log and signs a statement of what it found (`fairdeal monitor
// --statement-key`; docs/TRANSPARENCY.md, "Monitor statements"). The page
// fails a record a kept monitor's statement names, and says which kept
// monitors read the log past it and found nothing there: what the page
// cannot see alone (a nonce dealt twice) shows through them.

import { bytesToHex } from "../fairdeal-v1.mjs";
import { shownLabel } from "../seed-display.mjs";
import { parseStatement, parseVkey, verifyConsistency, verifySignedNote } from "../tlog.mjs";
import { unansweredCheckEl } from "./log.js";
import { lookUpAgain } from "./lookup.js";
import { keyEl, keyFingerprint, keyListEl } from "./trust.js";
import { checkEl, el, getJson, onServer } from "./views.js";

/** Where this browser keeps the player's monitors (their verifier keys). */
const MONITOR_POLICY_KEY = "fairdeal-monitors";

/** Finding kinds that say the log itself is unsound: every record in it is then in doubt. */
const UNSOUND_KINDS = new Set(["signature", "key", "tree", "tile", "fork"]);

/**
 * Finding kinds about time, not about what was dealt (a commitment not
 * revealed within the monitor's --reveal-within): a warning on the records
 * they name, never a failure of correct cards.
 */
const TIMELY_KINDS = new Set(["stale_commitment"]);

/** A monitor's check that is neither a PASS nor a FAIL: the verdict says CHECKED, WITH A WARNING. */
function warningCheckEl(name, detail) {
  return el("span", { class: "check", "data-check": name, "data-result": "warning", title: detail }, `\u26a0 WARNING: ${name}`);
}

/**
 * A monitor's verifier key, checked: `{ vkey, name }` (a signed-note
 * Ed25519 key whose key id matches its name and key), or throws naming the
 * rule.
 */
export async function parseMonitorKey(text) {
  const vkey = String(text).trim();
  let parsed;
  try {
    parsed = parseVkey(vkey);
  } catch (error) {
    throw new Error(`${vkey.slice(0, 60)}: ${error.message} (a monitor key is <name>+<key id>+<base64 key>)`);
  }
  const material = new Uint8Array([...new TextEncoder().encode(`${parsed.name}\n`), 1, ...parsed.publicKey]);
  const id = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", material)).slice(0, 4));
  if (id !== parsed.id) throw new Error(`${vkey.slice(0, 60)}: its key id is ${parsed.id}, but its name and key give ${id}`);
  return { vkey, name: parsed.name };
}

/** The monitors kept in this browser (their verifier keys). */
function keptMonitorKeys() {
  try {
    const kept = JSON.parse(localStorage.getItem(MONITOR_POLICY_KEY) || "null");
    if (Array.isArray(kept) && kept.every((v) => typeof v === "string")) return kept;
  } catch {
    // No storage, or not JSON: none kept.
  }
  return [];
}

function keepMonitorKeys(vkeys) {
  try {
    if (vkeys.length) localStorage.setItem(MONITOR_POLICY_KEY, JSON.stringify(vkeys));
    else localStorage.removeItem(MONITOR_POLICY_KEY);
  } catch {
    // Storage refused: they last this visit.
  }
}

let monitorsNow = null;

/** The kept monitors, checked: `[{ vkey, name }]` (a key that no longer reads is dropped). */
async function keptMonitors() {
  if (monitorsNow === null) {
    monitorsNow = (async () => {
      const out = [];
      for (const vkey of keptMonitorKeys()) {
        try {
          out.push(await parseMonitorKey(vkey));
        } catch {
          // Not a key this page wrote: ignored.
        }
      }
      return out;
    })();
  }
  return monitorsNow;
}

/** Shows the kept monitors in their section and fills its form. */
export async function showMonitors() {
  const monitors = await keptMonitors();
  const current = document.getElementById("monitor-current");
  document.getElementById("monitor-keys").value = monitors.map((m) => m.vkey).join("\n");
  current.dataset.monitors = monitors.map((m) => m.name).join(" ");
  if (!monitors.length) {
    current.textContent = "You keep no monitor: the page checks each record on its own, and cannot see what only the "
      + "whole log shows (a nonce dealt twice).";
    return;
  }
  current.replaceChildren("This page shows what these monitors signed about the log: ", ...await keyListEl(monitors), ".");
}

/** The monitor form: keep the keys given (each checked), or forget them. */
export async function submitMonitors(event) {
  event.preventDefault();
  const problem = document.getElementById("monitor-error");
  const texts = document.getElementById("monitor-keys").value.split(/\s+/).filter(Boolean);
  const monitors = [];
  try {
    for (const text of texts) {
      const monitor = await parseMonitorKey(text);
      if (monitors.some((m) => m.name === monitor.name)) throw new Error(`two keys are named ${monitor.name}: give one key per monitor`);
      monitors.push(monitor);
    }
  } catch (error) {
    problem.hidden = false;
    problem.textContent = `These monitor keys are not used: ${error.message || error}`;
    return;
  }
  problem.hidden = true;
  keepMonitorKeys(monitors.map((m) => m.vkey));
  monitorsNow = Promise.resolve(monitors);
  monitorViewNow = null;
  await showMonitors();
  lookUpAgain();
}

/**
 * What each kept monitor signed about this log, read once a lookup:
 * `[{ monitor, state, statement, reason }]`; state "ok" (a statement by its
 * key about this log, of a checkpoint one history with `checkpoint`, the
 * one the page verified), "none" (the service serves none by it), "bad"
 * (one that does not read), "fork" (about another history).
 */
let monitorViewNow = null;

/** Forgets the monitors' statements read for the last lookup: the next one reads them again. */
export function forgetMonitorView() {
  monitorViewNow = null;
}

async function readMonitorView(checkpoint) {
  const monitors = await keptMonitors();
  if (!monitors.length) return [];
  let served = [];
  try {
    const { status, body } = await getJson("/v1/log/monitor-statements");
    if (status === 200 && Array.isArray(body.statements)) served = body.statements;
  } catch {
    served = [];
  }
  const out = [];
  for (const monitor of monitors) {
    // Of every statement by its key, the latest: the largest checkpoint, then the latest time.
    let found = null;
    for (const item of served) {
      if (!item || typeof item.note !== "string" || item.note.length > (1 << 20)) continue;
      let statement;
      try {
        statement = parseStatement(await verifySignedNote(monitor.vkey, item.note, "the statement"));
      } catch {
        continue; // Another monitor's, or not a statement: not this one's.
      }
      if (!found || statement.size > found.size || (statement.size === found.size && statement.time > found.time)) found = statement;
    }
    if (!found) {
      out.push({ monitor, state: "none", reason: "this service serves no statement signed by its key" });
      continue;
    }
    if (checkpoint && found.origin !== checkpoint.origin) {
      out.push({ monitor, state: "bad", statement: found, reason: `its statement is about another log (${found.origin})` });
      continue;
    }
    out.push({ monitor, statement: found, ...await sameHistory(found, checkpoint) });
  }
  return out;
}

/** Whether a statement's checkpoint and the page's are one history: `{ state, reason }`. */
async function sameHistory(statement, checkpoint) {
  if (!checkpoint) return { state: "ok", reason: "" };
  if (statement.size === checkpoint.size) {
    return statement.root === checkpoint.root ? { state: "ok", reason: "" }
      : { state: "fork", reason: `it checked ${statement.size} entries with root ${statement.root}, but the log shows this page root ${checkpoint.root}` };
  }
  const [small, large] = statement.size < checkpoint.size ? [statement, checkpoint] : [checkpoint, statement];
  if (small.size === 0) return { state: "ok", reason: "" };
  try {
    const { status, body } = await getJson(`/v1/log/consistency?old=${small.size}&new=${large.size}`);
    if (status === 200 && Array.isArray(body.proof)
      && await verifyConsistency(small.size, small.root, large.size, large.root, body.proof)) {
      return { state: "ok", reason: "" };
    }
    if (status >= 500 || status === 429 || (status === 422 && large === statement)) {
      return { state: "unproven", reason: `the log did not give the proof that the ${small.size} entries and the ${large.size} are `
        + `one history (it answered ${status})` };
    }
  } catch {
    return { state: "unproven", reason: "the proof that its checkpoint and this page's are one history could not be read" };
  }
  return { state: "fork", reason: `the log cannot prove the ${small.size} entries it checked and the ${large.size} this page `
    + "sees are one history" };
}

async function monitorView(checkpoint) {
  if (monitorViewNow === null) monitorViewNow = readMonitorView(checkpoint);
  return monitorViewNow;
}

/**
 * What the kept monitors say of one record: `indexes` (its entries' log
 * indexes) and `ids` (its round's and pair's ids, which a finding's detail
 * names). Nodes as logChecks gives them: a FAIL check for each monitor
 * whose statement names the record, or that found the log itself unsound,
 * or that checked another history; notes for the rest.
 */
export async function monitorChecks(checkpoint, indexes, ids) {
  if (!onServer) return [];
  const view = await monitorView(checkpoint);
  if (!view.length) {
    return [el("p", { class: "note", "data-no-monitor": "" }, "This page checked this record's own entries. What only the "
      + "whole log shows, such as the same nonce dealt twice, a monitor sees: keep one you trust (",
    el("a", { href: "#monitor-section", text: "Monitors you trust" }), ") and its findings show here.")];
  }
  const nodes = [];
  const known = indexes.filter((i) => Number.isSafeInteger(i));
  const last = known.length ? Math.max(...known) : -1;
  for (const { monitor, state, statement, reason } of view) {
    const name = `monitor ${monitor.name}`;
    if (state === "none" || state === "bad") {
      nodes.push(warningCheckEl(name, reason), el("p", { class: "warning", "data-monitor": monitor.name, "data-monitor-state": state },
        `The monitor you keep, `, keyEl(monitor.name, await keyFingerprint(monitor.vkey)),
        `, has no statement here: ${reason}. What only the whole log shows (a nonce dealt twice) is not checked for this `
        + "record. Ask the monitor for its latest statement."));
      continue;
    }
    const when = new Date(statement.time * 1000).toISOString();
    if (state === "unproven") {
      // Never a PASS on a statement not tied to this page's log: looked at again.
      nodes.push(unansweredCheckEl(name, "no proof"), el("p", { class: "note", "data-monitor": monitor.name,
        "data-monitor-state": "unproven" }, `The monitor ${monitor.name}'s statement cannot be tied to the log this page sees: `
        + `${reason}. The page looks again by itself.`));
      continue;
    }
    if (state === "fork") {
      const node = checkEl(name, false, reason);
      node.dataset.monitor = monitor.name;
      nodes.push(node, el("p", { class: "error", role: "alert", "data-monitor-fork": monitor.name },
        `The monitor ${monitor.name} checked another history of this log than the one shown to this page: ${reason}. `
        + "The operator is showing different histories (a forked log)."));
      continue;
    }
    const concerns = (f) => (f.index !== null && known.includes(f.index)) || ids.some((id) => id && f.detail.includes(id));
    const naming = statement.findings.filter((f) => concerns(f) && !TIMELY_KINDS.has(f.kind));
    const late = statement.findings.filter((f) => concerns(f) && TIMELY_KINDS.has(f.kind));
    const unsound = statement.findings.filter((f) => UNSOUND_KINDS.has(f.kind));
    if (naming.length || unsound.length) {
      const named = naming.length ? naming : unsound;
      const node = checkEl(name, false, `${named.length} finding(s) on ${naming.length ? "this record" : "the log itself"}`);
      node.dataset.monitor = monitor.name;
      const list = el("ul", { class: "monitor-findings" });
      for (const f of named.slice(0, 20)) {
        list.append(el("li", { "data-finding": f.kind, "data-index": f.index === null ? "" : String(f.index) },
          el("strong", { text: f.kind }), f.index === null ? "" : ` at entry ${f.index}`, ": ", shownLabel(f.detail)));
      }
      nodes.push(node, el("div", { class: "error", role: "alert", "data-monitor-findings": monitor.name },
        el("p", { text: `The monitor ${monitor.name} read this log up to ${statement.size} entries (${when}) and signed `
          + `that it found ${naming.length ? "problems with this record" : "the log itself unsound"}:` }), list));
      continue;
    }
    if (last >= statement.size) {
      nodes.push(warningCheckEl(name, `read the log up to ${statement.size} entries, not yet entry ${last}`),
        el("p", { class: "warning", "data-monitor": monitor.name, "data-monitor-state": "behind" },
          `The monitor ${monitor.name} has read this log up to ${statement.size} entries (${when}), not yet as far as this `
          + `record (entry ${last}): it has not spoken about all of it yet. Check again after the monitor's next run.`));
      continue;
    }
    if (statement.found > statement.findings.length) {
      // What it did not list could be about this record.
      nodes.push(warningCheckEl(name, `found ${statement.found} problems, listed ${statement.findings.length}`),
        el("p", { class: "warning", "data-monitor": monitor.name, "data-monitor-state": "unlisted" },
          `The monitor ${monitor.name} read the log up to ${statement.size} entries (${when}) and found ${statement.found} `
          + `problems, but its statement lists only ${statement.findings.length}: none of those is about this record, but `
          + "one it did not list could be. Ask the monitor for the rest."));
      continue;
    }
    if (late.length) {
      nodes.push(warningCheckEl(name, late.map((f) => f.detail).join("; ")),
        el("p", { class: "warning", "data-monitor": monitor.name, "data-monitor-state": "late" },
          `The monitor ${monitor.name} signed that this record's pair kept its commitment unrevealed longer than it allows `
          + `(${late.map((f) => f.kind).join(", ")}): a delay, not a wrong card.`));
      continue;
    }
    const node = checkEl(name, true, `read the log up to ${statement.size} entries (${when}): nothing found on this record`);
    node.dataset.monitor = monitor.name;
    nodes.push(node, el("p", { class: "note", "data-monitor": monitor.name, "data-monitor-state": "clear" },
      `The monitor ${monitor.name} read the whole log up to ${statement.size} entries (${when}) and signed that it found `
      + `nothing on this record${statement.found ? ` (${statement.found} problem${statement.found === 1 ? "" : "s"} elsewhere in the log)` : ""}: `
      + "no nonce of it dealt twice, no second commitment or client seed."));
  }
  return nodes;
}
