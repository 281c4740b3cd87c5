// The rules that hold a record to its log entries (evidence.mjs), on their
// own: each one passes the record's own entry and fails every single change
// a dishonest operator could make to the record or the entry.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import {
  clientSeedEntry, drawDifferences, drawEntry, outOfOrder, pairCommitEntry, roundEntry, sameGame, sha256Hex,
} from "../evidence.mjs";

const sha = (text) => createHash("sha256").update(text, "utf8").digest("hex");

test("sha256Hex is SHA-256 of the UTF-8 bytes, lowercase", async () => {
  for (const text of ["", "abc", "the player's own ✓ seed"]) assert.equal(await sha256Hex(text), sha(text));
});

test("a round entry is the round's only with its id, nonce, pair and game", () => {
  const round = { id: "r1", nonce: 7, seed_pair_id: "p1", game: { type: "holdem", players: 2 } };
  const entry = { type: "round", round: "r1", nonce: 7, seed_pair: "p1", game: { players: 2, type: "holdem" }, time: "t" };
  assert.ok(roundEntry(round)(entry), "keys in another order are one game");
  for (const change of [{ type: "commit" }, { round: "r2" }, { nonce: 8 }, { seed_pair: "p2" }, { game: { type: "holdem", players: 3 } }]) {
    assert.equal(roundEntry(round)({ ...entry, ...change }), false, JSON.stringify(change));
  }
  assert.equal(roundEntry(round)(null), false);
  assert.equal(sameGame({ type: "holdem", players: 2 }, "not a game"), false);
});

test("a commit entry is the pair's only with its commitment (any case) and its chain length", () => {
  const hash = "ab".repeat(32);
  const pair = { id: "p1", server_seed_hash: hash.toUpperCase() };
  const entry = { type: "commit", seed_pair: "p1", server_seed_hash: hash };
  assert.ok(pairCommitEntry(pair)(entry));
  assert.equal(pairCommitEntry(pair)({ ...entry, server_seed_hash: "cd".repeat(32) }), false);
  assert.equal(pairCommitEntry(pair)({ ...entry, seed_pair: "p2" }), false);
  assert.equal(pairCommitEntry(pair)({ ...entry, chain_length: 4 }), false, "a chain's commit is not a v1 pair's");
  const chain = { ...pair, chain: { length: 4 } };
  assert.ok(pairCommitEntry(chain)({ ...entry, chain_length: 4 }));
  assert.equal(pairCommitEntry(chain)({ ...entry, chain_length: 5 }), false);
  const next = { ...pair, next_server_seed_hash: "ef".repeat(32) };
  assert.equal(pairCommitEntry(next)(entry), false, "a stated next commitment must be the logged one");
});

test("a client seed entry is the pair's only with the SHA-256 of the seed shown", () => {
  const digest = sha("c0ffee11c0ffee11");
  const entry = { type: "client_seed", seed_pair: "p1", client_seed_sha256: digest.toUpperCase() };
  assert.ok(clientSeedEntry("p1", digest)(entry));
  assert.equal(clientSeedEntry("p1", sha("c0ffee11c0ffee22"))(entry), false);
  assert.equal(clientSeedEntry("p2", digest)(entry), false);
  assert.ok(drawEntry("d1", "draw_result")({ type: "draw_result", draw: "d1" }));
  assert.equal(drawEntry("d1", "draw_result")({ type: "draw_commit", draw: "d1" }), false);
  assert.equal(drawEntry("d1", "draw_result")({ type: "draw_result", draw: "d2" }), false);
});

test("steps logged out of order are named; steps not logged are skipped", () => {
  assert.deepEqual(outOfOrder([[3, "commitment"], [5, "client seed"], [9, "result"]]), []);
  assert.deepEqual(outOfOrder([[3, "commitment"], [null, "client seed"], [9, "result"]]), []);
  assert.deepEqual(outOfOrder([[6, "commitment"], [5, "client seed"], [9, "result"]]),
    [{ first: { index: 6, name: "commitment" }, second: { index: 5, name: "client seed" } }]);
  assert.equal(outOfOrder([[5, "a"], [5, "b"]]).length, 1, "one index for two steps is not an order");
});

test("a draw as checked is compared with every value its three entries hold", async () => {
  const seed = "11".repeat(32);
  const values = {
    entries_sha256: "aa".repeat(32), entries: "30", winners: "2", server_seed_hash: "bb".repeat(32),
    client_seed: "the chat said 41", server_seed: seed,
  };
  const computed = [4, 17];
  const logged = {
    commit: { index: 3, entry: { type: "draw_commit", draw: "d1", entries_sha256: "AA".repeat(32), entries: 30, winners: 2,
      server_seed_hash: "bb".repeat(32), client_seed_source_sha256: sha("the chat") } },
    clientSeed: { index: 5, entry: { type: "draw_client_seed", draw: "d1", client_seed_sha256: sha("the chat said 41") } },
    result: { index: 9, entry: { type: "draw_result", draw: "d1", winners: [4, 17], server_seed: seed } },
  };
  assert.deepEqual(await drawDifferences(values, computed, logged, sha("the chat")), []);
  const cases = [
    [{ ...values, entries_sha256: "ac".repeat(32) }, computed, "the list's SHA-256", 3],
    [{ ...values, entries: "31" }, computed, "the number of entries", 3],
    [{ ...values, winners: "3" }, computed, "the number of winners", 3],
    [{ ...values, server_seed_hash: "bc".repeat(32) }, computed, "the server seed commitment", 3],
    [{ ...values, client_seed: "the chat said 42" }, computed, "the client seed's SHA-256", 5],
    [{ ...values, client_seed: null }, computed, "the client seed's SHA-256", 5],
    [{ ...values, server_seed: "12".repeat(32) }, computed, "the revealed server seed", 9],
    [{ ...values, server_seed: null }, computed, "the revealed server seed", 9],
    [values, [17, 4], "the winners", 9],
    [values, [4, 17, 20], "the winners", 9],
  ];
  for (const [changed, winners, what, index] of cases) {
    const found = await drawDifferences(changed, winners, logged, sha("the chat"));
    assert.deepEqual(found.map((d) => [d.what, d.index]), [[what, index]], what);
  }
  const source = await drawDifferences(values, computed, logged, sha("another source"));
  assert.deepEqual(source.map((d) => d.what), ["the SHA-256 of the client seed's stated source"]);
  const hidden = await drawDifferences(values, computed, logged, null);
  assert.deepEqual(hidden.map((d) => [d.what, d.shown]), [["the SHA-256 of the client seed's stated source", "(not stated)"]]);
  // Nothing logged yet: nothing to differ from (whether an entry is due is the caller's rule).
  assert.deepEqual(await drawDifferences(values, computed, { commit: null, clientSeed: null, result: null }, null), []);
  // An entry of another kind where one was expected is not read as that one.
  const wrongKind = { ...logged, result: { index: 9, entry: { ...logged.result.entry, type: "draw_commit" } } };
  assert.deepEqual(await drawDifferences({ ...values, server_seed: null }, computed, wrongKind, sha("the chat")), []);
});
