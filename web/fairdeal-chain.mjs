// fairdeal-chain-v1 in the browser (docs/PROTOCOL.md §13): a seed pair's
// server seeds as a SHA-256 chain committed before play. Round k (nonce k)
// is the fairdeal-v1 round of seed s_{k+1}, whose fairdeal-v1 commitment is
// s_k: the chain's commitment for round 0, the previous round's seed after.
// Dealing is fairdeal-v1's (`deal` in fairdeal-v1.mjs), unchanged.
import { bytesToHex, commitment, hexToBytes } from "./fairdeal-v1.mjs";

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
