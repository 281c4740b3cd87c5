// A whole seed pair: its rounds checked in bulk by the page's worker
// (verify-worker.mjs: a module of its own when the service serves the page;
// in the released single file, the worker's bundle is the string
// WORKER_SOURCE its build defines, started from a blob: URL, since a page
// opened from a file may start no other), against ONE verified checkpoint
// of the log, with the
// progress shown while it works; then a summary, the failures first (each
// naming its round), the rounds table a page at a time, and a round's full
// report on demand (roundReport, lookup.js).

import { chainWaitingWords } from "../fairdeal-chain.mjs";
import { shownText } from "../seed-display.mjs";
import { isChainRecord } from "./chain.js";
import { awaitingLog, logVkey, pairEntryChecks, sameClientSeed, untrustedCheckEl, untrustedLog, witnessView } from "./log.js";
import {
  UNTRUSTED_SENTENCE, UNTRUSTED_WHY, addToWhy, answeredAnother, awaitingVerdict, failedLog, plainVerdictEl, roundReport,
  statusText, verdictEl, voidedWhy, withWarnings,
} from "./lookup.js";
import { monitorChecks } from "./monitors.js";
import { tableReport } from "./tables.js";
import { checkEl, el, fact, gameText, getJson, onServer, service, showError, shownFact } from "./views.js";

/** Rows of the rounds table drawn at a time. */
const PAIR_ROWS_PER_PAGE = 100;
/** Up to this many rounds, every round's report is drawn at once; beyond, when asked. */
const PAIR_DETAILS_AT_ONCE = 20;

/**
 * The rows of the rounds table, as compact as the worker sends them: the
 * rounds' ids, and typed arrays of nonces, results (0 verified, 1 failed,
 * 2 after reveal) and indexes into the short lists of the games' texts and
 * the statuses met. `count` rows; the arrays grow as windows arrive.
 */
function pairRows(expected) {
  const rows = {
    count: 0,
    ids: [],
    nonces: new Float64Array(Math.max(expected, 16)),
    results: new Uint8Array(Math.max(expected, 16)),
    games: new Uint16Array(Math.max(expected, 16)),
    statuses: new Uint16Array(Math.max(expected, 16)),
    gameTexts: [],
    statusList: [],
  };
  rows.add = (data) => {
    for (const game of data.newGames) {
      let text;
      try {
        text = gameText(game);
      } catch {
        text = shownText(JSON.stringify(game));
      }
      rows.gameTexts.push(text);
    }
    rows.statusList.push(...data.newStatuses);
    const n = data.ids.length;
    if (rows.count + n > rows.nonces.length) {
      const size = Math.max(rows.count + n, rows.nonces.length * 2);
      for (const name of ["nonces", "results", "games", "statuses"]) {
        const grown = new rows[name].constructor(size);
        grown.set(rows[name].subarray(0, rows.count));
        rows[name] = grown;
      }
    }
    rows.nonces.set(data.nonces, rows.count);
    rows.results.set(data.results, rows.count);
    rows.games.set(data.games, rows.count);
    rows.statuses.set(data.statuses, rows.count);
    for (let i = 0; i < n; i++) rows.ids.push(data.ids[i]);
    rows.count += n;
  };
  return rows;
}

/**
 * Checks every round of `pair` in the worker. `onProgress(checked, total)`
 * is called as windows are done. Resolves to `{ summary, rows, checkpoint }`
 * (rows: pairRows).
 */
