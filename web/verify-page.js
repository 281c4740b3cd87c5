// The verification page's display code. The protocols live in fairdeal-v1.mjs,
// fairdeal-draw.mjs and fairdeal-table.mjs; the server inlines them, tlog.mjs,
// seed-display.mjs and this file into one <script type="module">, so the
// functions below (deal, verifyRound, commitment, verifyDraw, checkTable,
// markedTextEl, ...) are in scope. Everything is drawn with DOM calls and
// textContent: record fields are never parsed as HTML. A string someone else
// chose (a client seed, a seat label, a contribution) is shown through
// seed-display.mjs, with every character outside printable ASCII marked, and
// in a sentence as an element of its own ({ label } parts), never spliced
// into the page's words.

const SUIT_SYMBOLS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_NAMES = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };
const onServer = location.protocol === "http:" || location.protocol === "https:";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  // Nested arrays are flattened, { label } parts drawn by markedTextEl.
  for (const child of renderShownParts(children)) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function cardEl(card, diff = false) {
  const rank = card[0];
  const suit = card[1];
  const colour = suit === "d" || suit === "h" ? "red" : "black";
  const rankText = rank === "T" ? "10" : rank;
  return el("span", {
    class: `card ${colour}${diff ? " diff" : ""}`,
    "data-card": card,
    role: "img",
    "aria-label": `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit]}`,
    text: `${rankText}${SUIT_SYMBOLS[suit]}`,
  });
}

function copyButton(value, what) {
  const button = el("button", { type: "button", class: "copy", "aria-label": `Copy ${what}`, text: "Copy" });
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select and copy";
    }
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  });
  return button;
}

function fact(list, label, value, copyable = false) {
  list.append(el("dt", { text: label }));
  list.append(el("dd", {}, el("span", { class: "mono", text: value }), copyable ? copyButton(value, label) : null));
}

/**
 * A fact whose value someone else chose (a client seed, a label, a
 * contribution): shown with its non-ASCII characters marked, with a note
 * saying so when there are any (`what`: "seed", "label", ...). Copy copies
 * the exact string.
 */
function shownFact(list, label, value, { copyable = false, what = "seed" } = {}) {
  if (value === null || value === undefined) {
    fact(list, label, "(none)");
    return;
  }
  list.append(el("dt", { text: label }));
  list.append(el("dd", {}, markedTextEl(value, { className: "label mono" }), copyable ? copyButton(value, label) : null,
    markedNoteEl(value, what)));
}

/** The plain-words note for a string with marked characters, or null. */
function markedNoteEl(value, what = "seed") {
  if (!hasMarkedCharacters(value)) return null;
  return el("span", { class: "note marked-note", "data-marked-note": "" },
    `Note: ${markedNote(what)} with their code points, \u27e8U+\u2026\u27e9 (an invisible one shows as its mark only).`);
}

/** “text”, the text an element of its own. */
const quoted = (text) => ["\u201c", shownLabel(text), "\u201d"];

function checkEl(name, ok, detail) {
  return el("span", {
    class: "check",
    "data-check": name,
    "data-result": ok ? "pass" : "fail",
    title: detail || "",
  }, `${ok ? "✔ PASS" : "✘ FAIL"}: ${name}`);
}

/** Draws a deal as at a table. `diffSlot` (e.g. "board[0]") is outlined. */
function dealEl(dealt, diffSlot) {
  const table = el("div", { class: "table", "data-deal": "" });
  const isDiff = (slot) => slot === diffSlot;
  if (dealt.deck) {
    table.append(shoeEl(dealt.deck, 0, "deck", isDiff));
    return table;
  }
  dealt.hands.forEach((hand, seat) => {
    table.append(el("div", { class: "seat", "data-seat": seat + 1 },
      el("span", { class: "seat-label", text: dealt.board ? `Seat ${seat + 1}` : `Player ${seat + 1}` }),
      hand.map((c, k) => cardEl(c, isDiff(`hands[${seat}][${k}]`)))));
  });
  if (dealt.board) {
    const street = (label, from, to) => el("div", {},
      el("span", { class: "street-label", text: label }),
      el("div", { class: "street" }, dealt.board.slice(from, to).map((c, i) => cardEl(c, isDiff(`board[${from + i}]`)))));
    table.append(el("div", { class: "board", "data-board": "" },
      el("span", { class: "seat-label", text: "Board" }),
      street("flop", 0, 3), street("turn", 3, 4), street("river", 4, 5)));
    table.append(el("div", { class: "seat", "data-burns": "" },
      el("span", { class: "seat-label", text: "Burns" }),
      dealt.burns.map((c, i) => cardEl(c, isDiff(`burns[${i}]`)))));
  }
  if (dealt.rest && dealt.rest.length) {
    const dealtCount = dealt.hands.reduce((n, h) => n + h.length, 0);
    table.append(el("p", { text: `Undealt cards, next first (${dealt.rest.length}):` }));
    table.append(shoeEl(dealt.rest, dealtCount, "rest", isDiff));
  }
  return table;
}

