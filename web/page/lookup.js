// Looking a record up by id: a round's report (also a pair's round's detail,
// on demand), the dispatch between rounds and pairs.

// ---- Look up by id -------------------------------------------------------

import { verifyRound } from "../fairdeal-v1.mjs";
import { shownLabel } from "../seed-display.mjs";
import { chainRoundReport, isChainRecord } from "./chain.js";
import { roundEntry, sameGame } from "../evidence.mjs";
import { INTEGRATION_WINDOW_MS, awaitingLog, logChecks, logPinNoticeEl, loggedIndex, pairEntryChecks, resetWitnessView, sameClientSeed, unansweredCheckEl, untrustedLog } from "./log.js";
import { forgetMonitorView, monitorChecks } from "./monitors.js";
import { lookUpPair } from "./pair.js";
import { quotedList, tableReport } from "./tables.js";
import { canonicalId, checkEl, dealEl, el, fact, gameText, getJson, onServer, quoted, shownFact } from "./views.js";

const STATUS_WORDS = {
  in_play: "in play (the hand is not over yet)",
  closed: "closed (the hand is over)",
  awaiting_client_seed: "waiting for the player's client seed",
  active: "active (dealing; the server seed is still secret)",
  revealed: "revealed (the server seed is public)",
  awaiting_contributions: "waiting for every seat's contribution (the table commits, then reveals)",
  void: "void (a seat stalled: the table dealt nothing, and its server seed is public)",
};

/** A record's status in words. */
export function statusText(status) {
  return STATUS_WORDS[status] || status;
}

/**
 * The one-line verdict shown first: "pass", "fail" or "pending"; `parts`:
 * the sentence (strings, nodes, { label } parts).
 */
export function verdictEl(result, ...parts) {
  const word = { pass: "PASS", fail: "FAIL", pending: "NOT YET VERIFIABLE" }[result];
  return wordVerdictEl(result, word, ...parts);
}

/** A verdict with its own first word (e.g. "SEED MATCHES"). */
export function wordVerdictEl(result, word, ...parts) {
  return el("p", { class: "verdict", role: "status", "data-verdict": result }, el("strong", { text: word }), " ", parts);
}

/**
 * A verdict as a player reads it: its word and one plain sentence, then
 * `why`, the whole account of what was checked, folded under "Why" (one tap
 * away, and in the text a screen reader or a search finds).
 */
export function plainVerdictEl(result, word, plain, ...why) {
  const verdict = el("div", { class: "verdict", role: "status", "data-verdict": result },
    el("strong", { text: word }), " ", el("span", { class: "plain" }, plain));
  if (why.length) {
    verdict.append(el("details", { class: "why" }, el("summary", { text: "Why" }), el("p", {}, ...why)));
  }
  return verdict;
}

/** Adds `parts` to a verdict's own sentence (before its folded "Why"). */
export function addToVerdict(verdict, ...parts) {
  const why = verdict.querySelector(":scope > details.why");
  if (why) why.before(...parts);
  else verdict.append(...parts);
}

/** Adds `parts` to a verdict's folded "Why", or to its sentence when it has none. */
export function addToWhy(verdict, ...parts) {
  const why = verdict.querySelector(":scope > details.why > p");
  if (why) why.append(...parts);
  else verdict.append(...parts);
}

/** The sentence a verdict shows when its "Why" is folded. */
export function shownVerdictText(verdict) {
  const copy = verdict.cloneNode(true);
  copy.querySelectorAll("details.why").forEach((why) => why.remove());
  return copy.textContent;
}

/** A passing round's verdict, in one plain sentence. */
export const FAIR_CARDS_SENTENCE = "These cards are what the seed committed before play deals with your client seed and nonce.";

/** What a record the player's witnesses do not yet vouch for adds to its verdict's sentence. */
export const UNTRUSTED_SENTENCE = "The cards are right, but the witnesses you trust have not yet signed the log that holds "
  + "them: check again later.";

