// The verification page's worker: checks every round of a seed pair off the
// page's thread (a fairdeal-chain-v1 pair's rounds each with its own
// published seed, linked down the chain: workerChainRound; and a revealed
// chain's tip down to the last round's seed and the commitment). The page
// (pair.js) starts it as a module the service serves, or, in the released
// file, from a blob: URL of its bundle (a classic script the file carries
// and its policy pins). It imports only protocol and log modules. It reads the rounds (GET /v1/seed-pairs/{id}/rounds) and
// their log evidence (GET /v1/seed-pairs/{id}/evidence) a window at a time,
// several windows in flight, and answers with messages:
//
//   { type: "checkpoint", checkpoint }          the verified checkpoint used
//   { type: "progress", checked, total }       after every window
//   { type: "rows", ids, nonces, results, games, statuses, newGames, newStatuses }
//                                              a window's rows
//   { type: "done", summary }                  the pair's verdict's facts
//   { type: "error", message }                 it could not finish
//
// A window's rows are compact, for the page keeps them for its table:
// `ids` the rounds' ids, `nonces` a Float64Array, `results` a Uint8Array of
// one code a round (0 verified, 1 failed, 2 not verifiable yet: the seed is
// secret), `games` and `statuses` Uint16Arrays of indexes into the lists of
// distinct games and statuses met so far, of which `newGames` and
// `newStatuses` are the ones this window adds. Each failure is in
// `summary.failures`, naming the round (nonce and id) and every reason.
//
// Two windows in flight: one is checked while the next is read. More
// windows ahead do not make it faster on a small machine, and each holds
// about a megabyte of JSON text and its parsed rounds.

import { bulkBase64, bulkDealer, bulkDifference, bulkLeafHash, bulkRoot, bulkSameBytes, bulkShuffle } from "./bulk.mjs";
import { CHAIN_PROTOCOL, chainCheckTip, chainLinker } from "./fairdeal-chain.mjs";
import { bytesToHex, hexToBytes, normaliseGame } from "./fairdeal-v1.mjs";
import { syncSha256 } from "./sha256.mjs";
import { verifyCheckpoint, verifyInclusion } from "./tlog.mjs";

const WORKER_IN_FLIGHT = 2;
const WORKER_MAX_FAILURES = 1000;
const WORKER_ENCODER = new TextEncoder();

async function workerJson(url) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (response.status === 429 || response.status === 503) {
      if (attempt < 5) {
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
        continue;
      }
    }
    const body = await response.json().catch(() => ({}));
    if (response.status !== 200) {
      throw new Error(`${url.replace(/^https?:\/\/[^/]+/, "")}: the server answered ${response.status}${body.detail ? ` (${body.detail})` : ""}`);
    }
    return body;
  }
}

/** The window size: at least ten windows (so progress moves), at most 1,000 rounds each. */
function workerWindow(total) {
  return Math.max(50, Math.min(1000, Math.ceil(total / 10)));
}

