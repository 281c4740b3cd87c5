# Shared by the load scripts (sourced, not run): the setup every scenario
# starts from.

# need_wrk: stops with how to install wrk when it is missing (the load
# scenarios drive the server with it).
need_wrk() {
  command -v wrk >/dev/null || { echo "install wrk: apt-get install wrk" >&2; exit 1; }
}

# start_server BACKEND PORT: builds the release binary and starts `fairdeal
# serve` on a scratch data directory (and, for postgres, a scratch database
# on TEST_DATABASE_URL's server), both removed on exit. Sets bin, work,
# server (its pid) and admin (PostgreSQL's admin URL).
start_server() {
  local backend=$1 port=$2
  cargo build --release -q --bin fairdeal
  bin=$PWD/target/release/fairdeal
  work=$(mktemp -d)
  trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
  export FAIRDEAL_DATA_DIR=$work
  if [ "$backend" = postgres ]; then
    admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
    db=fairdeal_bench_$$
    psql "$admin" -qc "CREATE DATABASE $db"
    export DATABASE_URL="${admin%/*}/$db"
    trap 'kill $server 2>/dev/null || true; psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"; rm -rf "$work"' EXIT
  fi
  launch_server "$port"
}

# launch_server PORT: starts (again) the server start_server set up.
launch_server() {
  RUST_LOG=warn "$bin" serve --listen 127.0.0.1:$1 --max-connections 16 >/dev/null 2>>"$work/serve.log" &
  server=$!
  for _ in $(seq 50); do curl -sf localhost:$1/healthz >/dev/null && break; sleep 0.1; done
}

# make_pairs BASE KEY: 64 active pairs on the server at BASE (each with its
# own client seed); their ids in the array `pairs`.
make_pairs() {
  local base=$1 key=$2 id i
  pairs=()
  for i in $(seq 64); do
    id=$(curl -s -X POST -H "Authorization: Bearer $key" "$base/v1/seed-pairs" | sed -E 's/.*"id":"([^"]+)".*/\1/')
    curl -s -o /dev/null -X PUT -H "Authorization: Bearer $key" -H 'content-type: application/json' \
      -d "{\"client_seed\":\"load $i\"}" "$base/v1/seed-pairs/$id/client-seed"
    pairs+=("$id")
  done
}

# deal_script KEY PAIR…: a wrk script that deals holdem-6, the requests
# spread over the pairs in turn.
deal_script() {
  local key=$1
  shift
  cat <<LUA
pair_ids = { $(printf '"%s",' "$@") }
counter = 0
request = function()
  counter = counter + 1
  local pair = pair_ids[(counter % #pair_ids) + 1]
  return wrk.format("POST", "/v1/seed-pairs/" .. pair .. "/rounds",
    { ["Authorization"] = "Bearer $key", ["Content-Type"] = "application/json" },
    '{"game":{"type":"holdem","players":6}}')
end
LUA
}
