#!/usr/bin/env python3
"""An independent verifier of fairdeal-chain-v1 pairs (docs/PROTOCOL.md §13)
as a player or a monitor sees them through the public API, written from the
documents alone. It shares no code with the Rust crate: the cards come from
tools/fairdeal_v1_reference.py (an independent fairdeal-v1 implementation),
the chain, the log, the receipts and the proofs are checked here.

  python3 tools/chain_verifier.py URL [--pair ID ...] [--json]
      (needs the `cryptography` package for Ed25519)
      URL is the service's base address (http://HOST:PORT). Without --pair,
      every chain pair named by a `commit` entry of the transparency log is
      checked. Exit 0 when everything holds, 1 with one line per finding.

What is checked, with no key (what anyone sees):

  * the log: the checkpoint's signature (Ed25519, c2sp.org/signed-note, by
    the key at /log/key), every entry bundle (c2sp.org/tlog-tiles) hashed
    into the RFC 9162 tree and compared with the checkpoint's root;
  * the log's chain rules, pair by pair: no round at or past the chain's
    length; `round_seed` entries in nonce order 0, 1, 2, ..., each after its
    round's own `round` entry, each seed hashing to the one before (round
    0's to the commitment `s_0`); a `reveal` only once every dealt round's
    seed is published, its tip hashing to the last published seed, and to
    `s_0` in exactly N steps; a successor's commitment the one promised;
  * every round of the pair (`GET /v1/seed-pairs/{id}/rounds` and
    `GET /v1/rounds/{id}`): a round shows its seed (and its cards) exactly
    when it and every earlier round have ended; a shown seed hashes to the
    seed shown for the round before (the commitment for round 0), equals the
    `round_seed` entry of the log, and its cards are recomputed
    (HMAC-SHA256, ChaCha20, Lemire sampling, Fisher-Yates, the layouts); a
    round not published shows neither seed nor cards; the round's
    `server_seed_hash` is the chain's `s_0` (openapi.yaml, Round.chain);
  * `GET /v1/rounds/{id}/seed-receipt`: 404 for a round not published;
    otherwise the receipt's signature over
    "fairdeal-receipt/v1\\n<index>\\n<entry>", the entry being the log's
    entry at that index, and the inclusion proof (c2sp.org/tlog-proof)
    against its signed checkpoint;
  * the pair's `chain.published_rounds` and, once revealed, its tip.
"""

import argparse
import base64
import hashlib
import importlib.util
import json
import os
import sys
import urllib.error
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "fairdeal_v1_reference", os.path.join(_HERE, "fairdeal_v1_reference.py"))
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def sha256(data):
    return hashlib.sha256(data).digest()


class Http:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def get(self, path):
        """(status, body bytes, headers)"""
        req = urllib.request.Request(self.base + path)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read(), r.headers
        except urllib.error.HTTPError as e:
            return e.code, e.read(), e.headers

    def json(self, path):
        status, body, _ = self.get(path)
        return status, (json.loads(body) if body else None)


# ---- signed notes, checkpoints, the tree ---------------------------------

def parse_key(text):
    # A key's base64 may hold "+" itself: split off the name and the id only.
    name, key_id, b64 = text.strip().split("+", 2)
    raw = base64.b64decode(b64)
    if raw[0] != 0x01 or len(raw) != 33:
        raise ValueError("not an Ed25519 note key")
    expected = sha256(name.encode() + b"\n" + raw)[:4]
    if expected.hex() != key_id:
        raise ValueError("key id does not match the key")
    return name, bytes.fromhex(key_id), Ed25519PublicKey.from_public_bytes(raw[1:])


def verify_note(note, key):
    """The checkpoint's (origin, size, root) if `key` signed it, else raise."""
    name, key_id, public = key
    body, sep, sigs = note.partition("\n\n")
    if not sep:
        raise ValueError("a note without signatures")
    body += "\n"
    good = False
    for line in sigs.splitlines():
        if not line.startswith("\u2014 "):
            continue
        signer, b64 = line[2:].rsplit(" ", 1)
        raw = base64.b64decode(b64)
        if signer != name or raw[:4] != key_id:
            continue
        try:
            public.verify(raw[4:], body.encode())
            good = True
        except InvalidSignature:
            raise ValueError("checkpoint signature does not verify")
    if not good:
        raise ValueError("checkpoint not signed by the log key")
    lines = body.split("\n")
    if lines[0] != name:
        raise ValueError(f"checkpoint origin {lines[0]!r} is not the key's {name!r}")
    return lines[0], int(lines[1]), base64.b64decode(lines[2])


