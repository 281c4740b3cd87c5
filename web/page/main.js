// ---- Wiring -----------------------------------------------------------------

document.getElementById("game").addEventListener("change", showGameFields);
document.getElementById("paste-form").addEventListener("submit", recompute);
document.getElementById("new-seed").addEventListener("click", newClientSeed);
document.getElementById("make-contribution").addEventListener("click", makeContribution);
drawField("draw-lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = drawField("draw-id").value.trim();
  if (!id) return;
  if (onServer) history.replaceState(null, "", `?draw=${encodeURIComponent(id)}`);
  loadDraw(id);
});
drawField("draw-form").addEventListener("submit", (event) => {
  event.preventDefault();
  checkDraw();
});
drawField("draw-file").addEventListener("change", readDrawFile);
drawField("draw-entry").addEventListener("input", renderDrawEntry);
document.getElementById("lookup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = document.getElementById("lookup-id").value.trim();
  if (!id) return;
  if (onServer) history.replaceState(null, "", `?id=${encodeURIComponent(id)}`);
  lookUp(id, null);
});
document.getElementById("witness-form").addEventListener("submit", submitWitnessPolicy);
document.getElementById("witness-forget").addEventListener("click", forgetWitnessPolicy);
document.getElementById("monitor-form").addEventListener("submit", submitMonitors);
showGameFields();
showWitnessPolicy();
showMonitors();
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
