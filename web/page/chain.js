// fairdeal-chain-v1 rounds on the page (docs/PROTOCOL.md §13): a chain
// round's seed checked against the previous round's seed (or the pair's
// commitment, for round 0) and down the whole chain to the commitment, its
// cards with fairdeal-v1, and the log entry that published its seed; a
// round whose seed is still hidden says which hand in play holds it back.
// The chain's code is fairdeal-chain.mjs (imported below); a
// whole chain pair is checked in the worker (verify-worker.mjs).

import { CHAIN_PROTOCOL, chainHashDownInChunks, chainHiddenWords } from "../fairdeal-chain.mjs";
import { commitment, hexToBytes, verifyRound } from "../fairdeal-v1.mjs";
import { shownLabel } from "../seed-display.mjs";
import { awaitingLog, logChecks, untrustedLog } from "./log.js";
import { UNTRUSTED_SENTENCE, UNTRUSTED_WHY, addToWhy, failedLog, plainVerdictEl, roundEvidence, verdictEl }
  from "./lookup.js";

/** A passing chain round's verdict, in one plain sentence. */
export const CHAIN_CARDS_SENTENCE = "These cards are what the chain committed before play deals with your client seed "
  + "and nonce.";
import { checkEl, dealEl, el, fact, getJson } from "./views.js";

/** Whether a round's or a pair's record is fairdeal-chain-v1's. */
export function isChainRecord(record) {
  return Boolean(record) && record.protocol === CHAIN_PROTOCOL;
}

/**
 * The round of pair `pairId` with nonce `nonce`, read from the pair's
 * rounds list (one row after nonce − 1), or null when the list has none.
 * Throws when the server does not answer.
 */
async function roundAtNonce(pairId, nonce) {
  const query = nonce === 0 ? "limit=1" : `after=${nonce - 1}&limit=1`;
  const { status, body } = await getJson(`/v1/seed-pairs/${encodeURIComponent(pairId)}/rounds?${query}`);
  if (status !== 200) throw new Error(body.detail || `the rounds of seed pair ${pairId} could not be read (the server answered ${status})`);
  const round = Array.isArray(body.rounds) ? body.rounds[0] : null;
  return round && Number(round.nonce) === nonce ? round : null;
}

/**
 * Why a chain round's seed is hidden: `{ text, blocking }`, blocking the
 * pair's first round whose seed is not published (read from the pair's
 * `chain.published_rounds` and its rounds list) when it is an earlier one.
 */
async function chainHiddenWhy(round) {
  let blocking = null;
  try {
    const { status, body: pair } = await getJson(`/v1/seed-pairs/${encodeURIComponent(round.seed_pair_id)}`);
    const published = status === 200 && pair.chain ? Number(pair.chain.published_rounds) : NaN;
    if (Number.isSafeInteger(published) && published < Number(round.nonce)) {
      blocking = await roundAtNonce(round.seed_pair_id, published);
    }
  } catch {
    blocking = null; // Not read: the words say only what the round itself shows.
  }
  return { text: chainHiddenWords(round, blocking), blocking };
}

/** Whether a log entry is the one that published this chain round's seed. */
const roundSeedEntry = (round) => (entry) => entry.type === "round_seed" && entry.round === round.id
  && String(entry.nonce) === String(round.nonce) && entry.seed_pair === round.seed_pair_id
  && String(entry.server_seed).toLowerCase() === String(round.server_seed).toLowerCase();

/**
 * A chain round's report, into `box` (its facts list `facts` already holds
 * the round's own): `{ box, ok, verdict }`, ok null while its seed is
 * hidden. `onHashProgress(done, of)` follows the hashing down the chain.
 */
