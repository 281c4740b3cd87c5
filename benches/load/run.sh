#!/usr/bin/env bash
# Load test of `fairdeal serve` with wrk (Debian package `wrk`), on loopback only.
# Usage: benches/load/run.sh [sqlite|postgres] [seconds] [connections]
# Builds the release binary, starts a server on a scratch data directory,
# makes pairs, and measures, one after the other in the same run:
#   0. GET /healthz (the HTTP stack alone: the yardstick)
#   1. POST /v1/seed-pairs/{id}/rounds spread over 64 pairs (holdem-6)
#   2. the same on ONE pair (every deal serialises on the pair's row)
#   3. GET /v1/rounds/{id} as the public (read path)
# then prints each scenario's requests/s as a ratio to /healthz's, the
# server's CPU time a request and how busy the machine was (what bounds a
# scenario: the CPU when the machine is busy, a serial path when it is not),
# the bytes each spread deal wrote (and the WAL, on PostgreSQL), and the
# server's peak resident memory over the whole run.
# Figures go to docs/PERFORMANCE.md by hand, with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
need_wrk
backend=${1:-sqlite}
seconds=${2:-10}
connections=${3:-32}
port=18089
start_server "$backend" $port
key=$("$bin" keys create --name load)
auth="Authorization: Bearer $key"
make_pairs "localhost:$port" "$key"
deal_script "$key" "${pairs[@]}" > "$work/deal.lua"
deal_script "$key" "${pairs[0]}" > "$work/one.lua"
round=$(curl -s -X POST -H "$auth" -H 'content-type: application/json' \
  -d '{"game":{"type":"deck"}}' localhost:$port/v1/seed-pairs/${pairs[1]}/rounds | sed -E 's/^\{"id":"([^"]+)".*/\1/')
# dealt: the rounds the server has dealt so far.
dealt() {
  curl -s localhost:$port/metrics | awk '/^fairdeal_rounds_dealt_total/ {n += $2} END {print n + 0}'
}
# The server's CPU time so far (user and system, in clock ticks), and the
# machine's busy and total ticks (all cores, from /proc/stat).
server_ticks() { awk '{print $14 + $15}' /proc/$server/stat; }
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
# scenario NAME WRK-ARGS…: runs wrk, prints its report, and keeps its
# requests/s, p99, the server's CPU a request and the machine's busy share
# for the summary.
declare -A rate p99 cpu busy
scenario() {
  local name=$1 ticks0 ticks1 m0 m1
  shift
  echo "== $backend: $name, $connections connections, ${seconds}s"
  ticks0=$(server_ticks)
  m0=$(machine_ticks)
  wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@" | tee "$work/wrk.out"
  ticks1=$(server_ticks)
  m1=$(machine_ticks)
  rate[$name]=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.out")
  p99[$name]=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
  local requests
  requests=$(awk '/ requests in / {print $1}' "$work/wrk.out")
  cpu[$name]=$(( (ticks1 - ticks0) * tick_us / (requests > 0 ? requests : 1) ))
  busy[$name]=$(echo "$m0 $m1" | awk '{printf "%.0f", 100 * ($3 - $1) / ($4 - $2)}')
}
scenario "healthz" http://127.0.0.1:$port/healthz
# What the spread deals write: bytes the server process sends to storage
# (the database and its WAL, checkpoints included), and on PostgreSQL the
# WAL the cluster writes; both divided by the rounds dealt.
written_before=$(awk '/^write_bytes/ {print $2}' /proc/$server/io)
dealt_before=$(dealt)
[ "$backend" = postgres ] && lsn_before=$(psql "$admin" -Atc "SELECT pg_current_wal_lsn()")
scenario "deal holdem-6 over 64 pairs" -s "$work/deal.lua" http://127.0.0.1:$port
spread=$(( $(dealt) - dealt_before ))
written=$(( $(awk '/^write_bytes/ {print $2}' /proc/$server/io) - written_before ))
[ "$backend" = postgres ] && wal=$(psql "$admin" -Atc "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn_before')::bigint")
scenario "deal holdem-6 on one pair" -s "$work/one.lua" http://127.0.0.1:$port
scenario "GET /v1/rounds/{id} (public)" http://127.0.0.1:$port/v1/rounds/$round
echo "== $backend: each scenario against /healthz (same run)"
for name in "healthz" "deal holdem-6 over 64 pairs" "deal holdem-6 on one pair" "GET /v1/rounds/{id} (public)"; do
  awk -v n="$name" -v r="${rate[$name]}" -v h="${rate[healthz]}" -v p="${p99[$name]}" \
    -v c="${cpu[$name]}" -v ch="${cpu[healthz]}" -v b="${busy[$name]}" \
    'BEGIN { printf "%-32s %10.0f req/s  %5.3f x healthz  p99 %-8s server CPU %4d us a request (%4.1f x healthz), machine %s%% busy\n", n, r, r / h, p, c, c / (ch > 0 ? ch : 1), b }'
done
echo "== what a deal writes (the spread deals: $spread rounds)"
if [ "$spread" -gt 0 ]; then
  if [ "$backend" = postgres ]; then
    echo "PostgreSQL WAL: $(( wal / spread )) bytes a deal (the server itself writes no file)"
  else
    echo "bytes written by the server (database, WAL, checkpoints): $(( written / spread )) a deal"
  fi
fi
echo "== server memory (VmHWM = peak resident)"
grep -E 'VmHWM|VmRSS' /proc/$server/status
echo "== rounds dealt, and nonces on the busy pair"
curl -s localhost:$port/metrics | grep '^fairdeal_rounds_dealt_total'
curl -s localhost:$port/v1/seed-pairs/${pairs[0]} | sed -E 's/.*"next_nonce":([0-9]+).*/next_nonce on the single pair: \1/'