/** …and to its "Why". */
export const UNTRUSTED_WHY = "But the witnesses you trust have not yet signed a checkpoint of the log that holds it, so "
  + "it is not yet shown that everyone is shown the same log (details below).";

/** Whether a node from logChecks reports a failure or a fork. */
export function failedLog(node) {
  return node.dataset.result === "fail" || node.dataset.fork !== undefined;
}

/**
 * The rounds this page has read, by commitment and nonce: "Recompute from
 * values" compares what is typed there with the round's recorded values.
 */
export const knownRounds = new Map();

function rememberRound(round) {
  if (round && typeof round.server_seed_hash === "string" && round.nonce !== undefined && round.nonce !== null) {
    knownRounds.set(`${round.server_seed_hash.toLowerCase()}:${round.nonce}`, round);
  }
}

/**
 * A round's report: `{ box, ok, verdict }` (ok null while its seed is
 * secret; verdict, a chain round's own verdict line, or undefined).
 * `options.onHashProgress` follows a chain round's hashing (chain.js).
 */
export async function roundReport(round, options = {}) {
  rememberRound(round);
  const box = el("div", { class: "round-detail", "data-round": round.id, "data-nonce": round.nonce });
  const facts = el("dl", { class: "facts" });
  fact(facts, "Round", round.id, true);
  fact(facts, "Nonce", String(round.nonce));
  fact(facts, "Game", gameText(round.game));
  fact(facts, "Status", statusText(round.status));
  fact(facts, isChainRecord(round) ? "Chain commitment" : "Commitment", round.server_seed_hash, true);
  shownFact(facts, "Client seed", round.client_seed, { copyable: true });
  box.append(facts);
  if (isChainRecord(round)) return chainRoundReport(round, box, facts, options);
  if (!round.server_seed) {
    const evidence = await roundEvidence(round, options.shared, options.linkIndex);
    box.append(el("div", { class: "checks" }, el("span", { class: "check", "data-check": "reveal", "data-result": "pending",
      text: "Not yet verifiable: the server seed is still secret." }), ...evidence.nodes.filter((node) => node.tagName === "SPAN")),
    ...evidence.nodes.filter((node) => node.tagName !== "SPAN"));
    box.append(el("p", { class: "note", text: "The operator committed to this hash before your client seed was set. " +
      "It reveals the seed when the seed pair is rotated, after its last hand; then this page can recompute every card. " +
      "The cards are not shown before then." }));
    return { box, ok: evidence.ok ? null : false, untrusted: evidence.untrusted, evidence };
  }
  fact(facts, "Server seed", round.server_seed, true);
  const result = await verifyRound(round);
  const evidence = await roundEvidence(round, options.shared, options.linkIndex);
  const logged = evidence.nodes;
  const checks = el("div", { class: "checks" },
    checkEl("commitment", result.commitment.ok,
      `SHA-256 of the revealed seed is ${result.commitment.computed}`),
    checkEl("deal", result.deal.ok, result.deal.ok ? "every card matches" : ""),
    ...logged.filter((node) => node.tagName === "SPAN"));
  box.append(checks, ...logged.filter((node) => node.tagName !== "SPAN"));
  if (!result.commitment.ok) {
    box.append(el("p", { class: "error", "data-explain": "commitment",
      text: `The revealed seed hashes to ${result.commitment.computed}, not to the published commitment.` }));
  }
  if (!result.deal.ok) {
    const d = result.deal.difference;
    // The recorded value is the record's, whatever it holds: an element of its own.
    box.append(el("p", { class: "error", "data-explain": "deal" },
      `The recorded cards differ from the recomputed ones: at ${d.slot} the record says `, shownLabel(String(d.recorded)),
      `, fairdeal-v1 deals ${d.computed}.`));
    box.append(el("p", { text: "Recorded:" }), dealEl(round.deal, d.slot));
    box.append(el("p", { text: "Recomputed in this browser:" }), dealEl(result.deal.computed, d.slot));
  } else {
    box.append(dealEl(round.deal));
  }
  return { box, ok: result.commitment.ok && result.deal.ok && evidence.ok, untrusted: evidence.untrusted, evidence };
}

