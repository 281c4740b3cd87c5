// Verifying a draw (fairdeal-draw-v1) with the player's own copy of the list.

// ---- Verify a draw ---------------------------------------------------------

import { drawDifferences, drawEntry, outOfOrder, sha256Hex } from "../evidence.mjs";
import { verifyDraw } from "../fairdeal-draw.mjs";
import { renderShownParts, shownLabel, shownText } from "../seed-display.mjs";
import { INTEGRATION_WINDOW_MS, awaitingLog, logChecks, logPinNoticeEl, loggedIndex, resetWitnessView, unansweredCheckEl, untrustedLog } from "./log.js";
import { answeredAnother, awaitingVerdict, failedLog, verdictEl, withWarnings, wordVerdictEl } from "./lookup.js";
import { forgetMonitorView, monitorChecks } from "./monitors.js";
import { canonicalId, checkEl, el, fact, getJson, onServer, quoted, showError, shownFact } from "./views.js";

const DRAW_STATUS_WORDS = {
  awaiting_client_seed: "waiting for its client seed (the list and the server seed are committed)",
  ready: "ready to draw (the client seed is set; the server seed is still secret)",
  drawn: "drawn (the server seed is public)",
};

/** Winner rows drawn at most; the verdict and your entry's rank cover them all. */
const DRAW_ROWS_SHOWN = 1000;

/**
 * The loaded record (or null: values by hand), its entries in the log (or
 * null), what the last lookup showed instead of a draw (or null), the
 * chosen list file, the last check; counters of checks and lookups.
 */
const drawState = { record: null, evidence: null, unread: null, file: null, checked: null, run: 0, load: 0 };

/** How often, and how many times, a draw with entries awaiting their checkpoint is read again. */
const RECHECK_MS = 4000;
const rechecks = () => Math.ceil(INTEGRATION_WINDOW_MS / RECHECK_MS) + 2;
let recheckTimer = null;

export const drawField = (id) => document.getElementById(id);

function drawStatusText(status) {
  return DRAW_STATUS_WORDS[status] || status;
}

/** The draw's verdict: verdictEl's, with another word for "pending" when one check is left to do. */
function drawVerdictEl(result, text, word) {
  const node = verdictEl(result, text);
  if (word) node.firstChild.textContent = word;
  return node;
}

/** A check's badge: pass, fail, or pending (nothing to check yet). */
function drawCheckEl(name, status, detail) {
  const text = status === "pass" ? `✔ PASS: ${name}` : status === "fail" ? `✘ FAIL: ${name}` : `${name}: not checked yet`;
  return el("span", { class: "check", "data-check": name, "data-result": status, title: detail || "" }, text);
}

/** A winner's line in words (parts: a record's odd value is an element of its own). */
const lineOf = (entry) => (Number.isInteger(entry) ? `line ${entry + 1}` : ["entry ", shownLabel(JSON.stringify(entry) ?? String(entry))]);

/** The first rank where the record and the recomputed draw differ, in words (parts: entrants' lines are elements of their own). */
function drawDifferenceText(d, k) {
  const at = `first at rank ${d.rank}`;
  switch (d.what) {
    case "missing": return [`${at}: the record has no winner there; fairdeal-draw-v1 draws `, lineOf(d.computed), "."];
    case "extra": return [`${at}: the record lists `, lineOf(d.recorded), `, but the draw has only ${k} winner${k === 1 ? "" : "s"}.`];
    case "line_number": return [`${at}: the record gives line number `, shownLabel(String(d.recorded)), ` for the winner, which is line ${d.computed}.`];
    case "text": return [`${at}: the record names `, quoted(d.recorded), ", but that line of the committed list reads ", quoted(d.computed), "."];
    default: return [`${at}: the record says `, lineOf(d.recorded), ", fairdeal-draw-v1 draws ", lineOf(d.computed), "."];
  }
}

/** The form's values, over the loaded record's (status, result, …). */
function drawValues() {
  const value = (id) => drawField(id).value;
  return {
    ...(drawState.record || {}),
    entries_sha256: value("draw-list-hash").trim(),
    entries: value("draw-entries").trim(),
    winners: value("draw-winners").trim(),
    server_seed_hash: value("draw-commitment").trim(),
    client_seed: value("draw-client-seed") || null, // used as given: no trimming
    server_seed: value("draw-server-seed").trim() || null,
  };
}

