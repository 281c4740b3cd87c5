# Sourced by the CI scripts that need a running service: makes their
# temporary directory "$work" (removed on exit, with the service stopped),
# and `start_service BIN NAME` starts `BIN serve` on a free port with its
# data in "$work/data", then makes an operator key NAME in the database the
# service made. Sets base, key and server_pid.
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

start_service() {
  local bin=$1 name=$2
  "$bin" serve --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/stdout" 2>"$work/serve.log" &
  server_pid=$!
  base=
  for _ in $(seq 1 100); do
    base=$(sed -n 's/^fairdeal listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$work/stdout")
    [ -n "$base" ] && break
    sleep 0.1
  done
  [ -n "$base" ] || { echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
  key=$("$bin" keys create --name "$name" --data-dir "$work/data")
  echo "server at $base"
}