/**
 * Everything the log says of a round, checked in this browser: its own
 * `round` entry, its pair's `commit` and `client_seed` entries (what the
 * cards must be dealt from), their order, and the other pairs given its
 * client seed. `{ nodes, roundIndex, ok, untrusted, foreign, shopped }`:
 * nodes as logChecks gives them (checks as SPANs, then explanations); ok
 * false when any failed; foreign, the other tenants' pairs live with the
 * same seed (a warning); shopped, the same tenant's (a failure).
 */
export async function roundEvidence(round, shared = null, linkIndex = null) {
  const logged = await logChecks(`/v1/rounds/${encodeURIComponent(round.id)}/receipt`, roundEntry(round));
  const roundIndex = loggedIndex(logged);
  // Within a pair's page, the pair's entries are checked (and shown) once, for every round.
  const pair = shared ? shared.entries : await pairEntryChecks({ id: round.seed_pair_id,
    server_seed_hash: round.server_seed_hash, client_seed: round.client_seed, chain: round.chain },
  { clientSeedRequired: true });
  const nodes = shared ? [...logged] : [...logged, ...pair.nodes];
  // The round's entry, as its receipt and as the player's link name it, comes after the pair's
  // commitment and client seed: a commitment logged again after the round was dealt is not the one it was dealt from.
  for (const [index, whose] of [[roundIndex, "its receipt"], [linkIndex, "your link"]]) {
    if (!Number.isSafeInteger(index)) continue;
    for (const [before, what] of [[pair.commitIndex, "commitment"], [pair.clientSeedIndex, "client seed"]]) {
      if (before !== null && !(before < index)) {
        nodes.push(checkEl("round order", false, `the round's entry ${index} (as ${whose} names it) comes before its pair's `
          + `${what} (entry ${before}): the pair's record was logged again after the round was dealt`));
      }
    }
  }
  const sharing = shared ? shared.sharing : await sameClientSeed({ id: round.seed_pair_id, client_seed: round.client_seed }, pair);
  if (!shared) nodes.push(...sharing.parts);
  // What the monitors the player keeps signed about these entries (within a pair's page: once, for the pair).
  const monitored = shared ? [] : await monitorChecks(logged.checkpoint || pair.checkpoint,
    [roundIndex, pair.commitIndex, pair.clientSeedIndex], [round.id, round.seed_pair_id]);
  nodes.push(...monitored);
  // One explanation of the witnesses and the checkpoint is enough for all the entries.
  const said = new Set();
  const shown = nodes.filter((node) => {
    if (node.tagName === "SPAN") return true;
    const text = node.textContent.replace(/\d+ entries|entry \d+/g, "#");
    if (said.has(text)) return false;
    said.add(text);
    return true;
  });
  const failed = nodes.some(failedLog) || sharing.shopped.length > 0 || !pair.ok;
  return { nodes: shown, roundIndex, ok: !failed, untrusted: nodes.some(untrustedLog), waiting: nodes.some(awaitingLog),
    monitorFailed: monitored.some(failedLog), monitorWarned: monitored.some((node) => node.dataset.result === "warning"),
    foreign: sharing.foreign, shopped: sharing.shopped, unverifiedHolders: (sharing.unverified || []).length };
}

/**
 * A round, by id; `logIndex` (from the link a game hands its player, the
 * deal's `verify_url`) is the log index of the round's entry: the page
 * reads that entry from the log itself, so a round the API no longer knows,
 * or shows differently, is a FAIL naming both. Resolves false when neither
 * the API nor the link knows the round.
 */
