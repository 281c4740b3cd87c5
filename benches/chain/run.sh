#!/usr/bin/env bash
# fairdeal-chain-v1 deals against fairdeal-v1 deals, on loopback, in one run
# (wrk: Debian package `wrk`). Usage: benches/chain/run.sh [sqlite|postgres]
# [seconds] [chain-length]
# Builds the release binary, starts a server on a scratch data directory,
# makes 64 fairdeal-v1 pairs and 64 chain pairs of chain-length rounds
# (default 1,000,000, the service's longest: making each walks its chain and
# its successor's), then deals holdem-6 over the v1 pairs and over the chain
# pairs in turn, twice each, for `seconds` at a time, and reports each
# phase's deals a second and the server's CPU per deal (from /proc), and the
# chain phases against the v1 ones as ratios. Rounds stay in play: this
# measures dealing; publishing happens at close.
# Figures go to docs/PERFORMANCE.md by hand, with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
need_wrk
backend=${1:-sqlite}
seconds=${2:-10}
length=${3:-1000000}
connections=32
port=18091
base=http://127.0.0.1:$port
start_server "$backend" $port
key=$("$bin" keys create --name chain-bench)
make_pairs "$base" "$key"
v1=("${pairs[@]}")
chain=()
started=$(date +%s.%N)
for i in $(seq 64); do
  id=$(curl -s -X POST -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d "{\"protocol\":\"fairdeal-chain-v1\",\"chain_length\":$length}" "$base/v1/seed-pairs" \
    | sed -E 's/.*"id":"([^"]+)".*/\1/')
  curl -s -o /dev/null -X PUT -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d "{\"client_seed\":\"chain load $i\"}" "$base/v1/seed-pairs/$id/client-seed"
  chain+=("$id")
done
awk -v s="$started" -v e="$(date +%s.%N)" -v l="$length" \
  'BEGIN { printf "64 chain pairs of %d rounds made in %.1f s (%.0f ms a pair)\n", l, e - s, (e - s) * 1000 / 64 }'
deal_script "$key" "${v1[@]}" > "$work/v1.lua"
deal_script "$key" "${chain[@]}" > "$work/chain.lua"
server_ticks() { awk '{print $14 + $15}' /proc/$server/stat; }
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
# phase NAME SCRIPT: deals for `seconds`; prints "rate cpu_us_per_deal".
phase() {
  local before after out rate n
  before=$(server_ticks)
  out=$(wrk -t2 -c$connections -d"${seconds}s" -s "$2" $base)
  after=$(server_ticks)
  rate=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  n=$(awk '/requests in/ {print $1}' <<<"$out")
  awk -v name="$1" -v r="$rate" -v n="$n" -v t=$(( (after - before) * tick_us )) \
    'BEGIN { printf "%-6s %8.0f deals/s  %6.1f us server CPU a deal\n", name, r, t / n }' >&2
  awk -v r="$rate" -v n="$n" -v t=$(( (after - before) * tick_us )) 'BEGIN { printf "%s %f\n", r, t / n }'
}
echo "== $backend: deals, ${seconds}s a phase, ${connections} connections"
read -r r1 c1 < <(phase v1 "$work/v1.lua")
read -r r2 c2 < <(phase chain "$work/chain.lua")
read -r r3 c3 < <(phase v1 "$work/v1.lua")
read -r r4 c4 < <(phase chain "$work/chain.lua")
awk -v r1="$r1" -v r2="$r2" -v r3="$r3" -v r4="$r4" -v c1="$c1" -v c2="$c2" -v c3="$c3" -v c4="$c4" 'BEGIN {
  printf "chain / v1: deals a second %.3f, server CPU a deal %.3f\n", (r2 + r4) / (r1 + r3), (c2 + c4) / (c1 + c3)
}'
