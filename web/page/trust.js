// What the player trusts, kept by the player's browser and never taken from
// a link or from the operator's word alone: the log's key, pinned on first
// use (as ssh's known_hosts), and the witnesses a link proposes, which the
// player must accept before they count (docs/THREAT-MODEL.md).

// ---- Fingerprints --------------------------------------------------------------

import { bytesToHex } from "../fairdeal-v1.mjs";
import { shownLabel } from "../seed-display.mjs";
import { witnessKeysFromParams } from "../witness.mjs";
import { el } from "./views.js";

/**
 * A key's short fingerprint: the first 8 bytes of SHA-256 of its verifier
 * key text, as four groups of hex. Two keys of one name show different
 * fingerprints; a player compares it with the one the witness or the log
 * publishes.
 */
export async function keyFingerprint(vkey) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(String(vkey))));
  const hex = bytesToHex(digest.slice(0, 8));
  return hex.match(/.{4}/g).join(":");
}

/** A name with its fingerprint, as an element: `name (ab12:cd34:…)`; a character outside printable ASCII is marked. */
export function keyEl(name, fingerprint, attrs = {}) {
  const shown = isPlainName(name) ? el("span", { class: "mono", text: name }) : el("span", { class: "mono" }, shownLabel(name));
  return el("span", { class: "key-name", ...attrs }, shown, " ", el("span", { class: "fingerprint mono", text: `(${fingerprint})` }));
}

/** "ONE (fingerprint), TWO (fingerprint)": keys (`{ name, vkey }`), told apart by key; `attrs(key)` for each. */
export async function keyListEl(keys, attrs = () => ({})) {
  const parts = [];
  for (const [i, key] of keys.entries()) parts.push(i ? ", " : "", keyEl(key.name, await keyFingerprint(key.vkey), attrs(key)));
  return parts;
}

/** Whether a key's name is printable ASCII only (anything else can imitate another name). */
function isPlainName(name) {
  return /^[\x21-\x7e]+$/.test(name);
}

// ---- The log's key, pinned on first use -----------------------------------------------

/**
 * Where this browser keeps the pinned log keys: by service address, and by
 * log name. (Storage is the page's origin's: the served page pins the
 * service it came from; a copy opened elsewhere keeps its own.)
 */
const LOG_PINS_KEY = "fairdeal-log-pins";

/** The pins kept in this browser: `{ services: { [address]: pin }, logs: { [name]: pin } }`. */
function readLogPins() {
  try {
    const kept = JSON.parse(localStorage.getItem(LOG_PINS_KEY) || "null");
    // A value this page did not write is replaced, not trusted.
    const isMap = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);
    if (isMap(kept) && isMap(kept.services) && isMap(kept.logs)) {
      return { pins: kept, storage: true };
    }
    return { pins: { services: {}, logs: {} }, storage: true };
  } catch (error) {
    // Not JSON: replaced. No storage at all (a file:// copy, a private window): nothing pinned.
    return { pins: { services: {}, logs: {} }, storage: error instanceof SyntaxError };
  }
}

function writeLogPins(pins) {
  try {
    localStorage.setItem(LOG_PINS_KEY, JSON.stringify(pins));
    return true;
  } catch {
    return false;
  }
}

/** A pin as kept: `{ vkey, name, since }`, or null when the value is not one this page wrote. */
function validPin(pin) {
  return pin && typeof pin.vkey === "string" && typeof pin.name === "string" && typeof pin.since === "string" ? pin : null;
}

/**
 * Holds the log key the service serves (`served`) against the pins of this
 * browser. The service is `service` (the address the page reads records
 * from). Returns `{ vkey, state, pinned, served }`:
 *
 *   state "new":      nothing pinned for this service or this log's name:
 *                     the served key is pinned now, and used;
 *   state "same":     the served key is the one pinned: used;
 *   state "changed":  another key is pinned for this service, or for this
 *                     log's name: the PINNED key is used, so no signature of
 *                     the new key passes until the player accepts it;
 *   state "unpinned": the browser keeps nothing (no storage): the served
 *                     key is used for this visit, and the page says so;
 *   state "untrusted": without `firstUse` (the released file, which any
 *                     link may point at any service), nothing pinned: no
 *                     key is used (every signature fails) until the player
 *                     chooses to trust the served one.
 */
export function pinLogKey(service, served, { firstUse = true } = {}) {
  const name = served.split("+")[0];
  const { pins, storage } = readLogPins();
  if (!firstUse) {
    const byService = validPin(pins.services[service]);
    const byName = validPin(pins.logs[name]);
    const pinned = byService && byService.vkey !== served ? byService
      : byName && byName.vkey !== served ? byName : null;
    if (pinned) return { vkey: pinned.vkey, state: "changed", pinned, served };
    if (byService || byName) return { vkey: served, state: "same", pinned: byService || byName, served };
    return { vkey: "", state: "untrusted", pinned: null, served };
  }
  if (!storage) return { vkey: served, state: "unpinned", pinned: null, served };
  const byService = validPin(pins.services[service]);
  const byName = validPin(pins.logs[name]);
  const pinned = byService && byService.vkey !== served ? byService
    : byName && byName.vkey !== served ? byName : null;
  if (pinned) return { vkey: pinned.vkey, state: "changed", pinned, served };
  if (byService && byName) return { vkey: served, state: "same", pinned: byService, served };
  const pin = { vkey: served, name, since: new Date().toISOString() };
  pins.services[service] = byService || pin;
  pins.logs[name] = byName || pin;
  const kept = writeLogPins(pins);
  return { vkey: served, state: kept ? (byService || byName ? "same" : "new") : "unpinned", pinned: kept ? pin : null, served };
}