function fillDrawFields(record) {
  const set = (id, value) => { drawField(id).value = value === null || value === undefined ? "" : String(value); };
  set("draw-list-hash", record.entries_sha256);
  set("draw-entries", record.entries);
  set("draw-winners", record.winners);
  set("draw-commitment", record.server_seed_hash);
  set("draw-client-seed", record.client_seed);
  set("draw-server-seed", record.server_seed);
}

/** Offers the operator's copy of the list when it was uploaded. */
function showDrawListCopy(record) {
  const note = drawField("draw-list-copy");
  if (record && record.entries_uploaded && onServer) {
    note.replaceChildren("No copy of the list? ",
      el("a", { href: `/v1/draws/${encodeURIComponent(record.id)}/entries`, download: `draw-${record.id}.txt`, text: "Download the operator's copy" }),
      " and choose it above: it is checked here against the list commitment published before the draw, like any file.");
    note.hidden = false;
  } else {
    note.hidden = true;
  }
}

/** Forgets the draw read last: its record, its log entries, its values in the form. */
function forgetDraw() {
  drawState.record = null;
  drawState.evidence = null;
  drawState.checked = null;
  drawState.unread = null;
  fillDrawFields({});
  showDrawListCopy(null);
}

/** What a field of a draw's record must be: a check of its type each. */
const text = (v) => typeof v === "string";
const optionalText = (v) => v === null || v === undefined || typeof v === "string";
const count = (v) => (typeof v === "number" && Number.isSafeInteger(v)) || (typeof v === "string" && /^[0-9]{1,20}$/.test(v.trim()));
const DRAW_FIELDS = {
  id: [text, "text"], status: [text, "text"], entries_sha256: [text, "text"], entries: [count, "a whole number"],
  winners: [count, "a whole number"], server_seed_hash: [text, "text"], client_seed_source: [text, "text"],
  client_seed: [optionalText, "text or null"], server_seed: [optionalText, "text or null"], label: [optionalText, "text or null"],
  nonce: [count, "a whole number"], created_at: [optionalText, "text"], drawn_at: [optionalText, "text or null"],
  result: [(v) => v === null || v === undefined || (Array.isArray(v) && v.every((row) => row !== null && typeof row === "object"
    && count(row.rank) && count(row.entry) && optionalText(row.text))), "null or a list of winners (rank, entry, text)"],
};

/** Why `body` is not a draw this page can read (a field of another type), or null. */
function drawRecordProblem(body) {
  for (const [field, [ok, what]] of Object.entries(DRAW_FIELDS)) {
    if (!ok(body[field])) return `its ${field} is not ${what}`;
  }
  return null;
}

/**
 * Reads draw `givenId` from the service and checks it: its record, held to
 * its entries in the transparency log. Entries not yet in a checkpoint are
 * read again by themselves (`recheck`: how many times so far); the draw
 * read before stays in force until the new read is complete. An answer
 * that is not a draw to check (none, another id, an error, a record this
 * page cannot read) replaces it, values and all, and stays in force until
 * the next lookup or values typed by hand: choosing a list file then never
 * checks the form's values without the log.
 */
export async function loadDraw(givenId, recheck = 0) {
  const id = canonicalId(givenId);
  const load = ++drawState.load;
  const target = drawField("draw-result");
  clearTimeout(recheckTimer);
  if (!recheck) {
    forgetDraw();
    target.replaceChildren(el("p", { text: "Loading the draw…" }));
  }
  resetWitnessView();
  forgetMonitorView();
  let unread = null;
  let read = null;
  try {
    const { status, body } = await getJson(`/v1/draws/${encodeURIComponent(id)}`);
    if (status === 404) {
      unread = [el("p", { class: "error", role: "alert" }, "No draw has the id ", quoted(id), ".")];
    } else if (status !== 200) {
      throw new Error(body.detail || `the server answered ${status}`);
    } else if (body.id !== id) {
      unread = answeredAnother("draw", id, body.id);
    } else {
      const problem = drawRecordProblem(body);
      if (problem) throw new Error(`the service's answer is not a draw this page can read: ${problem}`);
      read = { record: body, evidence: await drawLogEvidence(body) };
    }
  } catch (error) {
    // Never a PASS, and read again: the service did not answer what the page needs.
    unread = [verdictEl("pending", `This draw could not be checked yet: ${error.message || error}. `
      + "The page reads it again by itself."), unansweredCheckEl("draw", "error")];
  }
  if (load !== drawState.load) return; // A newer lookup began meanwhile.
  if (unread) {
    forgetDraw();
    drawState.unread = unread;
    target.replaceChildren(...unread);
  } else {
    drawState.record = read.record;
    drawState.evidence = read.evidence;
    drawState.unread = null;
    fillDrawFields(read.record);
    showDrawListCopy(read.record);
    await checkDraw();
  }
  const notice = drawState.record ? await logPinNoticeEl() : null;
  if (notice) target.insertBefore(notice, target.querySelector(":scope > [data-verdict]")?.nextSibling || target.firstChild);
  if (target.querySelector("[data-awaiting-checkpoint]") && recheck < rechecks()) {
    target.dataset.rechecking = "";
    recheckTimer = setTimeout(() => loadDraw(id, recheck + 1), RECHECK_MS);
  } else {
    delete target.dataset.rechecking;
  }
}

