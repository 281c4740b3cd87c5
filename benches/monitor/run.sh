#!/usr/bin/env bash
# The monitor against a running service, on loopback (wrk: Debian package
# `wrk`). Usage:
#   benches/monitor/run.sh [sqlite|postgres] [fill-seconds] [seconds] [preload]
# Builds the release binary, starts a server on a scratch data directory and
# measures, one after the other in the same run:
#   0. with preload > 0: that many entries of examples/log_fixture's honest
#      synthetic log (pairs, rounds, draws, void tables) appended to the
#      new service's log in its database, and the time the service's
#      integrator takes to fold them into its tree, tiles and checkpoint;
#   1. fill: holdem-6 deals over 64 pairs for fill-seconds (the log grows by
#      one entry a deal), until every entry is in a checkpoint;
#   2. `fairdeal monitor --state` over the whole log (first run), then deals
#      for 2 s and the incremental run (only the entries added since);
#   3. deals for `seconds` alone (A), while monitors read the whole log's
#      tiles and bundles over and over (B: full runs, no state, at the
#      lowest priority), and while a monitor's requests are replayed by wrk
#      (C: the same requests in the same order, two at a time with a pause
#      of 1 ms, without a monitor's own work on these two cores), in the
#      order A B C C B A (or WINDOWS): the deals' rate in each B and C
#      window against the A windows next to it, as ratios (their mean,
#      range and standard error), and how fast the log was read meanwhile;
#   4. with preload > 0: `fairdeal audit --log` of the fixture's export
#      against the service's log, the export's audit alone, and `audit --log
#      --state` from the monitor's state (brought up to date first).
# Figures go to docs/PERFORMANCE.md by hand, with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
need_wrk
backend=${1:-sqlite}
fill=${2:-60}
seconds=${3:-15}
preload=${4:-0}
# The windows' order (WINDOWS="A C A C A C A" for more of them).
windows=${WINDOWS:-A B C C B A}
connections=32
port=18090
base=http://127.0.0.1:$port
[ "$preload" -gt 0 ] && cargo build --release -q --example log_fixture
start_server "$backend" $port
logged() { curl -s $base/log/checkpoint | sed -n 2p; }
timed() { /usr/bin/time -f "%e s elapsed, %U s user, %S s system, %M KB peak RSS" "$@"; }
if [ "$preload" -gt 0 ]; then
  echo "== preload: $preload entries of the fixture's log into the service's database"
  kill $server; wait $server 2>/dev/null || true
  timed target/release/examples/log_fixture --database "${DATABASE_URL:-sqlite://$work/fairdeal.db}" \
    "$work/fixture" "$preload"
  started=$(date +%s.%N)
  launch_server $port
  for _ in $(seq 1800); do
    [ "$(logged)" = "$preload" ] && break
    kill -0 $server 2>/dev/null || { echo "the server stopped: $work/serve.log" >&2; tail -5 "$work/serve.log" >&2; exit 1; }
    sleep 1
  done
  [ "$(logged)" = "$preload" ] || { echo "not integrated within 30 minutes" >&2; exit 1; }
  awk -v s="$started" -v e="$(date +%s.%N)" -v n="$preload" \
    'BEGIN { printf "integrated by the service in %.1f s (%.0f entries/s)\n", e - s, n / (e - s) }'
fi
key=$("$bin" keys create --name monitor-bench)
make_pairs "$base" "$key"
deal_script "$key" "${pairs[@]}" > "$work/deal.lua"
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
server_ticks() { awk '{print $14 + $15}' /proc/$server/stat; }
# PostgreSQL's processes on this machine (its backends serve the reads).
database_ticks() { for p in $(pgrep -x postgres); do awk '{print $14 + $15}' /proc/$p/stat 2>/dev/null; done | awk '{s += $1} END {print s + 0}'; }
tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
echo "== first run (--state)"
before=$(server_ticks)
database_before=$(database_ticks)
timed "$bin" monitor $base --state "$work/state.json" | tail -1
served=$(( $(server_ticks) - before ))
database_served=$(( $(database_ticks) - database_before ))
entries=$(logged)
echo "server CPU serving it: $(( served * tick_us / 1000 )) ms, $(( served * tick_us * 1000 / entries )) ns an entry"
if [ "$backend" = postgres ]; then
  echo "PostgreSQL's CPU meanwhile: $(( database_served * tick_us / 1000 )) ms, $(( database_served * tick_us * 1000 / entries )) ns an entry"
