# Shared by the load scripts (sourced, not run): the setup every scenario
# starts from.

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