/** A long run of cards, 13 to a row, each row led by its positions. */
function shoeEl(cards, offset, name, isDiff) {
  const grid = el("div", { class: "shoe", role: "list", "aria-label": `${cards.length} cards, top first` });
  for (let row = 0; row < cards.length; row += 13) {
    grid.append(el("span", { class: "pos", text: `${offset + row + 1}` }));
    cards.slice(row, row + 13).forEach((c, i) => grid.append(cardEl(c, isDiff(`${name}[${row + i}]`))));
  }
  return grid;
}

function gameText(game) {
  switch (game.type) {
    case "deck": return `whole shoe, ${game.decks} deck${game.decks === 1 ? "" : "s"}`;
    case "holdem": return `hold'em, ${game.players} players`;
    case "omaha": return `omaha, ${game.players} players`;
    default: return `${game.players} hands of ${game.cards}, ${game.decks} deck${game.decks === 1 ? "" : "s"}`;
  }
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert", text: error.message || String(error) }));
}

async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

// ---- The transparency log --------------------------------------------------

let logKey = null;

/** The log's verifier key, read once. */
async function logVkey() {
  if (logKey === null) {
    const response = await fetch("/log/key").catch(() => null);
    logKey = response && response.ok ? (await response.text()).trim() : "";
  }
  return logKey;
}

/**
 * Compares a verified checkpoint with the largest one this browser verified
 * before for the log's origin, and remembers the new one if it extends it.
 * A smaller tree, the same size with another root, or a larger tree whose
 * consistency proof fails: different histories (a fork), returned as
 * `{ seen, fork: true }`. A proof the server would not give: `{ seen,
 * fork: false }` (not proven either way). Otherwise null.
 */
async function forkAgainst(checkpoint) {
  let key;
  let seen = null;
  try {
    key = `fairdeal-checkpoint:${checkpoint.origin}`;
    const kept = JSON.parse(localStorage.getItem(key) || "null");
    // A value this page did not write is replaced, not trusted.
    if (kept && Number.isSafeInteger(kept.size) && typeof kept.root === "string") seen = kept;
  } catch (error) {
    if (key === undefined || !(error instanceof SyntaxError)) {
      return null; // No storage (a file:// copy, a private window): nothing to compare.
    }
  }
  if (seen && checkpoint.size < seen.size) return { seen, fork: true };
  if (seen && checkpoint.size === seen.size && checkpoint.root !== seen.root) return { seen, fork: true };
  if (seen && seen.size > 0 && checkpoint.size > seen.size) {
    let answer;
    try {
      answer = await getJson(`/v1/log/consistency?old=${seen.size}&new=${checkpoint.size}`);
    } catch {
      return { seen, fork: false }; // The network failed: not proven either way.
    }
    const { status, body } = answer;
    if (status >= 500 || status === 429) return { seen, fork: false };
    // Both sizes are in checkpoints the log signed: refusing the proof, or
    // a proof that does not verify, is the log failing to show it grew.
    let consistent = false;
    try {
      consistent = status === 200 && Array.isArray(body.proof)
        && await verifyConsistency(seen.size, seen.root, checkpoint.size, checkpoint.root, body.proof);
    } catch {
      consistent = false; // Not base64: not a proof.
    }
    if (!consistent) return { seen, fork: true };
  }
  if (!seen || checkpoint.size > seen.size) {
    try {
      localStorage.setItem(key, JSON.stringify({ size: checkpoint.size, root: checkpoint.root }));
    } catch {
      // Storage full or refused: the next visit compares with the older one.
    }
  }
  return null;
}

