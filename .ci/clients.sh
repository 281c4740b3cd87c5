#!/usr/bin/env bash
# openapi.yaml as client generators read it: the validator, the Python and
# TypeScript generators (a warning about any operation, or an endpoint left
# out, fails), and the README session driven through the generated Python
# client against a real `fairdeal serve`. Usage: .ci/clients.sh PATH/TO/fairdeal
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?the fairdeal binary}
validator=0.9.0
python_client=0.29.1
typescript=7.13.0
openapi_fetch=0.17.0
types_node=20.19.43

source .ci/venv.sh
ci_venv clients "openapi-spec-validator==$validator" "openapi-python-client==$python_client"

source .ci/serve.sh

echo "--- openapi-spec-validator $validator"
openapi-spec-validator openapi.yaml

echo "--- openapi-python-client $python_client"
(cd "$work" && openapi-python-client generate --path "$OLDPWD/openapi.yaml" \
  --config "$OLDPWD/.ci/clients/openapi-python-client.yaml" --output-path pkg/fairdeal_client \
  --meta none) 2>&1 | tee "$work/python.log"
if grep -Eqi "warning|will not be generated|error" "$work/python.log"; then
  echo "openapi-python-client did not take the whole description (above)" >&2
  exit 1
fi
operations=$(python3 -c 'import yaml; d = yaml.safe_load(open("openapi.yaml")); print(sum(1 for p in d["paths"].values() for m in p if m in ("get", "put", "post", "delete", "patch")))')
generated=$(find "$work/pkg/fairdeal_client/api" -name '*.py' ! -name '__init__.py' | wc -l)
echo "operations described: $operations; Python functions generated: $generated"
[ "$operations" -eq "$generated" ] || { echo "an endpoint was left out" >&2; exit 1; }

echo "--- openapi-typescript $typescript"
mkdir -p "$work/ts"
(cd "$work/ts" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error \
  "openapi-typescript@$typescript" typescript@5 >/dev/null)
"$work/ts/node_modules/.bin/openapi-typescript" openapi.yaml -o "$work/ts/api.d.ts" 2>&1 | tee "$work/ts.log"
if grep -Eqi "warn|error|can't resolve" "$work/ts.log"; then
  echo "openapi-typescript did not take the whole description (above)" >&2
  exit 1
fi
"$work/ts/node_modules/.bin/tsc" --noEmit --strict "$work/ts/api.d.ts"
typed=$(python3 -c 'import re, sys; print(len(set(re.findall(r"^    ([a-z_]+): \{$", open(sys.argv[1]).read().split("export interface operations")[1], re.M))))' "$work/ts/api.d.ts")
echo "operations typed in TypeScript: $typed"
[ "$operations" -eq "$typed" ] || { echo "an operation has no TypeScript type" >&2; exit 1; }

echo "--- the README session through the generated Python client"
start_service "$bin" clients
PYTHONPATH="$work/pkg" python3 .ci/clients/readme_session.py "$base" "$key"

# docs/INTEGRATION.md's examples, word for word: its python blocks in order
# are one program, its ts blocks another.
blocks() { awk -v lang="$1" '/^```/ { if (inside) { inside = 0; next } if ($0 == "```" lang) { inside = 1; next } } inside' docs/INTEGRATION.md; }
echo "--- docs/INTEGRATION.md's Python, through the generated Python client"
blocks python >"$work/integration.py"
PYTHONPATH="$work/pkg" python3 "$work/integration.py" "$base" "$key"
echo "--- docs/INTEGRATION.md's TypeScript, through openapi-fetch $openapi_fetch"
(cd "$work/ts" && npm install --no-audit --no-fund --loglevel=error \
  "openapi-fetch@$openapi_fetch" "@types/node@$types_node" >/dev/null && npm pkg set type=module)
blocks ts >"$work/ts/integration.ts"
(cd "$work/ts" && node_modules/.bin/tsc --strict --target es2022 --module es2022 \
  --moduleResolution bundler --types node --outDir out integration.ts \
  && cp package.json out/ && node out/integration.js "$base" "$key")