async function lookUpRound(id, target, logIndex = null) {
  const linked = logIndex === null ? null : await linkedEntry(id, logIndex);
  const { status, body } = await getJson(`/v1/rounds/${encodeURIComponent(id)}`);
  if (status === 404 && linked) {
    target.replaceChildren(...linkedRoundMissing(id, logIndex, linked));
    return true;
  }
  if (status === 404) return false;
  if (status !== 200) throw new Error(body.detail || `the server answered ${status}`);
  if (body.id !== id) {
    target.replaceChildren(...answeredAnother("round", id, body.id));
    return true;
  }
  const hashing = el("p", { "data-chain-progress": "", text: "Checking…" });
  target.replaceChildren(hashing);
  const linkIsThis = Boolean(linked && linked.entry && linked.entry.type === "round" && linked.entry.round === body.id);
  const { box, ok: recordOk, verdict: ownVerdict, untrusted, evidence } = await roundReport(body, {
    linkIndex: linkIsThis ? logIndex : null,
    onHashProgress: (done, of) => {
      hashing.textContent = `Checking… hashing down the seed chain: ${done.toLocaleString("en")} of ${of.toLocaleString("en")} hashes`;
    },
  });
  // The link's entry must be this round's, as the API shows it, at the index its receipt proves.
  const linkParts = linked ? linkedRoundChecks(body, logIndex, linked, evidence) : { ok: true, nodes: [] };
  const ok = recordOk === false || !linkParts.ok ? false : recordOk;
  const own = linkParts.ok ? ownVerdict : null;
  // A table pair's round: its client seed must be the one derived from every seat.
  const table = await roundTable(body);
  const fromSeats = table.report && table.report.checked.seed.status === "pass"
    ? " Its client seed is the one derived from every seat's contribution." : "";
  const logFailed = (evidence && !evidence.ok) || !linkParts.ok;
  let verdict = own && ok === false && !(evidence && evidence.monitorFailed) ? own
    : ok === false && evidence && evidence.monitorFailed
    ? verdictEl("fail", "A monitor you keep read the whole log and signed that it found problems with this round or its "
      + "seed pair (details below).")
    : ok === false && logFailed
    ? verdictEl("fail", "The transparency log does not back this round as the service shows it (details below): "
      + `${linkParts.ok ? "" : `${linkParts.reason}; `}the log is what the operator signed when it dealt, so the record shown is not the round dealt.`)
    : ok === false
    ? verdictEl("fail", "This record does not match what fairdeal-v1 deals from the committed seed (details below).")
    : table.report && !table.report.ok
      ? verdictEl("fail", table.report.verdict)
    : own
      ? own
    : ok === null
      ? verdictEl("pending", `The server seed is still secret: this round can be checked once its seed pair is revealed.${fromSeats}`)
    : untrusted
      ? plainVerdictEl("pending", "NOT YET TRUSTED", UNTRUSTED_SENTENCE, "The seed matches its published commitment, and "
        + `every card is what fairdeal-v1 deals.${fromSeats} ${UNTRUSTED_WHY}`)
      : plainVerdictEl("pass", "PASS", FAIR_CARDS_SENTENCE,
        `The seed matches its published commitment, and every card is what fairdeal-v1 deals.${fromSeats}`);
  verdict = withWarnings(awaitingVerdict(verdict, { waiting: Boolean(evidence && evidence.waiting)
    || Boolean(linkParts.waiting) || Boolean(table.waiting) }),
    evidence);
  target.replaceChildren(verdict, ...linkParts.nodes, el("h3", { text: "Round" }), box, ...table.parts,
    el("p", {}, el("a", { href: `?pair=${encodeURIComponent(body.seed_pair_id)}`, text: "See every round of its seed pair" })));
  return true;
}

/**
 * The FAIL when the service answers with another record than the one asked
 * for: every check after it would hold the other record to the log, and a
 * good record in place of a bad one must not pass.
 */
export function answeredAnother(what, asked, answered) {
  const shown = typeof answered === "string" ? quoted(answered) : "no id";
  const node = verdictEl("fail", `Asked for ${what} `, quoted(asked), ", the service answered with ", shown,
    `: it is not the ${what} you asked for, so nothing it shows can be checked against it.`);
  node.dataset.answeredAnother = what;
  return [node];
}

