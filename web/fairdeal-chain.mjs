// fairdeal-chain-v1 in the browser (docs/PROTOCOL.md §13): a seed pair's
// server seeds as a SHA-256 chain committed before play. Round k (nonce k)
// is the fairdeal-v1 round of seed s_{k+1}, whose fairdeal-v1 commitment is
// s_k: the chain's commitment for round 0, the previous round's seed after.
// Dealing is fairdeal-v1's (`deal` in fairdeal-v1.mjs), unchanged.
//
// An ES module: it imports what it uses from fairdeal-v1.mjs and
// sha256.mjs, and nothing from the page's views.

import { bytesToHex, commitment, hexToBytes } from "./fairdeal-v1.mjs";
import { syncSha256 } from "./sha256.mjs";

export const CHAIN_PROTOCOL = "fairdeal-chain-v1";
export const MAX_CHAIN_LENGTH = 2 ** 24;

/** Every s_i of the chain whose tip s_N is `tipHex`: [s_0, …, s_N]. */
export async function chainSeeds(tipHex, length) {
  if (!Number.isSafeInteger(length) || length < 1 || length > MAX_CHAIN_LENGTH) {
    throw new RangeError(`a chain's length must be 1 to ${MAX_CHAIN_LENGTH}; got ${length}`);
  }
  const seeds = [bytesToHex(hexToBytes(tipHex))];
  for (let i = 0; i < length; i++) seeds.push(await commitment(hexToBytes(seeds[seeds.length - 1])));
  return seeds.reverse();
}

/**
 * Whether each published seed (s_1, s_2, … in round order) hashes to the
 * one before, the first to the chain's commitment: null when they all do,
 * else the first round (nonce) whose seed does not.
 */
export async function checkChainPrefix(commitmentHex, published) {
  let previous = commitmentHex.toLowerCase();
  for (let k = 0; k < published.length; k++) {
    if (await commitment(hexToBytes(published[k])) !== previous) return k;
    previous = published[k].toLowerCase();
  }
  return null;
}

/** SHA-256 applied `times` times to `bytes` (32 raw bytes), synchronously. */
export function chainHashDown(bytes, times) {
  let value = bytes;
  for (let i = 0; i < times; i++) value = syncSha256(value);
  return value;
}

/**
 * SHA-256 applied `times` times to the seed `seedHex`, as lowercase hex,
 * `chunk` hashes at a time with `await pause()` between chunks (by default
 * a macrotask: the page stays responsive through a million hashes).
 * `onProgress(done, times)` is called after each chunk.
 */
export async function chainHashDownInChunks(seedHex, times, { chunk = 20000, pause, onProgress } = {}) {
  if (!Number.isSafeInteger(times) || times < 0 || times > MAX_CHAIN_LENGTH) {
    throw new RangeError(`a chain position must be 0 to ${MAX_CHAIN_LENGTH}; got ${times}`);
  }
  const wait = pause || (() => new Promise((resolve) => setTimeout(resolve, 0)));
  let value = hexToBytes(seedHex);
  for (let done = 0; done < times;) {
    const step = Math.min(chunk, times - done);
    value = chainHashDown(value, step);
    done += step;
    if (onProgress) onProgress(done, times);
    if (done < times) await wait();
  }
  return bytesToHex(value);
}

/**
 * A chain pair's published seeds checked round by round, in nonce order,
 * for the page's worker: `link(nonce, seedHex)` says whether round
 * `nonce`'s seed (s_{nonce+1}) is in the chain committed as `commitmentHex`.
 *
 * It is when it hashes to the last seed that was (the commitment, at first):
 * once when that is the previous round's, more when rounds between them were
 * not (a wrong seed in one round's record does not fail the rounds after
 * it, which still hash down to the chain). Each seed is hashed at most
 * `maxHashes` times: a seed further from the last good one fails unchecked
 * (`{ ok: false, tooFar: true }`).
 *
 * Returns `{ ok, against, hashes, computed }`: `against` the position (0:
 * the commitment; p: round p−1's seed) whose value it was compared with,
 * `hashes` how often it was hashed, `computed` SHA-256 of the seed (hex),
 * or `{ ok: false, reason }` for a seed that is not 64 hex digits or a
 * nonce not after the last good one.
 */
