#!/usr/bin/env python3
"""An independent c2sp.org/tlog-witness client and c2sp.org/tlog-cosignature
(cosignature/v1, Ed25519) verifier, written from the C2SP specifications
alone (signed-note, tlog-checkpoint, tlog-witness, tlog-cosignature, RFC 6962
/ RFC 9162 Merkle trees). It shares no code with the Rust crate.

Needs Python 3 and the `cryptography` package (pip install cryptography).

  cargo build --locked --bin fairdeal
  python3 tools/witness_client.py probe-witness --fairdeal target/debug/fairdeal
      starts its own `fairdeal witness` (scratch directory, free port) for a
      set of toy logs with their own Ed25519 keys, and probes it: every status
      code and body tlog-witness requires, cosignature/v1 lines verified here,
      hostile bodies, huge sizes, concurrent forks, a restart. Exit 0 when
      every check passes. WITNESS_CLIENT_VERBOSE=1 prints every answer.
  python3 tools/witness_client.py check-service --url http://HOST:PORT \\
          --witness-vkey VKEY [--witness-vkey VKEY ...] [--quorum K]
      fetches a running `fairdeal serve`'s /log/key, /log/checkpoint and
      /v1/log/witnessed-checkpoint and verifies the log signature and the
      witnesses' cosignatures with the verifier here.
  python3 tools/witness_client.py fake-witness --port P --mode MODE
      a hostile witness (wrong body, future or 2^64-1 timestamps, huge or
      garbage answers, hanging, bogus 409 sizes, ...) to point a log at;
      prints its vkey.
  python3 tools/witness_client.py verify-note --log-vkey VKEY \\
          [--witness-vkey VKEY ...] < checkpoint
      verifies one checkpoint note read from stdin.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

DASH = "\u2014"
MAX_TS = 2**63 - 1


def sha256(b):
    return hashlib.sha256(b).digest()


def b64(b):
    return base64.b64encode(b).decode()


def unb64(s):
    return base64.b64decode(s, validate=True)


# ---------------------------------------------------------------- Merkle trees


def leaf_hash(entry):
    return sha256(b"\x00" + entry)


def node_hash(left, right):
    return sha256(b"\x01" + left + right)


def split_point(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(hashes):
    """RFC 6962 2.1 Merkle tree hash over leaf hashes."""
    n = len(hashes)
    if n == 0:
        return sha256(b"")
    if n == 1:
        return hashes[0]
    k = split_point(n)
    return node_hash(mth(hashes[:k]), mth(hashes[k:]))


def consistency_proof(m, hashes):
    """RFC 6962 2.1.2 PROOF(m, D[n])."""

    def sub(m, d, b):
        n = len(d)
        if m == n:
            return [] if b else [mth(d)]
        k = split_point(n)
        if m <= k:
            return sub(m, d[:k], b) + [mth(d[k:])]
        return sub(m - k, d[k:], False) + [mth(d[:k])]

    if m == 0 or m == len(hashes):
        return []
    return sub(m, hashes, True)


def consistency_proof_len(m, n):
    """The number of hashes in PROOF(m, D[n]), from the sizes alone."""

    def sub(m, n, b):
        if m == n:
            return 0 if b else 1
        k = split_point(n)
        if m <= k:
            return sub(m, k, b) + 1
        return sub(m - k, n - k, False) + 1

    if m == 0 or m == n:
        return 0
    return sub(m, n, True)


def roots_from_consistency(first, second, first_hash, proof):
    """RFC 9162 2.1.4.2, returning (first root, second root) the proof leads
    to, or None when the proof has the wrong shape. For a power-of-two first
    size the first root is first_hash itself."""
    if first == 0 or first >= second:
        return None
    c = list(proof)
    if first & (first - 1) == 0:
        c = [first_hash] + c
    if not c:
        return None
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = c[0]
    for h in c[1:]:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            fr = node_hash(h, fr)
            sr = node_hash(h, sr)
            if not fn & 1:
                while not (fn & 1) and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, h)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return None
    return fr, sr


def verify_consistency(first, second, first_hash, second_hash, proof):
    if first == second:
        return not proof and first_hash == second_hash
    r = roots_from_consistency(first, second, first_hash, proof)
    return r is not None and r == (first_hash, second_hash)


# ---------------------------------------------------------------- signed notes


def key_id(name, sig_type, pub):
    return sha256(name.encode() + b"\n" + bytes([sig_type]) + pub)[:4]


def raw_pub(pk):
    return pk.public_bytes(Encoding.Raw, PublicFormat.Raw)


class NoteSigner:
    """A signed-note Ed25519 (type 0x01) signer, for a toy log."""

    def __init__(self, name, seed=None):
        self.name = name
        self.sk = Ed25519PrivateKey.from_private_bytes(seed or os.urandom(32))
        self.pub = raw_pub(self.sk.public_key())
        self.kid = key_id(name, 0x01, self.pub)

    def vkey(self):
        return "%s+%s+%s" % (self.name, self.kid.hex(), b64(b"\x01" + self.pub))

    def sign_line(self, text):
        sig = self.sk.sign(text.encode())
        return "%s %s %s\n" % (DASH, self.name, b64(self.kid + sig))


def parse_vkey(vkey):
    name, kid_hex, rest = vkey.split("+", 2)
    raw = unb64(rest)
    if len(kid_hex) != 8:
        raise ValueError("key id is not 8 hex digits")
    kid = bytes.fromhex(kid_hex)
    sig_type, pub = raw[0], raw[1:]
    if len(pub) != 32:
        raise ValueError("not a 32-byte Ed25519 key")
    if key_id(name, sig_type, pub) != kid:
        raise ValueError("vkey's key id does not match its name and key")
    return name, kid, sig_type, pub


def split_note(note):
    """(text, [(name, raw signature bytes)]) of a signed note, per
    c2sp.org/signed-note; raises ValueError when it is not one."""
    if any(ord(ch) < 0x20 and ch != "\n" for ch in note):
        raise ValueError("control character")
    i = note.rfind("\n\n")
    if i < 0:
        raise ValueError("no blank line")
    text, sigs = note[: i + 1], note[i + 2 :]
    if not sigs.endswith("\n"):
        raise ValueError("signature block does not end in a newline")
    out = []
    for line in sigs[:-1].split("\n"):
        m = re.fullmatch(DASH + r" (\S+) (\S+)", line)
        if not m:
            raise ValueError("bad signature line %r" % line)
        out.append((m.group(1), unb64(m.group(2))))
    if not out:
        raise ValueError("no signature")
    return text, out


def parse_checkpoint_text(text):
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        raise ValueError("checkpoint has fewer than 3 lines")
    origin, size_s, root_s = lines[0], lines[1], lines[2]
    if not origin or not re.fullmatch(r"0|[1-9][0-9]*", size_s):
        raise ValueError("bad origin or size")
    root = unb64(root_s)
    if len(root) != 32:
        raise ValueError("root is not 32 bytes")
    if any(not ext for ext in lines[3:]):
        raise ValueError("empty extension line")
    return origin, int(size_s), root, lines[3:]


def verify_log_signature(text, sigs, vkey):
    """True if a signature by the log key (type 0x01) verifies, False if none
    is by that key; raises when one by that key does not verify."""
    name, kid, sig_type, pub = parse_vkey(vkey)
    assert sig_type == 0x01
    found = False
    for sname, raw in sigs:
        if sname != name or raw[:4] != kid:
            continue
        Ed25519PublicKey.from_public_bytes(pub).verify(raw[4:], text.encode())
        found = True
    return found


class CosignatureVerifier:
    """cosignature/v1 (Ed25519, type 0x04) per c2sp.org/tlog-cosignature."""

    def __init__(self, vkey):
        self.name, self.kid, sig_type, self.pub = parse_vkey(vkey)
        if sig_type != 0x04:
            raise ValueError("not a cosignature/v1 vkey (type %#x)" % sig_type)
        self.pk = Ed25519PublicKey.from_public_bytes(self.pub)

    def matches(self, name, raw):
        return name == self.name and raw[:4] == self.kid

    def verify(self, text, raw):
        """The timestamp of a valid cosignature; raises otherwise."""
        if len(raw) != 4 + 8 + 64:
            raise ValueError("cosignature is %d bytes, not 76" % len(raw))
        (ts,) = struct.unpack(">Q", raw[4:12])
        if ts > MAX_TS:
            raise ValueError("timestamp above 2^63-1")
        msg = "cosignature/v1\ntime %d\n" % ts + text
        self.pk.verify(raw[12:], msg.encode())
        return ts


# ---------------------------------------------------------------- a toy log


class ToyLog:
    def __init__(self, origin, signers=None):
        self.origin = origin
        self.signers = signers or [NoteSigner(origin)]
        self.leaves = []

    def grow(self, n, tag=b""):
        for _ in range(n):
            self.leaves.append(leaf_hash(tag + b"entry %d" % len(self.leaves)))

    def fork(self, tag):
        other = ToyLog(self.origin, self.signers)
        other.leaves = list(self.leaves)
        other.leaves[-1] = leaf_hash(tag + b"forked")
        return other

    def size(self):
        return len(self.leaves)

    def root(self, size=None):
        return mth(self.leaves[: self.size() if size is None else size])

    def text(self, size=None, extensions=()):
        size = self.size() if size is None else size
        return "%s\n%d\n%s\n" % (self.origin, size, b64(self.root(size))) + "".join(
            e + "\n" for e in extensions
        )

    def checkpoint(self, size=None, extensions=(), signers=None):
        text = self.text(size, extensions)
        return text + "\n" + "".join(s.sign_line(text) for s in (signers or self.signers))

    def proof(self, old, size=None):
        size = self.size() if size is None else size
        return consistency_proof(old, self.leaves[:size])


def request_body(old, proof, note):
    return ("old %d\n" % old + "".join(b64(h) + "\n" for h in proof) + "\n" + note).encode()


# ---------------------------------------------------------------- HTTP


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def ctype(self):
        return self.headers.get("content-type", "")

    def __repr__(self):
        return "%d %r %r" % (self.status, self.ctype(), self.body[:200])


def request(url, method="GET", path="/", body=None, headers=None, timeout=30):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request(method, u.path.rstrip("/") + path, body=body, headers=headers or {})
        r = conn.getresponse()
        return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def raw_http(host, port, data, timeout=15):
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def add_checkpoint(url, body, **kw):
    a = request(url, "POST", "/add-checkpoint", body, **kw)
    if os.environ.get("WITNESS_CLIENT_VERBOSE"):
        print("  add-checkpoint (%d bytes) -> %r" % (len(body), a))
    return a


# ---------------------------------------------------------------- the checks


class Checks:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failures.append("%s %s" % (what, detail))
            print("FAIL:", what, detail, flush=True)

    def report(self):
        print("%d checks passed, %d failed" % (self.passed, len(self.failures)))
        for f in self.failures:
            print("  -", f)
        return 0 if not self.failures else 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class WitnessProcess:
    def __init__(self, binary, workdir, name, logs, port):
        self.binary, self.workdir, self.name, self.logs, self.port = (
            binary, workdir, name, logs, port)
        self.url = "http://127.0.0.1:%d" % port
        self.proc = None
        self.logfile = os.path.join(workdir, "witness.log")

    def args(self):
        a = [self.binary, "witness", "--name", self.name, "--listen",
             "127.0.0.1:%d" % self.port, "--data-dir", self.workdir]
        for origin, vkey in self.logs:
            a += ["--log", "%s=%s" % (origin, vkey)]
        return a

    def vkey(self):
        out = subprocess.run(self.args() + ["--print-vkey"], capture_output=True,
                             text=True, check=True)
        return out.stdout.strip().splitlines()[-1].split()[-1]

    def start(self):
        self.out = open(self.logfile, "ab")
        self.proc = subprocess.Popen(self.args(), stdout=self.out, stderr=subprocess.STDOUT)
        for _ in range(200):
            try:
                if request(self.url, path="/healthz", timeout=2).status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("witness exited: see " + self.logfile)
            time.sleep(0.05)
        raise RuntimeError("witness did not start")

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(20)
        self.out.close()

    def alive(self):
        return self.proc.poll() is None


def cosig_lines_ok(c, ans, verifier, text, what, before=None, after=None):
    """The 200 answer's body is one or more signature lines; the one by the
    witness verifies over text. Returns its timestamp or None."""
    c.check(ans.status == 200, what + ": 200", repr(ans))
    if ans.status != 200:
        return None
    try:
        body = ans.body.decode()
    except UnicodeDecodeError:
        c.check(False, what + ": body is UTF-8")
        return None
    c.check(body.endswith("\n") and body.startswith(DASH + " "), what + ": lines", repr(body))
    ts = None
    for line in body[:-1].split("\n"):
        m = re.fullmatch(DASH + r" (\S+) (\S+)", line)
        c.check(m is not None, what + ": signature line form", repr(line))
        if not m:
            continue
        raw = unb64(m.group(2))
        if verifier.matches(m.group(1), raw):
            try:
                ts = verifier.verify(text, raw)
            except (InvalidSignature, ValueError) as e:
                c.check(False, what + ": cosignature verifies", repr(e))
    c.check(ts is not None, what + ": a cosignature by the witness key")
    if ts is not None and before is not None:
        c.check(before - 2 <= ts <= after + 2, what + ": timestamp is now", "%d" % ts)
    # The spec's suggestion: concatenate to the checkpoint and verify as a note.
    return ts


def expect(c, ans, status, what, body=None, ctype=None):
    c.check(ans.status == status, "%s: %d" % (what, status), repr(ans))
    if body is not None:
        c.check(ans.body == body, what + ": body", repr(ans.body))
    if ctype is not None:
        c.check(ans.ctype().split(";")[0].strip() == ctype, what + ": content type",
                repr(ans.ctype()))


def probe_witness(binary, keep=False):
    c = Checks()
    work = tempfile.mkdtemp(prefix="witness-probe-")
    port = free_port()
    name = "witness.example/probe"
    logs = {}

    def newlog(origin, signers=None):
        logs[origin] = ToyLog(origin, signers)
        return logs[origin]

    main = newlog("example.com/log-main")
    ext = newlog("example.com/log-ext")
    two = newlog("example.com/log-two", [NoteSigner("example.com/log-two"),
                                         NoteSigner("example.com/log-two-k2")])
    big = newlog("example.com/log-big")
    race = newlog("example.com/log-race")
    grow = newlog("example.com/log-grow")
    persist = newlog("example.com/log-persist")
    empty = newlog("example.com/log-empty")
    config = []
    for lg in logs.values():
        for s in lg.signers:
            config.append((lg.origin, s.vkey()))
    # A real checkpoint: the Go checksum database's (origin with spaces, key
    # name not the origin).
    go_vkey = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
    go_note = ("go.sum database tree\n63096908\n8lHrQPRYe4KT4WQ9/Qk8/taKnD6IRHbFgfN7vQE2Y54=\n\n"
               + DASH + " sum.golang.org Az3gri/oVBN1jAhNZ/iS+W31psFAWRT20/GyrhpU6taFwulQ"
               "GetBkH5S7wpGXdS935jiIGiUUAXBVHzT/P6fYhqAmAk=\n")
    config.append(("go.sum database tree", go_vkey))
    # Check our own verifier against the real note first.
    gt, gs = split_note(go_note)
    c.check(verify_log_signature(gt, gs, go_vkey), "own verifier: sum.golang.org note")

    w = WitnessProcess(binary, work, name, config, port)
    vkey = w.vkey()
    verifier = CosignatureVerifier(vkey)
    c.check(verifier.name == name, "vkey name is the witness name", vkey)
    w.start()
    url = w.url
    try:
        # --- the real Go checkpoint, from old 0
        t0 = time.time()
        a = add_checkpoint(url, request_body(0, [], go_note))
        cosig_lines_ok(c, a, verifier, gt, "go.sum checkpoint", t0, time.time())

        # --- first checkpoint, size 5, old 0
        main.grow(5)
        t0 = time.time()
        a = add_checkpoint(url, request_body(0, [], main.checkpoint()))
        cosig_lines_ok(c, a, verifier, main.text(), "main first", t0, time.time())
        # spec's note verification: concatenate and verify with a note verifier
        if a.status == 200:
            full = main.checkpoint() + a.body.decode()
            t, sigs = split_note(full)
            c.check(verify_log_signature(t, sigs, main.signers[0].vkey()),
                    "concatenated note verifies for the log key")
            c.check(any(verifier.matches(n, r) for n, r in sigs),
                    "concatenated note has the cosignature")

        # --- old 0 again: 409 with size 5
        a = add_checkpoint(url, request_body(0, [], main.checkpoint()))
        expect(c, a, 409, "stale old 0", b"5\n", "text/x.tlog.size")
        # --- old size 3 (wrong): 409
        main.grow(3)
        a = add_checkpoint(url, request_body(3, main.proof(3), main.checkpoint()))
        expect(c, a, 409, "wrong old 3", b"5\n", "text/x.tlog.size")
        # --- old above the checkpoint size: 400
        a = add_checkpoint(url, request_body(9, [], main.checkpoint(size=8)))
        expect(c, a, 400, "old above size")
        # --- bad proof: 422
        bad = main.proof(5)
        bad[0] = sha256(b"nope")
        a = add_checkpoint(url, request_body(5, bad, main.checkpoint()))
        expect(c, a, 422, "bad proof")
        a = add_checkpoint(url, request_body(5, main.proof(5)[:-1], main.checkpoint()))
        expect(c, a, 422, "short proof")
        a = add_checkpoint(url, request_body(5, main.proof(5) + [sha256(b"x")], main.checkpoint()))
        expect(c, a, 422, "proof with an extra hash")
        a = add_checkpoint(url, request_body(5, [], main.checkpoint()))
        expect(c, a, 422, "no proof")
        # --- good extension 5 -> 8
        t0 = time.time()
        a = add_checkpoint(url, request_body(5, main.proof(5), main.checkpoint()))
        cosig_lines_ok(c, a, verifier, main.text(), "main 5->8", t0, time.time())
        # --- same size, same root, empty proof: 200 again
        a = add_checkpoint(url, request_body(8, [], main.checkpoint()))
        cosig_lines_ok(c, a, verifier, main.text(), "main 8->8 resubmitted")
        # --- same size, same root, non-empty proof
        a = add_checkpoint(url, request_body(8, [sha256(b"z")], main.checkpoint()))
        c.check(a.status in (400, 422), "8->8 with a proof refused", repr(a))
        # --- same size, other root: 409
        forked = main.fork(b"f1")
        a = add_checkpoint(url, request_body(8, [], forked.checkpoint()))
        c.check(a.status == 409, "same size other root: 409", repr(a))
        # --- a fork at a larger size, with a "proof" from the fork's tree
        forked.grow(4)
        a = add_checkpoint(url, request_body(8, forked.proof(8), forked.checkpoint()))
        expect(c, a, 422, "fork 8->12 with its own proof")
        # --- smaller size with old = held: 400
        a = add_checkpoint(url, request_body(8, [], main.checkpoint(size=6)))
        expect(c, a, 400, "checkpoint smaller than held, old = held")
        # --- rollback attempt: old 0, smaller checkpoint
        a = add_checkpoint(url, request_body(0, [], main.checkpoint(size=6)))
        expect(c, a, 409, "rollback from old 0", b"8\n", "text/x.tlog.size")
        a = add_checkpoint(url, request_body(6, main.proof(6, 8)[:0], main.checkpoint(size=6)))
        c.check(a.status in (409,), "old 6 for size 6 when 8 held: 409", repr(a))

        # --- unknown origin: 404
        stranger = ToyLog("example.com/unknown")
        stranger.grow(2)
        a = add_checkpoint(url, request_body(0, [], stranger.checkpoint()))
        expect(c, a, 404, "unknown origin")
        # --- known origin, signed only by an unknown key: 403
        impostor = NoteSigner("example.com/log-main")
        a = add_checkpoint(url, request_body(8, [], main.checkpoint(signers=[impostor])))
        expect(c, a, 403, "signed by an unknown key with the log's name")
        # same key id, other name (ignored -> 403)
        other_name = NoteSigner("example.com/other")
        a = add_checkpoint(url, request_body(8, [], main.checkpoint(signers=[other_name])))
        expect(c, a, 403, "signed by another name")
        # signature by the log's key, over other text: 403
        txt = main.text()
        wrong = main.signers[0].sign_line(main.text(size=6))
        a = add_checkpoint(url, request_body(8, [], txt + "\n" + wrong))
        expect(c, a, 403, "log key's signature over other text")
        # a flipped bit in the log signature
        line = main.signers[0].sign_line(txt)
        raw = bytearray(unb64(line.split(" ")[2].strip()))
        raw[10] ^= 1
        a = add_checkpoint(url, request_body(8, [], txt + "\n" + "%s %s %s\n" % (
            DASH, main.origin, b64(bytes(raw)))))
        expect(c, a, 403, "flipped bit in log signature")
        # unknown signature + valid one: 200
        main.grow(1)
        a = add_checkpoint(url, request_body(8, main.proof(8), main.checkpoint(
            signers=[impostor, main.signers[0], other_name])))
        cosig_lines_ok(c, a, verifier, main.text(), "unknown + valid log signature")
        # a 76-byte garbage signature by an unknown name, and a witness-like line
        main.grow(1)
        junk = "%s %s %s\n" % (DASH, "witness.example/other", b64(os.urandom(76)))
        a = add_checkpoint(url, request_body(9, main.proof(9), main.checkpoint() + junk))
        cosig_lines_ok(c, a, verifier, main.text(), "valid + junk cosignature line")
        # 16 signatures (the minimum a verifier must accept)
        main.grow(1)
        many = [NoteSigner("example.com/k%d" % i) for i in range(15)] + [main.signers[0]]
        a = add_checkpoint(url, request_body(10, main.proof(10), main.checkpoint(signers=many)))
        cosig_lines_ok(c, a, verifier, main.text(), "16 signatures")

        # 16 signatures of post-quantum size (signed-note: MUST accept 16;
        # they can be nearly 5 kB each)
        main.grow(1)
        pq = "".join("%s pq.example/c%d %s\n" % (DASH, i, b64(os.urandom(5000)))
                     for i in range(16))
        a = add_checkpoint(url, request_body(11, main.proof(11), main.checkpoint() + pq))
        cosig_lines_ok(c, a, verifier, main.text(), "16 signatures of 5 kB")
        if a.status != 200:
            main.leaves.pop()

        # --- the two-key log: either key; a bad signature by one trusted key
        two.grow(3)
        a = add_checkpoint(url, request_body(0, [], two.checkpoint(signers=[two.signers[1]])))
        cosig_lines_ok(c, a, verifier, two.text(), "second trusted key alone")
        two.grow(2)
        good = two.signers[0].sign_line(two.text())
        badl = two.signers[1].sign_line(two.text(size=3))
        a = add_checkpoint(url, request_body(3, two.proof(3), two.text() + "\n" + good + badl))
        c.check(a.status in (200, 403), "valid + bad trusted signature: 200 or 403", repr(a))
        if a.status == 200:
            cosig_lines_ok(c, a, verifier, two.text(), "valid + bad trusted")
        held2 = 5 if a.status == 200 else 3
        a = add_checkpoint(url, request_body(held2, two.proof(held2) if held2 == 3 else [],
                                             two.text() + "\n" + badl))
        expect(c, a, 403, "only a bad trusted signature")

        # --- extension lines are cosigned
        ext.grow(7)
        exts = ["extension line one", "x-2 " + DASH + " \u00e9"]
        a = add_checkpoint(url, request_body(0, [], ext.checkpoint(extensions=exts)))
        ts = cosig_lines_ok(c, a, verifier, ext.text(extensions=exts), "extension lines")
        if a.status == 200:
            # the cosignature must NOT verify over the body without the extensions
            raw = None
            for line in a.body.decode()[:-1].split("\n"):
                _, nm, sig = line.split(" ")
                if verifier.matches(nm, unb64(sig)):
                    raw = unb64(sig)
            try:
                verifier.verify(ext.text(), raw)
                c.check(False, "cosignature covers the extension lines")
            except InvalidSignature:
                c.check(True, "cosignature covers the extension lines")
        # U+007F is no control character for signed-note (only < U+0020)
        ext.grow(1)
        dext = ["del\u007fhere"]
        a = add_checkpoint(url, request_body(7, ext.proof(7), ext.checkpoint(extensions=dext)))
        cosig_lines_ok(c, a, verifier, ext.text(extensions=dext), "U+007F in an extension")
        if a.status != 200:
            ext.leaves.pop()
        held_ext = ext.size()
        # an empty extension line is malformed (or, as a note, a different split)
        ext.grow(1)
        text = ext.text() + "\n" + "after empty\n"
        a = add_checkpoint(url, request_body(held_ext, ext.proof(held_ext),
                                             text + "\n" + ext.signers[0].sign_line(text)))
        c.check(a.status in (400, 403, 422), "checkpoint with an empty line refused", repr(a))

        # --- empty tree, size 0
        a = add_checkpoint(url, request_body(0, [], empty.checkpoint()))
        c.check(a.status == 200, "size-0 checkpoint from old 0", repr(a))
        empty.grow(1)
        a = add_checkpoint(url, request_body(0, [], empty.checkpoint()))
        c.check(a.status == 200, "size 0 -> 1 from old 0", repr(a))
        # old 0 with a non-empty proof
        empty.grow(1)
        a = add_checkpoint(url, request_body(0, [sha256(b"a")], empty.checkpoint()))
        c.check(a.status in (400, 409, 422), "old 0 with a proof refused", repr(a))

        # --- huge sizes
        big_chk = lambda size, root: (lambda t: t + "\n" + big.signers[0].sign_line(t))(
            "%s\n%d\n%s\n" % (big.origin, size, b64(root)))
        m = 2**63 - 2  # a 63-line proof, the most the spec allows
        n = 2**63 - 1
        plen = consistency_proof_len(m, n)
        proof = [sha256(b"p%d" % i) for i in range(plen)]
        r = roots_from_consistency(m, n, None, proof)
        c.check(plen <= 63 and r is not None, "huge proof shape", "%d" % plen)
        first_root, second_root = r
        a = add_checkpoint(url, request_body(0, [], big_chk(m, first_root)))
        cosig_lines_ok(c, a, verifier, "%s\n%d\n%s\n" % (big.origin, m, b64(first_root)),
                       "size 2^63-2 from old 0")
        bad = list(proof)
        bad[-1] = sha256(b"no")
        a = add_checkpoint(url, request_body(m, bad, big_chk(n, second_root)))
        expect(c, a, 422, "huge bad proof")
        a = add_checkpoint(url, request_body(m, proof, big_chk(n, second_root)))
        cosig_lines_ok(c, a, verifier, "%s\n%d\n%s\n" % (big.origin, n, b64(second_root)),
                       "size 2^63-1 via a real proof")
        for old, size in [(n, 2**63), (n, 2**64 - 1), (n, 2**64), (n, 2**64 + 5),
                          (2**64, 2**64), (2**64 + 1, 2**65), (0, 10**40)]:
            a = add_checkpoint(url, request_body(old, [], big_chk(size, sha256(b"r"))))
            c.check(a.status in (400, 409, 422), "sizes %d/%d refused" % (old, size), repr(a))
        a = add_checkpoint(url, request_body(0, [], big_chk(n, second_root)))
        expect(c, a, 409, "after 2^63-1", b"%d\n" % n, "text/x.tlog.size")
        a = add_checkpoint(url, request_body(n, [], big_chk(n, second_root)))
        cosig_lines_ok(c, a, verifier, "%s\n%d\n%s\n" % (big.origin, n, b64(second_root)),
                       "2^63-1 resubmitted")
        # proof too long
        a = add_checkpoint(url, request_body(n, [sha256(b"%d" % i) for i in range(64)],
                                             big_chk(n, second_root)))
        c.check(a.status in (400, 422), "64 proof lines refused", repr(a))
        a = add_checkpoint(url, request_body(n, [sha256(b"%d" % i) for i in range(63)],
                                             big_chk(n, second_root)))
        c.check(a.status in (400, 422), "63 bogus proof lines refused", repr(a))

        # --- malformed bodies
        main_old = main.size()
        good_body = request_body(main_old, [], main.checkpoint())
        malformed = {
            "empty body": b"",
            "no old line": good_body[good_body.index(b"\n") + 1:],
            "old with leading zero": b"old 011\n\n" + main.checkpoint().encode(),
            "old with plus": b"old +11\n\n" + main.checkpoint().encode(),
            "old negative": b"old -1\n\n" + main.checkpoint().encode(),
            "old two spaces": b"old  11\n\n" + main.checkpoint().encode(),
            "old hex": b"old 0xb\n\n" + main.checkpoint().encode(),
            "OLD uppercase": b"OLD 11\n\n" + main.checkpoint().encode(),
            "no blank line": b"old 11\n" + main.checkpoint().encode(),
            "CRLF": good_body.replace(b"\n", b"\r\n"),
            "non-UTF-8": good_body.replace(b"example.com", b"ex\xffample.com", 1),
            "NUL": good_body.replace(b"example.com/log-main\n", b"example.com/log-main\x00\n", 1),
            "proof line not base64": b"old 11\n!!!!\n\n" + main.checkpoint().encode(),
            "proof line 31 bytes": ("old 11\n%s\n\n" % b64(b"a" * 31)).encode()
            + main.checkpoint().encode(),
            "proof line url-safe b64": ("old 11\n%s\n\n" % base64.urlsafe_b64encode(
                b"\xfb" * 32).decode()).encode() + main.checkpoint().encode(),
            "no trailing newline": good_body[:-1],
            "note without signatures": b"old 11\n\n" + main.text().encode() + b"\n",
            "tab in signature line": good_body.replace(DASH.encode() + b" ", DASH.encode() + b"\t"),
            "size with leading zero": request_body(0, [], (lambda t: t + "\n" + main.signers[0]
                                                           .sign_line(t))(
                "%s\n0%d\n%s\n" % (main.origin, main.size(), b64(main.root())))),
            "root not base64": request_body(0, [], (lambda t: t + "\n" + main.signers[0]
                                                    .sign_line(t))(
                "%s\n%d\n%s\n" % (main.origin, main.size(), "x" * 44))),
            "root 31 bytes": request_body(0, [], (lambda t: t + "\n" + main.signers[0]
                                                  .sign_line(t))(
                "%s\n%d\n%s\n" % (main.origin, main.size(), b64(b"r" * 31)))),
            "two lines only": request_body(0, [], (lambda t: t + "\n" + main.signers[0]
                                                   .sign_line(t))(
                "%s\n%d\n" % (main.origin, main.size()))),
            "huge old": b"old " + b"9" * 5000 + b"\n\n" + main.checkpoint().encode(),
            "lone surrogate-ish bytes": good_body.replace(b"\n\n", b"\n\xed\xa0\x80\n\n", 1),
        }
        for what, body in malformed.items():
            a = add_checkpoint(url, body)
            c.check(a.status in (400, 403, 404, 413, 422), "malformed (%s) refused" % what, repr(a))
            c.check(a.status != 200, "malformed (%s) not cosigned" % what)
        # main is unchanged by all that
        a = add_checkpoint(url, request_body(0, [], main.checkpoint()))
        expect(c, a, 409, "main unchanged after malformed", b"%d\n" % main_old,
               "text/x.tlog.size")

        # --- huge body
        a = add_checkpoint(url, good_body + b"\n" * (2 * 1024 * 1024))
        c.check(a.status in (400, 413), "2 MiB body refused", repr(a))
        c.check(a.body.endswith(b"\n") and a.body.count(b"\n") == 1,
                "2 MiB body: one line of text", repr(a.body))
        # many signatures
        sigs = [NoteSigner("example.com/s%d" % i) for i in range(300)]
        a = add_checkpoint(url, request_body(main_old, [], main.checkpoint(signers=sigs)))
        c.check(a.status in (400, 403, 413), "300 signatures refused", repr(a))
        # long origin
        longo = ToyLog("example.com/" + "o" * 100000)
        longo.grow(1)
        a = add_checkpoint(url, request_body(0, [], longo.checkpoint()))
        c.check(a.status in (400, 404, 413), "100 kB origin refused", repr(a))

        # --- HTTP-level: methods, paths, chunked, content types
        a = request(url, "GET", "/add-checkpoint")
        c.check(a.status in (404, 405), "GET add-checkpoint", repr(a))
        a = request(url, "PUT", "/add-checkpoint", good_body)
        c.check(a.status in (404, 405), "PUT add-checkpoint", repr(a))
        a = request(url, "POST", "/nope", good_body)
        c.check(a.status in (404, 405), "POST unknown path", repr(a))
        a = request(url, "POST", "/add-checkpoint/", good_body)
        c.check(a.status != 500, "POST add-checkpoint/ not 500", repr(a))
        a = request(url, "POST", "/add-checkpoint", good_body,
                 headers={"Content-Type": "application/json"})
        c.check(a.status in (200, 400, 415), "odd content type", repr(a))
        # chunked body
        u = urllib.parse.urlsplit(url)
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(good_body[i:i + 50]), good_body[i:i + 50])
                          for i in range(0, len(good_body), 50)) + b"0\r\n\r\n"
        raw = raw_http(u.hostname, u.port, b"POST /add-checkpoint HTTP/1.1\r\nHost: x\r\n"
                       b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks)
        c.check(raw.startswith(b"HTTP/1.1 200"), "chunked body cosigned", repr(raw[:200]))
        # keep-alive: two requests on one connection
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        for i in range(2):
            conn.request("POST", "/add-checkpoint", good_body)
            r = conn.getresponse()
            r.read()
            c.check(r.status == 200, "keep-alive request %d" % i, "%d" % r.status)
        conn.close()
        # a lying Content-Length (shorter than claimed), then close
        raw = raw_http(u.hostname, u.port, b"POST /add-checkpoint HTTP/1.1\r\nHost: x\r\n"
                       b"Content-Length: 100000000\r\n\r\n" + good_body, timeout=40)
        c.check(b" 500 " not in raw[:20], "huge Content-Length not 500", repr(raw[:100]))

        # --- concurrent forks of one size, from the same held state
        race.grow(10)
        a = add_checkpoint(url, request_body(0, [], race.checkpoint()))
        c.check(a.status == 200, "race base", repr(a))
        for rnd in range(5):
            base = race.size()
            forks = []
            for i in range(8):
                f = ToyLog(race.origin, race.signers)
                f.leaves = list(race.leaves)
                f.grow(3, tag=b"fork%d-%d" % (rnd, i))
                forks.append(f)
            # plus requests of different sizes (the rollback race)
            extra = ToyLog(race.origin, race.signers)
            extra.leaves = list(race.leaves)
            extra.grow(1, tag=b"short%d" % rnd)
            forks.append(extra)
            results = [None] * len(forks)

            def go(i):
                results[i] = add_checkpoint(url, request_body(
                    base, forks[i].proof(base), forks[i].checkpoint()))

            ths = [threading.Thread(target=go, args=(i,)) for i in range(len(forks))]
            [t.start() for t in ths]
            [t.join() for t in ths]
            winners = [i for i, r in enumerate(results) if r.status == 200]
            c.check(len(winners) == 1, "race %d: exactly one cosigned" % rnd,
                    repr([r.status for r in results]))
            for i, r in enumerate(results):
                if r.status != 200:
                    c.check(r.status == 409 and r.ctype().startswith("text/x.tlog.size"),
                            "race %d loser %d: 409 size" % (rnd, i), repr(r))
            if winners:
                race = forks[winners[0]]
                a = add_checkpoint(url, request_body(0, [], race.checkpoint()))
                expect(c, a, 409, "race %d: held is the winner" % rnd, b"%d\n" % race.size())

        # --- many concurrent appends of growing sizes: no rollback ever
        grow.grow(1)
        add_checkpoint(url, request_body(0, [], grow.checkpoint()))
        held = [1]
        lock = threading.Lock()
        cosigned_sizes = []

        def appender(k):
            for _ in range(15):
                with lock:
                    old = held[0]
                size = old + 1 + k
                with lock:
                    while grow.size() < size:
                        grow.grow(1)
                body = request_body(old, grow.proof(old, size), grow.checkpoint(size=size))
                r = add_checkpoint(url, body)
                if r.status == 200:
                    with lock:
                        cosigned_sizes.append(size)
                        held[0] = max(held[0], size)
                elif r.status == 409:
                    with lock:
                        held[0] = max(held[0], int(r.body))
                else:
                    c.check(False, "append race: unexpected answer", repr(r))

        ths = [threading.Thread(target=appender, args=(k,)) for k in range(4)]
        [t.start() for t in ths]
        [t.join() for t in ths]
        a = add_checkpoint(url, request_body(0, [], grow.checkpoint(size=1)))
        c.check(a.status == 409 and int(a.body) == max(cosigned_sizes),
                "append race: held is the largest cosigned", repr(a))

        # --- restart: state and key survive
        persist.grow(4)
        a = add_checkpoint(url, request_body(0, [], persist.checkpoint()))
        c.check(a.status == 200, "persist first", repr(a))
        w.stop()
        w.start()
        c.check(w.vkey() == vkey, "vkey unchanged after restart")
        a = add_checkpoint(url, request_body(0, [], persist.checkpoint()))
        expect(c, a, 409, "held size survives restart", b"4\n", "text/x.tlog.size")
        pf = persist.fork(b"after-restart")
        a = add_checkpoint(url, request_body(4, [], pf.checkpoint()))
        c.check(a.status == 409, "fork after restart refused", repr(a))
        persist.grow(2)
        a = add_checkpoint(url, request_body(4, persist.proof(4), persist.checkpoint()))
        cosig_lines_ok(c, a, verifier, persist.text(), "extend after restart")
        # SIGKILL right after a cosignature: it must still be held
        persist.grow(3)
        a = add_checkpoint(url, request_body(6, persist.proof(6), persist.checkpoint()))
        c.check(a.status == 200, "before kill", repr(a))
        w.stop(signal.SIGKILL)
        w.start()
        a = add_checkpoint(url, request_body(0, [], persist.checkpoint()))
        expect(c, a, 409, "held size survives SIGKILL", b"9\n", "text/x.tlog.size")

        c.check(w.alive(), "witness still running at the end")
        a = request(url, path="/healthz")
        c.check(a.status == 200, "healthz", repr(a))
    finally:
        w.stop()
    # --- no panics, no secrets in its output
    log = open(w.logfile, "rb").read().decode("utf-8", "replace")
    c.check("panicked" not in log and "panic" not in log.lower(), "no panic in the witness log")
    keyfile = os.path.join(work, "witness.key")
    secret = open(keyfile).read().strip()
    c.check(secret not in log and secret.upper() not in log, "witness key not in its log")
    sk_b64 = b64(bytes.fromhex(secret))
    c.check(sk_b64 not in log, "witness key (base64) not in its log")
    st = os.stat(keyfile)
    c.check(st.st_mode & 0o077 == 0, "key file mode 0600", oct(st.st_mode))
    print("witness log:", w.logfile)
    rc = c.report()
    if not keep and rc == 0:
        shutil.rmtree(work, ignore_errors=True)
    return rc


# ---------------------------------------------------------------- the service


def check_service(url, witness_vkeys, quorum=None, log_vkey=None):
    c = Checks()
    verifiers = [CosignatureVerifier(v) for v in witness_vkeys]
    quorum = len(verifiers) if quorum is None else quorum
    if log_vkey is None:
        a = request(url, path="/log/key")
        c.check(a.status == 200, "/log/key", repr(a))
        log_vkey = a.body.decode().strip()
    lname = parse_vkey(log_vkey)[0]

    def verify_cp(note, what, need_quorum):
        try:
            text, sigs = split_note(note)
        except ValueError as e:
            c.check(False, what + ": a signed note", repr(e))
            return None
        try:
            c.check(verify_log_signature(text, sigs, log_vkey), what + ": log signature")
        except InvalidSignature:
            c.check(False, what + ": log signature verifies")
        origin, size, root, exts = parse_checkpoint_text(text)
        c.check(origin == lname, what + ": origin is the log's key name", origin)
        ok = 0
        for v in verifiers:
            mine = [(n, r) for n, r in sigs if v.matches(n, r)]
            c.check(len(mine) <= 1, what + ": at most one line per witness", v.name)
            for n, r in mine:
                try:
                    ts = v.verify(text, r)
                    c.check(ts <= time.time() + 5, what + ": cosignature not in the future")
                    ok += 1
                except (InvalidSignature, ValueError) as e:
                    c.check(False, what + ": served cosignature verifies", "%s %r" % (v.name, e))
        if need_quorum:
            c.check(ok >= quorum, what + ": quorum %d of %d" % (quorum, len(verifiers)),
                    "%d verified" % ok)
        return size, root, ok

    a = request(url, path="/log/checkpoint")
    c.check(a.status == 200, "/log/checkpoint", repr(a))
    if a.status == 200:
        r = verify_cp(a.body.decode(), "/log/checkpoint", False)
        print("/log/checkpoint: size %d, %d witness cosignatures verified" % (r[0], r[2]))
    a = request(url, path="/v1/log/witnessed-checkpoint")
    print("/v1/log/witnessed-checkpoint:", a.status, a.ctype())
    if a.status == 200:
        body = a.body.decode()
        note = body
        if a.ctype().startswith("application/json"):
            j = json.loads(body)
            note = j.get("checkpoint") or j.get("note")
        r = verify_cp(note, "witnessed-checkpoint", True)
        print("witnessed: size %d, %d witness cosignatures verified" % (r[0], r[2]))
    else:
        c.check(a.status in (404, 503), "witnessed-checkpoint absent is 404/503", repr(a))
    return c.report()


# ---------------------------------------------------------------- a hostile witness


FAKE_MODES = ("good", "wrongbody", "future", "maxtime", "dup", "huge", "hang", "slow", "500",
              "empty", "garbage", "409big", "409neg", "409zero", "409loop", "otherkey",
              "manylines", "crlf", "nonutf8")


def fake_witness(port, mode, seed_hex=None, name="witness.test/fake"):
    """A witness that answers every add-checkpoint its own hostile way, to
    check what a log's client does with it. Prints its vkey."""
    import http.server

    seed = bytes.fromhex(seed_hex) if seed_hex else os.urandom(32)
    sk = Ed25519PrivateKey.from_private_bytes(seed)
    pub = raw_pub(sk.public_key())
    kid = key_id(name, 0x04, pub)
    print("%s+%s+%s" % (name, kid.hex(), b64(b"\x04" + pub)), flush=True)

    def cosign(text, ts, key=sk, k=kid):
        msg = ("cosignature/v1\ntime %d\n" % ts + text).encode()
        return "%s %s %s\n" % (DASH, name, b64(k + struct.pack(">Q", ts) + key.sign(msg)))

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, status, body, ctype="text/plain; charset=utf-8"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            note = body[body.index("\n\n") + 2:]
            text = note[: note.rfind("\n\n") + 1]
            now = int(time.time())
            if mode == "good":
                return self.answer(200, cosign(text, now).encode())
            if mode == "wrongbody":
                o, n, r = text.split("\n")[:3]
                return self.answer(200, cosign("%s\n%d\n%s\n" % (o, int(n) + 1, r), now).encode())
            if mode == "future":
                return self.answer(200, cosign(text, now + 10**7).encode())
            if mode == "maxtime":
                return self.answer(200, cosign(text, 2**64 - 1).encode())
            if mode == "dup":
                return self.answer(200, (cosign(text, now) + cosign(text, now - 1)).encode())
            if mode == "manylines":
                return self.answer(200, (cosign(text, now) * 5000).encode())
            if mode == "huge":
                return self.answer(200, cosign(text, now).encode() + b"x" * (64 << 20))
            if mode == "hang":
                time.sleep(3600)
            if mode == "slow":
                time.sleep(8)
                return self.answer(200, cosign(text, now).encode())
            if mode == "500":
                return self.answer(500, b"boom\n")
            if mode == "empty":
                return self.answer(200, b"")
            if mode == "garbage":
                return self.answer(200, os.urandom(300))
            if mode == "crlf":
                return self.answer(200, cosign(text, now).replace("\n", "\r\n").encode())
            if mode == "nonutf8":
                return self.answer(200, b"\xff" + cosign(text, now).encode())
            if mode == "otherkey":
                other = Ed25519PrivateKey.generate()
                return self.answer(200, cosign(text, now, other, kid).encode())
            if mode == "409big":
                return self.answer(409, b"18446744073709551616\n", "text/x.tlog.size")
            if mode == "409neg":
                return self.answer(409, b"-1\n", "text/x.tlog.size")
            if mode == "409zero":
                return self.answer(409, b"0\n", "text/x.tlog.size")
            if mode == "409loop":
                old = int(body.split("\n")[0].split(" ")[1])
                return self.answer(409, b"%d\n" % (old + 1), "text/x.tlog.size")
            return self.answer(400, b"?\n")

    http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("probe-witness")
    p.add_argument("--fairdeal", required=True, help="the fairdeal binary")
    p.add_argument("--keep", action="store_true", help="keep the scratch directory")
    s = sub.add_parser("check-service")
    s.add_argument("--url", required=True)
    s.add_argument("--witness-vkey", action="append", default=[])
    s.add_argument("--quorum", type=int)
    s.add_argument("--log-vkey")
    v = sub.add_parser("verify-note")
    v.add_argument("--log-vkey", required=True)
    v.add_argument("--witness-vkey", action="append", default=[])
    f = sub.add_parser("fake-witness")
    f.add_argument("--port", type=int, required=True)
    f.add_argument("--mode", choices=FAKE_MODES, required=True)
    f.add_argument("--name", default="witness.test/fake")
    a = ap.parse_args()
    if a.cmd == "fake-witness":
        fake_witness(a.port, a.mode, name=a.name)
    if a.cmd == "probe-witness":
        sys.exit(probe_witness(a.fairdeal, a.keep))
    if a.cmd == "check-service":
        sys.exit(check_service(a.url, a.witness_vkey, a.quorum, a.log_vkey))
    if a.cmd == "verify-note":
        text, sigs = split_note(sys.stdin.read())
        print("log signature:", verify_log_signature(text, sigs, a.log_vkey))
        for vk in a.witness_vkey:
            v = CosignatureVerifier(vk)
            for n, r in sigs:
                if v.matches(n, r):
                    print("cosignature by %s at %d" % (v.name, v.verify(text, r)))


if __name__ == "__main__":
    main()