function bulkCheckPair(pair, vkey, logged, onProgress, checkpointNote = null) {
  return new Promise((resolve, reject) => {
    // WORKER_SOURCE is defined by the release build only.
    const bundled = typeof WORKER_SOURCE === "string" ? WORKER_SOURCE : null;
    const url = bundled === null
      ? new URL("../verify-worker.mjs", import.meta.url)
      : URL.createObjectURL(new Blob([bundled], { type: "text/javascript" }));
    let worker;
    try {
      // The bundle is a classic script: a page opened from a file may start
      // a classic worker from a blob: URL, not a module one.
      worker = new Worker(url, { type: bundled === null ? "module" : "classic", name: "fairdeal pair check" });
    } catch (error) {
      if (bundled !== null) URL.revokeObjectURL(url);
      reject(new Error(`this browser could not start the page's worker: ${error.message || error}`));
      return;
    }
    const rows = pairRows(Number(pair.next_nonce) || 0);
    let checkpoint = null;
    const finish = (settle, value) => {
      worker.terminate();
      if (bundled !== null) URL.revokeObjectURL(url);
      settle(value);
    };
    worker.onmessage = ({ data }) => {
      if (data.type === "progress") {
        onProgress(data.checked, data.total);
      } else if (data.type === "checkpoint") {
        checkpoint = data.checkpoint;
      } else if (data.type === "rows") {
        rows.add(data);
      } else if (data.type === "done") {
        finish(resolve, { summary: data.summary, rows, checkpoint });
      } else if (data.type === "error") {
        finish(reject, new Error(data.message));
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      finish(reject, new Error(`the page's worker failed: ${event.message || "unknown error"}`));
    };
    worker.postMessage({ origin: service, pair, vkey, logged, checkpointNote });
  });
}

/** "N of M rounds checked", with a progress bar: shown while the worker runs, and kept after. */
function progressEl(total) {
  const bar = el("progress", { max: Math.max(total, 1), value: 0, "aria-label": "rounds checked" });
  const text = el("span", { "data-progress-text": "", text: `0 of ${total} rounds checked` });
  const node = el("p", { class: "progress", "data-progress": "", role: "status" }, bar, " ", text);
  node.update = (checked, of) => {
    bar.max = Math.max(of, checked, 1);
    bar.value = checked;
    text.textContent = `${checked} of ${of} rounds checked`;
    node.dataset.checked = String(checked);
    node.dataset.total = String(of);
  };
  node.update(0, total);
  return node;
}

/**
 * A round's full report, drawn when asked for (its own request and
 * receipt); `shared`: its pair's entries and same-seed findings, checked
 * once by the pair's page.
 */
async function roundDetailEl(id, shared = null) {
  const { status, body } = await getJson(`/v1/rounds/${encodeURIComponent(id)}`);
  if (status !== 200) {
    return el("p", { class: "error", "data-round": id }, `Round ${id} could not be read: ${body.detail || `the server answered ${status}`}.`);
  }
  const { box } = await roundReport(body, { shared });
  return box;
}

/** The failed rounds, first: each by nonce and id, with every reason and its report on demand. */
function failuresEl(summary, showRound) {
  const list = el("ol", { class: "failures", "data-failures": "" });
  for (const failure of summary.failures) {
    const button = el("button", { type: "button", class: "secondary", text: "Show this round" });
    button.addEventListener("click", () => showRound(failure.id));
    list.append(el("li", { class: "error", "data-nonce": failure.nonce, "data-round": failure.id },
      el("strong", { text: `Round ${failure.nonce}` }), " (", el("span", { class: "mono", text: String(failure.id) }), "): ",
      failure.reasons.join("; "), ". ", button));
  }
  const parts = [el("h3", { text: `Rounds that failed (${summary.failed})` }), list];
  if (summary.failed > summary.failures.length) {
    parts.push(el("p", { class: "note", text: `The first ${summary.failures.length} are listed; every failed round is marked in the table below.` }));
  }
  return el("div", { "data-failed-rounds": summary.failed }, parts);
}

/** The rounds table, a page of rows at a time, each row's report on demand. */
function roundsTableEl(rows, revealed, showRound, pendingText = "after reveal") {
  const tbody = el("tbody");
  const count = rows.count;
  const pages = Math.max(1, Math.ceil(count / PAIR_ROWS_PER_PAGE));
  const where = el("span", { "data-rows-shown": "" });
  const previous = el("button", { type: "button", class: "secondary", text: "Previous" });
  const next = el("button", { type: "button", class: "secondary", text: "Next" });
  const failedOnly = el("input", { type: "checkbox", id: "failed-only" });
  let page = 0;
  let shown = null; // every row; or the failed rows' indexes
  const draw = () => {
    const from = page * PAIR_ROWS_PER_PAGE;
    const total = shown ? shown.length : count;
    const slice = [];
    for (let k = from; k < Math.min(from + PAIR_ROWS_PER_PAGE, total); k++) slice.push(shown ? shown[k] : k);
    tbody.replaceChildren(...slice.map((i) => {
      const nonce = rows.nonces[i];
      const result = rows.results[i];
      const cell = result === 2 ? el("span", { class: "check", "data-result": "pending", text: pendingText })
        : checkEl(`round ${nonce}`, result === 0, "");
      const button = el("button", { type: "button", class: "secondary", text: "Show" });
      button.addEventListener("click", () => showRound(rows.ids[i]));
      return el("tr", { "data-nonce": nonce, class: result === 1 ? "diff" : null },
        el("td", { class: "nonce", text: String(nonce) }),
        el("td", { class: "id mono", text: rows.ids[i] }),
        el("td", { class: "game", text: rows.gameTexts[rows.games[i]] }),
        el("td", { class: "status", text: statusText(rows.statusList[rows.statuses[i]]) }),
        el("td", { class: "verdict" }, cell),
        el("td", { class: "action" }, button));
    }));
    where.textContent = total ? `rows ${from + 1}–${Math.min(from + PAIR_ROWS_PER_PAGE, total)} of ${total}` : "no rows";
    previous.disabled = page === 0;
    next.disabled = from + PAIR_ROWS_PER_PAGE >= total;
  };
  previous.addEventListener("click", () => { page -= 1; draw(); });
  next.addEventListener("click", () => { page += 1; draw(); });
  failedOnly.addEventListener("change", () => {
    shown = null;
    if (failedOnly.checked) {
      shown = [];
      for (let i = 0; i < count; i++) if (rows.results[i] === 1) shown.push(i);
    }
    page = 0;
    draw();
  });
  draw();
  const table = el("table", { class: "rounds" },
    el("thead", {}, el("tr", {}, ["Nonce", "Round", "Game", "Status", "Verified", ""].map((h, i) =>
      el("th", { class: i === 1 ? "id" : null, scope: "col", text: h })))),
    tbody);
  const controls = el("div", { class: "pager", "data-pager": "" }, previous, " ", where, " ", next);
  if (pages > 1 || revealed) {
    controls.append(" ", el("label", { for: "failed-only", class: "inline" }, failedOnly, " failed rounds only"));
  }
  return el("div", { "data-rounds": count }, table, controls);
}

export async function lookUpPair(id, target) {
  const { status, body: pair } = await getJson(`/v1/seed-pairs/${encodeURIComponent(id)}`);
  if (status === 404) return false;
  if (status !== 200) throw new Error(pair.detail || `the server answered ${status}`);
  if (pair.id !== id) {
    target.replaceChildren(...answeredAnother("seed pair", id, pair.id));
    return true;
  }
  const total = Number(pair.next_nonce) || 0;
  const progress = progressEl(total);
  target.replaceChildren(el("p", { text: `Checking seed pair ${pair.id}: every round's cards and its place in the log, in this browser.` }), progress);

  const vkey = onServer ? await logVkey() : "";
  // The pair's commit and client seed entries: what the log bound its rounds to.
  const entries = await pairEntryChecks(pair, { commitName: "log", clientSeedRequired: Number(pair.next_nonce) > 0 });
  const logged = [...entries.nodes];
  // With a witness policy, every round is proven against the latest
  // checkpoint the player's witnesses cosigned.
  const view = vkey ? await witnessView(vkey) : null;
  const policy = view && view.policy;
  const [bulk, sharing] = await Promise.all([
    // Every round of a pair must be in the log: a round without an entry fails.
    bulkCheckPair(pair, vkey, Boolean(vkey), (checked, of) => progress.update(checked, of),
      policy && view.trusted ? view.trusted.note : null),
    sameClientSeed(pair, entries),
  ]);
  const { summary, rows } = bulk;
  progress.update(summary.listed, Math.max(total, summary.listed));
  // What the monitors the player keeps signed about the pair: a finding naming its entries or its id; a statement
  // must have read past its last round's entry to speak of all of it.
  const monitored = await monitorChecks(entries.checkpoint,
    [entries.commitIndex, entries.clientSeedIndex, summary.log ? summary.log.last : null], [pair.id]);
  logged.push(...monitored);

  const facts = el("dl", { class: "facts" });
  fact(facts, "Seed pair", pair.id, true);
  const chain = isChainRecord(pair) ? summary.chain : null;
  fact(facts, "Status", chain && pair.status === "active"
    ? "active (dealing; each round's seed is published once it and every earlier round have ended)" : statusText(pair.status));
  fact(facts, chain ? "Chain commitment" : "Commitment", pair.server_seed_hash, true);
  if (pair.client_seed === null || pair.client_seed === undefined) fact(facts, "Client seed", "(not set yet)");
  else shownFact(facts, "Client seed", pair.client_seed, { copyable: true });
  if (chain) {
    fact(facts, "Protocol", "fairdeal-chain-v1 (every round has its own seed, from a chain committed before play)");
    fact(facts, "Chain length", `${chain.length} rounds`);
    fact(facts, "Rounds published", `${pair.chain.published_rounds} of ${total} dealt`);
  }
  if (pair.server_seed) fact(facts, chain ? "Chain tip (revealed)" : "Server seed", pair.server_seed, true);
  fact(facts, "Next commitment", pair.next_server_seed_hash, true);
  const parts = [el("h3", { text: "Seed pair" }), facts];

  // A table pair: its rounds must all be dealt with the derived client seed.
  const offSeed = new Set(summary.failures.filter((f) => f.reasons.some((r) => r.includes("another client seed"))).map((f) => f.nonce));
  const asRounds = pair.table ? Array.from(rows.nonces.subarray(0, rows.count), (nonce) => ({ nonce, client_seed: offSeed.has(nonce) ? undefined : pair.client_seed })) : [];
  const table = pair.table ? await tableReport(pair, pair.client_seed, "pair", asRounds) : null;

  // The pair's own checks: its commitment in the log, its client seed's
  // other pairs, and its rounds' entries against one checkpoint.
  const logFailed = summary.failures.filter((f) => f.reasons.some((r) => r.startsWith("log:") || r.includes("log evidence") || r.includes("log entry") || r.includes("log index"))).length;
  const roundsText = summary.log && `${summary.log.proven} round entries proven in the checkpoint of ${summary.log.size} entries`
    + `${summary.log.pending ? `; ${summary.log.pending} not in it yet` : ""}`;
  // With a policy: no checkpoint the witnesses cosigned, or rounds newer than it, are not yet trusted.
  const roundsUntrusted = Boolean(summary.log && policy && logFailed === 0 && (!view.trusted || summary.log.pending > 0));
  const roundsLog = !summary.log ? null
    : roundsUntrusted
      ? untrustedCheckEl("rounds in log", `${roundsText}; ${view.trusted ? "the rounds not in it are newer than the latest "
        + "checkpoint the witnesses you trust signed" : "no checkpoint is signed by the witnesses you trust yet"}`)
      : checkEl("rounds in log", logFailed === 0,
        `${roundsText}${policy && view.trusted ? `; witnessed by ${view.trusted.names.join(", ")}` : ""}`);
  if (roundsLog) roundsLog.dataset.proven = String(summary.log.proven);
  // Rounds not in the checkpoint yet: the page looks again by itself (lookUp).
  if (roundsLog && summary.log.pending > 0) roundsLog.dataset.awaitingCheckpoint = "";
  if (roundsLog && policy && view.trusted) roundsLog.dataset.witnessedBy = view.trusted.names.join(" ");
  const pairUntrusted = roundsUntrusted || logged.some(untrustedLog);
  const sharingChecks = sharing.parts.filter((node) => node.tagName === "SPAN");
  // A chain pair: its published seeds linked down to the commitment; a
  // revealed one's tip down to the last of them and to the commitment.
  const chainChecks = [];
  const chainOk = !chain || (chain.linked === chain.published && (!chain.tip || (chain.tip.toLast !== false && chain.tip.toCommitment)));
  if (chain) {
    const linkNode = checkEl("chain", chain.linked === chain.published,
      `${chain.linked} of ${chain.published} published seeds hash to the seed before them, the first to the commitment`);
    linkNode.dataset.linked = String(chain.linked);
    chainChecks.push(linkNode);
    if (chain.tip) {
      chainChecks.push(checkEl("chain tip", chain.tip.toLast !== false && chain.tip.toCommitment,
        `the revealed tip hashes ${chain.length} times to ${chain.tip.computedCommitment || "?"}`));
    }
  }
  if (logged.length || sharingChecks.length || roundsLog || chainChecks.length) {
    parts.push(el("div", { class: "checks", "data-pair-checks": "" }, ...logged.filter((node) => node.tagName === "SPAN"), ...sharingChecks, roundsLog, ...chainChecks),
      ...logged.filter((node) => node.tagName !== "SPAN"), ...sharing.parts.filter((node) => node.tagName !== "SPAN"));
  }
  const pairLogOk = !logged.some(failedLog) && !sharingChecks.some(failedLog);

  // Every nonce from 0 must be listed once: a gap is a deal drawn and hidden.
  const n = summary.listed;
  const complete = summary.missing === 0 && summary.disorder === 0 && n === total;
  const gapText = summary.gaps.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
  parts.push(el("p", {},
    checkEl("nonces", complete, ""),
    complete
      ? ` ${n} round${n === 1 ? "" : "s"}, nonces 0 to ${n - 1} with no gap.`
      : ` Rounds are missing: expected nonces 0 to ${total - 1}, listed ${n}${gapText ? `; not listed: ${gapText}${summary.gaps.length >= 20 ? ", …" : ""}` : ""}.`));
  if (table) parts.push(table.node);
  const waiting = chain ? chainWaitingWords(chain.hidden, chain.firstHidden, chain.inPlay) : "";
  if (chain) {
    parts.push(el("p", { class: "note", "data-chain-note": "" }, chain.published
      ? `Rounds 0 to ${chain.published - 1} have their seeds published: each is checked on its own seed, which must hash to `
        + "the seed before it (round 0's to the commitment published before play)."
      : "No round's seed is published yet.", waiting ? ` ${waiting}` : ""));
    if (chain.tip && !(chain.tip.toLast !== false && chain.tip.toCommitment)) {
      parts.push(el("p", { class: "error", "data-explain": "chain-tip", text: chain.tip.error
        ? `The revealed tip cannot be checked: ${chain.tip.error}.`
        : `The revealed tip hashes ${chain.length} times to ${chain.tip.computedCommitment}, `
          + `${chain.tip.toCommitment ? "the commitment" : `not the commitment ${pair.server_seed_hash}`}`
          + `${chain.tip.toLast === false ? `, and does not hash down to the seed of round ${chain.lastLinked - 1}` : ""}.` }));
    }
  } else if (!pair.server_seed) {
    parts.push(el("p", { class: "note", text: "This pair is not revealed yet: its rounds become verifiable after rotation." }));
  }
  if (summary.commitment && !summary.commitment.ok) {
    parts.push(el("p", { class: "error", "data-explain": "commitment",
      text: `The revealed seed hashes to ${summary.commitment.computed}, not to the published commitment ${pair.server_seed_hash}.` }));
  }
  parts.push(progress);
  if (chain) {
    parts.push(el("p", { "data-summary": "", text: `${summary.passed} of ${n} rounds verified`
      + `${chain.hidden ? `; ${chain.hidden} not published yet` : ""}.` }));
  } else if (pair.server_seed) {
    parts.push(el("p", { "data-summary": "", text: `${summary.passed} of ${n} rounds verified.` }));
  }

  // The failures first, then the table; a round's report where it is asked for.
  const detail = el("div", { "data-round-detail": "" });
  const showRound = async (roundId) => {
    detail.replaceChildren(el("p", { text: `Reading round ${roundId}…` }));
    detail.scrollIntoView({ block: "nearest" });
    try {
      detail.replaceChildren(el("h3", { text: "Round" }), await roundDetailEl(roundId, { entries, sharing }));
    } catch (error) {
      showError(detail, error);
    }
  };
  if (summary.failed) parts.push(failuresEl(summary, showRound));
  parts.push(el("h3", { text: "Rounds" }), roundsTableEl(rows, Boolean(pair.server_seed) || Boolean(chain), showRound,
    chain ? "seed not published yet" : "after reveal"), detail);
  if (n <= PAIR_DETAILS_AT_ONCE) {
    const boxes = [];
    for (const roundId of rows.ids) boxes.push(await roundDetailEl(roundId, { entries, sharing }));
    detail.replaceChildren(...boxes);
  } else {
    detail.append(el("p", { class: "note", text: "Choose Show on a round to see its cards and every check of it." }));
  }

  const firstFailure = summary.failures[0];
  const fromSeats = table && table.checked.seed.status === "pass" ? " The client seed is the one derived from every seat's contribution." : "";
  const collecting = table && !table.voided && (table.checked.waiting.length > 0 || pair.status === "awaiting_contributions");
  const failedText = () => [`${summary.failed} of ${n} round${n === 1 ? "" : "s"} failed, first round ${firstFailure.nonce} (`,
    el("span", { class: "mono", text: String(firstFailure.id) }), `): ${firstFailure.reasons[0]}. Every failure is listed below.`];
  const verdict = !complete
    ? verdictEl("fail", `Rounds are missing from this seed pair's record (expected nonces 0 to ${total - 1}${gapText ? `; not listed: ${gapText}` : ""}).`)
    : sharing.shopped.length
      ? verdictEl("fail", `This pair's client seed${sharing.shopped.some((o) => o.lookalike) ? ", or one that looks like it," : ""} `
        + "was given to another pair of the same tenant at the same time: deals could have been shopped (details below).")
    : monitored.some(failedLog)
      ? verdictEl("fail", "A monitor you keep read the whole log and signed that it found problems with this seed pair "
        + "(details below).")
    : !pairLogOk
      ? verdictEl("fail", "The transparency log does not back this pair's record (details below).")
    : table && !table.ok
      ? verdictEl("fail", table.verdict)
    : summary.failed && summary.commitment && !summary.commitment.ok
      ? verdictEl("fail", `The revealed server seed does not match its published commitment, so none of the ${n} rounds is what fairdeal-v1 deals from it.`)
    : summary.failed
      ? verdictEl("fail", failedText())
    : !chainOk
      ? verdictEl("fail", "The revealed tip of this pair's chain does not hash down to its rounds' seeds and its commitment (details below).")
    : chain && !chain.published
      ? verdictEl("pending", `${n} round${n === 1 ? "" : "s"} with no gap so far${summary.log && summary.log.proven ? ", each in the log" : ""}; `
        + `no round's seed is published yet. ${waiting}`)
    : chain
      ? plainVerdictEl("pass", "PASS", `${n === 1 ? "This round's cards are" : `All ${n} rounds' cards are`} what the `
        + `chain committed before play deals, with no round missing.${waiting ? ` ${waiting}` : ""}`,
      `${summary.passed} of ${n} round${n === 1 ? "" : "s"} verified, nonces 0 to ${n - 1} with no gap: `
        + "each published seed hashes to the one before it, the first to the commitment published before play, "
        + `and every card is what fairdeal-v1 deals${summary.log && summary.log.proven === n ? "; every round is in the log's checkpoint" : ""}`
        + `${chain.tip ? "; the revealed tip hashes down to the last round's seed and to the commitment" : ""}.`)
    : table && table.voided
      ? verdictEl("pass", "This table was voided: it dealt nothing, and its server seed is revealed and opens the "
        + "commitment published before any seat committed.", voidedWhy(pair.table))
    : collecting
      ? verdictEl("pending", `This table is still collecting its seats' ${pair.table.phase === "commit" ? "commitments" : "contributions"}`
        + ` (${pair.table.phase === "commit"
          ? `${table.checked.seats.filter((r) => r.commitment !== null).length} of ${table.checked.seats.length} committed`
          : `${table.checked.seats.length - table.checked.waiting.length} of ${table.checked.seats.length} revealed`}`
        + `${pair.table.deadline ? `; deadline ${pair.table.deadline}` : ""}). Nothing is dealt before every seat has revealed.`)
    : !pair.server_seed
      ? verdictEl("pending", `${n} round${n === 1 ? "" : "s"} with no gap so far${summary.log && summary.log.proven ? ", each in the log" : ""}; `
        + `the cards can be checked once the seed is revealed.${fromSeats}`)
      : summary.passed === n
        ? verdictEl("pass", `All ${n} round${n === 1 ? "" : "s"} verified, nonces 0 to ${n - 1} with no gap`
          + `${summary.log && summary.log.proven === n ? ", every one in the log's checkpoint" : ""}.${fromSeats}`)
        : verdictEl("fail", `${n - summary.passed} of ${n} rounds are not verified (details below).`);
  if (pairUntrusted && verdict.dataset.verdict === "pass") {
    // Never a PASS for the log part the player's witnesses do not vouch for.
    verdict.dataset.verdict = "pending";
    verdict.firstChild.textContent = "NOT YET TRUSTED";
    const plain = verdict.querySelector(".plain");
    if (plain) {
      plain.textContent = UNTRUSTED_SENTENCE;
      addToWhy(verdict, ` ${UNTRUSTED_WHY}`);
    } else {
      verdict.append(" But the witnesses you trust have not yet signed a checkpoint of the log that holds all of it, so it is "
        + "not yet shown that everyone is shown the same log (details below). Check again later.");
    }
  }
  const awaiting = logged.some(awaitingLog) || Boolean(sharing.waiting) || Boolean(summary.log && summary.log.pending > 0);
  const warned = { foreign: sharing.foreign, monitorWarned: monitored.some((node) => node.dataset.result === "warning"),
    unverifiedHolders: (sharing.unverified || []).length };
  target.replaceChildren(withWarnings(awaitingVerdict(verdict, { waiting: awaiting }), warned), ...parts);
  return true;
}
