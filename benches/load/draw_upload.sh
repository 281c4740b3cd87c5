#!/usr/bin/env bash
# A list upload against a release build: upload time, download time and the
# server's peak resident memory (sampled every 0.1 s from /proc).
# Usage: benches/load/draw_upload.sh [sqlite|postgres] LISTFILE
# The server starts as every load scenario's does (benches/load/common.sh:
# a scratch data directory, and for postgres a scratch database on
# TEST_DATABASE_URL's server). Figures go to docs/PERFORMANCE.md by hand,
# with the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
backend=${1:-sqlite}
list=$2
port=18092
base=http://127.0.0.1:$port
start_server "$backend" $port
key=$("$bin" keys create --name upload)
( while kill -0 "$server" 2>/dev/null; do awk '/VmRSS/{print $2}' "/proc/$server/status"; sleep 0.1; done ) > "$work/rss" &
sampler=$!
start=$(date +%s.%N)
curl -s -o "$work/resp" -w '%{http_code}' -XPOST "$base/v1/draws?winners=10&client_seed_source=x" \
  -H "Authorization: Bearer $key" -H 'Content-Type: text/plain' --data-binary @"$list"
end=$(date +%s.%N)
id=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['id'])" "$work/resp")
d0=$(date +%s.%N)
curl -s "$base/v1/draws/$id/entries" | sha256sum | cut -c1-16
d1=$(date +%s.%N)
kill "$sampler" 2>/dev/null || true
echo " upload $(echo "$end - $start" | bc) s, download $(echo "$d1 - $d0" | bc) s," \
  "peak RSS $(sort -n "$work/rss" | tail -1) kB, idle RSS $(head -1 "$work/rss") kB"