// ---- The draw in the transparency log ----------------------------------------

/**
 * The draw's entries in the log, each proven in a signed checkpoint:
 * `draw_commit` always, `draw_client_seed` and `draw_result` when the
 * record says they exist (a receipt the service then lacks fails) and
 * otherwise if the service has one (a client seed or result the log holds
 * but the record hides fails too). `{ commit, clientSeed, result,
 * monitors, sourceDigest }`: logChecks' nodes (with `.entry`), the kept
 * monitors' checks, the SHA-256 of the stated client seed source.
 */
async function drawLogEvidence(record) {
  const path = (entry) => `/v1/draws/${encodeURIComponent(record.id)}/receipt?entry=${entry}`;
  const ofDraw = (type) => drawEntry(record.id, type);
  const seeded = typeof record.client_seed === "string" || record.status === "ready" || record.status === "drawn";
  const drawn = record.status === "drawn" || Boolean(record.server_seed) || Array.isArray(record.result);
  const commit = await logChecks(path("commit"), ofDraw("draw_commit"), { name: "commitment in log" });
  const clientSeed = await logChecks(path("client_seed"), ofDraw("draw_client_seed"), { name: "client seed in log", required: seeded });
  const result = await logChecks(path("result"), ofDraw("draw_result"), { name: "result in log", required: drawn });
  const indexes = [loggedIndex(commit), loggedIndex(clientSeed), loggedIndex(result)];
  const checkpoint = commit.checkpoint || clientSeed.checkpoint || result.checkpoint || null;
  const monitors = checkpoint ? await monitorChecks(checkpoint, indexes, [record.id]) : [];
  const sourceDigest = typeof record.client_seed_source === "string" ? await sha256Hex(record.client_seed_source) : null;
  return { commit, clientSeed, result, monitors, sourceDigest };
}

/**
 * The draw checked (`v`, the values used; `c`, verifyDraw's result) held
 * to its log entries (`e`, drawLogEvidence's) by evidence.mjs's rules.
 * `{ nodes, failed, untrusted, waiting, monitorFailed, monitorWarned }`:
 * checks (SPANs) and explanations; failed, what differs in words (or null).
 */
async function heldToDrawLog(v, c, e) {
  const nodes = [...e.commit, ...e.clientSeed, ...e.result];
  const at = (checked) => (checked.entry ? { entry: checked.entry, index: loggedIndex(checked) } : null);
  const computed = c && c.winners && Array.isArray(c.winners.computed) ? c.winners.computed : null;
  const found = await drawDifferences(v, computed, { commit: at(e.commit), clientSeed: at(e.clientSeed), result: at(e.result) },
    e.sourceDigest);
  const differences = found.map((d) => d.what);
  for (const d of found) {
    nodes.push(el("p", { class: "error", "data-explain": "draw-log" }, `The log's entry ${d.index} states `,
      el("span", { class: "mono", text: d.logged }), ` for ${d.what}, but the draw shown has `,
      el("span", { class: "mono", text: d.shown }), ": the draw was changed after the log recorded it."));
  }
  // The order the protocol needs: the commitment before the client seed, the client seed before the result.
  for (const { first, second } of outOfOrder([[loggedIndex(e.commit), "commitment"], [loggedIndex(e.clientSeed), "client seed"],
    [loggedIndex(e.result), "result"]])) {
    differences.push("the order of its entries");
    nodes.push(checkEl("log order", false, `the draw's ${first.name} (entry ${first.index}) is not logged before its `
      + `${second.name} (entry ${second.index}): the operator could have chosen the first knowing the second`));
  }
  if (differences.length) nodes.push(checkEl("draw as logged", false, `differs in ${differences.join(", ")}`));
  nodes.push(...e.monitors);
  const failedNode = nodes.find(failedLog);
  return {
    nodes,
    failed: differences.length ? `the draw shown differs from its log entries in ${differences.join(", ")}`
      : failedNode ? `${failedNode.dataset.check || "a log check"} failed` : null,
    untrusted: nodes.some(untrustedLog),
    waiting: nodes.some(awaitingLog),
    monitorFailed: e.monitors.some(failedLog),
    monitorWarned: e.monitors.some((node) => node.dataset.result === "warning"),
  };
}

