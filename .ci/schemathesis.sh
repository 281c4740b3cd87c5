#!/usr/bin/env bash
# The API against its own description: schemathesis (every check, enabled in
# .ci/schemathesis.toml so that an operation's own exceptions there apply —
# a `--checks` flag would override them —, stateful links, a fixed seed)
# against a real `fairdeal serve` on SQLite. Any failure fails CI.
# Usage: .ci/schemathesis.sh PATH/TO/fairdeal
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?the fairdeal binary}
version=4.32.5

source .ci/venv.sh
ci_venv schemathesis "schemathesis==$version"
schemathesis --version

source .ci/serve.sh

# Schemathesis sends thousands of requests with one key as fast as they are
# answered; the per-key rate limit (tested on its own in tests/service/
# limits.rs) would answer some 429, which its positive-data check counts as
# a valid request refused. The contract is tested here, without the limit.
FAIRDEAL_RATE_LIMIT=0 start_service "$bin" schemathesis

schemathesis --config-file .ci/schemathesis.toml run openapi.yaml \
  --url "$base" --header "Authorization: Bearer $key" \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples 100 --seed 1 --workers 1 --no-color