/**
 * The log receipt and proof at `path` (a round's or a pair's), checked in
 * this browser: the signature, that the entry says what `says(entry)`
 * expects, the inclusion proof against the signed checkpoint, and that the
 * checkpoint extends the one this browser saw before.
 */
async function logChecks(path, says) {
  if (!onServer) return [];
  const vkey = await logVkey();
  if (!vkey) return [];
  const { status, body } = await getJson(path);
  if (status === 202) {
    return [el("span", { class: "check", "data-check": "log", "data-result": "pending", text: "log: not yet in a checkpoint" })];
  }
  if (status !== 200) return [];
  try {
    const signed = await verifyReceipt(vkey, body);
    const { checkpoint } = await verifyInclusion(vkey, body.proof, body.entry);
    const parts = [checkEl("log", signed && says(JSON.parse(body.entry)),
      `entry ${body.log_index} of the log's ${checkpoint.size}, signed by ${vkey.split("+")[0]}`)];
    parts[0].dataset.logIndex = String(body.log_index);
    const compared = await forkAgainst(checkpoint);
    if (compared && compared.fork) {
      const { seen } = compared;
      parts.push(el("p", { class: "error", role: "alert", "data-fork": "" },
        `Warning: the log now shows ${checkpoint.size} entries with root ${checkpoint.root}, but this browser saw `
        + `${seen.size} entries with root ${seen.root} before, and the log cannot prove it grew from that. `
        + "Both cannot be true: the operator is showing different histories (a forked log). "
        + "Keep both checkpoints as evidence."));
    } else if (compared) {
      parts.push(el("p", { class: "note", "data-unproven": "" },
        `This browser saw the log at ${compared.seen.size} entries before; the server did not give the proof `
        + `that the ${checkpoint.size} entries now extend them. Check again later.`));
    }
    return parts;
  } catch (error) {
    return [checkEl("log", false, error.message || String(error))];
  }
}

/** Whether a log entry is this round's. */
const roundEntry = (round) => (entry) => entry.type === "round" && entry.round === round.id
  && String(entry.nonce) === String(round.nonce) && entry.seed_pair === round.seed_pair_id;

/** Whether a log entry is this pair's commitment. */
const commitEntry = (pair) => (entry) => entry.type === "commit" && entry.seed_pair === pair.id
  && entry.server_seed_hash === pair.server_seed_hash && entry.next_server_seed_hash === pair.next_server_seed_hash;

/**
 * The other pairs the log shows with this pair's client seed, or one that
 * looks like it (sameSeedFindings in tlog.mjs). One of the same tenant that
 * held it while this pair was live could have been dealt from the same
 * client seed and the better deal shown: returned in `shopped`, and the check
 * fails. Another tenant's pair, or a seed reused after a reveal, is listed as
 * information only: two players may choose the same seed.
 */