/** The largest list the service accepts (256 MiB): a bigger file cannot be a draw's list. */
const MAX_DRAW_FILE_BYTES = 256 * 1024 * 1024;

export async function readDrawFile() {
  const input = drawField("draw-file");
  const file = input.files && input.files[0];
  if (file && file.size > MAX_DRAW_FILE_BYTES) {
    drawState.file = null;
    drawField("draw-result").replaceChildren(el("p", { class: "error", role: "alert" }, quoted(file.name),
      ` is ${file.size} bytes, more than the 256 MiB a draw's list may have: it is not this draw's list`));
    return;
  }
  try {
    drawState.file = file ? { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) } : null;
  } catch (error) {
    drawState.file = null;
    showError(drawField("draw-result"), new Error(`The file could not be read: ${error.message || error}`));
    return;
  }
  await checkDraw();
}

/** Checks the draw in the form (and the chosen file) and shows the report. */
export async function checkDraw({ byHand = false } = {}) {
  const run = ++drawState.run;
  const target = drawField("draw-result");
  // Values typed and checked by hand take the place of a lookup that read no draw.
  if (byHand) drawState.unread = null;
  if (drawState.unread) {
    drawState.checked = null;
    target.replaceChildren(...drawState.unread);
    return;
  }
  const values = drawValues();
  const given = drawState.record || drawState.file
    || ["entries_sha256", "entries", "winners", "server_seed_hash", "client_seed", "server_seed"].some((k) => values[k]);
  if (!given) {
    drawState.checked = null;
    target.replaceChildren();
    return;
  }
  let result;
  try {
    result = await verifyDraw(values, drawState.file ? drawState.file.bytes : null);
  } catch (error) {
    if (run !== drawState.run) return;
    drawState.checked = null;
    const message = error.message || String(error);
    target.replaceChildren(drawState.record
      ? verdictEl("fail", "This draw's record breaks fairdeal-draw-v1's rules, so it cannot be what the protocol draws.")
      : verdictEl("pending", "Not checked: a value is missing or not valid."),
    el("p", { class: "error", role: "alert", "data-explain": "values", text: message }));
    return;
  }
  const held = drawState.evidence ? await heldToDrawLog(values, result, drawState.evidence) : null;
  if (run !== drawState.run) return;
  let report;
  try {
    report = drawReport(values, result, held);
  } catch (error) {
    // A value that cannot even be shown is never checked: not a PASS.
    drawState.checked = null;
    target.replaceChildren(verdictEl("pending", `This draw could not be shown: ${error.message || error}.`));
    return;
  }
  drawState.checked = { values, result, index: null };
  target.replaceChildren(...report);
  renderDrawEntry();
}

/**
 * The verdict, then the checks and what failed, your entry, the facts, the
 * winners. `held`: heldToDrawLog's (null for values typed by hand).
 */
