#!/usr/bin/env bash
# The verification page over a large pair (docs/PERFORMANCE.md, "The page
# over a large pair"): a fresh SQLite service from the release binary, a
# revealed pair of each size in ROUND_COUNTS (default "10000 100000") made
# through the API (benches/page/fixture.mjs), then /verify?pair=ID in
# headless Chromium to its verdict, three runs each
# (benches/page/measure.mjs): seconds, the renderer's peak private and
# resident memory, the page's and its worker's JS heaps. Chromium is driven
# over its DevTools pipe with no Network domain, as a player's tab runs;
# PLAYWRIGHT=1 measures under Playwright too (which keeps a copy of every
# response in the renderer). INTERLEAVE=K deals K other pairs between the
# pair's rounds (a busy log). COMPARE_BIN=PATH measures another build of the
# service (the page's code is in the binary) over the same pairs, after
# FAIRDEAL_BIN, for a side-by-side. Needs Chromium and web/node_modules
# (npm ci --prefix web).
#
#   cargo build --release --locked --bin fairdeal && benches/page/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${FAIRDEAL_BIN:-target/release/fairdeal}
compare=${COMPARE_BIN:-}
counts=${ROUND_COUNTS:-"10000 100000"}
interleave=${INTERLEAVE:-0}
work=$(mktemp -d)
server_pid=
stop() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    server_pid=
  fi
  return 0
}
cleanup() {
  stop
  rm -rf "$work"
}
trap cleanup EXIT
# `start BIN`: the service on the data in "$work/data"; sets base. Rounds
# close themselves a second after dealing, so the pair can be rotated.
start() {
  : >"$work/stdout"
  "$1" serve --listen 127.0.0.1:0 --data-dir "$work/data" --round-timeout 1 >"$work/stdout" 2>"$work/serve.log" &
  server_pid=$!
  base=
  for _ in $(seq 1 300); do
    base=$(sed -n 's/^fairdeal listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$work/stdout")
    [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$base" ] || { echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
}
measure() {
  node benches/page/measure.mjs "$base" "$1" --runs 3
  if [ -n "${PLAYWRIGHT:-}" ]; then node benches/page/measure.mjs "$base" "$1" --runs 3 --playwright; fi
}
start "$bin"
key=$("$bin" keys create --name page-bench --data-dir "$work/data")
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1); $("${CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null | head -n 1)"
pairs=()
for n in $counts; do
  pair=$(node benches/page/fixture.mjs "$base" "$key" "$n" --interleave "$interleave")
  pairs+=("$n:$pair")
  echo "== $n rounds (interleave $interleave): pair $pair, $bin"
  measure "$pair"
done
if [ -n "$compare" ]; then
  stop
  start "$compare"
  for entry in "${pairs[@]}"; do
    echo "== ${entry%%:*} rounds (interleave $interleave): pair ${entry#*:}, $compare"
    measure "${entry#*:}"
  done
fi
