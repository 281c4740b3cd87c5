// A table pair's report (fairdeal-table-v1): seats, commitments, the
// derived client seed, voids, and "is my contribution in it?".

// ---- Tables (fairdeal-table-v1) ------------------------------------------

import { checkTable, findContribution, randomContribution } from "../fairdeal-table.mjs";
import { commitment, hexToBytes } from "../fairdeal-v1.mjs";
import { hasMarkedCharacters, quotedListParts, seatNameParts, shownLabel, shownPartsText } from "../seed-display.mjs";
import { checkEl, el, fact, markedNoteEl, quoted, showError, shownFact } from "./views.js";

const TABLE_PHASE_WORDS = {
  commit: "commit (each seat publishes the SHA-256 of its contribution)",
  reveal: "reveal (every seat has committed; each now reveals its contribution)",
  complete: "complete (every seat revealed; the client seed is derived)",
  void: "void (a seat stalled; the table dealt nothing)",
};

/** A seat as a person names it: its label, quoted, and its place from 1 (parts: the label an element of its own). */
const seatName = (row) => seatNameParts(row.seat, row.index);

/** Labels quoted and joined: “a”, “b” and “c” (parts). */
export const quotedList = (labels) => quotedListParts(labels);

/**
 * Why a seat's check says what it says, as parts: the commitment is the
 * record's, whatever it holds, so it is never spliced into the words.
 */
function seatReasonParts(row) {
  if (row.status === "fail" && row.computed !== null && typeof row.commitment === "string" && row.computed !== row.commitment) {
    return ["its SHA-256 is ", el("code", { text: row.computed }), ", not the commitment ", shownLabel(row.commitment)];
  }
  return row.reason || "";
}

/**
 * Why the table's client seed check failed, as parts: the client seed is
 * someone else's string, so it is never spliced into the reason's words.
 */
function seedReasonParts(seed) {
  if (seed.status === "fail" && seed.computed !== null && seed.expected !== null && seed.computed !== seed.expected) {
    return ["the seats' contributions derive ", el("code", { text: seed.computed }), ", not the client seed ", quoted(seed.expected)];
  }
  return seed.reason || "";
}

/** A check's badge for a table: pass, fail, or pending (not checkable yet). */
export function tableCheckEl(name, status, label, detail) {
  const text = status === "pass" ? `✔ PASS: ${label}` : status === "fail" ? `✘ FAIL: ${label}` : `… ${label}`;
  return el("span", { class: "check", "data-check": name, "data-result": status, title: detail || "" }, text);
}

/** Whether a pair is a voided table. */
const isVoidTable = (pair) => Boolean(pair.table) && (pair.status === "void" || pair.table.phase === "void");

/** A void table's revealed server seed against its commitment. */
async function voidCommitmentCheck(pair) {
  if (!pair.server_seed) {
    return { ok: false, node: checkEl("commitment", false, "the server seed is not shown"),
      text: "The table is void, but its server seed is not shown: a void table reveals it at once." };
  }
  let computed;
  try {
    computed = await commitment(hexToBytes(pair.server_seed));
  } catch (error) {
    return { ok: false, node: checkEl("commitment", false, error.message),
      text: `The table is void, but its revealed server seed is not a seed: ${error.message}.` };
  }
  const ok = computed === String(pair.server_seed_hash).toLowerCase();
  return { ok, node: checkEl("commitment", ok, `SHA-256 of the revealed seed is ${computed}`),
    text: ok ? null : `The revealed server seed hashes to ${computed}, not to the published commitment ${pair.server_seed_hash}.` };
}

/**
 * The table of a pair's report (or of a round's: then `clientSeed` is the
 * round's, which must be the derived one): the phase, any void and the
 * voids count, each seat with its commitment check, the derived seed's
 * check, and "is my contribution in it?". `rounds`: the rounds the pair
 * lists, when known: each must be dealt with the derived client seed, and a
 * void table deals none. Returns `{ node, ok, verdict }`:
 * `ok` false when a check fails, `verdict` the sentence for the page's verdict.
 */
