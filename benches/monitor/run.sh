#!/usr/bin/env bash
# The monitor against a running service, on loopback (wrk: Debian package
# `wrk`). Usage: benches/monitor/run.sh [sqlite|postgres] [fill-seconds] [seconds]
# Builds the release binary, starts a server on a scratch data directory and
# measures, one after the other in the same run:
#   1. fill: holdem-6 deals over 64 pairs for fill-seconds (the log grows by
#      one entry a deal), until every entry is in a checkpoint;
#   2. `fairdeal monitor --state` over the whole log (first run), then deals
#      for 2 s and the incremental run (only the entries added since);
#   3. deals alone for `seconds`, then deals for `seconds` while monitors read
#      the whole log's tiles and bundles over and over (full runs, no state):
#      the deals' rate with the monitors against the rate without, as a ratio.
# Figures go to docs/PERFORMANCE.md by hand, with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
backend=${1:-sqlite}
fill=${2:-60}
seconds=${3:-15}
connections=32
port=18090
base=http://127.0.0.1:$port
start_server "$backend" $port
key=$("$bin" keys create --name monitor-bench)
make_pairs "$base" "$key"
deal_script "$key" "${pairs[@]}" > "$work/deal.lua"
logged() { curl -s $base/log/checkpoint | sed -n 2p; }
# settle: waits until the checkpoint stops growing (every entry signed).
settle() {
  local last=-1 now
  for _ in $(seq 120); do
    now=$(logged)
    [ "$now" = "$last" ] && return
    last=$now
    sleep 1
  done
}
echo "== $backend: fill, ${fill}s of deals"
wrk -t2 -c$connections -d"${fill}s" -s "$work/deal.lua" $base | grep -E 'Requests/sec|requests in'
settle
echo "log: $(logged) entries"
timed() { /usr/bin/time -f "%e s elapsed, %U s user, %S s system, %M KB peak RSS" "$@"; }
server_ticks() { awk '{print $14 + $15}' /proc/$server/stat; }
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
echo "== first run (--state)"
before=$(server_ticks)
timed "$bin" monitor $base --state "$work/state.json" | tail -1
served=$(( $(server_ticks) - before ))
entries=$(logged)
echo "server CPU serving it: $(( served * tick_us / 1000 )) ms, $(( served * tick_us * 1000 / entries )) ns an entry"
wrk -t2 -c$connections -d2s -s "$work/deal.lua" $base | grep -E 'requests in'
settle
echo "log: $(logged) entries"
echo "== incremental run"
timed "$bin" monitor $base --state "$work/state.json" 2>&1 | tail -2
echo "== deals alone, ${seconds}s"
alone=$(wrk -t2 -c$connections -d"${seconds}s" -s "$work/deal.lua" $base | awk '/^Requests\/sec:/ {print $2}')
echo "$alone deals/s"
echo "== deals while monitors read the whole log, ${seconds}s"
# At the lowest priority: a monitor runs on its own machine; here it must
# not take the CPU the server and wrk share, only the server's answers.
( while true; do nice -n 19 "$bin" monitor $base >/dev/null 2>&1 || true; echo run >> "$work/runs"; done ) &
reader=$!
sleep 1
together=$(wrk -t2 -c$connections -d"${seconds}s" -s "$work/deal.lua" $base | awk '/^Requests\/sec:/ {print $2}')
kill $reader 2>/dev/null || true
pkill -f "$bin monitor $base" 2>/dev/null || true
echo "$together deals/s, while $(wc -l < "$work/runs" 2>/dev/null || echo 0) whole-log monitor runs ended"
awk -v a="$alone" -v t="$together" 'BEGIN { printf "deals with the monitors reading / alone: %.3f\n", t / a }'
grep -E 'VmHWM' /proc/$server/status