/**
 * A PASS whose log entries are not all in a checkpoint yet is NOT YET
 * VERIFIABLE: the page looks again by itself (lookUp), and after
 * INTEGRATION_WINDOW_MS the missing entry fails.
 */
export function awaitingVerdict(verdict, evidence) {
  if (!evidence || !evidence.waiting || verdict.dataset.verdict !== "pass") return verdict;
  return verdictEl("pending", "Everything checked so far holds, but the log has not yet put all of this record's entries in a "
    + "signed checkpoint (it does within seconds). This page checks again by itself.");
}

/**
 * A PASS becomes CHECKED, WITH A WARNING (never a FAIL) when the pair's
 * client seed was live on another tenant's pair at the same time (the page
 * cannot tell a second brand from a tenant made for deal-shopping), or when
 * a monitor the player keeps has not spoken of all of the record (no
 * statement, not read that far, findings it did not list, a late reveal).
 * A pending verdict carries the same warning.
 */
export function withWarnings(verdict, evidence) {
  const foreign = evidence && evidence.foreign ? evidence.foreign.length : 0;
  const monitor = Boolean(evidence && evidence.monitorWarned);
  const unverified = evidence && evidence.unverifiedHolders ? evidence.unverifiedHolders : 0;
  if ((!foreign && !monitor && !unverified) || verdict.dataset.verdict === "fail") return verdict;
  verdict.dataset.warning = foreign ? "other-tenant" : monitor ? "monitor" : "same-seed-unverified";
  if (verdict.dataset.verdict === "pass") {
    verdict.dataset.verdict = "warning";
    verdict.firstChild.textContent = "CHECKED, WITH A WARNING";
  }
  if (foreign) {
    addToVerdict(verdict, ` But this client seed was live on ${foreign} pair${foreign === 1 ? "" : "s"} of another tenant of this `
      + "service at the same time: read the warning below.");
  }
  if (monitor) {
    addToVerdict(verdict, " A monitor you keep has not yet signed that it checked all of this record: read the warning below.");
  }
  if (unverified) {
    addToVerdict(verdict, ` ${unverified} other pair${unverified === 1 ? "" : "s"} listed with this client seed could not be held to `
      + "the log: read the warning below.");
  }
  return verdict;
}

/** The log entry a round's link names, read from the log: logChecks' nodes (with `.entry`). */
async function linkedEntry(id, logIndex) {
  return logChecks(`/v1/log/entries/${logIndex}`, (entry) => entry.type === "round" && entry.round === id, { name: "link" });
}

/** A round's entry in words: "round R, nonce N of seed pair P (game)". */
function entryWords(entry) {
  let game = "";
  try {
    game = entry.game ? `, ${gameText(entry.game)}` : "";
  } catch {
    game = "";
  }
  return `round ${entry.round}, nonce ${entry.nonce} of seed pair ${entry.seed_pair}${game}`;
}

/** The verdict and evidence when the API has no round the link's log entry records. */
function linkedRoundMissing(id, logIndex, linked) {
  const entry = linked.entry;
  const isIt = entry && entry.type === "round" && entry.round === id;
  const spans = linked.filter((node) => node.tagName === "SPAN");
  const logOk = !linked.some(failedLog);
  const pending = spans.some((node) => node.dataset.result === "pending");
  const unread = !entry && logOk;
  const verdict = unread
    ? verdictEl("pending", `The service has no round ${id}, and did not give the log's entry ${logIndex}, which your link `
      + "names. Keep your link: this page looks again by itself, and the entry decides.")
    : isIt && logOk && !pending
    ? verdictEl("fail", `The transparency log's entry ${logIndex} records ${entryWords(entry)}, but the service says it has `
      + "no round with that id: a round that was dealt has been removed or hidden (the same nonce may have been dealt "
      + "again as another hand). Keep this link: it is your evidence.")
    : isIt && pending
      ? verdictEl("fail", `The service has no round ${id}, though its entry ${logIndex}, signed by the log, records `
        + `${entryWords(entry)} (not yet in a checkpoint).`)
      : entry
        ? verdictEl("fail", `The service has no round ${id}, and the log's entry ${logIndex}, which the link names, is not `
          + `that round's (it is a ${String(entry.type)} entry): this link does not lead to a dealt round.`)
        : verdictEl("fail", `The service has no round ${id}, and the log's entry ${logIndex}, which the link names, does not `
          + "verify against the log (details below).");
  verdict.dataset.linkedMissing = "";
  const parts = [verdict, el("div", { class: "checks" }, ...spans), ...linked.filter((node) => node.tagName !== "SPAN")];
  if (isIt) {
    parts.push(el("p", {}, el("a", { href: `?pair=${encodeURIComponent(entry.seed_pair)}`, text: "See every round of its seed pair" })));
  }
  return parts;
}

