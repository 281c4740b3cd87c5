// ---- Wiring -----------------------------------------------------------------

import { checkDraw, drawField, loadDraw, readDrawFile, renderDrawEntry } from "./draw.js";
import { forgetWitnessPolicy, showWitnessPolicy, submitWitnessPolicy } from "./log.js";
import { lookUp, lookUpAgain } from "./lookup.js";
import { showMonitors, submitMonitors } from "./monitors.js";
import { newClientSeed, recompute, showGameFields } from "./paste.js";
import { makeContribution } from "./tables.js";
import { onServer, released, service, useService } from "./views.js";

document.getElementById("game").addEventListener("change", showGameFields);
document.getElementById("paste-form").addEventListener("submit", recompute);
document.getElementById("new-seed").addEventListener("click", newClientSeed);
document.getElementById("make-contribution").addEventListener("click", makeContribution);
drawField("draw-lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const given = pastedLink(drawField("draw-id").value);
  const id = given.draw || given.id;
  if (!id) return;
  if (onServer) showInAddress({ draw: id });
  loadDraw(id);
});
drawField("draw-form").addEventListener("submit", (event) => {
  event.preventDefault();
  checkDraw({ byHand: true });
});
drawField("draw-file").addEventListener("change", readDrawFile);
drawField("draw-entry").addEventListener("input", renderDrawEntry);
document.getElementById("lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const given = pastedLink(document.getElementById("lookup-id").value);
  if (given.draw) {
    drawField("draw-id").value = given.draw;
    drawField("draw-section").scrollIntoView();
    if (onServer) showInAddress({ draw: given.draw });
    loadDraw(given.draw);
    return;
  }
  const [kind, id] = given.round ? ["round", given.round] : given.pair ? ["pair", given.pair] : [null, given.id];
  if (!id) return;
  // A round's link names its log entry (`log=INDEX`): read from the log itself, as when the link is opened.
  const logIndex = kind === "round" && /^[0-9]{1,15}$/.test(given.log || "") ? Number(given.log) : null;
  if (onServer) showInAddress(kind ? { [kind]: id, ...(logIndex === null ? {} : { log: String(logIndex) }) } : { id });
  lookUp(id, kind, { logIndex });
});
document.getElementById("witness-form").addEventListener("submit", submitWitnessPolicy);
document.getElementById("witness-forget").addEventListener("click", forgetWitnessPolicy);
document.getElementById("monitor-form").addEventListener("submit", submitMonitors);
showGameFields();
showWitnessPolicy();
showMonitors();
if (released) {
  // The released file: the service comes from the player (or a link's
  // proposal, shown in the field); the log key only from the player's pins.
  document.getElementById("service-section").hidden = false;
  const proposed = new URLSearchParams(location.search).get("service");
  if (proposed) chooseService(proposed);
  document.getElementById("service-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (chooseService(document.getElementById("service-address").value)) lookUpAgain();
  });
}
if (!onServer) {
  document.getElementById("lookup-offline").hidden = false;
  for (const node of document.querySelectorAll("#lookup-form input, #lookup-form button")) node.disabled = true;
  drawField("draw-offline").hidden = false;
  for (const node of document.querySelectorAll("#draw-lookup-form input, #draw-lookup-form button")) node.disabled = true;
  drawField("draw-values").open = true;
} else if (new URLSearchParams(location.search).has("draw")) {
  const id = new URLSearchParams(location.search).get("draw");
  drawField("draw-id").value = id;
  drawField("draw-section").scrollIntoView();
  loadDraw(id);
} else {
  const params = new URLSearchParams(location.search);
  const [kind, id] = params.has("round") ? ["round", params.get("round")]
    : params.has("pair") ? ["pair", params.get("pair")]
    : params.has("id") ? [null, params.get("id")] : [null, null];
  // A round's link from the service (`verify_url`) names its log entry: `log=INDEX`.
  const logText = (params.get("log") || "").trim();
  const logIndex = kind === "round" && /^[0-9]{1,15}$/.test(logText) ? Number(logText) : null;
  if (id) {
    document.getElementById("lookup-id").value = id;
    lookUp(id, kind, { logIndex, badLog: params.has("log") && logIndex === null ? logText : null });
  }
}
document.documentElement.dataset.ready = "true";

/**
 * What a player typed or pasted in a lookup box: an id (`{ id }`), or a
 * verification link (`…/verify?round=ID&log=INDEX`, `?pair=`, `?draw=`,
 * `?id=`) read as the page reads its own address. Only the parameters are
 * taken: a link never chooses the service (the released file's service is
 * the player's, and a link's `service=` only proposes one).
 */
function pastedLink(text) {
  const trimmed = String(text).trim();
  if (!/[?&](round|pair|draw|id)=/.test(trimmed)) return { id: trimmed };
  let params;
  try {
    params = new URL(trimmed, "https://link.invalid/").searchParams;
  } catch {
    return { id: trimmed };
  }
  const value = (name) => (params.get(name) || "").trim() || null;
  return { round: value("round"), pair: value("pair"), draw: value("draw"), id: value("id"), log: value("log") };
}

/** The record looked up, in the address bar (and, in the released file, the service read). */
function showInAddress(params) {
  const query = new URLSearchParams(released ? { service, ...params } : params);
  try {
    history.replaceState(null, "", `?${query}`);
  } catch {
    // A page opened from a file may not change its address: the lookup goes on.
  }
}

/** Reads records from `address` from now on; false (the rule shown) when it is not one. */
function chooseService(address) {
  const problem = document.getElementById("service-error");
  const field = document.getElementById("service-address");
  field.value = address;
  try {
    const chosen = useService(address);
    problem.hidden = true;
    const shown = document.getElementById("service-current");
    shown.dataset.service = chosen;
    shown.textContent = `Reading records from ${chosen}.`;
    for (const id of ["lookup-offline", "draw-offline"]) document.getElementById(id).hidden = true;
    for (const node of document.querySelectorAll("#lookup-form input, #lookup-form button, #draw-lookup-form input, #draw-lookup-form button")) {
      node.disabled = false;
    }
    return true;
  } catch (error) {
    problem.hidden = false;
    problem.textContent = error.message;
    return false;
  }
}