fi
wrk -t2 -c$connections -d2s -s "$work/deal.lua" $base | grep -E 'requests in'
settle
echo "log: $(logged) entries"
echo "== incremental run"
timed "$bin" monitor $base --state "$work/state.json" 2>&1 | tail -2
# Deals alone (A) and deals while monitors read the whole log (B), in the
# order A B B A: a drift over the run (the database grows) weighs on both
# alike. The monitors run at the lowest priority: a monitor runs on its own
# machine; here it must not take the CPU the server and wrk share, only the
# server's answers. How much they read is counted by the server (its tile
# answers, two for every 256 entries: a bundle and its hash tile).
tile_answers() { curl -s $base/metrics | awk '/^fairdeal_http_responses_total/ && /log\/tile/ && /status="200"/ {n += $2} END {print n + 0}'; }
window() {
  local with=$1 reader= rate before_ticks before_tiles
  if [ "$with" = B ]; then
    ( while true; do nice -n 19 "$bin" monitor $base >/dev/null 2>&1 || true; done ) &
    reader=$!
    sleep 1
  elif [ "$with" = C ]; then
    LOG_ENTRIES=$(logged) PAUSE_MS=1 nice -n 19 wrk -t1 -c2 -d"$((seconds + 5))s" \
      -s benches/monitor/tiles.lua $base >/dev/null &
    reader=$!
    sleep 1
  fi
  before_ticks=$(server_ticks)
  before_tiles=$(tile_answers)
  rate=$(wrk -t2 -c$connections -d"${seconds}s" -s "$work/deal.lua" $base | awk '/^Requests\/sec:/ {print $2}')
  if [ -n "$reader" ]; then
    kill $reader 2>/dev/null || true
    pkill -f "$bin monitor $base" 2>/dev/null || true
    wait $reader 2>/dev/null || true
  fi
  echo "$with $rate $(( ($(server_ticks) - before_ticks) * tick_us / 1000 )) $(( ($(tile_answers) - before_tiles) * 128 / seconds ))"
}
echo "== deals alone (A), while monitors read the whole log (B), while their requests are replayed (C), ${seconds}s each: $windows"
for with in $windows; do window $with; done | tee "$work/windows" |
  awk '{ printf "%s: %s deals/s, server CPU %d ms, reading about %d entries/s\n", $1, $2, $3, $4 }'
# Each B or C window against the mean of the A windows next to it (a drift
# over the run weighs on both alike), then the mean, lowest and highest of
# those ratios, and their standard error.
awk '{ with[NR] = $1; rate[NR] = $2; read[NR] = $4 }
  END {
    for (i = 1; i <= NR; i++) {
      if (with[i] == "A") continue
      sum = 0; n = 0
      for (j = i - 1; j >= 1; j--) if (with[j] == "A") { sum += rate[j]; n++; break }
      for (j = i + 1; j <= NR; j++) if (with[j] == "A") { sum += rate[j]; n++; break }
      if (n == 0) continue
      r = rate[i] / (sum / n); w = with[i]
      k[w]++; s[w] += r; ss[w] += r * r; e[w] += read[i]
      if (!(w in lo) || r < lo[w]) lo[w] = r
      if (!(w in hi) || r > hi[w]) hi[w] = r
    }
    for (x = 1; x <= 2; x++) {
      w = x == 1 ? "B" : "C"
      if (!(w in k)) continue
      mean = s[w] / k[w]
      var = k[w] > 1 ? (ss[w] - k[w] * mean * mean) / (k[w] - 1) : 0
      sd = var > 0 ? sqrt(var) : 0
      printf "deals %s / alone (next A windows): mean %.3f, standard error %.3f, lowest %.3f, highest %.3f over %d windows (the log read at about %d entries/s)\n", \
        (w == "B" ? "while monitors read (B)" : "while their requests are replayed (C)"), mean, sd / sqrt(k[w]), lo[w], hi[w], k[w], e[w] / k[w]
    }
  }' "$work/windows"
grep -E 'VmHWM' /proc/$server/status
if [ "$preload" -gt 0 ]; then
  echo "== audit --log: the fixture's export against the service's log"
  timed "$bin" audit "$work/fixture/export.ndjson" --log $base --quiet 2>&1 | grep -E "verdict|elapsed|log:"
  echo "== the export's audit alone, and audit --log from the monitor's state (its ledger)"
  timed "$bin" audit "$work/fixture/export.ndjson" --quiet 2>&1 | grep -E "elapsed"
  timed "$bin" monitor $base --state "$work/state.json" 2>&1 | grep -E "elapsed"
  timed "$bin" audit "$work/fixture/export.ndjson" --log $base --state "$work/state.json" --quiet 2>&1 |
    grep -E "^verdict|elapsed|resumed"
fi
