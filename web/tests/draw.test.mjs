// The in-browser fairdeal-draw-v1 (web/fairdeal-draw.mjs) against the
// published vectors, the protocol's own identity (a draw is the reversed
// tail of the full shuffle) and its input rules. Run: node --test web/tests/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as v1 from "../fairdeal-v1.mjs";
import { parseList, listSha256, drawWinners, shuffleItems, verifyDraw, ListError, MAX_ENTRIES } from "../fairdeal-draw.mjs";
const { FairdealError } = v1;

const vectors = JSON.parse(
  readFileSync(new URL("../../test-vectors/fairdeal-draw-v1.json", import.meta.url), "utf8"),
);
const utf8 = (text) => new TextEncoder().encode(text);
const decimalLinesSha256 = (perm) =>
  createHash("sha256").update(Array.from(perm, (x) => `${x}\n`).join("")).digest("hex");

test("every published list: its SHA-256 and line count", async () => {
  assert.ok(vectors.lists.length > 0);
  for (const v of vectors.lists) {
    const bytes = utf8(v.text);
    const { entries, lines } = parseList(bytes);
    assert.equal(entries, v.entries, v.name);
    assert.equal(lines.length, v.entries, v.name);
    assert.equal(lines.join("\n") + "\n", v.text, v.name);
    assert.equal(await listSha256(bytes), v.entries_sha256, v.name);
  }
});

test("every published bad list is refused at its line, for its rule", () => {
  assert.ok(vectors.bad_lists.length > 0);
  for (const v of vectors.bad_lists) {
    assert.throws(() => parseList(utf8(v.text)), (err) => {
      assert.ok(err instanceof ListError && err instanceof FairdealError, String(err));
      assert.equal(err.line, v.line, JSON.stringify(v.text));
      if (v.rule) assert.equal(err.rule, v.rule, JSON.stringify(v.text));
      assert.match(err.message, new RegExp(`^line ${v.line} `));
      return true;
    });
  }
});

test("list rules: every fault names its line", () => {
  const fault = (bytes) => {
    try {
      parseList(bytes);
    } catch (err) {
      assert.ok(err instanceof ListError, String(err));
      return [err.line, err.rule, err.message];
    }
    assert.fail("accepted");
  };
  assert.deepEqual(fault(utf8("\n")), [1, "empty", "line 1 is empty; every line needs an entrant"]);
  assert.deepEqual(fault(Uint8Array.from([0x61, 0x0a, 0x62, 0xff, 0x0a])).slice(0, 2), [2, "invalid_utf8"]);
  // A UTF-16 surrogate written as UTF-8 is not UTF-8.
  assert.deepEqual(fault(Uint8Array.from([0x61, 0x0a, 0xed, 0xa0, 0x80, 0x0a])).slice(0, 2), [2, "invalid_utf8"]);
  assert.deepEqual(fault(utf8("a\nb\r\n")).slice(0, 2), [2, "carriage_return"]);
  assert.deepEqual(fault(utf8("a\nb\nc\nb\n")), [4, "duplicate", "line 4 repeats line 2"]);
  assert.deepEqual(fault(utf8("a")).slice(0, 2), [1, "unterminated"]);
  // A complete line's fault comes before an unterminated last line.
  assert.deepEqual(fault(utf8("a\n\nb")).slice(0, 2), [2, "empty"]);
  // Lines are bytes: no trimming, no normalisation; "é" precomposed and
  // decomposed are two entrants, a trailing space makes another.
  assert.deepEqual(parseList(utf8("\u00e9\ne\u0301\na \na\n")).lines, ["\u00e9", "e\u0301", "a ", "a"]);
  // A byte-order mark is part of the first line's text, not dropped.
  assert.deepEqual(parseList(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61, 0x0a, 0x61, 0x0a])).lines, ["\ufeffa", "a"]);
  assert.deepEqual(parseList(new Uint8Array(0)), { entries: 0, lines: [] });
  assert.deepEqual(parseList(utf8("zoë\n🂡 ace\n").buffer), { entries: 2, lines: ["zoë", "🂡 ace"] });
});

test("every published draw: winners, and winner lines from its list", async () => {
  const lists = Object.fromEntries(vectors.lists.map((v) => [v.name, parseList(utf8(v.text)).lines]));
  assert.ok(vectors.draws.length > 0);
  for (const v of vectors.draws) {
    const winners = await drawWinners({
      serverSeed: v.server_seed, clientSeed: v.client_seed, nonce: v.nonce,
      entries: v.entries, winners: v.winners.length,
    });
    assert.deepEqual(winners, v.winners, v.name);
    if (v.list) {
      const lines = lists[v.list];
      assert.equal(lines.length, v.entries, v.name);
      assert.deepEqual(winners.map((i) => lines[i]), v.winner_lines, v.name);
    }
  }
});

