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
  const id = drawField("draw-id").value.trim();
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
  const id = document.getElementById("lookup-id").value.trim();
  if (!id) return;
  if (onServer) showInAddress({ id });
  lookUp(id, null);
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
