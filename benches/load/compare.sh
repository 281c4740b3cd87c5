#!/usr/bin/env bash
# The service as it is in this working tree against the service at another
# commit, the same load in one run, on loopback only. The default REVISION,
# 7260572, is the last commit before the transparency log: what the log
# costs a deal. Pass another (say HEAD) to measure a change.
# Usage: benches/load/compare.sh [sqlite|postgres] [seconds] [connections] [REVISION]
# REVISION "." measures this tree against itself, "before" run with the
# environment in BEFORE_ENV: what one setting costs, with nothing else
# different. What the log mirror costs a deal:
#   BEFORE_ENV=FAIRDEAL_NO_LOG_MIRROR=true benches/load/compare.sh sqlite 10 32 .
# Both binaries are release builds sharing this checkout's target directory
# (only the fairdeal crate differs). Each is measured twice, alternating
# (before, with, before, with), on a fresh database each time:
#   POST /v1/seed-pairs/{id}/rounds spread over 64 pairs (holdem-6), and
#   GET /healthz in the same run, as the machine's reference rate.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/load/common.sh
backend=${1:-sqlite}
seconds=${2:-10}
connections=${3:-32}
revision=${4:-7260572}
need_wrk
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  git worktree remove --force "$work/before" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
target=${CARGO_TARGET_DIR:-$PWD/target}

if [ "$revision" = . ]; then
  echo "== building this tree once: before is it with ${BEFORE_ENV:-nothing} in its environment"
else
  echo "== building the service at $revision (before) and this tree (with the change)"
  git worktree add -q --detach "$work/before" "$revision"
  (cd "$work/before" && CARGO_TARGET_DIR=$target cargo build --release -q --locked --bin fairdeal)
  cp "$target/release/fairdeal" "$work/fairdeal-before"
fi
cargo build --release -q --locked --bin fairdeal
cp "$target/release/fairdeal" "$work/fairdeal-with"
if [ "$revision" = . ]; then cp "$work/fairdeal-with" "$work/fairdeal-before"; fi

port=18090
# One measurement: a fresh database, 64 active pairs, wrk on deals and on
# /healthz. Prints "deals/s p99 healthz/s".
measure() {
  local bin=$1 data settings=()
  data=$(mktemp -d -p "$work")
  # BEFORE_ENV applies to the before build only.
  if [ "$bin" = "$work/fairdeal-before" ] && [ -n "${BEFORE_ENV:-}" ]; then read -r -a settings <<<"$BEFORE_ENV"; fi
  local db=
  if [ "$backend" = postgres ]; then
    local admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
    db=fairdeal_logcost_$$_$RANDOM
    psql "$admin" -qc "CREATE DATABASE $db"
    export DATABASE_URL="${admin%/*}/$db"
  else
    unset DATABASE_URL
  fi
  env "${settings[@]}" FAIRDEAL_DATA_DIR=$data RUST_LOG=warn "$bin" serve --listen 127.0.0.1:$port --max-connections 16 \
    >/dev/null 2>"$data/serve.log" &
  server=$!
  for _ in $(seq 100); do curl -sf localhost:$port/healthz >/dev/null && break; sleep 0.1; done
  local key
  key=$(FAIRDEAL_DATA_DIR=$data "$bin" keys create --name load)
  make_pairs "localhost:$port" "$key"
  deal_script "$key" "${pairs[@]}" > "$data/deal.lua"
  local deals health
  deals=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$data/deal.lua" http://127.0.0.1:$port)
  health=$(wrk -t2 -c"$connections" -d"${seconds}s" http://127.0.0.1:$port/healthz)
  if grep -q "Non-2xx" <<<"$deals"; then
    echo "non-2xx answers to deals:" >&2
    echo "$deals" >&2
    exit 1
  fi
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=
  if [ -n "$db" ]; then
    psql "${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"
  fi
  printf '%s %s %s\n' \
    "$(awk '/^Requests\/sec/ {print $2}' <<<"$deals")" \
    "$(awk '$1 == "99%" {print $2}' <<<"$deals")" \
    "$(awk '/^Requests\/sec/ {print $2}' <<<"$health")"
}

echo "== $backend: deal holdem-6 over 64 pairs, $connections connections, ${seconds}s each; /healthz alongside"
printf '%-8s %-6s %12s %10s %12s\n' build run deals/s p99 healthz/s
declare -A total=([before]=0 [with]=0)
for run in 1 2; do
  for build in before with; do
    read -r rate p99 health < <(measure "$work/fairdeal-$build")
    printf '%-8s %-6s %12s %10s %12s\n' "$build" "$run" "$rate" "$p99" "$health"
    total[$build]=$(awk -v a="${total[$build]}" -v b="$rate" 'BEGIN { print a + b }')
  done
done
awk -v b="${total[before]}" -v w="${total[with]}" -v rev="$revision" \
  'BEGIN { printf "deals/s this tree / %s: %.3f (mean of two runs each: %.0f / %.0f)\n", rev, w / b, w / 2, b / 2 }'
