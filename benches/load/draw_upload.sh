#!/usr/bin/env bash
# A list upload against a release build: upload time, download time and the
# server's peak resident memory (sampled every 0.1 s from /proc).
# usage: benches/load/draw_upload.sh sqlite|DATABASE_URL LISTFILE PORT
set -u
B=${FAIRDEAL_BIN:-target/release/fairdeal}
dir=$(mktemp -d)
if [ "$1" = sqlite ]; then db=(); else db=(--database-url "$1"); fi
KEY=$($B keys create --name m --data-dir "$dir" "${db[@]}" 2>/dev/null)
$B serve --listen 127.0.0.1:$3 --data-dir "$dir" "${db[@]}" > "$dir/log" 2>&1 &
pid=$!
sleep 1.5
peak=0
( while kill -0 $pid 2>/dev/null; do r=$(awk '/VmRSS/{print $2}' /proc/$pid/status); echo $r; sleep 0.1; done ) > "$dir/rss" &
mon=$!
start=$(date +%s.%N)
curl -s -o "$dir/resp" -w '%{http_code}' -XPOST "http://127.0.0.1:$3/v1/draws?winners=10&client_seed_source=x" -H "Authorization: Bearer $KEY" -H 'Content-Type: text/plain' --data-binary @"$2"
end=$(date +%s.%N)
id=$(python3 -c "import json;print(json.load(open('$dir/resp'))['id'])")
d0=$(date +%s.%N)
curl -s "http://127.0.0.1:$3/v1/draws/$id/entries" | sha256sum | cut -c1-16
d1=$(date +%s.%N)
kill $pid; wait $pid 2>/dev/null; kill $mon 2>/dev/null
echo " upload $(echo "$end - $start" | bc) s, download $(echo "$d1 - $d0" | bc) s, peak RSS $(sort -n "$dir/rss" | tail -1) kB, idle RSS $(head -1 "$dir/rss") kB"