function drawReport(v, c, held) {
  const record = drawState.record;
  const revealed = Boolean(v.server_seed);
  const file = drawState.file;
  const committedList = v.entries_sha256.toLowerCase();
  const checks = el("div", { class: "checks", "data-draw-checks": "" });
  const notes = [];
  const code = (text) => el("code", { text });

  // The list file against the list commitment.
  if (!file) {
    checks.append(drawCheckEl("list", "pending", "choose the entrant list file"));
  } else if (c.list.error) {
    checks.append(drawCheckEl("list", "fail", c.list.error.message));
    notes.push(el("p", { class: "error", "data-explain": "list" },
      "Your file ", quoted(file.name), ` is not a valid entrant list: ${c.list.error.message}. Its SHA-256 is `, code(c.list.sha256),
      committedList ? ["; the draw committed to ", code(committedList), ` (${v.entries} lines).`] : "."));
  } else if (c.list.status === "fail") {
    checks.append(drawCheckEl("list", "fail", `SHA-256 ${c.list.sha256}, ${c.list.entries} lines`));
    notes.push(el("p", { class: "error", "data-explain": "list" },
      "Your file ", quoted(file.name), " is not the list this draw committed to: its SHA-256 is ", code(c.list.sha256),
      ` (${c.list.entries} lines); the draw committed to `, code(committedList), ` (${v.entries} lines). `
      + "A changed byte, a moved line or a line more or less changes the hash."));
  } else if (c.list.status === "pending") {
    checks.append(drawCheckEl("list", "pending", "no list commitment to compare with"));
    notes.push(el("p", { class: "note", "data-explain": "list" },
      "Your file ", quoted(file.name), `: ${c.list.entries} lines, SHA-256 `, code(c.list.sha256),
      ". Enter the published list commitment to compare it."));
  } else {
    checks.append(drawCheckEl("list", "pass", `SHA-256 ${c.list.sha256}, ${c.list.entries} lines`));
    notes.push(el("p", { class: "note", "data-explain": "list" },
      "Your file ", quoted(file.name), ` is the committed list: ${c.list.entries} lines, SHA-256 `, code(c.list.sha256), "."));
  }

  // The revealed seed against its commitment.
  if (!revealed) {
    checks.append(drawCheckEl("commitment", "pending", "the server seed is revealed by the draw"));
  } else {
    checks.append(drawCheckEl("commitment", c.commitment.status, `SHA-256 of the revealed seed is ${c.commitment.computed}`));
    if (c.commitment.status === "fail") {
      notes.push(el("p", { class: "error", "data-explain": "commitment" },
        "The revealed server seed hashes to ", code(c.commitment.computed), ", not to the published commitment ",
        code(v.server_seed_hash.toLowerCase()), ". It is not the seed the operator committed to before the draw."));
    } else if (c.commitment.status === "pending") {
      notes.push(el("p", { class: "note", "data-explain": "commitment" },
        "The seed's SHA-256 is ", code(c.commitment.computed), ". Enter the published commitment to compare it."));
    }
  }
  if (c.nonce.status === "fail") {
    checks.append(drawCheckEl("nonce", "fail", `the record says nonce ${shownText(String(c.nonce.recorded))}`));
    notes.push(el("p", { class: "error", "data-explain": "nonce" },
      "The record says nonce ", shownLabel(String(c.nonce.recorded)), "; a fairdeal-draw-v1 draw is nonce 0 of a server seed of its own."));
  }
  const computed = c.winners.computed;
  if (revealed && c.winners.status !== "computed") {
    checks.append(drawCheckEl("winners", c.winners.status, c.winners.status === "pass" ? "every winner matches" : ""));
    if (c.winners.status === "fail") {
      notes.push(el("p", { class: "error", "data-explain": "winners" },
        "The recorded winners differ from the recomputed ones, ", drawDifferenceText(c.winners.difference, computed.length)));
    }
  }

  // What the log holds of the draw: its checks with the others, their explanations after.
  if (held) {
    checks.append(...held.nodes.filter((node) => node.tagName === "SPAN"));
    notes.push(...held.nodes.filter((node) => node.tagName !== "SPAN"));
  }

  // The verdict: any failure first, then what is still missing.
  let verdict;
  if (held && held.failed && held.monitorFailed) {
    verdict = verdictEl("fail", "A monitor you keep read the whole log and signed that it found problems with this draw (details below).");
  } else if (held && held.failed) {
    verdict = verdictEl("fail", `The transparency log does not back this draw as the service shows it (details below): ${held.failed}. `
      + "The log is what the operator signed when it committed and drew, so the draw shown is not the one it made.");
  } else if (c.commitment.status === "fail") {
    verdict = verdictEl("fail", "The revealed server seed does not match its published commitment (details below).");
  } else if (c.winners.status === "fail") {
    verdict = verdictEl("fail", `The recorded winners are not what fairdeal-draw-v1 draws from the committed seeds: they differ first at rank ${c.winners.difference.rank}.`);
  } else if (c.nonce.status === "fail") {
    verdict = verdictEl("fail", "The record does not draw with nonce 0 as fairdeal-draw-v1 does.");
  } else if (c.list.status === "fail") {
    verdict = verdictEl("fail", c.list.error
      ? `Your list file breaks the list rules (${c.list.error.message}), so it is not the committed list.`
      : "Your list file is not the list this draw committed to: its SHA-256 differs (details below).");
  } else if (!revealed) {
    verdict = verdictEl("pending", record && record.status !== "drawn"
      ? `Not drawn yet: ${drawStatusText(record.status)}. Its commitments are below; once it is drawn and the server seed revealed, this page recomputes the winners.`
      : "Enter the revealed server seed to recompute the winners.");
  } else if (c.commitment.status === "pending") {
    verdict = drawVerdictEl("pending", "Enter the published server seed commitment to check the revealed seed.", "NOT COMPLETE");
  } else if (c.list.status === "pending") {
    verdict = drawVerdictEl("pending", file
      ? "Enter the list's published SHA-256 to check your file against it."
      : "The seed matches its commitment and the winners' positions are what fairdeal-draw-v1 draws. Choose the entrant list file (the one whose SHA-256 was committed) to check who they are.",
    "NOT COMPLETE");
  } else if (held && held.untrusted) {
    verdict = wordVerdictEl("pending", "NOT YET TRUSTED", "The seed matches its commitment, your list is the committed one, and "
      + "the winners are what fairdeal-draw-v1 draws. But the witnesses you trust have not yet signed a checkpoint of the log "
      + "that holds this draw, so it is not yet shown that everyone is shown the same log (details below). Check again later.");
  } else {
    verdict = verdictEl("pass", c.winners.status === "pass"
      ? "The seed matches its commitment, your list is the committed one, and every winner is what fairdeal-draw-v1 draws."
      : "The seed matches its commitment and your list is the committed one; these are the winners fairdeal-draw-v1 draws.");
  }
  if (held) verdict = withWarnings(awaitingVerdict(verdict, { waiting: held.waiting }), held);

  // What was committed, and by whom.
  const facts = el("dl", { class: "facts" });
  if (record) {
    fact(facts, "Draw", record.id, true);
    if (record.label) shownFact(facts, "Label", record.label, { what: "label" });
    fact(facts, "Status", drawStatusText(record.status));
  }
  fact(facts, "List commitment", committedList || "(not given)", Boolean(committedList));
  fact(facts, "Entries", v.entries ? `${v.entries} lines` : "(not given)");
  fact(facts, "Winners", v.winners || "(not given)");
  fact(facts, "Server seed commitment", v.server_seed_hash.toLowerCase() || "(not given)", Boolean(v.server_seed_hash));
  if (record && record.client_seed_source) shownFact(facts, "Client seed source", record.client_seed_source, { what: "source" });
  else if (record) fact(facts, "Client seed source", "(not stated)");
  if (v.client_seed === null || v.client_seed === undefined) fact(facts, "Client seed", "(not set yet)");
  else shownFact(facts, "Client seed", v.client_seed, { copyable: true });
  if (revealed) fact(facts, "Server seed", v.server_seed, true);
  fact(facts, "Nonce", "0");
  if (record && record.created_at) fact(facts, "Committed at", record.created_at);
  if (record && record.drawn_at) fact(facts, "Drawn at", record.drawn_at);

  const parts = [verdict, checks, ...notes, el("div", { id: "draw-entry-result", hidden: true })];
  parts.push(el("h3", { text: "Draw" }), facts);
  if (!revealed) {
    parts.push(el("p", { class: "note", text: "Before the client seed existed, the operator published the list's SHA-256 and "
      + "line count (which fix every entrant and its place) and the SHA-256 of the server seed. Neither can change now "
      + "without the hashes giving it away; the client seed comes from the source named above, so the operator cannot "
      + "choose the outcome. The winners are shown once the draw is made." }));
    return parts;
  }
  parts.push(drawWinnersEl(v, c));
  return parts;
}