/**
 * The link's entry against the round the API shows: the same round, nonce,
 * pair and game, at the index the round's own receipt proves.
 * `{ ok, reason, nodes }`.
 */
function linkedRoundChecks(round, logIndex, linked, evidence) {
  const entry = linked.entry;
  const spans = linked.filter((node) => node.tagName === "SPAN");
  const nodes = [el("div", { class: "checks", "data-link-checks": "" }, ...spans), ...linked.filter((node) => node.tagName !== "SPAN")];
  if (linked.some(failedLog)) {
    return { ok: false, reason: entry && !(entry.type === "round" && entry.round === round.id)
      ? `the log's entry ${logIndex}, which your link names, is not this round's`
      : `the log's entry ${logIndex}, which your link names, does not verify against the log`, nodes };
  }
  if (!entry) {
    // Not answered: never a PASS, looked at again.
    return { ok: true, waiting: true, reason: "", nodes };
  }
  const differences = [];
  if (!roundEntry(round)(entry)) {
    differences.push(`the log's entry ${logIndex} records ${entryWords(entry)}; the service shows round ${round.id}, nonce `
      + `${round.nonce} of seed pair ${round.seed_pair_id}`);
  } else if (!sameGame(entry.game, round.game)) {
    differences.push(`the log's entry ${logIndex} records the game ${JSON.stringify(entry.game)}; the service shows `
      + JSON.stringify(round.game));
  }
  if (evidence && evidence.roundIndex !== null && evidence.roundIndex !== logIndex) {
    differences.push(`your link names entry ${logIndex} of the log; the service's receipt for this round names entry `
      + `${evidence.roundIndex}`);
  }
  const node = checkEl("link", differences.length === 0, differences.length ? differences.join("; ")
    : `entry ${logIndex} of the log, named by your link, records this round`);
  node.dataset.logIndex = String(logIndex);
  const shown = [el("div", { class: "checks", "data-link-checks": "" }, node)];
  if (differences.length) {
    shown.push(el("p", { class: "error", role: "alert", "data-explain": "link" },
      `Your link's log entry and the service's record differ: ${differences.join("; ")}. The log entry was signed when the `
      + "round was dealt; the record shown now is not that round."));
  }
  return { ok: differences.length === 0, reason: differences[0] || "", nodes: shown };
}

/** The table of a round's seed pair, when the pair is a table: `{ report, parts }`. */
async function roundTable(round) {
  if (!round.seed_pair_id) return { report: null, parts: [] };
  let answer;
  try {
    answer = await getJson(`/v1/seed-pairs/${encodeURIComponent(round.seed_pair_id)}`);
  } catch {
    answer = { status: 0 };
  }
  if (answer.status !== 200) {
    // Never a PASS without it: a table round's client seed must be the seats' (looked at again).
    return { report: null, waiting: true, parts: [unansweredCheckEl("seed pair", answer.status),
      el("p", { class: "note", text: "This round's seed pair could not be read, so whether it is a table's (and its client "
        + "seed derived from every seat) is not checked yet; the page looks again by itself." })] };
  }
  if (!answer.body.table) return { report: null, parts: [] };
  const report = await tableReport(answer.body, round.client_seed, "round");
  return { report, parts: [report.node] };
}

