# Sourced by the CI scripts that need a running service: makes their
# temporary directory "$work" (removed on exit, with the service stopped),
# and `start_service BIN NAME` starts `BIN serve` on a free port with its
# data in "$work/data", then makes an operator key NAME in the database the
# service made. Sets base, key and server_pid. It waits (up to
# SERVE_TIMEOUT seconds, default 60) for the service's output file and its
# listening line, and fails with the service's log if it exits first.
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# How long start_service waits for the service's listening line, in seconds
# (a debug build on a busy machine can take a while to open its database).
serve_timeout=${SERVE_TIMEOUT:-60}

# The service's base URL from its output file, once it has written the
# listening line; nothing (and no error) while the file is missing or has
# not got there yet.
listening_base() {
  [ -f "$1" ] || return 0
  sed -n 's/^fairdeal listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$1" 2>/dev/null || true
}

start_service() {
  local bin=$1 name=$2 waited=0
  rm -f "$work/stdout" "$work/serve.log"
  "$bin" serve --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/stdout" 2>"$work/serve.log" &
  server_pid=$!
  base=
  # The shell makes the output file only once the process is forked, and
  # the service writes its line only once it listens: poll for both.
  while :; do
    base=$(listening_base "$work/stdout")
    [ -n "$base" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" 2>/dev/null && status=0 || status=$?
      server_pid=
      echo "the service exited (status $status) before it listened; its log:" >&2
      cat "$work/serve.log" >&2 2>/dev/null || true
      exit 1
    fi
    if [ "$waited" -ge "$((serve_timeout * 10))" ]; then
      echo "the service did not print its listening line within ${serve_timeout} s" \
        "(SERVE_TIMEOUT to wait longer); its output and log:" >&2
      cat "$work/stdout" "$work/serve.log" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  key=$("$bin" keys create --name "$name" --data-dir "$work/data")
  echo "server at $base"
}