def leaf_hash(entry):
    return sha256(b"\x00" + entry)


def node_hash(left, right):
    return sha256(b"\x01" + left + right)


def tree_root(leaves):
    if not leaves:
        return sha256(b"")
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(tree_root(leaves[:k]), tree_root(leaves[k:]))


def verify_inclusion(index, size, leaf, path, root):
    """RFC 9162 §2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def tile_path(n):
    digits = f"{n:d}"
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i:i + 3] for i in range(0, len(digits), 3)]
    return "/".join(["x" + g for g in groups[:-1]] + [groups[-1]])


class Log:
    def __init__(self, http):
        self.http = http
        status, body, _ = http.get("/log/key")
        if status != 200:
            raise ValueError(f"/log/key: {status}")
        self.key = parse_key(body.decode())
        status, body, _ = http.get("/log/checkpoint")
        if status != 200:
            raise ValueError(f"/log/checkpoint: {status}")
        self.origin, self.size, self.root = verify_note(body.decode(), self.key)
        self.entries = []
        for tile in range((self.size + 255) // 256):
            width = min(256, self.size - tile * 256)
            path = "/log/tile/entries/" + tile_path(tile)
            if width < 256:
                path += f".p/{width}"
            status, data, _ = http.get(path)
            if status != 200:
                raise ValueError(f"{path}: {status}")
            at = 0
            got = []
            while at < len(data):
                n = int.from_bytes(data[at:at + 2], "big")
                got.append(data[at + 2:at + 2 + n])
                at += 2 + n
            if len(got) != width:
                raise ValueError(f"{path}: {len(got)} entries, expected {width}")
            self.entries.extend(got)
        if tree_root([leaf_hash(e) for e in self.entries]) != self.root:
            raise ValueError("the entries do not hash to the checkpoint's root")
        self.parsed = [json.loads(e) for e in self.entries]


# ---- the chain rules over the log ----------------------------------------

def log_chain_findings(log):
    """Findings of the log's chain rules; and per chain pair what the log says."""
    findings = []
    pairs = {}
    commitments = {}
    for index, e in enumerate(log.parsed):
        kind = e.get("type")
        pid = e.get("seed_pair")
        if kind == "commit":
            commitments[pid] = e
            if "chain_length" in e and pid not in pairs:
                pairs[pid] = {
                    "commit": e, "commit_index": index, "length": e["chain_length"],
                    "rounds": {}, "seeds": [], "last": e["server_seed_hash"],
                    "reveal": None,
                }
            continue
        p = pairs.get(pid)
        if p is None:
            continue
        where = f"log[{index}] pair {pid}"
        if kind == "round":
            if e["nonce"] >= p["length"]:
                findings.append(f"{where}: round nonce {e['nonce']} at or past the chain's length {p['length']}")
            if e["nonce"] in p["rounds"]:
                findings.append(f"{where}: a second round of nonce {e['nonce']}")
            elif e["nonce"] != len(p["rounds"]):
                findings.append(f"{where}: round nonce {e['nonce']} out of order")
            p["rounds"].setdefault(e["nonce"], e["round"])
            if p["reveal"] is not None:
                findings.append(f"{where}: round after the reveal")
        elif kind == "round_seed":
            k = e["nonce"]
            if k != len(p["seeds"]):
                findings.append(f"{where}: round_seed of nonce {k}, expected {len(p['seeds'])}")
                continue
            if p["rounds"].get(k) != e["round"]:
                findings.append(f"{where}: round_seed of round {e['round']} before (or without) its round entry")
            seed = e["server_seed"]
            if sha256(bytes.fromhex(seed)).hex() != p["last"]:
                findings.append(f"{where}: round {k}'s seed does not hash to the one before")
            p["seeds"].append(seed)
            p["last"] = seed
        elif kind == "reveal":
            if p["reveal"] is not None:
                findings.append(f"{where}: a second reveal")
                continue
            p["reveal"] = e
            if len(p["seeds"]) != len(p["rounds"]):
                findings.append(f"{where}: reveal with {len(p['rounds'])} rounds dealt, {len(p['seeds'])} seeds published")
            x = bytes.fromhex(e["server_seed"])
            steps = p["length"] - len(p["seeds"])
            for _ in range(steps):
                x = sha256(x)
            if x.hex() != p["last"]:
                findings.append(f"{where}: the tip does not hash to the last published seed in {steps} steps")
            y = bytes.fromhex(e["server_seed"])
            for _ in range(p["length"]):
                y = sha256(y)
            if y.hex() != p["commit"]["server_seed_hash"]:
                findings.append(f"{where}: the tip does not hash to s_0 in N steps")
    for pid, p in pairs.items():
        pred = p["commit"].get("predecessor")
        if pred:
            before = commitments.get(pred)
            if before is None or before.get("next_server_seed_hash") != p["commit"]["server_seed_hash"]:
                findings.append(f"pair {pid}: its commitment is not the one its predecessor {pred} promised")
            elif before.get("chain_length") != p["length"]:
                findings.append(f"pair {pid}: chain length {p['length']}, its predecessor's {before.get('chain_length')}")
    return findings, pairs