test("every published shuffle: first items and SHA-256 of the decimal lines", async () => {
  assert.ok(vectors.shuffles.length > 0);
  for (const v of vectors.shuffles) {
    const perm = await shuffleItems({ serverSeed: v.server_seed, clientSeed: v.client_seed, nonce: v.nonce, items: v.items });
    assert.ok(perm instanceof Uint32Array);
    assert.equal(perm.length, v.items, v.name);
    assert.deepEqual(Array.from(perm.subarray(0, v.first.length)), v.first, v.name);
    assert.equal(decimalLinesSha256(perm), v.sha256, v.name);
  }
});

test("a shuffle of 52 items is fairdeal-v1's deck shuffle, index for index", async () => {
  const seed = "cc81882ef2e3817d62eb8de238ed2d02a3c6efde72694629906a660e35b1b2f8";
  const perm = await shuffleItems({ serverSeed: seed, clientSeed: "omaha-table", nonce: "1000", items: 52 });
  const dealt = await v1.deal({ serverSeed: seed, clientSeed: "omaha-table", nonce: "1000", game: { type: "deck" } });
  const fresh = v1.freshDeck(1);
  assert.deepEqual(Array.from(perm, (i) => fresh[i]), dealt.deal.deck);
});

test("a draw of k of n is the reversed tail of the full shuffle of n (2 <= n <= 60, every k)", async () => {
  const serverSeed = "8646875b6c41589ec1a43c96cd06abf07e6435e78c3264fe2c2d0fd582caa440";
  let checked = 0;
  for (let n = 2; n <= 60; n++) {
    const inputs = { serverSeed, clientSeed: `tail-${n}`, nonce: String(n * 7) };
    const full = Array.from(await shuffleItems({ ...inputs, items: n }));
    const reversed = full.slice().reverse();
    for (let k = 1; k <= n; k++) {
      assert.deepEqual(await drawWinners({ ...inputs, entries: n, winners: k }), reversed.slice(0, k), `n=${n} k=${k}`);
      checked += 1;
    }
  }
  assert.equal(checked, 1829);
});

test("out-of-range draws and shuffles are refused naming the field", async () => {
  const base = { serverSeed: "00".repeat(32), clientSeed: "player", nonce: "0" };
  const refused = async (params, field, pattern) => {
    await assert.rejects(drawOrShuffle(params), (err) => {
      assert.ok(err instanceof FairdealError, String(err));
      assert.equal(err.field, field, err.message);
      assert.ok(err.message.startsWith(`${field}: `), err.message);
      if (pattern) assert.match(err.message, pattern);
      return true;
    }, JSON.stringify(params));
  };
  const drawOrShuffle = (params) => ("items" in params ? shuffleItems(params) : drawWinners(params));
  await refused({ ...base, entries: 1, winners: 1 }, "entries", /2 to 4294967295; got 1$/);
  await refused({ ...base, entries: 0, winners: 1 }, "entries");
  await refused({ ...base, entries: MAX_ENTRIES + 1, winners: 1 }, "entries", /got 4294967296$/);
  await refused({ ...base, entries: "12abc", winners: 1 }, "entries");
  await refused({ ...base, entries: -5, winners: 1 }, "entries");
  await refused({ ...base, entries: 2.5, winners: 1 }, "entries");
  await refused({ ...base, winners: 1 }, "entries");
  await refused({ ...base, entries: 5, winners: 0 }, "winners", /1 to the number of entries \(5\); got 0$/);
  await refused({ ...base, entries: 5, winners: 6 }, "winners", /got 6$/);
  await refused({ ...base, entries: 5 }, "winners");
  await refused({ ...base, items: 0 }, "items", /1 to 4294967295; got 0$/);
  await refused({ ...base, items: MAX_ENTRIES + 1 }, "items");
  await refused({ ...base, serverSeed: "abc", entries: 5, winners: 1 }, "server_seed");
  await refused({ ...base, clientSeed: "", entries: 5, winners: 1 }, "client_seed");
  await refused({ ...base, nonce: "-1", entries: 5, winners: 1 }, "nonce");
  // The extremes are accepted: one item, and the largest list (O(k), not O(n)).
  assert.deepEqual(Array.from(await shuffleItems({ ...base, items: 1 })), [0]);
  assert.equal((await drawWinners({ ...base, entries: "4294967295", winners: "3" })).length, 3);
});