export async function tableReport(pair, clientSeed, whose, rounds = []) {
  const table = pair.table;
  const voided = isVoidTable(pair);
  const checked = await checkTable({ table, client_seed: clientSeed ?? null });
  const box = el("div", { class: "table-pair", "data-table": table.phase });
  box.append(el("h3", { text: "Table" }));
  const facts = el("dl", { class: "facts" });
  fact(facts, "Protocol", table.protocol || "fairdeal-table-v1");
  fact(facts, "Phase", TABLE_PHASE_WORDS[table.phase] || String(table.phase));
  if (table.deadline) fact(facts, "Deadline", `${table.deadline} (a seat still missing then voids the table)`);
  fact(facts, "Seats", `${checked.seats.length}, in seat order`);
  box.append(facts);

  // How it was voided, and how often this operator's table was.
  if (table.void) {
    const stalled = Array.isArray(table.void.stalled_seats) ? table.void.stalled_seats : [];
    const did = table.void.phase === "commit" ? "commit" : "reveal their contribution";
    box.append(el("p", { class: "void-note", "data-table-void": table.void.phase, role: "note" },
      el("strong", { text: "Voided" }),
      ` in the ${table.void.phase} phase${table.void.voided_at ? ` at ${table.void.voided_at}` : ""}: `,
      stalled.length ? [`${stalled.length === 1 ? "seat" : "seats"} `, quotedList(stalled), ` did not ${did} before the deadline. `] : "",
      "The table dealt nothing; its server seed was revealed at once."));
  } else if (voided) {
    box.append(el("p", { class: "void-note", "data-table-void": "", role: "note",
      text: "This table is void: it dealt nothing, and its server seed was revealed at once." }));
  }
  if (Number.isInteger(table.voids)) {
    const n = table.voids;
    box.append(el("p", { class: n > 1 ? "warn" : "note", "data-table-voids": n },
      n === 0 ? "This table has never been voided."
        : `This table has been voided ${n === 1 ? "once" : `${n} times`}${voided ? ", this time included" : ""}.`,
      n > 1 ? " Each void throws a table away before its deal is known; a seat that reveals last could work out the "
        + "client seed first and refuse to reveal. Many voids are a warning sign." : ""));
  }

  // Each seat: its commitment, its contribution, and whether one opens the other.
  const list = el("ol", { class: "table-seats" });
  for (const row of checked.seats) {
    const seatFacts = el("dl", { class: "facts" });
    if (typeof row.commitment === "string") shownFact(seatFacts, "Commitment", row.commitment, { copyable: true, what: "commitment" });
    else fact(seatFacts, "Commitment", "(not committed yet)");
    if (typeof row.contribution === "string") {
      shownFact(seatFacts, "Contribution", row.contribution, { copyable: true, what: "contribution" });
    } else {
      fact(seatFacts, "Contribution", row.commitment === null ? "(not revealed)" : "(not revealed yet)");
    }
    if (row.status === "fail" && row.computed) fact(seatFacts, "SHA-256 of the contribution", row.computed);
    const label = row.status === "pass" ? "opens its commitment" : row.status === "fail" ? "does not open its commitment"
      : voided ? `stalled: never ${row.commitment === null ? "committed" : "revealed"}` : row.reason;
    list.append(el("li", { "data-table-seat": row.index, "data-seat-result": row.status },
      el("div", { class: "seat-head" },
        el("span", {}, el("strong", { class: "seat-name" }, shownLabel(row.seat)), el("span", { class: "note", text: ` seat ${row.index + 1}` }),
          hasMarkedCharacters(row.seat) ? [" ", markedNoteEl(row.seat, "label")] : null),
        tableCheckEl("seat-commitment", row.status, label, shownPartsText(seatReasonParts(row)))),
      seatFacts));
  }
  box.append(list);

  // The derived seed, and a void table's seed against its commitment.
  const seedOf = whose === "round" ? "this round's client seed" : "the pair's client seed";
  const checks = el("div", { class: "checks", "data-table-checks": "" });
  const seedLabel = checked.seed.status === "pass" ? "client seed derived from every seat"
    : checked.seed.status === "fail" ? "client seed not derived from the seats"
    : voided ? "no client seed (void table)" : "client seed: not derived yet";
  checks.append(tableCheckEl("table-seed", checked.seed.status, seedLabel,
    voided && checked.seed.status === "pending" ? "the table was voided: no client seed was derived" : shownPartsText(seedReasonParts(checked.seed))));
  let voidCheck = null;
  if (voided) {
    voidCheck = await voidCommitmentCheck(pair);
    checks.append(voidCheck.node);
  }
  box.append(checks);

  // What failed, naming the seat.
  // Each problem is parts: the seats' labels and the client seed are elements of their own.
  const problems = checked.seats.filter((r) => r.status === "fail").map((r) => ["Seat ", seatName(r), ": ", seatReasonParts(r), "."]);
  if (checked.seed.status === "fail") {
    problems.push(["The derived client seed: ", seedReasonParts(checked.seed), ". fairdeal-table-v1 derives it as SHA-256 over every seat's "
      + `label and contribution in seat order; ${seedOf} must be exactly that.`]);
  }
  if (voidCheck && voidCheck.text) problems.push(voidCheck.text);
  if (voided && rounds.length) problems.push(`A void table deals nothing, but this pair lists ${rounds.length} round${rounds.length === 1 ? "" : "s"}.`);
  const offSeed = rounds.filter((r) => r.client_seed !== clientSeed).map((r) => r.nonce);
  if (!voided && offSeed.length) {
    problems.push([`${offSeed.length === 1 ? "The round" : "The rounds"} with nonce ${offSeed.join(", ")} ${offSeed.length === 1 ? "was" : "were"} `
      + "dealt with another client seed than the pair's, ", clientSeed === null ? "(none)" : quoted(clientSeed),
    ": not the one derived from the seats."]);
  }
  if (problems.length) box.append(el("div", { class: "error", "data-explain": "table" }, problems.map((parts) => el("p", {}, parts))));

  // Who the table is waiting for.
  const uncommitted = checked.seats.filter((r) => r.commitment === null);
  const unrevealed = checked.seats.filter((r) => r.commitment !== null && r.contribution === null);
  if (!voided && (table.phase === "commit" || table.phase === "reveal")) {
    const waiting = table.phase === "commit" ? uncommitted : unrevealed;
    box.append(el("p", { class: "note", "data-table-waiting": waiting.length },
      `Waiting for ${waiting.length === 1 ? "seat" : "seats"} `, quotedList(waiting.map((r) => r.seat)), " to "
      + `${table.phase === "commit" ? "commit" : "reveal"}${table.deadline ? ` by ${table.deadline}` : ""}. `
      + (table.phase === "commit"
        ? "No seat reveals before every seat has committed, so nobody can choose the seed. "
        : "Each revealed contribution is checked above against the commitment its seat published first."),
      table.phase === "commit" ? el("a", { href: "#contribution-section", text: "Make your contribution in this browser." }) : null));
  }
  box.append(myContributionForm(checked, voided, table.phase));

  // The verdict's sentence, as parts (labels are elements of their own).
  const failed = checked.seats.filter((r) => r.status === "fail");
  let verdict = null;
  if (failed.length) {
    verdict = [`${failed.length === 1 ? "Seat" : "Seats"} `, failed.map((r, i) => [i ? ", " : "", seatName(r)]),
      ": the revealed contribution does not open the commitment the seat published, so the client seed is not provably "
      + "from every seat (details below)."];
  } else if (checked.seed.status === "fail") {
    verdict = ["The table's client seed is not the one derived from every seat's contribution: ", seedReasonParts(checked.seed),
      " (details below)."];
  } else if (voidCheck && !voidCheck.ok) {
    verdict = "The void table's revealed server seed does not open its published commitment (details below).";
  } else if (voided && rounds.length) {
    verdict = `A void table deals nothing, but this pair lists ${rounds.length} round${rounds.length === 1 ? "" : "s"}.`;
  } else if (!voided && offSeed.length) {
    verdict = `Round${offSeed.length === 1 ? "" : "s"} ${offSeed.join(", ")} of this table ${offSeed.length === 1 ? "was" : "were"} dealt `
      + "with another client seed than the one derived from every seat (details below).";
  }
  return { node: box, ok: verdict === null, verdict, checked, voided };
}