/** The recomputed winners, rank by rank, with their line and its text. */
function drawWinnersEl(v, c) {
  const computed = c.winners.computed;
  const lines = c.list.status === "pass" || (c.list.status === "pending" && c.list.lines) ? c.list.lines : null;
  const recorded = new Map(Array.isArray(v.result) ? v.result.map((row) => [row && row.rank, row]) : []);
  const diffRank = c.winners.difference ? c.winners.difference.rank : null;
  const tbody = el("tbody");
  const shown = Math.min(computed.length, DRAW_ROWS_SHOWN);
  for (let i = 0; i < shown; i++) {
    const rank = i + 1;
    const entry = computed[i];
    const row = recorded.get(rank);
    let text;
    // An entrant's line is someone else's string: a lookalike of another
    // entrant ("аlice" with a Cyrillic а) must not pass for it.
    if (lines) {
      text = shownLabel(lines[entry]);
    } else if (row && typeof row.text === "string") {
      text = [shownLabel(row.text), el("span", { class: "note", text: " (the operator's record; choose the list file to check it)" })];
    } else {
      text = el("span", { class: "note", text: "choose the list file" });
    }
    tbody.append(el("tr", { "data-rank": rank, "data-entry": entry, "data-line": entry + 1, class: rank === diffRank ? "diff" : null },
      el("td", { class: "num", text: String(rank) }),
      el("td", { class: "num", text: String(entry + 1) }),
      el("td", { class: "entrant" }, text)));
  }
  const box = el("div", { "data-draw-winners": "" },
    el("h3", { text: "Winners, recomputed in this browser" }),
    el("table", { class: "rounds winners" },
      el("thead", {}, el("tr", {}, ["Rank", "Line", "Entrant"].map((h) => el("th", { scope: "col", text: h })))),
      tbody));
  if (shown < computed.length) {
    box.append(el("p", { class: "note", text: `The first ${shown} of ${computed.length} winners are shown; all were checked.` }));
  }
  if (lines && c.list.status === "pending") {
    box.append(el("p", { class: "note", text: "The entrants' names come from your file, which was not compared with a list commitment." }));
  }
  return box;
}

