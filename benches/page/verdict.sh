#!/usr/bin/env bash
# The verification page's time to a settled verdict, one build of the
# service against another, in Debian's Chromium (playwright-core from web/).
# Usage: benches/page/verdict.sh OLD_BINARY NEW_BINARY [visits]
# Each binary serves a fresh SQLite database (ports 18901 and 18902) with a
# revealed one-round pair and a revealed 20-round pair (hold'em, 6 players);
# web/bench/page-bench.mjs then opens the round's link (its verify_url when
# the build gives one) and the pair, old and new alternating, each visit in a
# fresh browser profile (a first visit: the log key is pinned), and prints
# the medians and new/old. Figures go to docs/PERFORMANCE.md by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$(realpath "$1"); new=$(realpath "$2"); visits=${3:-15}
work=$(mktemp -d)
trap 'pkill -f "serve --listen 127.0.0.1:1890[12]" || true; rm -rf "$work"' EXIT

# serve_one BINARY PORT DIR: starts it and writes DIR/urls.json.
serve_one() {
  local bin=$1 port=$2 dir=$3 key auth base link
  mkdir -p "$dir"
  (cd "$dir" && "$bin" serve --listen "127.0.0.1:$port" >serve.log 2>&1 &)
  for _ in $(seq 1 50); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
  key=$(cd "$dir" && "$bin" keys create --name bench 2>/dev/null)
  auth="Authorization: Bearer $key"; base="127.0.0.1:$port"
  revealed_pair() { # ROUNDS: "PAIR FIRST_ROUND"
    local pair round first=""
    pair=$(curl -s -X POST -H "$auth" "$base/v1/seed-pairs" | jq -r .id)
    curl -s -X PUT -H "$auth" -H 'content-type: application/json' \
      -d "{\"client_seed\":\"bench $1 $RANDOM$RANDOM\"}" "$base/v1/seed-pairs/$pair/client-seed" >/dev/null
    for _ in $(seq 1 "$1"); do
      round=$(curl -s -X POST -H "$auth" -H 'content-type: application/json' \
        -d '{"game":{"type":"holdem","players":6}}' "$base/v1/seed-pairs/$pair/rounds" | jq -r .id)
      curl -s -X POST -H "$auth" "$base/v1/rounds/$round/close" >/dev/null
      first=${first:-$round}
    done
    curl -s -X POST -H "$auth" -H 'content-type: application/json' \
      -d "{\"client_seed\":\"next $1 $RANDOM$RANDOM\"}" "$base/v1/seed-pairs/$pair/rotate" >/dev/null
    echo "$pair $first"
  }
  local one one_round twenty _r
  read -r one one_round < <(revealed_pair 1)
  read -r twenty _r < <(revealed_pair 20)
  sleep 2 # every entry in a checkpoint
  link=$(curl -s "$base/v1/rounds/$one_round" | jq -r '.verify_url // empty')
  printf '{"base":"http://%s","round":"%s","pair":"/verify?pair=%s"}\n' \
    "$base" "${link:-/verify?round=$one_round}" "$twenty" >"$dir/urls.json"
}

serve_one "$old" 18901 "$work/old"
serve_one "$new" 18902 "$work/new"
echo "old: $("$old" --version)  new: $("$new" --version)"
PAGE_BENCH_A="$work/old/urls.json" PAGE_BENCH_B="$work/new/urls.json" N="$visits" node web/bench/page-bench.mjs
