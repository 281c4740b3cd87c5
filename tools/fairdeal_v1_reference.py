#!/usr/bin/env python3
"""fairdeal-v1, written from docs/PROTOCOL.md alone, in plain Python.

An independent second implementation: it shares no code with the Rust crate
(its own ChaCha20 block function, its own sampling and layouts), so agreement
between the two is evidence that the specification is complete.

  python3 tools/fairdeal_v1_reference.py --check test-vectors/fairdeal-v1.json
      checks every published vector; exit 0 when all match.
  python3 tools/fairdeal_v1_reference.py < requests.ndjson
      one JSON request per line: {"server_seed", "client_seed", "nonce", "game"};
      answers one line each: {"server_seed_hash", "deal"}.
"""

import hashlib
import hmac
import json
import struct
import sys

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


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    for line in sys.stdin:
        if line.strip():
            req = json.loads(line)
            out = deal(req["server_seed"], req["client_seed"], int(req["nonce"]), req["game"])
            print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
