// Looking a record up by id: a round's report (also a pair's round's detail,
// on demand), the dispatch between rounds and pairs.

// ---- Look up by id -------------------------------------------------------

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
function statusText(status) {
  return STATUS_WORDS[status] || status;
}

/**
 * The one-line verdict shown first: "pass", "fail" or "pending"; `parts`:
 * the sentence (strings, nodes, { label } parts).
 */
function verdictEl(result, ...parts) {
  const word = { pass: "PASS", fail: "FAIL", pending: "NOT YET VERIFIABLE" }[result];
  return wordVerdictEl(result, word, ...parts);
}

/** A verdict with its own first word (e.g. "CHECKED IN PART"). */
function wordVerdictEl(result, word, ...parts) {
  return el("p", { class: "verdict", role: "status", "data-verdict": result }, el("strong", { text: word }), " ", parts);
}

/** Whether a node from logChecks reports a failure or a fork. */
function failedLog(node) {
  return node.dataset.result === "fail" || node.dataset.fork !== undefined;
}

/**
 * The rounds this page has read, by commitment and nonce: "Recompute from
 * values" compares what is typed there with the round's recorded values.
 */
const knownRounds = new Map();

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
async function roundReport(round, options = {}) {
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
    box.append(el("p", { class: "check", "data-check": "reveal", "data-result": "pending",
      text: "Not yet verifiable: the server seed is still secret." }));
    box.append(el("p", { class: "note", text: "The operator committed to this hash before your client seed was set. " +
      "It reveals the seed when the seed pair is rotated, after its last hand; then this page can recompute every card. " +
      "The cards are not shown before then." }));
    return { box, ok: null };
  }
  fact(facts, "Server seed", round.server_seed, true);
  const result = await verifyRound(round);
  const logged = await logChecks(`/v1/rounds/${encodeURIComponent(round.id)}/receipt`, roundEntry(round));
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
  const logOk = !logged.some(failedLog);
  return { box, ok: result.commitment.ok && result.deal.ok && logOk, untrusted: logged.some(untrustedLog) };
}

async function lookUpRound(id, target) {
  const { status, body } = await getJson(`/v1/rounds/${encodeURIComponent(id)}`);
  if (status === 404) return false;
  if (status !== 200) throw new Error(body.detail || `the server answered ${status}`);
  const hashing = el("p", { "data-chain-progress": "", text: "Checking…" });
  target.replaceChildren(hashing);
  const { box, ok, verdict: own, untrusted } = await roundReport(body, {
    onHashProgress: (done, of) => {
      hashing.textContent = `Checking… hashing down the seed chain: ${done.toLocaleString("en")} of ${of.toLocaleString("en")} hashes`;
    },
  });
  // A table pair's round: its client seed must be the one derived from every seat.
  const table = await roundTable(body);
  const fromSeats = table.report && table.report.checked.seed.status === "pass"
    ? " Its client seed is the one derived from every seat's contribution." : "";
  const verdict = own && ok === false ? own
    : ok === false
    ? verdictEl("fail", "This record does not match what fairdeal-v1 deals from the committed seed (details below).")
    : table.report && !table.report.ok
      ? verdictEl("fail", table.report.verdict)
    : own
      ? own
    : ok === null
      ? verdictEl("pending", `The server seed is still secret: this round can be checked once its seed pair is revealed.${fromSeats}`)
    : untrusted
      ? wordVerdictEl("pending", "NOT YET TRUSTED", "The seed matches its published commitment, and every card is what "
        + `fairdeal-v1 deals.${fromSeats} But the witnesses you trust have not yet signed a checkpoint of the log that holds `
        + "this round, so it is not yet shown that everyone is shown the same log (details below). Check again later.")
      : verdictEl("pass", `The seed matches its published commitment, and every card is what fairdeal-v1 deals.${fromSeats}`);
  target.replaceChildren(verdict, el("h3", { text: "Round" }), box, ...table.parts,
    el("p", {}, el("a", { href: `?pair=${encodeURIComponent(body.seed_pair_id)}`, text: "See every round of its seed pair" })));
  return true;
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
    return { report: null, parts: [el("p", { class: "note", text: "This round's seed pair could not be read, so whether it "
      + "is a table's (and its client seed derived from every seat) is not checked here; check again later." })] };
  }
  if (!answer.body.table) return { report: null, parts: [] };
  const report = await tableReport(answer.body, round.client_seed, "round");
  return { report, parts: [report.node] };
}

function voidedWhy(table) {
  const stalled = table.void && Array.isArray(table.void.stalled_seats) ? table.void.stalled_seats : [];
  if (!stalled.length) return "";
  return [` ${stalled.length === 1 ? "Seat" : "Seats"} `, quotedList(stalled), " did not "
    + `${table.void.phase === "commit" ? "commit" : "reveal"} before the ${table.void.phase} phase's deadline.`];
}

async function lookUp(id, kind) {
  const target = document.getElementById("lookup-result");
  target.replaceChildren(el("p", { text: "Checking…" }));
  resetWitnessView();
  try {
    const found = kind === "pair" ? await lookUpPair(id, target)
      : kind === "round" ? await lookUpRound(id, target)
      : (await lookUpRound(id, target)) || (await lookUpPair(id, target));
    if (!found) target.replaceChildren(el("p", { class: "error", role: "alert" }, "No round or seed pair has the id ", quoted(id), "."));
  } catch (error) {
    showError(target, error);
  }
}