async function sameClientSeed(pair) {
  if (!onServer || pair.client_seed === null) return { parts: [], shopped: [] };
  let answer;
  try {
    answer = await getJson(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/same-client-seed`);
  } catch {
    answer = { status: 0 };
  }
  const { status, body } = answer;
  if (status !== 200) {
    return { parts: [el("p", { class: "note", text: "The other pairs with this client seed could not be read; check again later." })], shopped: [] };
  }
  const digest = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pair.client_seed))));
  if (body.client_seed_sha256 !== digest) {
    return { parts: [checkEl("same client seed", false,
      `the server names the hash ${shownText(String(body.client_seed_sha256))}, not ${digest}, the SHA-256 of the client seed shown`)], shopped: [] };
  }
  const { others, shopped } = sameSeedFindings(body);
  const alike = others.filter((o) => o.lookalike).length;
  const parts = [checkEl("same client seed", shopped.length === 0,
    `${others.length}${body.truncated ? "+" : ""} other pair(s) in the log carry this client seed (SHA-256 ${digest})`
    + `${alike ? `, ${alike} of them one that looks like it` : ""}; ${shopped.length} of them at the same time and the same tenant`)];
  if (others.length) {
    const list = el("ul", { class: "same-seed", "data-same-seed": "" });
    for (const other of others) {
      const seed = other.lookalike ? "a client seed that looks like this one (other bytes)" : "this client seed";
      const when = other.shopped ? `held ${seed} AT THE SAME TIME as this pair, at the same tenant`
        : other.overlap ? `held ${seed} at the same time, but at another tenant (brand) of this service: `
          + "another operator's player chose the same seed; not deal-shopping"
        : other.when === "after" ? `got ${seed} after this pair was revealed (a kept or a common seed: normal)`
        : `held ${seed} before this pair got it (a kept or a common seed: normal)`;
      list.append(el("li", {
        class: other.shopped ? "error" : null,
        "data-overlap": other.overlap ? "true" : "false",
        "data-same-tenant": other.sameTenant ? "true" : "false",
        "data-lookalike": other.lookalike ? "true" : "false",
        "data-shopping": other.shopped ? "true" : "false",
      },
      el("a", { href: `?pair=${encodeURIComponent(other.seed_pair)}`, class: "mono", text: other.seed_pair }),
      ` — ${statusText(other.status)}; ${when}`));
    }
    parts.push(el("p", { text: "Other seed pairs given this client seed, or one that looks like it, as the transparency log orders them"
      + `${body.truncated ? " (the first 100; every one that overlaps this pair is among them)" : ""}:` }), list);
    if (!shopped.length) {
      parts.push(el("p", { class: "note", "data-same-seed-note": "" },
        "None of them held it while this pair was live at the same tenant, so no deal could have been dealt on both "
        + "and the better one shown. A seed shared with another tenant, or reused after a reveal, is not deal-shopping."));
    }
  }
  if (shopped.length) {
    const alikeShopped = shopped.some((o) => o.lookalike);
    parts.push(el("p", { class: "error", role: "alert", "data-shopped": "" },
      `Warning: this client seed${alikeShopped ? ", or one that looks like it," : ""} was given to ${shopped.length} other `
      + "pair(s) of the same tenant while this one was live. The operator could have dealt each hand on several pairs "
      + "and shown the one it liked (deal-shopping)."
      + (alikeShopped ? " A seed that looks like yours but has other bytes (an invisible character, a letter from "
        + "another alphabet) deals other cards, and you could not have told them apart." : "")));
  }
  return { parts, shopped };
}

// ---- Tables (fairdeal-table-v1) ------------------------------------------

const TABLE_PHASE_WORDS = {
  commit: "commit (each seat publishes the SHA-256 of its contribution)",
  reveal: "reveal (every seat has committed; each now reveals its contribution)",
  complete: "complete (every seat revealed; the client seed is derived)",
  void: "void (a seat stalled; the table dealt nothing)",
};

/** A seat as a person names it: its label, quoted, and its place from 1 (parts: the label an element of its own). */
const seatName = (row) => seatNameParts(row.seat, row.index);

/** Labels quoted and joined: “a”, “b” and “c” (parts). */
const quotedList = (labels) => quotedListParts(labels);

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
function tableCheckEl(name, status, label, detail) {
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
async function tableReport(pair, clientSeed, whose, rounds = []) {
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
async function makeContribution() {
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

async function roundReport(round) {
  rememberRound(round);
  const box = el("div", { class: "round-detail", "data-round": round.id, "data-nonce": round.nonce });
  const facts = el("dl", { class: "facts" });
  fact(facts, "Round", round.id, true);
  fact(facts, "Nonce", String(round.nonce));
  fact(facts, "Game", gameText(round.game));
  fact(facts, "Status", statusText(round.status));
  fact(facts, "Commitment", round.server_seed_hash, true);
  shownFact(facts, "Client seed", round.client_seed, { copyable: true });
  box.append(facts);
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
  return { box, ok: result.commitment.ok && result.deal.ok && logOk };
}

async function lookUpRound(id, target) {
  const { status, body } = await getJson(`/v1/rounds/${encodeURIComponent(id)}`);
  if (status === 404) return false;
  if (status !== 200) throw new Error(body.detail || `the server answered ${status}`);
  const { box, ok } = await roundReport(body);
  // A table pair's round: its client seed must be the one derived from every seat.
  const table = await roundTable(body);
  const fromSeats = table.report && table.report.checked.seed.status === "pass"
    ? " Its client seed is the one derived from every seat's contribution." : "";
  const verdict = ok === false
    ? verdictEl("fail", "This record does not match what fairdeal-v1 deals from the committed seed (details below).")
    : table.report && !table.report.ok
      ? verdictEl("fail", table.report.verdict)
    : ok === null
      ? verdictEl("pending", `The server seed is still secret: this round can be checked once its seed pair is revealed.${fromSeats}`)
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

async function lookUpPair(id, target) {
  const { status, body: pair } = await getJson(`/v1/seed-pairs/${encodeURIComponent(id)}`);
  if (status === 404) return false;
  if (status !== 200) throw new Error(pair.detail || `the server answered ${status}`);
  const rounds = [];
  let after = null;
  for (;;) {
    const query = after === null ? "?limit=1000" : `?limit=1000&after=${after}`;
    const page = await getJson(`/v1/seed-pairs/${encodeURIComponent(id)}/rounds${query}`);
    if (page.status !== 200) throw new Error(page.body.detail || `the server answered ${page.status}`);
    rounds.push(...page.body.rounds);
    if (page.body.next_after === null || page.body.next_after === undefined) break;
    after = page.body.next_after;
  }
  const facts = el("dl", { class: "facts" });
  fact(facts, "Seed pair", pair.id, true);
  fact(facts, "Status", statusText(pair.status));
  fact(facts, "Commitment", pair.server_seed_hash, true);
  if (pair.client_seed === null || pair.client_seed === undefined) fact(facts, "Client seed", "(not set yet)");
  else shownFact(facts, "Client seed", pair.client_seed, { copyable: true });
  if (pair.server_seed) fact(facts, "Server seed", pair.server_seed, true);
  fact(facts, "Next commitment", pair.next_server_seed_hash, true);
  const parts = [el("h3", { text: "Seed pair" }), facts];
  const table = pair.table ? await tableReport(pair, pair.client_seed, "pair", rounds) : null;
  const logged = await logChecks(`/v1/seed-pairs/${encodeURIComponent(pair.id)}/receipt`, commitEntry(pair));
  const sharing = await sameClientSeed(pair);
  const sharingChecks = sharing.parts.filter((node) => node.tagName === "SPAN");
  if (logged.length || sharingChecks.length) {
    parts.push(el("div", { class: "checks", "data-pair-checks": "" }, ...logged.filter((node) => node.tagName === "SPAN"), ...sharingChecks),
      ...logged.filter((node) => node.tagName !== "SPAN"), ...sharing.parts.filter((node) => node.tagName !== "SPAN"));
  }
  const pairLogOk = !logged.some(failedLog) && !sharingChecks.some(failedLog);

  // Every nonce from 0 must be listed once: a gap is a deal drawn and hidden.
  const missing = [];
  rounds.forEach((r, i) => { if (r.nonce !== i) missing.push(i); });
  const complete = missing.length === 0 && rounds.length === pair.next_nonce;
  parts.push(el("p", {},
    checkEl("nonces", complete, ""),
    complete
      ? ` ${rounds.length} round${rounds.length === 1 ? "" : "s"}, nonces 0 to ${rounds.length - 1} with no gap.`
      : ` Rounds are missing: expected nonces 0 to ${pair.next_nonce - 1}, listed ${rounds.length}.`));
  if (table) parts.push(table.node);
  if (!pair.server_seed) {
    parts.push(el("p", { class: "note", text: "This pair is not revealed yet: its rounds become verifiable after rotation." }));
  }
  const tbody = el("tbody");
  const details = el("div");
  let passed = 0;
  for (const round of rounds) {
    const { box, ok } = await roundReport(round);
    if (ok) passed += 1;
    const cell = ok === null ? el("span", { class: "check", "data-result": "pending", text: "after reveal" })
      : checkEl(`round ${round.nonce}`, ok, "");
    tbody.append(el("tr", { "data-nonce": round.nonce },
      el("td", { text: String(round.nonce) }),
      el("td", { class: "id mono", text: round.id }),
      el("td", { text: gameText(round.game) }),
      el("td", { text: statusText(round.status) }),
      el("td", {}, cell)));
    details.append(box);
  }
  parts.push(el("table", { class: "rounds" },
    el("thead", {}, el("tr", {}, ["Nonce", "Round", "Game", "Status", "Verified"].map((h, i) =>
      el("th", { class: i === 1 ? "id" : null, scope: "col", text: h })))),
    tbody));
  if (pair.server_seed) {
    parts.push(el("p", { "data-summary": "", text: `${passed} of ${rounds.length} rounds verified.` }));
  }
  parts.push(details);
  const n = rounds.length;
  const fromSeats = table && table.checked.seed.status === "pass" ? " The client seed is the one derived from every seat's contribution." : "";
  const collecting = table && !table.voided && (table.checked.waiting.length > 0 || pair.status === "awaiting_contributions");
  const verdict = !complete
    ? verdictEl("fail", `Rounds are missing from this seed pair's record (expected nonces 0 to ${pair.next_nonce - 1}).`)
    : sharing.shopped.length
      ? verdictEl("fail", `This pair's client seed${sharing.shopped.some((o) => o.lookalike) ? ", or one that looks like it," : ""} `
        + "was given to another pair of the same tenant at the same time: deals could have been shopped (details below).")
    : !pairLogOk
      ? verdictEl("fail", "The transparency log does not back this pair's record (details below).")
    : table && !table.ok
      ? verdictEl("fail", table.verdict)
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
      ? verdictEl("pending", `${n} round${n === 1 ? "" : "s"} with no gap so far; the cards can be checked once the seed is revealed.${fromSeats}`)
      : passed === n
        ? verdictEl("pass", `All ${n} round${n === 1 ? "" : "s"} verified, nonces 0 to ${n - 1} with no gap.${fromSeats}`)
        : verdictEl("fail", `${n - passed} of ${n} rounds do not match what fairdeal-v1 deals (details below).`);
  target.replaceChildren(verdict, ...parts);
  return true;
}

/** Which seats voided a table, in a sentence (parts, or nothing). */
function voidedWhy(table) {
  const stalled = table.void && Array.isArray(table.void.stalled_seats) ? table.void.stalled_seats : [];
  if (!stalled.length) return "";
  return [` ${stalled.length === 1 ? "Seat" : "Seats"} `, quotedList(stalled), " did not "
    + `${table.void.phase === "commit" ? "commit" : "reveal"} before the ${table.void.phase} phase's deadline.`];
}

async function lookUp(id, kind) {
  const target = document.getElementById("lookup-result");
  target.replaceChildren(el("p", { text: "Checking…" }));
  try {
    const found = kind === "pair" ? await lookUpPair(id, target)
      : kind === "round" ? await lookUpRound(id, target)
      : (await lookUpRound(id, target)) || (await lookUpPair(id, target));
    if (!found) target.replaceChildren(el("p", { class: "error", role: "alert" }, "No round or seed pair has the id ", quoted(id), "."));
  } catch (error) {
    showError(target, error);
  }
}

// ---- Paste values ---------------------------------------------------------

function showGameFields() {
  const type = document.getElementById("game").value;
  document.getElementById("players-field").hidden = type === "deck";
  document.getElementById("cards-field").hidden = type !== "hands";
  document.getElementById("decks-field").hidden = !(type === "deck" || type === "hands");
}

/**
 * "Recompute from values": deals from the typed values and says exactly what
 * was checked. The server seed against the commitment typed (or the
 * commitment of a round this page has read) is one check; the cards are what
 * these values deal, which proves a hand only when the client seed, nonce and
 * game are the round's. Those are compared when this page has read the
 * round's record (looked up above); otherwise they are said to be unchecked,
 * and there is no overall PASS.
 */
async function recompute(event) {
  event.preventDefault();
  const target = document.getElementById("paste-result");
  const value = (id) => document.getElementById(id).value;
  const type = value("game");
  const game = { type };
  if (type !== "deck") game.players = value("players");
  if (type === "hands") game.cards = value("cards");
  if (type === "deck" || type === "hands") game.decks = value("decks");
  const clientSeed = value("client-seed");
  try {
    const out = await deal({ serverSeed: value("server-seed"), clientSeed, nonce: value("nonce"), game });
    const nonce = String(parseNonce(value("nonce")));
    const facts = el("dl", { class: "facts" });
    fact(facts, "Game", gameText(out.game));
    shownFact(facts, "Client seed", clientSeed, { copyable: true });
    fact(facts, "Nonce", nonce);
    fact(facts, "SHA-256 of the seed", out.server_seed_hash, true);
    const published = value("commitment").trim().toLowerCase();
    const matches = published === out.server_seed_hash;
    const round = knownRounds.get(`${out.server_seed_hash}:${nonce}`) || null;
    const same = round ? sameInputsAsRound(out, { clientSeed, nonce }, round) : null;
    const roundValues = same ? same.clientSeed && same.nonce && same.game : null;
    const code = (text) => el("code", { text });
    const roundId = round ? el("a", { href: `?round=${encodeURIComponent(round.id)}`, class: "mono", text: round.id }) : null;

    // What was checked, one claim each.
    const checks = el("div", { class: "checks" });
    const claims = el("ul", { class: "paste-claims", "data-paste-claims": "" });
    const claim = (name, result, ...parts) => claims.append(el("li", { "data-claim": name, "data-result": result }, parts));
    if (published) {
      checks.append(checkEl("commitment", matches, `SHA-256 of this seed is ${out.server_seed_hash}`));
      claim("commitment", matches ? "pass" : "fail", matches
        ? ["✔ The server seed matches the commitment you typed: its SHA-256 is ", code(out.server_seed_hash), "."]
        : ["✘ The server seed does not match the commitment you typed (details below)."]);
    } else if (round) {
      checks.append(checkEl("commitment", true, `SHA-256 of this seed is ${out.server_seed_hash}, round ${round.id}'s commitment`));
      claim("commitment", "pass", "✔ The server seed matches the commitment of round ", roundId,
        ", read above: its SHA-256 is ", code(out.server_seed_hash), ".");
    } else {
      checks.append(tableCheckEl("commitment", "pending", "commitment: not checked", "no commitment was typed"));
      claim("commitment", "pending", "Not checked: no commitment was typed, so nothing shows that this server seed is the one "
        + "the operator committed to. Its SHA-256 is ", code(out.server_seed_hash), "; compare it with the published commitment.");
    }
    claim("cards", "computed", "The cards below are what this server seed, the client seed ", quoted(clientSeed),
      ` and nonce ${nonce} deal in fairdeal-v1 (${gameText(out.game)}).`);
    if (round) {
      const differ = [!same.clientSeed && "client seed", !same.game && "game"].filter(Boolean);
      checks.append(tableCheckEl("round-values", roundValues ? "pass" : "fail",
        roundValues ? "client seed, nonce and game are the round's" : `${differ.join(" and ")} not the round's`,
        `round ${round.id}, nonce ${round.nonce}`));
      if (roundValues) {
        claim("round", "pass", "✔ The client seed, nonce and game are the ones round ", roundId, " recorded, so these are "
          + "the cards its values deal", same.cards === false ? "; but the round's record shows other cards (see its check above)."
          : same.cards ? ", and the round's record shows exactly these cards." : ".");
      } else {
        claim("round", "fail", "✘ Round ", roundId, ` (this server seed, nonce ${round.nonce}) was dealt with `,
          !same.clientSeed ? ["the client seed ", quoted(round.client_seed)] : "your client seed",
          !same.game ? `, ${round.game ? gameText(round.game) : "another game"}` : "",
          `: your ${differ.join(" and ")} ${differ.length > 1 ? "are" : "is"} not the round's, so these are not its cards.`);
      }
    } else {
      checks.append(tableCheckEl("round-values", "pending", "client seed and nonce: not checked",
        "this page has not read the round's record"));
      claim("round", "pending", "Not checked: whether the client seed and nonce are the ones the round used. These cards prove "
        + "your hand only if they are. This page has not read the round's record: look the round up above (which checks "
        + "everything), or compare them with it yourself.");
    }

    // The verdict: no overall PASS for a partial check.
    let verdict;
    if (published && !matches) {
      verdict = verdictEl("fail", "The seed does not match the commitment you typed: these are not the committed cards.");
    } else if (round && !roundValues) {
      verdict = wordVerdictEl("partial", "NOT THE ROUND'S VALUES", "The server seed is round ", roundId,
        "'s, but the other values are not the ones it recorded: these are not its cards (details below).");
    } else if (round && same.cards === false) {
      verdict = verdictEl("fail", "These are round ", roundId, "'s values, but its record shows other cards than they deal.");
    } else if (round) {
      verdict = verdictEl("pass", "The server seed matches round ", roundId, "'s commitment, and the client seed, nonce and "
        + `game are the ones it recorded: these are the cards its values deal${same.cards ? ", as its record shows" : ""}.`);
    } else if (published) {
      verdict = wordVerdictEl("partial", "CHECKED IN PART", "The server seed matches the commitment you typed. Whether these "
        + "are your hand's cards also depends on the client seed and nonce, which were not checked (below).");
    } else {
      verdict = wordVerdictEl("pending", "NOT CHECKED", "No commitment was typed: these are the cards these values deal, "
        + "and nothing here shows they are a round's (below).");
    }
    const parts = [verdict, checks, claims, facts];
    if (published && !matches) {
      parts.push(el("p", { class: "error", "data-explain": "commitment" },
        "You typed the commitment ", el("code", { text: published }),
        "; this seed's SHA-256 is ", el("code", { text: out.server_seed_hash }),
        ". A seed that does not hash to the published commitment is not the seed the operator promised."));
      parts.push(el("details", { class: "unverified" },
        el("summary", { text: "Show what this seed would deal anyway (not the committed deal)" }),
        dealEl(out.deal)));
    } else {
      parts.push(dealEl(out.deal));
    }
    target.replaceChildren(...parts);
  } catch (error) {
    showError(target, error);
  }
}

function newClientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const input = document.getElementById("client-seed");
  input.value = bytesToHex(bytes);
  input.focus();
}

// ---- Verify a draw ---------------------------------------------------------

const DRAW_STATUS_WORDS = {
  awaiting_client_seed: "waiting for its client seed (the list and the server seed are committed)",
  ready: "ready to draw (the client seed is set; the server seed is still secret)",
  drawn: "drawn (the server seed is public)",
};

/** Winner rows drawn at most; the verdict and your entry's rank cover them all. */
const DRAW_ROWS_SHOWN = 1000;

/** The loaded record (or null: values by hand), the chosen list file, the last check. */
const drawState = { record: null, file: null, checked: null, run: 0 };

const drawField = (id) => document.getElementById(id);

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

async function loadDraw(id) {
  const target = drawField("draw-result");
  target.replaceChildren(el("p", { text: "Loading the draw…" }));
  drawState.record = null;
  drawState.checked = null;
  showDrawListCopy(null);
  try {
    const { status, body } = await getJson(`/v1/draws/${encodeURIComponent(id)}`);
    if (status === 404) {
      target.replaceChildren(el("p", { class: "error", role: "alert" }, "No draw has the id ", quoted(id), "."));
      return;
    }
    if (status !== 200) throw new Error(body.detail || `the server answered ${status}`);
    drawState.record = body;
    fillDrawFields(body);
    showDrawListCopy(body);
    await checkDraw();
  } catch (error) {
    showError(target, error);
  }
}

/** The largest list the service accepts (256 MiB): a bigger file cannot be a draw's list. */
const MAX_DRAW_FILE_BYTES = 256 * 1024 * 1024;

async function readDrawFile() {
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
async function checkDraw() {
  const run = ++drawState.run;
  const target = drawField("draw-result");
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
  if (run !== drawState.run) return;
  drawState.checked = { values, result, index: null };
  target.replaceChildren(...drawReport(values, result));
  renderDrawEntry();
}

/** The verdict, then the checks and what failed, your entry, the facts, the winners. */
function drawReport(v, c) {
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

  // The verdict: any failure first, then what is still missing.
  let verdict;
  if (c.commitment.status === "fail") {
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
  } else {
    verdict = verdictEl("pass", c.winners.status === "pass"
      ? "The seed matches its commitment, your list is the committed one, and every winner is what fairdeal-draw-v1 draws."
      : "The seed matches its commitment and your list is the committed one; these are the winners fairdeal-draw-v1 draws.");
  }

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
function renderDrawEntry() {
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
showGameFields();
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
  if (id) {
    document.getElementById("lookup-id").value = id;
    lookUp(id, kind);
  }
}
document.documentElement.dataset.ready = "true";