test("verifyDraw passes a true record and names what a tampered one changes", async () => {
  const v = vectors.draws.find((d) => d.list);
  const listVector = vectors.lists.find((l) => l.name === v.list);
  const listBytes = utf8(listVector.text);
  const lines = parseList(listBytes).lines;
  const serverSeedHash = await v1.commitment(v1.hexToBytes(v.server_seed));
  const record = {
    id: "d-1", protocol: "fairdeal-draw-v1", status: "drawn", label: null,
    entries_sha256: listVector.entries_sha256, entries: v.entries, winners: v.winners.length,
    client_seed_source: "chosen by the audience", server_seed_hash: serverSeedHash,
    client_seed: v.client_seed, server_seed: v.server_seed, nonce: 0, entries_uploaded: true,
    created_at: "2026-01-01T00:00:00Z", drawn_at: "2026-01-02T00:00:00Z",
    result: v.winners.map((entry, i) => ({ rank: i + 1, entry, line_number: entry + 1, text: lines[entry] })),
  };
  const good = await verifyDraw(record, listBytes);
  assert.equal(good.list.status, "pass");
  assert.equal(good.commitment.status, "pass");
  assert.equal(good.nonce.status, "pass");
  assert.equal(good.winners.status, "pass");
  assert.deepEqual(good.winners.computed, v.winners);
  assert.deepEqual(good.list.lines, lines);

  // Without the file the list is not checked, the draw still is.
  const noFile = await verifyDraw(record);
  assert.equal(noFile.list.status, "pending");
  assert.equal(noFile.winners.status, "pass");

  // Not drawn yet: nothing to recompute, the list can already be checked.
  const early = await verifyDraw({ ...record, status: "ready", server_seed: null, result: null }, listBytes);
  assert.deepEqual([early.list.status, early.commitment.status, early.winners.status], ["pass", "pending", "pending"]);

  const tamper = (result) => verifyDraw({ ...record, result }, listBytes);
  const swapped = record.result.map((r) => ({ ...r }));
  [swapped[1].entry, swapped[2].entry] = [swapped[2].entry, swapped[1].entry];
  let got = await tamper(swapped);
  assert.equal(got.winners.status, "fail");
  assert.deepEqual(got.winners.difference, { rank: 2, what: "entry", computed: v.winners[1], recorded: v.winners[2] });
  got = await tamper(record.result.slice(0, 2));
  assert.deepEqual(got.winners.difference, { rank: 3, what: "missing", computed: v.winners[2], recorded: null });
  got = await tamper([...record.result, { rank: 4, entry: 4, line_number: 5, text: "eve" }]);
  assert.equal(got.winners.difference.rank, 4);
  assert.equal(got.winners.difference.what, "extra");
  got = await tamper(record.result.map((r, i) => (i === 0 ? { ...r, text: "mallory" } : r)));
  assert.deepEqual(got.winners.difference, { rank: 1, what: "text", computed: lines[v.winners[0]], recorded: "mallory" });
  got = await tamper(record.result.map((r, i) => (i === 2 ? { ...r, line_number: r.entry } : r)));
  assert.equal(got.winners.difference.what, "line_number");

  // Another seed, another list, another nonce: each check fails on its own.
  got = await verifyDraw({ ...record, server_seed: "00".repeat(32) }, listBytes);
  assert.equal(got.commitment.status, "fail");
  assert.equal(got.winners.status, "fail");
  const oneByte = utf8(listVector.text.replace("alice", "alicf"));
  got = await verifyDraw(record, oneByte);
  assert.equal(got.list.status, "fail");
  assert.notEqual(got.list.sha256, listVector.entries_sha256);
  assert.equal(got.winners.status, "pass", "the texts of another file are not held against the record");
  got = await verifyDraw(record, utf8("alice\nbob\nalice\n"));
  assert.equal(got.list.status, "fail");
  assert.equal(got.list.error.line, 3);
  got = await verifyDraw({ ...record, nonce: 1 }, listBytes);
  assert.equal(got.nonce.status, "fail");
  await assert.rejects(verifyDraw({ ...record, protocol: "fairdeal-v1" }), /protocol/);
  await assert.rejects(verifyDraw({ ...record, winners: 6 }), (err) => err.field === "winners");
});

test("every module of the page imports what it uses, parses, and nothing in it can end a script element", () => {
  const read = (name) => readFileSync(new URL(`../${name}`, import.meta.url), "utf8");
  const pageFiles = ["views", "trust", "log", "monitors", "chain", "tables", "lookup", "pair", "paste", "draw", "main"]
    .map((name) => `page/${name}.js`);
  const modules = ["fairdeal-v1.mjs", "fairdeal-draw.mjs", "fairdeal-table.mjs", "fairdeal-chain.mjs", "sha256.mjs",
    "tlog.mjs", "witness.mjs", "evidence.mjs", "bulk.mjs", "seed-display.mjs", "verify-worker.mjs", ...pageFiles];
  for (const name of modules) {
    const source = read(name);
    const out = spawnSync(process.execPath, ["--check", "--input-type=module"], { input: source, encoding: "utf8" });
    assert.equal(out.status, 0, `${name}: ${out.stderr}`);
    assert.doesNotMatch(source, /<\/script|<!--|\{\{/i, `${name}: nothing that would end the release's inline script`);
    // The protocol and log modules never reach into the views.
    if (!name.startsWith("page/")) assert.doesNotMatch(source, /from "\.\/page\//, `${name}: imports a view`);
    for (const [, target] of source.matchAll(/^import [^;]* from "([^"]+)";$/gm)) {
      const resolved = new URL(target, new URL(`../${name}`, import.meta.url));
      assert.ok(modules.some((m) => new URL(`../${m}`, import.meta.url).href === resolved.href), `${name} imports ${target}`);
    }
  }
});
