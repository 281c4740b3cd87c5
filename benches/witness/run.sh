#!/usr/bin/env bash
# What witnesses cost the service, on loopback (wrk: Debian package `wrk`).
# Usage: benches/witness/run.sh [sqlite|postgres] [seconds]
# Builds the release binary and runs, in turn, twice: a server with no
# witness, then one with two `fairdeal witness` processes cosigning every
# checkpoint (quorum 2). Each server: holdem-6 deals over 64 pairs for
# `seconds`, then GET /log/checkpoint for `seconds`, then how far behind the
# witnesses are (from /metrics, 2 s after the deals). Reports deals a second,
# the server's CPU a deal (from /proc) and checkpoint reads a second. Every
# server signs with the same log key and origin on a fresh database, so the
# witnesses start afresh before each. Figures go to docs/PERFORMANCE.md by
# hand, with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
need_wrk
backend=${1:-sqlite}
seconds=${2:-10}
connections=32
cargo build --release -q --bin fairdeal
bin=$PWD/target/release/fairdeal
scratch=$(mktemp -d)
server=
witness_pids=()
trap 'kill $server ${witness_pids[@]:-} 2>/dev/null || true; rm -rf "$scratch"' EXIT
keyfile=$scratch/log.key
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$keyfile"
chmod 600 "$keyfile"
printf 'request = function() return wrk.format("GET", "/log/checkpoint") end\n' > "$scratch/checkpoint.lua"
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
server_ticks() { awk '{print $14 + $15}' /proc/$server/stat; }

# serve PORT [flags…]: a server on a fresh database with the bench's log key.
serve() {
  local port=$1 n=$1
  shift
  local data=$scratch/data-$n
  mkdir -p "$data"
  local url=
  if [ "$backend" = postgres ]; then
    local admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
    psql "$admin" -qc "CREATE DATABASE fairdeal_wbench_${$}_$n"
    url="${admin%/*}/fairdeal_wbench_${$}_$n"
  fi
  env ${url:+DATABASE_URL=$url} RUST_LOG=warn "$bin" serve --data-dir "$data" --listen 127.0.0.1:$port \
    --max-connections 16 --log-key-file "$keyfile" --log-origin bench.example/log "$@" \
    >/dev/null 2>"$data/serve.log" &
  server=$!
  for _ in $(seq 100); do curl -sf localhost:$port/healthz >/dev/null && break; sleep 0.1; done
  key=$(env ${url:+DATABASE_URL=$url} "$bin" keys create --name bench --data-dir "$data")
}

# measure PORT LABEL: deals, then checkpoint reads, on the running server.
measure() {
  local base=http://127.0.0.1:$1 label=$2 before after out rate n reads behind
  make_pairs "$base" "$key"
  deal_script "$key" "${pairs[@]}" > "$scratch/deal.lua"
  before=$(server_ticks)
  out=$(wrk -t2 -c$connections -d"${seconds}s" -s "$scratch/deal.lua" "$base")
  after=$(server_ticks)
  rate=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  n=$(awk '/requests in/ {print $1}' <<<"$out")
  sleep 2
  behind=$(curl -s "$base/metrics" | awk '/^fairdeal_witness_behind_entries/ {printf "%s ", $2}')
  reads=$(wrk -t2 -c$connections -d"${seconds}s" -s "$scratch/checkpoint.lua" "$base" | awk '/^Requests\/sec:/ {print $2}')
  awk -v l="$label" -v r="$rate" -v n="$n" -v t=$(( (after - before) * tick_us )) -v c="$reads" -v b="${behind:-none}" \
    'BEGIN { printf "%-14s %7.0f deals/s  %6.1f us server CPU a deal  %7.0f checkpoint reads/s  witnesses behind 2 s later: %s\n", l, r, t / n, c, b }'
  kill $server; wait $server 2>/dev/null || true
}

# The log's verifier key, for the witnesses (the same for every server).
serve 18320
log_vkey=$(curl -s localhost:18320/log/key)
kill $server; wait $server 2>/dev/null || true
given=()
for w in 1 2; do
  mkdir -p "$scratch/w$w"
  vkey=$("$bin" witness --name "bench.example/w$w" --data-dir "$scratch/w$w" --print-vkey | tail -1)
  given+=(--witness "$vkey@http://127.0.0.1:$((18300 + w))")
done
echo "== $backend: ${seconds}s a phase, $connections connections"
for round in 1 2; do
  serve $((18310 + round))
  measure $((18310 + round)) "no witness"
  witness_pids=()
  for w in 1 2; do
    rm -f "$scratch/w$w"/witness.db*
    RUST_LOG=warn "$bin" witness --name "bench.example/w$w" --listen 127.0.0.1:$((18300 + w)) \
      --data-dir "$scratch/w$w" --log "bench.example/log=$log_vkey" >/dev/null 2>&1 &
    witness_pids+=($!)
  done
  sleep 0.5
  serve $((18330 + round)) "${given[@]}" --witness-quorum 2
  measure $((18330 + round)) "two witnesses"
  kill "${witness_pids[@]}" 2>/dev/null || true
  wait "${witness_pids[@]}" 2>/dev/null || true
done