/** Pins `served` for `service` (and its log's name) in place of what was pinned: the player's knowing choice. */
export function acceptLogKey(service, served) {
  const { pins } = readLogPins();
  const name = served.split("+")[0];
  const pin = { vkey: served, name, since: new Date().toISOString() };
  pins.services[service] = pin;
  pins.logs[name] = pin;
  return writeLogPins(pins);
}

/** The page's notice of the log key's pin, for the top of a lookup's result (null when nothing to say). */
export async function logPinNotice(pin, onAccept) {
  if (!pin || pin.state === "same") return null;
  if (pin.state === "new") {
    return el("p", { class: "note", "data-log-pin": "new" },
      "This browser now remembers this log's key, ", keyEl(pin.served.split("+")[0], await keyFingerprint(pin.served)),
      ". If this service later shows another log key, this page will warn you and refuse the new key's signatures "
      + "until you accept it.");
  }
  if (pin.state === "untrusted") {
    const button = el("button", { type: "button", class: "secondary", "data-log-pin-accept": "", text: "Trust this log key" });
    button.addEventListener("click", onAccept);
    return el("div", { class: "error", role: "alert", "data-log-pin": "untrusted" },
      el("p", {}, el("strong", { text: "This log's key is not one you trust. " }),
        "The service shows ", keyEl(pin.served.split("+")[0], await keyFingerprint(pin.served)), ". "
        + "This verifier takes a log's key only from you, never from a link or from the service itself: a link can "
        + "name any service, including one that shows a history of its own. Until you trust this key, every check "
        + "that needs the log FAILS."),
      el("p", {}, "Trust it only when its fingerprint matches one published where the operator cannot change it "
        + "(the game's own documentation, a monitor or a witness you trust)."),
      button);
  }
  if (pin.state === "unpinned") {
    return el("p", { class: "note", "data-log-pin": "unpinned" },
      "This browser keeps nothing between visits (a private window, or storage refused), so the log's key could not be "
      + "pinned: a change of key at a later visit cannot be noticed.");
  }
  const button = el("button", { type: "button", class: "secondary", "data-log-pin-accept": "", text: "Trust the new log key" });
  button.addEventListener("click", onAccept);
  return el("div", { class: "error", role: "alert", "data-log-pin": "changed" },
    el("p", {}, el("strong", { text: "The transparency log's key has changed. " }),
      "This browser pinned ", keyEl(pin.pinned.name, await keyFingerprint(pin.pinned.vkey)), ` on ${pin.pinned.since}; `
      + "the service now shows ", keyEl(pin.served.split("+")[0], await keyFingerprint(pin.served)), ". "
      + "A new log key is a new log: everything the old log recorded is no longer what this service proves, and the "
      + "operator could be showing you a history no one else sees. Every check below uses the key you pinned, so "
      + "signatures by the new key FAIL."),
    el("p", {}, "An honest operator announces a new log key in advance (and its witnesses and monitors follow it). "
      + "Accept the new key only when you have checked its fingerprint with a source other than this service. "),
    button);
}

// ---- Witnesses a link proposes ---------------------------------------------------

/**
 * The witness policy a link proposes (`witness=<vkey>`, repeatable, and
 * `quorum=<k>`), or null. A proposal is shown beside the policy kept in
 * this browser, and counts only once the player accepts it.
 */
export function proposedWitnessPolicy() {
  const params = new URLSearchParams(location.search);
  if (!params.has("witness")) return null;
  const quorum = (params.get("quorum") || "").trim();
  return { vkeys: witnessKeysFromParams(params), quorum: quorum || null };
}

/**
 * How a proposal differs from the kept policy: `{ same, impostors }`
 * (impostors: the proposed witnesses that take the name of a kept witness
 * with another key; a cosignature names its witness, not its key, so such
 * a witness could pose as one the player trusts).
 */
export function compareWitnessPolicies(kept, proposed) {
  const keys = (policy) => policy ? policy.witnesses.map((w) => w.vkey).sort().join("\n") : "";
  const same = Boolean(kept) && keys(kept) === keys(proposed) && kept.quorum === proposed.quorum;
  // A name outside printable ASCII (an invisible character, a letter of another script) can pass for a kept one.
  const folded = (name) => name.normalize("NFKC").toLowerCase().replace(/[^\x21-\x7e]/gu, "");
  const impostors = proposed.witnesses.filter((w) => !isPlainName(w.name)
    || (kept && kept.witnesses.some((k) => k.vkey !== w.vkey && (k.name === w.name || folded(k.name) === folded(w.name)))));
  return { same, impostors };
}
