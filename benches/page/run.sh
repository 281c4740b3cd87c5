#!/usr/bin/env bash
# The verification page over a large pair (docs/PERFORMANCE.md, "The page
# over a large pair"): a fresh SQLite service from the release binary, a
# revealed pair of each size in ROUND_COUNTS (default "10000 100000") made
# through the API (benches/page/fixture.mjs), then /verify?pair=ID in
# headless Chromium to its verdict, three runs each
# (benches/page/measure.mjs): seconds, the renderer's peak resident memory,
# the page's JS heap. INTERLEAVE=K deals K other pairs between the pair's
# rounds (a busy log). Needs Chromium and web/node_modules (npm ci --prefix web).
#
#   cargo build --release --locked --bin fairdeal && benches/page/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${FAIRDEAL_BIN:-target/release/fairdeal}
counts=${ROUND_COUNTS:-"10000 100000"}
interleave=${INTERLEAVE:-0}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# Rounds close themselves a second after dealing, so the pair can be rotated.
: >"$work/stdout"
"$bin" serve --listen 127.0.0.1:0 --data-dir "$work/data" --round-timeout 1 >"$work/stdout" 2>"$work/serve.log" &
server_pid=$!
base=
for _ in $(seq 1 100); do
  base=$(sed -n 's/^fairdeal listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$work/stdout")
  [ -n "$base" ] && break
  sleep 0.1
done
[ -n "$base" ] || { echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
key=$("$bin" keys create --name page-bench --data-dir "$work/data")
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1); $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
for n in $counts; do
  pair=$(node benches/page/fixture.mjs "$base" "$key" "$n" --interleave "$interleave")
  echo "== $n rounds (interleave $interleave): pair $pair"
  node benches/page/measure.mjs "$base" "$pair" --runs 3
done
