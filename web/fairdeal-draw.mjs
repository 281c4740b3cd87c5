// fairdeal-draw-v1 in the browser (and in Node), written from docs/PROTOCOL.md
// §7–§9: entrant lists and their commitment, draws of k winners of n, and
// shuffles of n items, over fairdeal-v1's round key, keystream and `uniform`.
//
// An ES module: it imports what it uses from fairdeal-v1.mjs, and nothing
// from the page's views.

import { FairdealError, Keystream, bytesToHex, checkClientSeed, commitment, hexToBytes, parseNonce, roundKey } from "./fairdeal-v1.mjs";

export const DRAW_PROTOCOL = "fairdeal-draw-v1";

/** Most lines an entrant list may have, and most items a shuffle may have: 2^32 − 1. */
export const MAX_ENTRIES = 0xffffffff;

const LIST_RULE_TEXT = {
  empty: (line) => `line ${line} is empty; every line needs an entrant`,
  carriage_return: (line) => `line ${line} contains CR; lines end with LF only (convert CRLF files)`,
  invalid_utf8: (line) => `line ${line} is not valid UTF-8`,
  duplicate: (line, first) => `line ${line} repeats line ${first}`,
  unterminated: (line) => `line ${line} does not end with LF; the list must end with a line feed`,
  too_many_lines: (line) => `line ${line} is beyond the ${MAX_ENTRIES} lines a list may have`,
};

/**
 * A bad entrant list: `line` is the first bad line, counted from 1 as an
 * editor shows it; `rule` is one of empty, carriage_return, invalid_utf8,
 * duplicate, unterminated, too_many_lines; for a duplicate, `first` is the
 * line (from 1) it repeats. `field` is "list", as for any FairdealError.
 */
export class ListError extends FairdealError {
  constructor(line, rule, first = null) {
    const text = LIST_RULE_TEXT[rule](line, first);
    super("list", text);
    this.message = text;
    this.line = line;
    this.rule = rule;
    this.first = first;
  }
}

/**
 * Checks an entrant list (§7) and splits it: `{ entries, lines }`, the
 * number of lines and their texts (entrant i is lines[i], editor line i + 1).
 * Throws a ListError naming the first bad line. Lines are checked in order;
 * a complete line's fault is reported before an unterminated last line.
 */
export function parseList(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // fatal: invalid UTF-8 throws; ignoreBOM: a leading U+FEFF stays in the
  // text, so texts are equal exactly when their bytes are.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lines = [];
  const seen = new Map(); // text → its line (from 1)
  let start = 0;
  for (;;) {
    const end = data.indexOf(0x0a, start);
    const line = lines.length + 1;
    if (end < 0) {
      if (start < data.length) throw new ListError(line, "unterminated");
      break;
    }
    if (lines.length >= MAX_ENTRIES) throw new ListError(line, "too_many_lines");
    if (end === start) throw new ListError(line, "empty");
    const raw = data.subarray(start, end);
    if (raw.indexOf(0x0d) >= 0) throw new ListError(line, "carriage_return");
    let text;
    try {
      text = decoder.decode(raw);
    } catch {
      throw new ListError(line, "invalid_utf8");
    }
    const first = seen.get(text);
    if (first !== undefined) throw new ListError(line, "duplicate", first);
    seen.set(text, line);
    lines.push(text);
    start = end + 1;
  }
  return { entries: lines.length, lines };
}

/** SHA-256 of a list's exact bytes, lowercase hex: its `entries_sha256`. */
export async function listSha256(bytes) {
  const c = globalThis.crypto;
  if (!c || !c.subtle) {
    throw new Error("this browser does not offer WebCrypto here (open the page over https, localhost or as a file)");
  }
  return bytesToHex(new Uint8Array(await c.subtle.digest("SHA-256", bytes)));
}

/** A whole number (number or decimal string) in min..max, or a FairdealError naming `field`. */
function drawCount(value, field, min, max, range) {
  const text = String(value ?? "").trim();
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new FairdealError(field, `must be ${range}; got ${text === "" ? "nothing" : text}`);
  }
  return n;
}

/** The keystream of (server seed, client seed, nonce), every input checked. */
async function drawKeystream(serverSeed, clientSeed, nonce) {
  const seed = hexToBytes(serverSeed);
  checkClientSeed(clientSeed);
  const n = parseNonce(nonce);
  return new Keystream(await roundKey(seed, clientSeed, n));
}

/**
 * The winners of a draw of `winners` (k) of `entries` (n), as entrant
 * indices from 0, winner 1 first (§8): the first min(k, n − 1) steps of
 * Fisher–Yates from the end over [0, n), keeping only the swapped positions
 * (a Map), so time and memory are O(k) however large n is.
 * 2 ≤ entries ≤ 2^32 − 1 and 1 ≤ winners ≤ entries, else a FairdealError
 * naming the field.
 */
export async function drawWinners({ serverSeed, clientSeed, nonce, entries, winners }) {
  const n = drawCount(entries, "entries", 2, MAX_ENTRIES, `2 to ${MAX_ENTRIES}`);
  const k = drawCount(winners, "winners", 1, n, `1 to the number of entries (${n})`);
  const keystream = await drawKeystream(serverSeed, clientSeed, nonce);
  const moved = new Map(); // position → item, where it no longer holds its own index
  const out = [];
  for (let step = 0; step < k; step++) {
    const i = n - 1 - step;
    if (i === 0) {
      // k = n: the last winner is a[0], which needs no step.
      out.push(moved.has(0) ? moved.get(0) : 0);
      break;
    }
    const j = keystream.uniform(i + 1);
    // Swap a[i] and a[j]; a[i] is then the winner. Position i is never read again.
    const atI = moved.has(i) ? moved.get(i) : i;
    moved.delete(i);
    if (j === i) {
      out.push(atI);
    } else {
      out.push(moved.has(j) ? moved.get(j) : j);
      moved.set(j, atI);
    }
  }
  return out;
}