export function voidedWhy(table) {
  const stalled = table.void && Array.isArray(table.void.stalled_seats) ? table.void.stalled_seats : [];
  if (!stalled.length) return "";
  return [` ${stalled.length === 1 ? "Seat" : "Seats"} `, quotedList(stalled), " did not "
    + `${table.void.phase === "commit" ? "commit" : "reveal"} before the ${table.void.phase} phase's deadline.`];
}

/** How often, and how many times, a lookup with entries awaiting their checkpoint is looked up again. */
const RECHECK_MS = 4000;
/** (A function: log.js and this module import each other, so neither reads the other's values while loading.) */
const rechecks = () => Math.ceil(INTEGRATION_WINDOW_MS / RECHECK_MS) + 2;
let recheckTimer = null;

/** The lookup shown now: what a change of trust (witnesses, the log's key) checks again. */
let currentLookup = null;

/** Looks the record shown up again (after the player changed what they trust). */
export function lookUpAgain() {
  if (currentLookup && onServer) lookUp(currentLookup.id, currentLookup.kind, { logIndex: currentLookup.logIndex });
}

export async function lookUp(givenId, kind, { logIndex = null, recheck = 0, badLog = null } = {}) {
  const id = canonicalId(givenId);
  currentLookup = { id, kind, logIndex };
  const target = document.getElementById("lookup-result");
  clearTimeout(recheckTimer);
  if (!recheck) target.replaceChildren(el("p", { text: "Checking…" }));
  resetWitnessView();
  forgetMonitorView();
  const shown = recheck ? el("div") : target;
  try {
    const found = kind === "pair" ? await lookUpPair(id, shown)
      : kind === "round" ? await lookUpRound(id, shown, logIndex)
      : (await lookUpRound(id, shown, logIndex)) || (await lookUpPair(id, shown));
    if (!found) shown.replaceChildren(el("p", { class: "error", role: "alert" }, "No round or seed pair has the id ", quoted(id), "."));
  } catch (error) {
    // Never a PASS, and looked at again: the service did not answer what the page needs.
    shown.replaceChildren(verdictEl("pending", `This record could not be checked yet: ${error.message || error}. `
      + "The page looks again by itself."), unansweredCheckEl("lookup", "error"));
  }
  // What the player trusts comes first: a changed log key, a link's witnesses.
  const notices = [await logPinNoticeEl(), proposalNotice(), badLog === null ? null
    : el("p", { class: "warning", "data-bad-link": "" }, "This link's log index (", shownLabel(badLog), ") is not a whole "
      + "number, so the round's entry could not be read from the log itself: the round is checked without it. The link a "
      + "game gives for a round ends in log= and digits only.")].filter(Boolean);
  if (recheck) target.replaceChildren(...shown.childNodes);
  const verdict = target.querySelector(":scope > [data-verdict]");
  for (const notice of notices.reverse()) target.insertBefore(notice, verdict ? verdict.nextSibling : target.firstChild);
  // Entries not yet in a checkpoint: looked up again by itself, until they are or the window has passed.
  if (target.querySelector("[data-awaiting-checkpoint]") && recheck < rechecks()) {
    target.dataset.rechecking = "";
    recheckTimer = setTimeout(() => lookUp(id, kind, { logIndex, recheck: recheck + 1 }), RECHECK_MS);
  } else {
    delete target.dataset.rechecking;
  }
}

/** A note at the top of a lookup when the link proposes witnesses the player has not accepted. */
function proposalNotice() {
  const box = document.getElementById("witness-proposal");
  if (!box || box.hidden || !box.dataset.witnesses) return null;
  return el("p", { class: "warning", "data-proposal-notice": "" },
    "This link proposes witnesses you have not accepted; the verdict uses the witnesses you keep. ",
    el("a", { href: "#witness-proposal", text: "See the proposal" }), ".");
}
