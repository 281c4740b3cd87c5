// The verification page's display code, in web/page/: views.js (this file:
// elements, cards, deals, facts, checks), log.js (a record's receipt and the
// log's checkpoint), chain.js (a fairdeal-chain-v1 round), tables.js (table
// pairs), lookup.js (a round; looking up by id), pair.js (a whole seed pair,
// checked in bulk by a worker: verify-worker.mjs), paste.js, draw.js,
// main.js (wiring, the entry). Each is an ES module importing what it
// uses; the protocols (fairdeal-v1.mjs, fairdeal-draw.mjs,
// fairdeal-table.mjs, fairdeal-chain.mjs), the log's checks (tlog.mjs,
// witness.mjs) and seed-display.mjs are modules of their own that import
// nothing from here. Everything is drawn with DOM calls and textContent:
// record fields are never parsed as HTML. A string someone else chose (a
// client seed, a seat label, a contribution) is shown through
// seed-display.mjs, with every character outside printable ASCII marked, and
// in a sentence as an element of its own ({ label } parts), never spliced
// into the page's words.

import { hasMarkedCharacters, markedNote, markedTextEl, renderShownParts, shownLabel } from "../seed-display.mjs";

const SUIT_SYMBOLS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_NAMES = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

/**
 * Whether this is the released single file (web/release/build.mjs defines
 * RELEASED): opened from disk or from a site the operator does not control,
 * it reads the service the player names, and trusts only the log keys the
 * player chose (trust.js).
 */
// RELEASED is defined by the release build only.
export const released = typeof RELEASED !== "undefined" && RELEASED === true;

/**
 * The service this page reads records from: the origin that served it; in
 * the released file, the one the player names ("" until then). Live
 * bindings: `useService` changes both.
 */
export let service = released ? "" : location.origin;
/** Whether records can be looked up (a service to read them from). */
export let onServer = !released && (location.protocol === "http:" || location.protocol === "https:");

/**
 * Reads records from `address` (the released file): its origin, or an
 * error naming the rule. A link's `service=` only proposes one; the log key
 * is trusted from the player's pins, never from the link or the service.
 */
export function useService(address) {
  let url;
  try {
    url = new URL(String(address).trim());
  } catch {
    throw new Error("the service address must be a whole address, such as https://fairdeal.example");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`the service address must start with https:// (or http://), not ${url.protocol}`);
  }
  service = url.origin;
  onServer = true;
  return service;
}

/** `path` (from `/`) at the service this page reads. */
export function serviceUrl(path) {
  return `${service}${path}`;
}

export function el(tag, attrs = {}, ...children) {
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

export function fact(list, label, value, copyable = false) {
  list.append(el("dt", { text: label }));
  list.append(el("dd", {}, el("span", { class: "mono", text: value }), copyable ? copyButton(value, label) : null));
}

/**
 * A fact whose value someone else chose (a client seed, a label, a
 * contribution): shown with its non-ASCII characters marked, with a note
 * saying so when there are any (`what`: "seed", "label", ...). Copy copies
 * the exact string.
 */
export function shownFact(list, label, value, { copyable = false, what = "seed" } = {}) {
  if (value === null || value === undefined) {
    fact(list, label, "(none)");
    return;
  }
  list.append(el("dt", { text: label }));
  list.append(el("dd", {}, markedTextEl(value, { className: "label mono" }), copyable ? copyButton(value, label) : null,
    markedNoteEl(value, what)));
}

/** The plain-words note for a string with marked characters, or null. */
export function markedNoteEl(value, what = "seed") {
  if (!hasMarkedCharacters(value)) return null;
  return el("span", { class: "note marked-note", "data-marked-note": "" },
    `Note: ${markedNote(what)} with their code points, \u27e8U+\u2026\u27e9 (an invisible one shows as its mark only).`);
}

/** “text”, the text an element of its own. */
export const quoted = (text) => ["\u201c", shownLabel(text), "\u201d"];

export function checkEl(name, ok, detail) {
  return el("span", {
    class: "check",
    "data-check": name,
    "data-result": ok ? "pass" : "fail",
    title: detail || "",
  }, `${ok ? "✔ PASS" : "✘ FAIL"}: ${name}`);
}

/** Draws a deal as at a table. `diffSlot` (e.g. "board[0]") is outlined. */
export function dealEl(dealt, diffSlot) {
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

export function gameText(game) {
  switch (game.type) {
    case "deck": return `whole shoe, ${game.decks} deck${game.decks === 1 ? "" : "s"}`;
    case "holdem": return `hold'em, ${game.players} players`;
    case "omaha": return `omaha, ${game.players} players`;
    default: return `${game.players} hands of ${game.cards}, ${game.decks} deck${game.decks === 1 ? "" : "s"}`;
  }
}

/** Ids are UUIDs, which the service writes in lower case: any case a player pastes is the same id. */
export function canonicalId(given) {
  const id = String(given).trim();
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.toLowerCase() : id;
}

export function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert", text: error.message || String(error) }));
}

/**
 * `path` read as JSON: `{ status, body }`. A body that is not a JSON object
 * is `{}` for an error status; for a success it is an error naming the
 * path, never a record the page would then misread.
 */
export async function getJson(path) {
  const response = await fetch(serviceUrl(path), { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => undefined);
  const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
  if (!isObject && response.status >= 200 && response.status < 300) {
    throw new Error(`the service's answer to ${path.split("?")[0]} (${response.status}) is not a JSON object`);
  }
  return { status: response.status, body: isObject ? body : {} };
}
