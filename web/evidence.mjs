// What the transparency log binds a record to, without a DOM or a network:
// the rules that hold a record a service shows (a round, a seed pair, a
// draw) to the log's signed entries. The page (page/log.js, page/draw.js,
// page/lookup.js) reads the receipts and draws the checks; the rules are
// here, so that a third party's verifier (the package's `evidence` export)
// applies the same ones, and so that they are tested on their own
// (tests/evidence.test.mjs). Nothing here trusts a field of the record over
// the log's entry: each rule says whether the entry is the record's.

import { bytesToHex, normaliseGame } from "./fairdeal-v1.mjs";
import { verifyInclusion, verifyReceipt } from "./tlog.mjs";

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(text) {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

/** Whether two game objects are one game, whatever their keys' order (a game that is not one: false). */
export function sameGame(a, b) {
  try {
    return JSON.stringify(normaliseGame(a)) === JSON.stringify(normaliseGame(b));
  } catch {
    return false;
  }
}

/** Whether a log entry is this round's: its id, nonce, pair and game. */
export const roundEntry = (round) => (entry) => Boolean(entry) && entry.type === "round" && entry.round === round.id
  && String(entry.nonce) === String(round.nonce) && entry.seed_pair === round.seed_pair_id && sameGame(entry.game, round.game);

/**
 * Whether a log entry is this pair's `commit`: its id, the commitment (any
 * case), the next commitment when the record states one, and a chain's
 * length (none for a fairdeal-v1 pair).
 */
export const pairCommitEntry = (pair) => (entry) => Boolean(entry) && entry.type === "commit" && entry.seed_pair === pair.id
  && String(entry.server_seed_hash).toLowerCase() === String(pair.server_seed_hash).toLowerCase()
  && (pair.next_server_seed_hash === undefined || entry.next_server_seed_hash === pair.next_server_seed_hash)
  && (pair.chain ? Number(entry.chain_length) === Number(pair.chain.length) : entry.chain_length === undefined);

/** Whether a log entry is this pair's client seed (`digest`: SHA-256 of the seed shown, lowercase hex). */
export const clientSeedEntry = (pairId, digest) => (entry) => Boolean(entry) && entry.type === "client_seed"
  && entry.seed_pair === pairId && String(entry.client_seed_sha256).toLowerCase() === digest;

/** Whether a log entry is draw `id`'s of `type` (draw_commit, draw_client_seed, draw_result). */
export const drawEntry = (id, type) => (entry) => Boolean(entry) && entry.type === type && entry.draw === id;

/**
 * A receipt as a public receipt endpoint answers it (`{ log_index, entry,
 * signature, proof }`), checked with the log's verifier key: the signature
 * over the entry at its index, and the inclusion proof against the signed
 * checkpoint it carries. `{ signed, index, entry, checkpoint }` (entry
 * parsed); throws naming what does not verify.
 */
export async function provenReceipt(vkey, body) {
  const signed = await verifyReceipt(vkey, body);
  const { checkpoint } = await verifyInclusion(vkey, body.proof, body.entry);
  return { signed, index: body.log_index, entry: JSON.parse(body.entry), checkpoint };
}

/**
 * The places where steps of one record are logged out of order:
 * `steps` is `[[index, name], …]` in the order the protocol needs (an
 * index null when that step is not logged); `[{ first, second }]`, each a
 * step `{ index, name }` not logged before the next.
 */
export function outOfOrder(steps) {
  const logged = steps.filter(([index]) => Number.isSafeInteger(index)).map(([index, name]) => ({ index, name }));
  const out = [];
  for (let i = 1; i < logged.length; i++) {
    if (!(logged[i - 1].index < logged[i].index)) out.push({ first: logged[i - 1], second: logged[i] });
  }
  return out;
}

const lower = (value) => String(value).toLowerCase();

/**
 * Where a draw, as checked (`values`: the list's SHA-256, its entries, the
 * winners, the server seed commitment, the client seed and the revealed
 * seed; `computed`: the winners recomputed from them, or null), differs
 * from its log entries (`logged`: `{ commit, clientSeed, result }`, each
 * `{ entry, index }` or null; `sourceDigest`: SHA-256 of the client seed's
 * stated source, or null when the record states none, which differs from
 * any logged commitment: the source is part of what was committed). `[{ what, logged,
 * shown, index }]`, in the entries' order; empty when every logged value is
 * the one checked.
 */
export async function drawDifferences(values, computed, logged, sourceDigest) {
  const out = [];
  const differ = (what, inLog, shown, index) => out.push({ what, logged: String(inLog), shown: String(shown), index });
  const commit = logged.commit && logged.commit.entry;
  if (commit && commit.type === "draw_commit") {
    const at = logged.commit.index;
    if (lower(commit.entries_sha256) !== lower(values.entries_sha256)) {
      differ("the list's SHA-256", commit.entries_sha256, values.entries_sha256, at);
    }
    if (String(commit.entries) !== String(values.entries)) differ("the number of entries", commit.entries, values.entries, at);
    if (String(commit.winners) !== String(values.winners)) differ("the number of winners", commit.winners, values.winners, at);
    if (lower(commit.server_seed_hash) !== lower(values.server_seed_hash)) {
      differ("the server seed commitment", commit.server_seed_hash, values.server_seed_hash, at);
    }
    if (lower(commit.client_seed_source_sha256) !== (sourceDigest ?? "(not stated)")) {
      differ("the SHA-256 of the client seed's stated source", commit.client_seed_source_sha256, sourceDigest ?? "(not stated)", at);
    }
  }
  const seed = logged.clientSeed && logged.clientSeed.entry;
  if (seed && seed.type === "draw_client_seed") {
    const digest = typeof values.client_seed === "string" ? await sha256Hex(values.client_seed) : "(no client seed)";
    if (lower(seed.client_seed_sha256) !== digest) {
      differ("the client seed's SHA-256", seed.client_seed_sha256, digest, logged.clientSeed.index);
    }
  }
  const result = logged.result && logged.result.entry;
  if (result && result.type === "draw_result") {
    const at = logged.result.index;
    const revealed = values.server_seed || "(not revealed)";
    if (lower(result.server_seed) !== lower(revealed)) differ("the revealed server seed", result.server_seed, revealed, at);
    const inLog = Array.isArray(result.winners) ? result.winners : [];
    if (Array.isArray(computed) && (inLog.length !== computed.length || inLog.some((w, i) => w !== computed[i]))) {
      const rank = inLog.findIndex((w, i) => w !== computed[i]);
      differ("the winners", `${inLog.length} winners${rank >= 0 ? `, rank ${rank + 1}: line ${Number(inLog[rank]) + 1}` : ""}`,
        `${computed.length} recomputed${rank >= 0 && rank < computed.length ? `, rank ${rank + 1}: line ${computed[rank] + 1}` : ""}`, at);
    }
  }
  return out;
}
