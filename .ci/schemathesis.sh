#!/usr/bin/env bash
# The API against its own description: schemathesis (every check, stateful
# links, a fixed seed) against a real `fairdeal serve` on SQLite. Any failure
# fails CI. Usage: .ci/schemathesis.sh PATH/TO/fairdeal
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?the fairdeal binary}
version=4.32.5

if ! schemathesis --version 2>/dev/null | grep -q "$version"; then
  echo "installing schemathesis $version (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check "schemathesis==$version"
fi
schemathesis --version

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" serve --listen 127.0.0.1:0 --data-dir "$work/data" >"$work/stdout" 2>"$work/serve.log" &
server_pid=$!
base=
for _ in $(seq 1 100); do
  base=$(sed -n 's/^fairdeal listening on \(http:\/\/[0-9.:]*\)$/\1/p' "$work/stdout")
  [ -n "$base" ] && break
  sleep 0.1
done
[ -n "$base" ] || { echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
# The service made the database; a key is made in it.
key=$("$bin" keys create --name schemathesis --data-dir "$work/data")
echo "server at $base"

schemathesis --config-file .ci/schemathesis.toml run openapi.yaml \
  --url "$base" --header "Authorization: Bearer $key" \
  --checks all --phases examples,coverage,fuzzing,stateful \
  --max-examples 100 --seed 1 --workers 1 --no-color