/** Whether the typed entry is a line of the list, and whether it won. */
export function renderDrawEntry() {
  const box = document.getElementById("draw-entry-result");
  if (!box || !drawState.checked) return;
  const wanted = drawField("draw-entry").value;
  const { result } = drawState.checked;
  for (const name of ["entryFound", "entryLine", "entryWon", "entryRank"]) delete box.dataset[name];
  box.className = "entry-result";
  if (wanted === "") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const yours = quoted(wanted);
  if (!drawState.file) {
    box.replaceChildren(el("strong", { text: "Your entry: " }), "choose the entrant list file to look it up.");
    return;
  }
  if (!result.list.lines) {
    box.replaceChildren(el("strong", { text: "Your entry: " }), "your file is not a valid entrant list (see above).");
    return;
  }
  if (drawState.checked.index === null) {
    drawState.checked.index = new Map(result.list.lines.map((text, i) => [text, i]));
  }
  const index = drawState.checked.index;
  const at = index.get(wanted);
  if (at === undefined) {
    box.dataset.entryFound = "false";
    const near = [wanted.trim(), wanted.normalize("NFC"), wanted.trim().normalize("NFC")].find((t) => t !== wanted && index.has(t));
    box.replaceChildren(...renderShownParts([el("strong", { text: "Your entry: " }), yours,
      " is not a line of your list. Lines must match exactly, byte for byte.",
      near !== undefined ? [" (", quoted(near), `, without the extra spaces or in another Unicode form, is line ${index.get(near) + 1}.)`] : ""]));
    return;
  }
  box.dataset.entryFound = "true";
  box.dataset.entryLine = String(at + 1);
  const parts = [el("strong", { text: "Your entry: " }), yours, ` is line ${at + 1} of your list. `];
  const computed = result.winners.computed;
  if (result.list.status === "fail") {
    parts.push("But your file is not the committed list, so this says nothing about the draw.");
  } else if (!computed) {
    box.dataset.entryWon = "pending";
    parts.push("The draw has not been made yet.");
  } else {
    const rank = computed.indexOf(at) + 1;
    if (rank > 0) {
      box.dataset.entryWon = "true";
      box.dataset.entryRank = String(rank);
      parts.push(el("strong", { text: `It won: rank ${rank} of ${computed.length}.` }));
    } else {
      box.dataset.entryWon = "false";
      parts.push(`It did not win (${computed.length} winner${computed.length === 1 ? "" : "s"} of ${result.list.entries}).`);
    }
  }
  box.replaceChildren(...renderShownParts(parts));
}
