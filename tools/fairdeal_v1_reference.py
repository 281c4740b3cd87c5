#!/usr/bin/env python3
"""fairdeal-v1 and fairdeal-draw-v1, written from docs/PROTOCOL.md alone, in
plain Python.

An independent second implementation: it shares no code with the Rust crate
(its own ChaCha20 block function, its own sampling and layouts, its own list
parsing and draws), so agreement between the two is evidence that the
specification is complete.

  python3 tools/fairdeal_v1_reference.py --check test-vectors/fairdeal-v1.json
      checks every published vector; exit 0 when all match.
  python3 tools/fairdeal_v1_reference.py --check-draws test-vectors/fairdeal-draw-v1.json
      checks every published fairdeal-draw-v1 vector (lists, bad lists, draws,
      shuffles); exit 0 when all match.
  python3 tools/fairdeal_v1_reference.py < requests.ndjson
      one JSON request per line: {"server_seed", "client_seed", "nonce", "game"};
      answers one line each: {"server_seed_hash", "deal"}.
"""

import hashlib
import hmac
import json
import struct
import sys
import time

MASK = 0xFFFFFFFF


def rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & MASK


def quarter_round(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter):
    """RFC 8439 section 2.3 with an all-zero 96-bit nonce: 16 output words."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += list(struct.unpack("<8I", key))
    state += [counter & MASK, 0, 0, 0]
    working = state[:]
    for _ in range(10):
        quarter_round(working, 0, 4, 8, 12)
        quarter_round(working, 1, 5, 9, 13)
        quarter_round(working, 2, 6, 10, 14)
        quarter_round(working, 3, 7, 11, 15)
        quarter_round(working, 0, 5, 10, 15)
        quarter_round(working, 1, 6, 11, 12)
        quarter_round(working, 2, 7, 8, 13)
        quarter_round(working, 3, 4, 9, 14)
    return [(w + s) & MASK for w, s in zip(working, state)]


class Keystream:
    def __init__(self, server_seed, client_seed, nonce):
        message = client_seed.encode("utf-8") + b":" + str(nonce).encode("ascii")
        self.key = hmac.new(server_seed, message, hashlib.sha256).digest()
        self.counter = 0
        self.buffer = []

    def next_word(self):
        if not self.buffer:
            self.buffer = chacha20_block(self.key, self.counter)
            self.counter += 1
        return self.buffer.pop(0)

    def uniform(self, bound):
        t = (2**32 - bound) % bound
        while True:
            m = self.next_word() * bound
            if m & MASK >= t:
                return m >> 32


def fresh_deck(decks):
    one = [rank + suit for suit in "cdhs" for rank in "23456789TJQKA"]
    return one * decks


def deal(server_seed_hex, client_seed, nonce, game):
    seed = bytes.fromhex(server_seed_hex)
    assert len(seed) == 32
    encoded = client_seed.encode("utf-8")
    assert 1 <= len(encoded) <= 64
    assert not any(0 <= ord(ch) <= 0x1F or 0x7F <= ord(ch) <= 0x9F for ch in client_seed)
    assert 0 <= nonce < 2**64
    kind = game["type"]
    decks = game.get("decks", 1)
    deck = fresh_deck(decks)
    keystream = Keystream(seed, client_seed, nonce)
    for i in range(len(deck) - 1, 0, -1):
        j = keystream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    if kind == "deck":
        result = {"deck": deck}
    else:
        players = game["players"]
        per = {"holdem": 2, "omaha": 4}.get(kind) or game["cards"]
        hands = [[deck[k * players + p] for k in range(per)] for p in range(players)]
        h = per * players
        if kind in ("holdem", "omaha"):
            result = {
                "hands": hands,
                "board": [deck[h + 1], deck[h + 2], deck[h + 3], deck[h + 5], deck[h + 7]],
                "burns": [deck[h], deck[h + 4], deck[h + 6]],
            }
        else:
            result = {"hands": hands, "rest": deck[h:]}
    return {"server_seed_hash": hashlib.sha256(seed).hexdigest(), "deal": result}


def check(path):
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)["vectors"]
    failures = 0
    for v in vectors:
        got = deal(v["server_seed"], v["client_seed"], int(v["nonce"]), v["game"])
        ok = True
        if "server_seed_hash" in v:
            ok &= got["server_seed_hash"] == v["server_seed_hash"]
        if "keystream_words" in v:
            ks = Keystream(bytes.fromhex(v["server_seed"]), v["client_seed"], int(v["nonce"]))
            ok &= [f"{ks.next_word():08x}" for _ in v["keystream_words"]] == v["keystream_words"]
        if "uniform" in v:
            ks = Keystream(bytes.fromhex(v["server_seed"]), v["client_seed"], int(v["nonce"]))
            spec = v["uniform"]
            results = [str(ks.uniform(int(spec["bound"]))) for _ in spec["results"]]
            ok &= results == spec["results"] and ks.counter * 16 - len(ks.buffer) == spec["words_consumed"]
        d = got["deal"]
        for key in ("deck", "hands", "board", "burns"):
            if key in v.get("deal", {}):
                ok &= d[key] == v["deal"][key]
        if "deck_prefix" in v:
            ok &= d["deck"][: len(v["deck_prefix"])] == v["deck_prefix"]
            ok &= len(d["deck"]) == v["deck_len"]
            ok &= hashlib.sha256(" ".join(d["deck"]).encode()).hexdigest() == v["deck_sha256"]
        if "rest_prefix" in v:
            ok &= d["rest"][: len(v["rest_prefix"])] == v["rest_prefix"]
        print(f"vector {v['name']}: {'ok' if ok else 'MISMATCH'}")
        failures += not ok
    print(f"{len(vectors) - failures} passed, {failures} failed")
    return 1 if failures else 0


# ---- fairdeal-draw-v1 (docs/PROTOCOL.md sections 7-9) -----------------------

MAX_ENTRIES = 2**32 - 1


class ListError(ValueError):
    """A bad entrant list: the 1-based `line` and the `rule` it breaks
    (empty, carriage_return, invalid_utf8, duplicate, unterminated,
    too_many_lines); for a duplicate, `first` is the earlier line (1-based)."""

    def __init__(self, line, rule, first=None):
        words = {
            "empty": f"line {line} is empty; every line needs an entrant",
            "carriage_return": f"line {line} contains CR; lines end with LF only (convert CRLF files)",
            "invalid_utf8": f"line {line} is not valid UTF-8",
            "duplicate": f"line {line} repeats line {first}",
            "unterminated": f"line {line} does not end with LF; the list must end with a line feed",
            "too_many_lines": f"line {line} is beyond the {MAX_ENTRIES} lines a list may have",
        }
        super().__init__(f"{words[rule]} ({rule})")
        self.line = line
        self.rule = rule
        self.first = first


def parse_list(data):
    """An entrant list (section 7): returns (sha256 hex, number of lines, the
    lines' texts), or raises ListError naming the first bad line, 1-based.
    Lines are checked in order; a complete line's faults come before an
    unterminated last line."""
    data = bytes(data)
    parts = data.split(b"\n")
    complete, tail = parts[:-1], parts[-1]
    lines = []
    seen = {}
    for index, raw in enumerate(complete):
        line = index + 1
        if index >= MAX_ENTRIES:
            raise ListError(line, "too_many_lines")
        if not raw:
            raise ListError(line, "empty")
        if b"\r" in raw:
            raise ListError(line, "carriage_return")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ListError(line, "invalid_utf8") from None
        first = seen.setdefault(raw, line)
        if first != line:
            raise ListError(line, "duplicate", first)
        lines.append(text)
    if tail:
        raise ListError(len(complete) + 1, "unterminated")
    return hashlib.sha256(data).hexdigest(), len(lines), lines


def _keystream(server_seed_hex, client_seed, nonce):
    """The keystream of (server seed, client seed, nonce), inputs checked as in
    section 1; a bad one raises ValueError naming its field."""
    try:
        seed = bytes.fromhex(server_seed_hex)
    except ValueError:
        seed = b""
    if len(seed) != 32:
        raise ValueError("server_seed: must be 64 hexadecimal characters (32 bytes)")
    if not 1 <= len(client_seed.encode("utf-8")) <= 64:
        raise ValueError("client_seed: must be 1 to 64 bytes of UTF-8")
    if any(0 <= ord(ch) <= 0x1F or 0x7F <= ord(ch) <= 0x9F for ch in client_seed):
        raise ValueError("client_seed: must not contain control characters")
    nonce = int(nonce)
    if not 0 <= nonce < 2**64:
        raise ValueError("nonce: must be 0 to 18446744073709551615")
    return Keystream(seed, client_seed, nonce)


def draw(server_seed_hex, client_seed, nonce, entries, winners):
    """`winners` (k) of `entries` (n), as entrant indices, winner 1 first: the
    first min(k, n - 1) steps of Fisher-Yates from the end over [0, n). Only
    the swapped positions are kept (a dict), so memory and time are O(k)."""
    if not 2 <= entries <= MAX_ENTRIES:
        raise ValueError(f"entries: must be 2 to {MAX_ENTRIES}; got {entries}")
    if not 1 <= winners <= entries:
        raise ValueError(f"winners: must be 1 to the number of entries ({entries}); got {winners}")
    keystream = _keystream(server_seed_hex, client_seed, nonce)
    moved = {}  # position -> item, for positions no longer holding their own index
    result = []
    for step in range(winners):
        i = entries - 1 - step
        if i == 0:
            # k = n: the last winner is a[0], which needs no step.
            result.append(moved.pop(0, 0))
            break
        j = keystream.uniform(i + 1)
        # Swap a[i] and a[j]: the winner is a[j] after the swap, what was at
        # i before it when j == i; position i is never read again.
        at_i = moved.pop(i, i)
        if j == i:
            result.append(at_i)
        else:
            result.append(moved.get(j, j))
            moved[j] = at_i
    return result


def shuffle_items(server_seed_hex, client_seed, nonce, items):
    """[0, n) shuffled exactly as a deck is (section 8 `shuffle`): position p
    gets item a[p]."""
    if not 1 <= items <= MAX_ENTRIES:
        raise ValueError(f"items: must be 1 to {MAX_ENTRIES}; got {items}")
    keystream = _keystream(server_seed_hex, client_seed, nonce)
    a = list(range(items))
    for i in range(items - 1, 0, -1):
        j = keystream.uniform(i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def permutation_sha256(a):
    """SHA-256 of a permutation written out: decimal numbers, one per line,
    each ending with LF."""
    return hashlib.sha256("".join(f"{x}\n" for x in a).encode("ascii")).hexdigest()


def check_draws(path):
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)
    results = []

    def report(name, ok, detail=""):
        print(f"{name}: {'ok' if ok else 'MISMATCH'}{detail}", flush=True)
        results.append(ok)

    lists = {}
    for v in vectors.get("lists", []):
        digest, count, lines = parse_list(v["text"].encode("utf-8"))
        lists[v["name"]] = lines
        report(f"list {v['name']}", digest == v["entries_sha256"] and count == v["entries"],
               f" ({count} lines, sha256 {digest})")
    for n, v in enumerate(vectors.get("bad_lists", []), 1):
        try:
            parse_list(v["text"].encode("utf-8"))
        except ListError as err:
            ok = err.line == v["line"] and f"line {v['line']} " in str(err)
            if "rule" in v:
                ok &= err.rule == v["rule"]
            report(f"bad_list {n}", ok, f" ({err})")
        else:
            report(f"bad_list {n}", False, " (accepted)")
    for v in vectors.get("draws", []):
        got = draw(v["server_seed"], v["client_seed"], int(v["nonce"]), v["entries"], len(v["winners"]))
        ok = got == v["winners"]
        if "list" in v:
            lines = lists[v["list"]]
            ok &= len(lines) == v["entries"]
            ok &= [lines[i] for i in got] == v["winner_lines"]
        report(f"draw {v['name']}", ok, f" ({len(got)} of {v['entries']})")
    for v in vectors.get("shuffles", []):
        started = time.monotonic()
        got = shuffle_items(v["server_seed"], v["client_seed"], int(v["nonce"]), v["items"])
        seconds = time.monotonic() - started
        ok = got[: len(v["first"])] == v["first"] and len(got) == v["items"]
        ok &= permutation_sha256(got) == v["sha256"]
        report(f"shuffle {v['name']}", ok, f" ({v['items']} items, {seconds:.1f} s)")
    failures = results.count(False)
    print(f"{len(results) - failures} passed, {failures} failed")
    return 1 if failures else 0


# fairdeal-table-v1 (docs/PROTOCOL.md §11): a table's client seed from every
# seat's contribution, framed with two-byte big-endian lengths.
def table_client_seed(seats, contributions):
    if not 2 <= len(seats) <= 22 or len(set(seats)) != len(seats):
        raise ValueError("a table has 2 to 22 distinct seats")
    if len(contributions) != len(seats):
        raise ValueError("one contribution per seat")
    digest = hashlib.sha256(b"fairdeal-table-v1\x00")
    for label, contribution in zip(seats, contributions):
        for part in (label.encode("utf-8"), contribution.encode("utf-8")):
            if not 1 <= len(part) <= 64:
                raise ValueError("labels and contributions are 1 to 64 bytes")
            digest.update(len(part).to_bytes(2, "big"))
            digest.update(part)
    return digest.hexdigest()


def check_tables(path):
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)["vectors"]
    failures = 0
    for v in vectors:
        ok = table_client_seed(v["seats"], v["contributions"]) == v["client_seed"]
        ok &= [hashlib.sha256(c.encode("utf-8")).hexdigest() for c in v["contributions"]] == v["commitments"]
        if "deal" in v:
            d = v["deal"]
            got = deal(d["server_seed"], v["client_seed"], int(d["nonce"]), d["game"])["deal"]
            ok &= all(got[key] == d[key] for key in ("hands", "board", "burns"))
        print(f"table {v['name']}: {'ok' if ok else 'MISMATCH'}", flush=True)
        failures += not ok
    print(f"{len(vectors) - failures} passed, {failures} failed")
    return 1 if failures else 0


# fairdeal-chain-v1 (docs/PROTOCOL.md §13): a pair's server seeds as a
# SHA-256 chain; round k (nonce k) is the fairdeal-v1 round of seed s_{k+1}.
def chain_seeds(tip_hex, length):
    """Every s_i of the chain whose tip s_N is tip_hex: [s_0, ..., s_N]."""
    if not 1 <= length <= 2**24:
        raise ValueError("a chain's length is 1 to 2^24")
    seeds = [bytes.fromhex(tip_hex)]
    assert len(seeds[0]) == 32
    for _ in range(length):
        seeds.append(hashlib.sha256(seeds[-1]).digest())
    return [s.hex() for s in reversed(seeds)]


def check_chain_prefix(commitment_hex, published):
    """The first round whose published seed does not hash to the one before
    (to the commitment for round 0), or None."""
    previous = commitment_hex
    for k, seed in enumerate(published):
        if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != previous:
            return k
        previous = seed
    return None


def check_chains(path):
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)["vectors"]
    failures = 0
    for v in vectors:
        seeds = chain_seeds(v["tip"], v["length"])
        ok = seeds == v["seeds"] and seeds[0] == v["commitment"]
        ok &= check_chain_prefix(v["commitment"], seeds[1:]) is None
        for r in v.get("rounds", []):
            k = int(r["nonce"])
            ok &= r["server_seed"] == seeds[k + 1]
            got = deal(r["server_seed"], r["client_seed"], k, r["game"])
            ok &= got["server_seed_hash"] == seeds[k]
            ok &= all(got["deal"][key] == r["deal"][key] for key in r["deal"])
        for t in v.get("tampered", []):
            ok &= check_chain_prefix(v["commitment"], t["published"]) == t["fails_at"]
        if "successor" in v:
            ok &= chain_seeds(v["successor"]["tip"], v["successor"]["length"])[0] == v["successor"]["commitment"]
        print(f"chain {v['name']}: {'ok' if ok else 'MISMATCH'}", flush=True)
        failures += not ok
    print(f"{len(vectors) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check-chains":
        sys.exit(check_chains(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--check-tables":
        sys.exit(check_tables(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--check-draws":
        sys.exit(check_draws(sys.argv[2]))
    for line in sys.stdin:
        if line.strip():
            req = json.loads(line)
            out = deal(req["server_seed"], req["client_seed"], int(req["nonce"]), req["game"])
            print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