# ---- one pair through the API --------------------------------------------

def public_rounds(http, pid):
    rounds, after = [], None
    while True:
        q = "?limit=100" + (f"&after={after}" if after is not None else "")
        status, page = http.json(f"/v1/seed-pairs/{pid}/rounds{q}")
        if status != 200:
            raise ValueError(f"rounds of {pid}: {status}")
        rounds.extend(page["rounds"])
        if page.get("next_after") is None:
            return rounds
        after = page["next_after"]


def check_proof(log, proof_text, index, entry):
    head, sep, note = proof_text.partition("\n\n")
    if not sep:
        return "proof without a checkpoint"
    lines = head.split("\n")
    if lines[0] != "c2sp.org/tlog-proof@v1" or lines[1] != f"index {index}":
        return f"proof header {lines[:2]}"
    path = [base64.b64decode(x) for x in lines[2:] if x]
    try:
        _, size, root = verify_note(note, log.key)
    except ValueError as err:
        return f"proof's checkpoint: {err}"
    if not verify_inclusion(index, size, leaf_hash(entry), path, root):
        return "the inclusion proof does not verify"
    return None


def check_pair(http, log, pid, log_pair=None, strict_log=True):
    """strict_log: a published seed must already be in the checkpoint's log
    (the service integrates within about a second of a close)."""
    findings = []
    f = findings.append
    status, pair = http.json(f"/v1/seed-pairs/{pid}")
    if status != 200:
        return [f"pair {pid}: GET {status}"]
    if pair.get("protocol") != "fairdeal-chain-v1":
        return [f"pair {pid}: not a chain pair ({pair.get('protocol')})"]
    n = pair["chain"]["length"]
    s0 = pair["server_seed_hash"]
    listed = public_rounds(http, pid)
    views = []
    for r in listed:
        status, one = http.json(f"/v1/rounds/{r['id']}")
        if status != 200:
            f(f"round {r['id']}: GET {status}")
            continue
        views.append(one)
    for source, rounds in (("list", listed), ("view", views)):
        rounds = sorted(rounds, key=lambda r: r["nonce"])
        if [r["nonce"] for r in rounds] != list(range(len(rounds))):
            f(f"pair {pid} ({source}): nonces {[r['nonce'] for r in rounds]} are not 0..{len(rounds) - 1}")
        if len(rounds) > n:
            f(f"pair {pid} ({source}): {len(rounds)} rounds, chain length {n}")
        previous = s0
        all_ended = True
        chain_broken = False
        published = 0
        for r in rounds:
            k = r["nonce"]
            where = f"pair {pid} round {k} ({r['id']}, {source})"
            all_ended = all_ended and r["status"] == "closed"
            seed = r.get("server_seed")
            if r.get("chain", {}).get("position") != k + 1:
                f(f"{where}: chain position {r.get('chain')}, expected {k + 1}")
            if seed is None:
                if log_pair is not None and k < len(log_pair["seeds"]):
                    f(f"{where}: the log published its seed, the API does not show it")
                if "deal" in r:
                    f(f"{where}: cards shown without a published seed")
                if all_ended and pair["status"] != "revealed":
                    f(f"{where}: it and every earlier round ended, but its seed is not published")
                chain_broken = True
                continue
            published += 1
            if chain_broken:
                f(f"{where}: published while an earlier round's seed is not")
            if not all_ended:
                f(f"{where}: seed published while it or an earlier round is in play")
            if r.get("server_seed_hash") != s0:
                f(f"{where}: server_seed_hash {r.get('server_seed_hash')} is not the chain's s_0 {s0}")
            if sha256(bytes.fromhex(seed)).hex() != previous:
                f(f"{where}: seed does not hash to s_{k}")
            if "deal" not in r:
                f(f"{where}: seed published, cards not shown")
            else:
                got = reference.deal(seed, r["client_seed"], k, r["game"])
                if got["deal"] != r["deal"]:
                    f(f"{where}: the cards are not the seed's")
            if log_pair is not None:
                seeds = log_pair["seeds"]
                if k < len(seeds) and seeds[k] != seed:
                    f(f"{where}: seed is not the log's round_seed entry")
                elif k >= len(seeds) and strict_log:
                    f(f"{where}: seed published, no round_seed entry in the checkpoint")
            previous = seed
        if source == "list" and pair["chain"].get("published_rounds") != published and pair["status"] == "active":
            f(f"pair {pid}: chain.published_rounds {pair['chain'].get('published_rounds')}, {published} shown")
    # Seed receipts.
    for r in views:
        k = r["nonce"]
        where = f"pair {pid} round {k} ({r['id']}) seed-receipt"
        status, rec = http.json(f"/v1/rounds/{r['id']}/seed-receipt")
        if r.get("server_seed") is None:
            if status != 404:
                f(f"{where}: {status} for an unpublished round")
            continue
        if status not in (200, 202):
            f(f"{where}: {status}")
            continue
        entry = rec["entry"].encode()
        msg = b"fairdeal-receipt/v1\n" + str(rec["log_index"]).encode() + b"\n" + entry
        try:
            log.key[2].verify(base64.b64decode(rec["signature"]), msg)
        except InvalidSignature:
            f(f"{where}: signature does not verify")
        e = json.loads(entry)
        want = {"type": "round_seed", "seed_pair": pid, "round": r["id"], "nonce": k,
                "server_seed": r["server_seed"]}
        for key, value in want.items():
            if e.get(key) != value:
                f(f"{where}: entry {key} {e.get(key)!r}, expected {value!r}")
        if rec["log_index"] < len(log.entries) and log.entries[rec["log_index"]] != entry:
            f(f"{where}: not the log's entry at {rec['log_index']}")
        if status == 200:
            problem = check_proof(log, rec.get("proof") or "", rec["log_index"], entry)
            if problem:
                f(f"{where}: {problem}")
    # Reveal and successor.
    if pair["status"] == "revealed":
        tip = pair.get("server_seed")
        if tip is None:
            f(f"pair {pid}: {pair['status']} but no tip shown")
        else:
            x = bytes.fromhex(tip)
            for _ in range(n):
                x = sha256(x)
            if x.hex() != s0:
                f(f"pair {pid}: the revealed tip does not hash to s_0 in {n} steps")
        succ = pair.get("successor_id")
        if succ:
            status, s = http.json(f"/v1/seed-pairs/{succ}")
            if status != 200 or s["server_seed_hash"] != pair["next_server_seed_hash"]:
                f(f"pair {pid}: successor {succ}'s commitment is not the promised one")
            elif s.get("chain", {}).get("length") != n:
                f(f"pair {pid}: successor's chain length {s.get('chain')}")
    return findings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("url")
    ap.add_argument("--pair", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    http = Http(args.url)
    findings = []
    try:
        log = Log(http)
    except ValueError as err:
        print(f"FAIL log: {err}")
        return 1
    log_findings, log_pairs = log_chain_findings(log)
    findings += log_findings
    pids = args.pair or list(log_pairs)
    for pid in pids:
        findings += check_pair(http, log, pid, log_pairs.get(pid))
    if args.json:
        print(json.dumps({"pairs": len(pids), "log_size": log.size, "findings": findings}))
    else:
        for line in findings:
            print("FAIL", line)
        print(f"{len(pids)} chain pairs, log size {log.size}: "
              f"{'ok' if not findings else str(len(findings)) + ' findings'}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