/**
 * `items` (n) list positions shuffled (§8 `shuffle`): a Uint32Array where
 * position p gets item a[p]. 1 ≤ items ≤ 2^32 − 1.
 */
export async function shuffleItems({ serverSeed, clientSeed, nonce, items }) {
  const n = drawCount(items, "items", 1, MAX_ENTRIES, `1 to ${MAX_ENTRIES}`);
  const keystream = await drawKeystream(serverSeed, clientSeed, nonce);
  const a = new Uint32Array(n);
  for (let p = 0; p < n; p++) a[p] = p;
  for (let i = n - 1; i >= 1; i--) {
    const j = keystream.uniform(i + 1);
    const swap = a[i];
    a[i] = a[j];
    a[j] = swap;
  }
  return a;
}

/** A winner row of a record that differs from the recomputed draw, or null. */
function drawDifference(computed, result, lines) {
  const byRank = new Map();
  for (const row of result) {
    if (row && typeof row === "object" && !byRank.has(row.rank)) byRank.set(row.rank, row);
  }
  const count = Math.max(computed.length, result.length);
  for (let rank = 1; rank <= count; rank++) {
    const row = byRank.get(rank);
    const entry = computed[rank - 1];
    if (entry === undefined) return { rank, what: "extra", computed: null, recorded: row ? row.entry : null };
    if (!row) return { rank, what: "missing", computed: entry, recorded: null };
    if (row.entry !== entry) return { rank, what: "entry", computed: entry, recorded: row.entry };
    if (row.line_number !== undefined && row.line_number !== null && row.line_number !== entry + 1) {
      return { rank, what: "line_number", computed: entry + 1, recorded: row.line_number };
    }
    if (lines && row.text !== undefined && row.text !== null && row.text !== lines[entry]) {
      return { rank, what: "text", computed: lines[entry], recorded: row.text };
    }
  }
  return null;
}

/**
 * Checks a draw as `GET /v1/draws/{id}` publishes it (`server_seed`,
 * `server_seed_hash`, `client_seed`, `nonce`, `entries`, `winners`,
 * `entries_sha256`, `result`), with the entrant list's bytes if the player
 * has them. Each check's `status` is "pass", "fail" or "pending" (nothing to
 * check yet); a failed check is a result, not an exception. Values that
 * break the protocol's rules (a server seed that is not 64 hex characters,
 * winners out of range…) throw a FairdealError naming the field.
 *
 * - `list`: the file against (`entries_sha256`, `entries`): `{status, sha256,
 *   entries, lines}`, or `{status: "fail", sha256, error}` (a ListError) when
 *   the file breaks a list rule.
 * - `commitment`: SHA-256 of the revealed seed's bytes against
 *   `server_seed_hash`: `{status, computed}`.
 * - `nonce`: a draw is nonce 0 of its own server seed (§8).
 * - `winners`: the draw recomputed (nonce 0) against `result`, rank by rank:
 *   `{status, computed, difference}`; `difference` names the first rank that
 *   differs (its entry, line number, or — when the list matches — its text).
 *   Status "computed" when there is no recorded result to compare.
 */
export async function verifyDraw(record, listBytes = null) {
  if (record.protocol !== undefined && record.protocol !== null && record.protocol !== DRAW_PROTOCOL) {
    throw new FairdealError("protocol", `this verifier checks ${DRAW_PROTOCOL}; the record says ${record.protocol}`);
  }
  let list = { status: "pending" };
  if (listBytes !== null && listBytes !== undefined) {
    const bytes = listBytes instanceof Uint8Array ? listBytes : new Uint8Array(listBytes);
    const sha256 = await listSha256(bytes);
    let parsed = null;
    try {
      parsed = parseList(bytes);
    } catch (error) {
      if (!(error instanceof ListError)) throw error;
      list = { status: "fail", sha256, error };
    }
    if (parsed) {
      const committed = String(record.entries_sha256 ?? "").trim().toLowerCase();
      const ok = committed === sha256 && String(record.entries ?? "").trim() === String(parsed.entries);
      list = { status: !committed ? "pending" : ok ? "pass" : "fail", sha256, entries: parsed.entries, lines: parsed.lines };
    }
  }

  const seedText = String(record.server_seed ?? "").trim();
  const nonceOk = record.nonce === undefined || record.nonce === null || String(record.nonce).trim() === "0";
  const nonce = { status: nonceOk ? "pass" : "fail", recorded: record.nonce };
  if (!seedText) {
    return { list, nonce, commitment: { status: "pending", computed: null }, winners: { status: "pending", computed: null, difference: null } };
  }
  const computedHash = await commitment(hexToBytes(seedText, "server_seed"));
  const published = String(record.server_seed_hash ?? "").trim().toLowerCase();
  const seedCheck = {
    status: !published ? "pending" : published === computedHash ? "pass" : "fail",
    computed: computedHash,
  };
  const computed = await drawWinners({
    serverSeed: seedText, clientSeed: record.client_seed ?? "", nonce: 0,
    entries: record.entries, winners: record.winners,
  });
  let winners = { status: "computed", computed, difference: null };
  if (Array.isArray(record.result)) {
    const difference = drawDifference(computed, record.result, list.status === "pass" ? list.lines : null);
    winners = { status: difference ? "fail" : "pass", computed, difference };
  }
  return { list, nonce, commitment: seedCheck, winners };
}