export function chainLinker(commitmentHex, { maxHashes = 4096 } = {}) {
  let good = hexToBytes(String(commitmentHex), "server_seed_hash");
  let goodPosition = 0;
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  return {
    get position() {
      return goodPosition;
    },
    get seed() {
      return bytesToHex(good);
    },
    link(nonce, seedHex) {
      let seed;
      try {
        seed = hexToBytes(String(seedHex));
      } catch (error) {
        return { ok: false, reason: error.message || String(error) };
      }
      const position = Number(nonce) + 1;
      if (!Number.isSafeInteger(position) || position <= goodPosition) {
        return { ok: false, reason: `nonce ${nonce} is not after the last seed that links (round ${goodPosition - 1})` };
      }
      const computed = bytesToHex(syncSha256(seed));
      const hashes = position - goodPosition;
      if (hashes > maxHashes) return { ok: false, tooFar: true, against: goodPosition, hashes: 0, computed };
      const ok = same(chainHashDown(seed, hashes), good);
      if (ok) {
        good = seed;
        goodPosition = position;
      }
      return { ok, against: position - hashes, hashes, computed };
    },
  };
}

/**
 * Why a chain round's seed is not published yet, in a player's words.
 * `round`: `{ nonce, status }` ("in_play" or "closed"); `blocking`: the
 * pair's first round whose seed is not published (`{ nonce, status }`),
 * when the page could read it, else null.
 */
export function chainHiddenWords(round, blocking) {
  const nonce = Number(round.nonce);
  const own = round.status === "in_play";
  const earlier = blocking && Number(blocking.nonce) < nonce ? Number(blocking.nonce) : null;
  const earlierInPlay = earlier !== null && blocking.status === "in_play";
  const why = "Each seed hashes to the one before it, so publishing a seed would also reveal the seeds of every "
    + "earlier hand: a seed is published only once its hand and every hand before it have ended.";
  if (own && earlier === null) {
    return "This hand is still in play. Its server seed stays hidden until the hand ends; then it is published "
      + "and every card can be checked here.";
  }
  if (own) {
    return `This hand is still in play, and an earlier hand of the same seed pair (nonce ${earlier}) `
      + `${earlierInPlay ? "is still in play too" : "has not had its seed published yet"}. ${why}`;
  }
  if (earlierInPlay) {
    return `This hand has ended, but an earlier hand of the same seed pair (nonce ${earlier}) is still in play, `
      + `so this hand's seed is still hidden. ${why}`;
  }
  if (earlier !== null) {
    return `This hand has ended, but the seed of an earlier hand of the same seed pair (nonce ${earlier}) is not `
      + `published yet, so this hand's is not either. ${why} Check again in a moment.`;
  }
  return `This hand has ended, but its server seed is not published yet. ${why} Check again in a moment.`;
}

/**
 * What a chain pair's rounds still to be published wait for, in words:
 * `hidden` rounds (the dealt rounds whose seeds are not published),
 * `first` the first of them (`{ nonce, status }`), `inPlay` how many of
 * them are in play. "" when none is hidden.
 */
export function chainWaitingWords(hidden, first, inPlay) {
  if (!hidden) return "";
  const rounds = `${hidden} round${hidden === 1 ? "" : "s"}`;
  const firstWords = !first ? ""
    : first.status === "in_play" ? ` The first of them, nonce ${first.nonce}, is still in play`
      + `${inPlay > 1 ? ` (${inPlay} of them are in play)` : ""}.`
    : ` The first of them, nonce ${first.nonce}, has ended, but its seed is not published yet`
      + `${inPlay ? ` (${inPlay} of them ${inPlay === 1 ? "is" : "are"} in play)` : ""}.`;
  return `${rounds} still to be published.${firstWords} A chain pair publishes a round's seed once that round `
    + "and every round before it have ended (a seed reveals every seed before it).";
}

/**
 * A revealed chain pair's tip `tipHex` (s_N, N = `length`) against its
 * chain: whether it hashes down to the last published round's seed
 * (`lastSeedHex`, s_p at position `lastPosition`; skipped when null) and to
 * the commitment s_0. Synchronous: N hashes (the worker runs it).
 * Returns `{ toLast, toCommitment, computedLast, computedCommitment }`
 * (toLast null when skipped).
 */
export function chainCheckTip(tipHex, length, commitmentHex, lastPosition = null, lastSeedHex = null) {
  if (!Number.isSafeInteger(length) || length < 1 || length > MAX_CHAIN_LENGTH) {
    throw new RangeError(`a chain's length must be 1 to ${MAX_CHAIN_LENGTH}; got ${length}`);
  }
  let value = hexToBytes(String(tipHex));
  let computedLast = null;
  const checkLast = lastSeedHex !== null && Number.isSafeInteger(lastPosition) && lastPosition >= 0 && lastPosition <= length;
  for (let position = length; ; position--) {
    if (checkLast && position === lastPosition) computedLast = bytesToHex(value);
    if (position === 0) break;
    value = syncSha256(value);
  }
  const computedCommitment = bytesToHex(value);
  return {
    toLast: checkLast ? computedLast === String(lastSeedHex).toLowerCase() : null,
    toCommitment: computedCommitment === String(commitmentHex).toLowerCase(),
    computedLast,
    computedCommitment,
  };
}
