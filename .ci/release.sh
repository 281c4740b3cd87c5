#!/usr/bin/env bash
# The verifier's release built twice, each from its own clean clone of
# HEAD (its own `npm ci`), and compared byte for byte: the release is
# reproducible, so anyone can rebuild it and check the project's signed
# SHA256SUMS against their own bytes (docs/RELEASES.md).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in 1 2; do
  git clone --quiet --no-local . "$work/clone-$n"
  (cd "$work/clone-$n/web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null \
    && node release/build.mjs "$work/out-$n" >/dev/null)
  echo "build $n: $(cat "$work/out-$n/SHA256SUMS")"
done
if ! diff -r "$work/out-1" "$work/out-2" >/dev/null; then
  echo "the two builds differ: the release is not reproducible" >&2
  diff -r "$work/out-1" "$work/out-2" | head -20 >&2
  exit 1
fi
echo "the two builds from clean clones are the same bytes"