export async function chainRoundReport(round, box, facts, { onHashProgress, shared, linkIndex } = {}) {
  const nonce = Number(round.nonce);
  const position = Number(round.chain && round.chain.position);
  const length = Number(round.chain && round.chain.length);
  fact(facts, "Protocol", "fairdeal-chain-v1 (every round has its own seed, from a chain committed before play)");
  fact(facts, "Place in the chain", `seed ${position} of ${length}`);
  if (!round.server_seed) {
    const evidence = await roundEvidence(round, shared, linkIndex);
    const why = await chainHiddenWhy(round);
    const inPlay = why.blocking && why.blocking.status === "in_play" ? Number(why.blocking.nonce)
      : round.status === "in_play" ? nonce : null;
    box.append(el("p", { class: "check", "data-check": "reveal", "data-result": "pending",
      text: "Not yet verifiable: this round's server seed is hidden while a hand is in play." }));
    const note = el("p", { class: "note", "data-chain-hidden": "", "data-in-play": inPlay === null ? null : String(inPlay) }, why.text);
    if (why.blocking) {
      note.append(" ", el("a", { href: `?round=${encodeURIComponent(why.blocking.id)}`, text: `See the round with nonce ${why.blocking.nonce}` }), ".");
    }
    box.append(note);
    box.append(el("div", { class: "checks" }, ...evidence.nodes.filter((node) => node.tagName === "SPAN")),
      ...evidence.nodes.filter((node) => node.tagName !== "SPAN"));
    if (!evidence.ok) {
      return { box, ok: false, evidence, verdict: verdictEl("fail", "The transparency log does not back this round as the "
        + "service shows it (details below): the log is what the operator signed when it dealt.") };
    }
    const verdict = verdictEl("pending", why.text);
    return { box, ok: null, verdict, evidence, untrusted: evidence.untrusted };
  }
  fact(facts, "Server seed", round.server_seed, true);

  // What the seed must hash to: the commitment for round 0, else the
  // previous round's published seed.
  const reasons = [];
  let against = null;
  let previous = null;
  if (nonce === 0) {
    against = String(round.server_seed_hash).toLowerCase();
  } else {
    previous = await roundAtNonce(round.seed_pair_id, nonce - 1);
    if (!previous) {
      reasons.push(`round ${nonce - 1}, before it, is not in its seed pair's record`);
    } else if (typeof previous.server_seed !== "string") {
      reasons.push(`the seed of round ${nonce - 1}, before it, is not published though this later one is (this seed reveals it)`);
    } else {
      against = previous.server_seed.toLowerCase();
      fact(facts, `Seed of round ${nonce - 1}`, previous.server_seed, true);
    }
  }
  const againstWords = nonce === 0 ? "the pair's commitment" : `the previous round's seed (nonce ${nonce - 1})`;

  let seedOk = true;
  let linkComputed = "";
  try {
    linkComputed = await commitment(hexToBytes(round.server_seed));
  } catch (error) {
    seedOk = false;
    reasons.push(`its server seed is not a seed: ${error.message || error}`);
  }
  const linkOk = seedOk && against !== null && linkComputed === against;

  // The whole chain: SHA-256 `position` times gives the commitment.
  let chainOk = false;
  let chainComputed = "";
  if (seedOk && position === nonce + 1 && position <= length) {
    chainComputed = await chainHashDownInChunks(round.server_seed, position, { onProgress: onHashProgress });
    chainOk = chainComputed === String(round.server_seed_hash).toLowerCase();
  } else if (seedOk) {
    reasons.push(`its place in the chain (${position} of ${length}) is not its nonce + 1`);
  }

  // The cards: the fairdeal-v1 round of this seed, checked as any other.
  let result = null;
  if (seedOk) {
    try {
      result = await verifyRound({ ...round, server_seed_hash: against || "" });
    } catch (error) {
      reasons.push(`its record cannot be dealt: ${error.message || error}`);
    }
  }
  const dealOk = Boolean(result && result.deal.ok);

  // The log: the round's own entry, and the entry that published its seed.
  const evidence = await roundEvidence(round, shared, linkIndex);
  const logged = evidence.nodes;
  const seedLogged = await logChecks(`/v1/rounds/${encodeURIComponent(round.id)}/seed-receipt`, roundSeedEntry(round),
    { name: "seed log", required: true });
  const spans = (nodes) => nodes.filter((node) => node.tagName === "SPAN");
  const others = (nodes) => nodes.filter((node) => node.tagName !== "SPAN");
  box.append(el("div", { class: "checks" },
    checkEl("chain link", linkOk, against === null ? "" : `SHA-256 of this seed is ${linkComputed}; ${againstWords} is ${against}`),
    checkEl("chain", chainOk, `SHA-256 applied ${position} times to this seed gives ${chainComputed}`),
    checkEl("deal", dealOk, dealOk ? "every card matches" : ""),
    ...spans(logged), ...spans(seedLogged)),
  ...others(logged), ...others(seedLogged));

  const checked = el("ul", { class: "chain-checked", "data-chain-checked": "" },
    el("li", { "data-result": linkOk ? "pass" : "fail" },
      linkOk ? `This seed hashes to ${againstWords}.` : `This seed does not hash to ${againstWords}.`),
    el("li", { "data-result": chainOk ? "pass" : "fail" }, chainOk
      ? `The whole chain links to the commitment published before play: SHA-256 applied ${position} time${position === 1 ? "" : "s"} to this seed gives it.`
      : "This seed does not hash down to the commitment published before play."),
    el("li", { "data-result": dealOk ? "pass" : "fail" }, dealOk
      ? `The cards are what fairdeal-v1 deals for this seed, the client seed, nonce ${nonce} and the game.`
      : "The recorded cards are not what fairdeal-v1 deals for this seed, the client seed, the nonce and the game."));
  box.append(el("p", { text: "What this page checked:" }), checked);

  if (seedOk && against !== null && !linkOk) {
    box.append(el("p", { class: "error", "data-explain": "chain-link",
      text: `SHA-256 of this round's seed is ${linkComputed}, not ${againstWords}, ${against}.` }));
    reasons.push(`its server seed does not hash to ${againstWords}`);
  }
  if (seedOk && !chainOk && chainComputed) {
    box.append(el("p", { class: "error", "data-explain": "chain",
      text: `SHA-256 applied ${position} times to this round's seed gives ${chainComputed}, not the pair's commitment ${round.server_seed_hash}: it is not the chain's seed ${position}.` }));
    reasons.push("its server seed is not in the chain committed before play");
  }
  if (result && !result.deal.ok) {
    const d = result.deal.difference;
    box.append(el("p", { class: "error", "data-explain": "deal" },
      `The recorded cards differ from the recomputed ones: at ${d.slot} the record says `, shownLabel(String(d.recorded)),
      `, fairdeal-v1 deals ${d.computed}.`));
    box.append(el("p", { text: "Recorded:" }), dealEl(round.deal || {}, d.slot));
    box.append(el("p", { text: "Recomputed in this browser:" }), dealEl(result.deal.computed, d.slot));
    reasons.push("its recorded cards are not what fairdeal-v1 deals from its seed");
  } else if (result) {
    box.append(dealEl(round.deal));
  }
  const logOk = evidence.ok && !seedLogged.some(failedLog);
  if (!logOk) reasons.push("the transparency log does not back it");
  if (!linkOk && chainOk && nonce > 0 && against !== null) {
    reasons.push(`this seed is in the committed chain, so it is the record of round ${nonce - 1}, before it, whose seed is wrong`);
  }
  const ok = reasons.length === 0 && linkOk && chainOk && dealOk && logOk;
  const seedLogPassed = seedLogged.some((node) => node.dataset.check === "seed log" && node.dataset.result === "pass");
  const verdict = ok
    ? plainVerdictEl("pass", "PASS", CHAIN_CARDS_SENTENCE, `This seed hashes to ${againstWords}, the whole chain links to `
      + `the commitment published before play (${position} hash${position === 1 ? "" : "es"}), and every card is what `
      + `fairdeal-v1 deals for this seed, the client seed, nonce ${nonce} and the game.`
      + `${seedLogPassed ? " The log shows when its seed was published." : ""}`)
    : verdictEl("fail", `Round ${nonce} (`, el("span", { class: "mono", text: String(round.id) }), `) fails: ${reasons.join("; ")}. Details below.`);
  const untrusted = logged.some(untrustedLog) || seedLogged.some(untrustedLog);
  if (ok && untrusted) {
    // Never a PASS for the log part the player's witnesses do not vouch for.
    verdict.dataset.verdict = "pending";
    verdict.firstChild.textContent = "NOT YET TRUSTED";
    verdict.querySelector(".plain").textContent = UNTRUSTED_SENTENCE;
    addToWhy(verdict, ` ${UNTRUSTED_WHY}`);
  }
  // The entry that published the seed, not yet read or not yet in a checkpoint: never a PASS yet.
  if (seedLogged.some(awaitingLog)) evidence.waiting = true;
  return { box, ok, verdict, untrusted, evidence };
}