async function workerCheck({ origin, pair, vkey, logged, checkpointNote }) {
  const id = encodeURIComponent(pair.id);
  const total = Number(pair.next_nonce) || 0;
  const window = workerWindow(total);
  // A chain pair's rounds each have their own seed (fairdeal-chain-v1),
  // published as it and every earlier round ended; its pair's revealed
  // seed is the chain's tip, checked after the rounds.
  const chain = pair.protocol === CHAIN_PROTOCOL ? {
    length: Number(pair.chain && pair.chain.length),
    publishedRounds: Number(pair.chain && pair.chain.published_rounds),
    linker: chainLinker(pair.server_seed_hash),
    published: 0, linked: 0, hidden: 0, inPlay: 0, firstHidden: null, tip: null,
  } : null;
  const revealed = !chain && typeof pair.server_seed === "string" && pair.server_seed !== "";

  // The checkpoint every window is proven against, verified once: the one
  // the page chose (the latest its player's witnesses cosigned), else the
  // log's latest. Witnesses' cosignature lines may follow the log's own
  // signature; the evidence carries the log's note alone, so the two are
  // compared by their bodies.
  let checkpoint = null;
  let body = null;
  if (vkey) {
    const note = typeof checkpointNote === "string" ? checkpointNote : await (await fetch(`${origin}/log/checkpoint`)).text();
    checkpoint = await verifyCheckpoint(vkey, note);
    body = note.slice(0, note.indexOf("\n\n") + 1);
    postMessage({ type: "checkpoint", checkpoint });
  }

  // The pair's own values, checked once: every round must be dealt from them.
  let dealer = null;
  let commitmentOk = null;
  let computedCommitment = null;
  if (revealed) {
    const seed = hexToBytes(pair.server_seed);
    computedCommitment = bytesToHex(syncSha256(seed));
    commitmentOk = computedCommitment === String(pair.server_seed_hash).toLowerCase();
    dealer = bulkDealer(seed, pair.client_seed);
  }

  const failures = [];
  let failed = 0;
  let passed = 0;
  let pending = 0;
  let listed = 0;
  let logProven = 0;
  // The largest log index of the pair's rounds: how far a monitor must have read to speak of all of them.
  let logLast = -1;
  let logPending = 0;
  let expected = 0; // the next nonce due
  const gaps = []; // [from, to] of nonces not listed (the first 20)
  let missing = 0;
  let disorder = 0;
  const logIndexes = new Set();
  const gameIndex = new Map(); // a game's JSON -> its index in the page's list
  const statusIndex = new Map();
  const fail = (round, reason) => {
    let entry = failures.length ? failures[failures.length - 1] : null;
    if (!entry || entry.id !== round.id) {
      failed += 1;
      if (failures.length >= WORKER_MAX_FAILURES) return;
      entry = { nonce: round.nonce, id: round.id, reasons: [] };
      failures.push(entry);
    }
    entry.reasons.push(reason);
  };

  // Windows [k·window, (k+1)·window) of nonces, fetched ahead.
  const windows = Math.max(1, Math.ceil(total / window));
  const fetchWindow = (k, after = k === 0 ? null : k * window - 1) => {
    const query = `limit=${window}${after === null ? "" : `&after=${after}`}`;
    const size = checkpoint ? `&size=${checkpoint.size}` : "";
    return Promise.all([
      workerJson(`${origin}/v1/seed-pairs/${id}/rounds?${query}`),
      checkpoint && checkpoint.size > 0 ? workerJson(`${origin}/v1/seed-pairs/${id}/evidence?${query}${size}`) : null,
    ]);
  };
  const ahead = [];
  for (let k = 0; k < Math.min(WORKER_IN_FLIGHT, windows); k++) ahead.push(fetchWindow(k));
  let k = 0;
  let extraAfter = null; // past the last window: rounds the pair should not have
  for (;;) {
    let page;
    let evidence;
    if (k < windows) {
      [page, evidence] = await ahead.shift();
      if (k + WORKER_IN_FLIGHT < windows) ahead.push(fetchWindow(k + WORKER_IN_FLIGHT));
    } else {
      if (extraAfter === null) break;
      [page, evidence] = await fetchWindow(k, extraAfter);
    }
    const last = k === windows - 1 || k >= windows;
    const end = last ? Infinity : (k + 1) * window;
    const rounds = (page.rounds || []).filter((r) => !(Number(r.nonce) >= end));
    const entries = new Map();
    if (evidence) {
      for (const row of evidence.rounds || []) entries.set(row.round, row);
    }

    // The log: this window's entries up to the one checkpoint's root.
    let windowProof = null; // null: proven, or the reason it is not
    if (evidence) {
      const evidenceBody = typeof evidence.checkpoint === "string" ? evidence.checkpoint.slice(0, evidence.checkpoint.indexOf("\n\n") + 1) : null;
      if (evidence.size !== checkpoint.size || evidenceBody !== body) {
        windowProof = `the evidence is proven against another checkpoint (${evidence.size} entries), not the one of ${checkpoint.size} this page verified`;
      } else {
        const leaves = [];
        for (const row of evidence.rounds || []) {
          if (row.in_checkpoint && typeof row.entry === "string" && Number.isSafeInteger(row.log_index)) {
            leaves.push([row.log_index, bulkLeafHash(WORKER_ENCODER.encode(row.entry))]);
          }
        }
        leaves.sort((a, b) => a[0] - b[0]);
        const nodes = new Map();
        try {
          for (const node of evidence.nodes || []) nodes.set(`${node.level}/${node.index}`, bulkBase64(node.hash));
          if (leaves.length) {
            for (let i = 1; i < leaves.length; i++) {
              if (leaves[i][0] === leaves[i - 1][0]) throw new Error(`two rounds are given one log index, ${leaves[i][0]}`);
            }
            const root = bulkRoot(checkpoint.size, leaves, nodes);
            if (!bulkSameBytes(root, bulkBase64(checkpoint.root))) {
              windowProof = "the entries and tree nodes given do not make the checkpoint's root: an entry or a node is not the log's";
            }
          }
        } catch (error) {
          windowProof = error.message || String(error);
        }
      }
    }

    // A window that does not reach the root: each round's own receipt and
    // inclusion proof say which entries are not the log's; when every one
    // is, the nodes given were not.
    const culprits = new Map();
    if (windowProof && evidence) {
      const rows = (evidence.rounds || []).filter((row) => row.in_checkpoint && typeof row.entry === "string");
      let next = 0;
      const recheck = async () => {
        while (next < rows.length) {
          const row = rows[next++];
          try {
            const receipt = await workerJson(`${origin}/v1/rounds/${encodeURIComponent(row.round)}/receipt`);
            await verifyInclusion(vkey, receipt.proof, receipt.entry);
            if (receipt.entry !== row.entry || receipt.log_index !== row.log_index) {
              culprits.set(row.round, `log: its entry in the bulk evidence is not the entry ${receipt.log_index} its own receipt proves in the log`);
            }
          } catch (error) {
            culprits.set(row.round, `log: its own receipt does not prove it either (${error.message || error})`);
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, recheck));
      if (culprits.size === 0) {
        windowProof = `${windowProof}; every round's own receipt proves its entry, so a tree node given in bulk is not the log's`;
      }
    }

    const ids = [];
    const nonces = new Float64Array(rounds.length);
    const games = new Uint16Array(rounds.length);
    const statuses = new Uint16Array(rounds.length);
    const newGames = [];
    const newStatuses = [];
    const results = new Uint8Array(rounds.length);
    const indexOf = (table, added, value, key) => {
      let at = table.get(key);
      if (at === undefined) {
        if (table.size >= 65535) throw new Error("the pair's rounds hold more than 65,535 distinct games or statuses");
        at = table.size;
        table.set(key, at);
        added.push(value);
      }
      return at;
    };
    const offered = new Set();
    rounds.forEach((round, i) => {
      listed += 1;
      const nonce = Number(round.nonce);
      if (nonce > expected) {
        missing += nonce - expected;
        if (gaps.length < 20) gaps.push([expected, nonce - 1]);
      } else if (nonce < expected) {
        disorder += 1;
        fail(round, `listed again or out of order (after nonce ${expected - 1})`);
      }
      expected = Math.max(expected, nonce + 1);
      ids.push(String(round.id));
      nonces[i] = nonce;
      games[i] = indexOf(gameIndex, newGames, round.game, JSON.stringify(round.game ?? null));
      statuses[i] = indexOf(statusIndex, newStatuses, round.status, String(round.status));
      const before = failed;
      offered.add(round.id);

      // The log entry: this round's, in the checkpoint, proven.
      if (checkpoint) {
        const row = entries.get(round.id);
        if (checkpoint.size === 0) {
          // A log with no entry signed yet: every round waits for its first checkpoint.
          logPending += 1;
        } else if (!evidence || !row) {
          fail(round, "the log evidence has no entry for this round");
        } else if (!Number.isSafeInteger(row.log_index) || typeof row.entry !== "string") {
          if (logged) fail(round, "no log entry: its pair is in the log, so every round of it must be");
          else logPending += 1;
        } else {
          let entry = null;
          try {
            entry = JSON.parse(row.entry);
          } catch {
            fail(round, `its log entry ${row.log_index} is not JSON`);
          }
          if (entry) {
            let sameGame = false;
            try {
              sameGame = JSON.stringify(normaliseGame(entry.game)) === JSON.stringify(normaliseGame(round.game));
            } catch {
              sameGame = false;
            }
            const whose = entry.type === "round" && entry.round === round.id && entry.seed_pair === pair.id
              && entry.nonce === round.nonce && Number(row.nonce) === Number(round.nonce) && sameGame;
            if (!whose) {
              fail(round, `its log entry ${row.log_index} is not this round's (it says ${entry.type} of pair ${entry.seed_pair}, `
                + `round ${entry.round}, nonce ${entry.nonce})`);
            }
          }
          if (logIndexes.has(row.log_index)) fail(round, `its log index ${row.log_index} is another round's too`);
          logIndexes.add(row.log_index);
          if (row.log_index > logLast) logLast = row.log_index;
          if (!row.in_checkpoint) {
            if (row.log_index < checkpoint.size) fail(round, `its entry ${row.log_index} is said not to be in the checkpoint of ${checkpoint.size}`);
            else logPending += 1;
          } else if (culprits.has(round.id)) {
            fail(round, culprits.get(round.id));
          } else if (windowProof && culprits.size === 0) {
            fail(round, `log: ${windowProof}`);
          } else {
            logProven += 1;
          }
        }
      }

      // A chain round: its own seed, linked to the chain, then its cards.
      if (chain) {
        const hidden = workerChainRound(chain, pair, round, nonce, fail);
        results[i] = failed !== before ? 1 : hidden ? 2 : 0;
        if (results[i] === 0) passed += 1;
        else if (results[i] === 2) pending += 1;
        return;
      }

      // The cards.
      if (!revealed) {
        if (failed === before) {
          pending += 1;
          results[i] = 2;
        } else {
          results[i] = 1;
        }
        return;
      }
      if (round.server_seed !== pair.server_seed || String(round.server_seed_hash).toLowerCase() !== String(pair.server_seed_hash).toLowerCase()) {
        fail(round, "its record names another server seed or commitment than its pair's");
      } else if (round.client_seed !== pair.client_seed) {
        fail(round, "its record names another client seed than its pair's");
      } else if (!commitmentOk) {
        fail(round, `the revealed seed hashes to ${computedCommitment}, not to the published commitment`);
      } else {
        workerDealAndCompare(dealer, round, fail);
      }
      if (failed === before) {
        passed += 1;
        results[i] = 0;
      } else {
        results[i] = 1;
      }
    });
    // Evidence for a round the record does not list.
    for (const [roundId, row] of entries) {
      if (!offered.has(roundId) && Number(row.nonce) < end) {
        fail({ nonce: row.nonce, id: roundId }, "the log evidence gives an entry for a round the pair's record does not list");
      }
    }
    postMessage({ type: "rows", ids, nonces, results, games, statuses, newGames, newStatuses },
      [nonces.buffer, results.buffer, games.buffer, statuses.buffer]);
    postMessage({ type: "progress", checked: listed, total });
    k += 1;
    if (k >= windows) {
      // Past the pair's count, the record should list nothing more.
      extraAfter = page.next_after === null || page.next_after === undefined ? null : page.next_after;
      if (extraAfter === null) break;
    }
  }
  if (expected < total) {
    missing += total - expected;
    if (gaps.length < 20) gaps.push([expected, total - 1]);
  }
  // A revealed chain pair: its tip hashes down to the last linked seed and
  // to the commitment (at most the chain's length in hashes).
  if (chain && typeof pair.server_seed === "string" && pair.server_seed !== "") {
    try {
      chain.tip = chainCheckTip(pair.server_seed, chain.length, pair.server_seed_hash, chain.linker.position, chain.linker.seed);
    } catch (error) {
      chain.tip = { toLast: false, toCommitment: false, error: error.message || String(error) };
    }
  }
  return {
    total, listed, passed, failed, pending, gaps, missing, disorder,
    failures, failuresListed: failures.length,
    commitment: revealed ? { ok: commitmentOk, computed: computedCommitment } : null,
    chain: chain ? {
      length: chain.length, publishedRounds: chain.publishedRounds, published: chain.published, linked: chain.linked,
      hidden: chain.hidden, inPlay: chain.inPlay, firstHidden: chain.firstHidden, tip: chain.tip,
      lastLinked: chain.linker.position,
    } : null,
    log: checkpoint ? { proven: logProven, pending: logPending, size: checkpoint.size, last: logLast } : null,
  };
}

/**
 * One round of a chain pair (`chain`: the worker's state of it): a round
 * whose seed is hidden is counted (true: not verifiable yet); a published
 * one must come after no hidden one, be closed, hash down the chain to the
 * last seed that did (its previous round's, or the commitment), and deal
 * its record's cards from its own seed. Failures go to `fail`.
 */
function workerChainRound(chain, pair, round, nonce, fail) {
  const seed = typeof round.server_seed === "string" && round.server_seed !== "" ? round.server_seed : null;
  if (String(round.server_seed_hash).toLowerCase() !== String(pair.server_seed_hash).toLowerCase()) {
    fail(round, "its record names another chain commitment than its pair's");
  }
  if (round.client_seed !== pair.client_seed) fail(round, "its record names another client seed than its pair's");
  if (seed === null) {
    chain.hidden += 1;
    if (round.status === "in_play") chain.inPlay += 1;
    if (chain.firstHidden === null) chain.firstHidden = { nonce, id: String(round.id), status: round.status };
    if (nonce < chain.publishedRounds) {
      fail(round, `its seed is not published, though its pair says the first ${chain.publishedRounds} rounds' are`);
    }
    return true;
  }
  chain.published += 1;
  if (chain.firstHidden !== null) {
    fail(round, `its seed is published while that of round ${chain.firstHidden.nonce}, before it, is not (a seed reveals every seed before it)`);
  }
  if (round.status === "in_play") fail(round, "its seed is published while it is still in play");
  if (!round.chain || Number(round.chain.position) !== nonce + 1) {
    fail(round, `its place in the chain (${round.chain && round.chain.position}) is not its nonce + 1`);
  }
  const link = chain.linker.link(nonce, seed);
  if (link.reason) {
    fail(round, `its server seed cannot be checked: ${link.reason}`);
    return false;
  }
  const againstWords = link.against === 0 ? "the pair's commitment" : `the seed of round ${link.against - 1}`;
  if (!link.ok) {
    fail(round, link.tooFar
      ? `its server seed is ${nonce + 1 - link.against} positions after the last seed that links (${againstWords}): not checked further`
      : `its server seed does not hash to ${againstWords} (SHA-256 of it is ${link.computed}): it is not the chain's seed ${nonce + 1}`);
    return false;
  }
  chain.linked += 1;
  let dealer;
  try {
    dealer = bulkDealer(hexToBytes(seed), round.client_seed);
  } catch (error) {
    fail(round, `its record cannot be dealt: ${error.message || error}`);
    return false;
  }
  workerDealAndCompare(dealer, round, fail);
  return false;
}

/**
 * Deals `round` again with `dealer` (its seeds' keystream) and compares the
 * cards with its record: a failure naming the first slot that differs, or
 * why the record cannot be dealt.
 */
function workerDealAndCompare(dealer, round, fail) {
  try {
    if (!Number.isSafeInteger(round.nonce) || round.nonce < 0) throw new Error(`nonce ${round.nonce} is not a whole number`);
    const game = normaliseGame(round.game);
    const deck = bulkShuffle(dealer, round.nonce, game.type === "holdem" || game.type === "omaha" ? 1 : game.decks);
    const difference = bulkDifference(game, deck, round.deal);
    if (difference) {
      fail(round, `the recorded cards differ from the recomputed ones: at ${difference.slot} the record says ${JSON.stringify(difference.recorded)}, fairdeal-v1 deals ${difference.computed}`);
    }
  } catch (error) {
    fail(round, `its record cannot be dealt: ${error.message || error}`);
  }
}

self.onmessage = async (event) => {
  try {
    const summary = await workerCheck(event.data);
    postMessage({ type: "done", summary });
  } catch (error) {
    postMessage({ type: "error", message: error.message || String(error) });
  }
};