/** "Is my contribution in it?": the player's contribution against the seats. */
function myContributionForm(checked, voided, phase) {
  const input = el("input", { id: "my-contribution", name: "contribution", autocomplete: "off", spellcheck: "false" });
  const result = el("div", { id: "my-contribution-result", "aria-live": "polite" });
  const form = el("form", { id: "my-contribution-form", class: "my-contribution", novalidate: true },
    el("label", { for: "my-contribution", text: "Is my contribution in it? Enter it exactly as you made it" }),
    el("div", { class: "row" }, input, el("button", { type: "submit", id: "my-contribution-check", text: "Find my seat" })),
    el("p", { class: "note", text: "It is hashed in this browser and compared with every seat; it is not sent anywhere." }),
    result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const mine = input.value;
    if (mine === "") {
      result.replaceChildren();
      return;
    }
    const found = await findContribution(checked, mine, { voided });
    result.replaceChildren(el("p", { class: "entry-result", "data-check": "my-contribution", "data-result": found.status,
      "data-table-seat-found": found.index }, ...myContributionText(found, checked, phase)));
  });
  return form;
}

/** The answer to "is my contribution in it?" in words. */
function myContributionText(found, checked, phase) {
  const row = found.index === null ? null : checked.seats[found.index];
  const name = row ? seatName(row) : ""; // parts: the label is an element of its own
  const code = (text) => el("code", { text });
  const head = el("strong", { text: found.status === "pass" ? "Found: " : found.status === "pending" ? "Found, not complete: " : "Not in it: " });
  switch (found.reason) {
    case "in_seed":
      return [head, "your contribution is seat ", name, "'s. Its SHA-256 is the commitment that seat published, the seat revealed "
        + "exactly it, and it went into the derived client seed ", code(checked.seed.computed), "."];
    case "void":
      return [head, "your contribution is seat ", name, "'s: its SHA-256 is that seat's commitment and the seat revealed exactly it. "
        + "The table was voided, so no client seed was derived and nothing was dealt."];
    case "others_not_revealed":
      return [head, "your contribution is seat ", name, "'s, revealed and opening its commitment. It goes into the client seed "
        + "once every seat has revealed."];
    case "not_revealed":
      return [head, "your contribution's SHA-256 is seat ", name, "'s commitment. The seat has not revealed it yet"
        + (phase === "commit" ? "; seats reveal once every seat has committed." : ".")];
    case "void_unrevealed":
      return [head, "your contribution's SHA-256 is seat ", name, "'s commitment, but the seat did not reveal it before the "
        + "table was voided: nothing was dealt."];
    case "other_contribution":
      return [head, "your contribution's SHA-256 is seat ", name, "'s commitment, but the record shows another contribution "
        + "for that seat: ", quoted(row.contribution), ". The client seed was not derived from yours."];
    case "seed_mismatch":
      return [head, "your contribution is seat ", name, "'s and the seat revealed it, but the client seed is not the one "
        + "derived from the seats' contributions (see the failed client-seed check), so it did not provably go into the deal."];
    case "shown_without_commitment":
      return [head, "seat ", name, " shows this contribution, but its SHA-256 ", code(found.hash),
        " is not that seat's commitment: the record does not bind it."];
    default:
      return [head, "your contribution matches no seat: its SHA-256 ", code(found.hash),
        " is no seat's commitment. It must match exactly, byte for byte.",
        found.hint ? [" (Without the spaces around it, it is seat ", seatNameParts(found.hint.seat, found.hint.index), ".)"] : ""];
  }
}

/** Makes a contribution with this browser's CSPRNG and shows it with its commitment. */
export async function makeContribution() {
  const target = document.getElementById("made-contribution");
  try {
    const made = await randomContribution();
    const facts = el("dl", { class: "facts", "data-made-contribution": "" });
    fact(facts, "Commitment (submit this first)", made.commitment, true);
    fact(facts, "Contribution (keep it secret until every seat has committed)", made.contribution, true);
    target.replaceChildren(facts, el("p", { class: "note", text: "Keep both. Submit the commitment when your table asks "
      + "for it; reveal the contribution only once every seat has committed. Anyone can then check that its SHA-256 is "
      + "your commitment, and look it up here in the table's report." }));
  } catch (error) {
    showError(target, error);
  }
}
