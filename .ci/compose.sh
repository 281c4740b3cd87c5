#!/usr/bin/env bash
# compose.yaml as a new operator uses it, with podman-compose on podman:
#   - a copy of the working tree, as a clone would be, and its header's
#     commands with `docker compose` read as `podman-compose`: the master
#     key made by the image (`--profile setup run --rm master-key`), the
#     image built by `up --build`, an API key made by `exec dealer-1`;
#   - the base images made locally (.ci/podman.sh; the official ones are
#     not reachable here), the Dockerfile built on them (given to
#     podman-compose as --podman-build-args), and a local stand-in for the
#     official PostgreSQL image (.ci/compose/postgres) as
#     FAIRDEAL_POSTGRES_IMAGE;
#   - the README session through both dealers (a pair made on one, dealt
#     and rotated on the other, the revealed seed checked against the
#     commitment), the master key a secret only the image's user reads, one
#     log mirror for both;
#   - then the demonstration witness: registered by the one-shot service,
#     its cosignature on the checkpoint both dealers serve as witnessed.
#
# Debian bookworm's podman (4.3) has no `podman wait --condition=healthy`
# (4.6), so podman-compose ignores `condition: service_healthy`, and
# without systemd podman runs no health checks on its own. `up` is
# therefore run as that condition orders it, one stage at a time, each
# service's own health check (compose.yaml's) run by this script until it
# passes: postgres; dealer-1 and dealer-2 (with --build); after the session
# the witness; then `up -d` whole, which starts register-witness.
#
# Usage: .ci/compose.sh. Needs root (apt-get, podman) and git.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf -- '--- %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
fail() { echo "compose check failed: $*" >&2; exit 1; }
started_all=$(date +%s)

# The podman-compose release used, checked against what compose.yaml uses:
# secrets from files, depends_on conditions (parsed; see above), health
# checks, named volumes, YAML merge keys, ${VAR:-default}, profiles.
podman_compose_version=1.6.0

work=$(mktemp -d)
project=fairdeal-ci-$$
image=localhost/fairdeal-compose-ci-$$
project_dir=$work/fairdeal
cleanup() {
  set +e
  if [ -d "$project_dir" ] && command -v podman-compose >/dev/null 2>&1; then
    # -p: this run's project alone, whatever the environment says.
    (cd "$project_dir" && timeout 120 podman-compose -p "$project" down -v -t 10) >/dev/null 2>&1
  fi
  if command -v podman >/dev/null 2>&1; then
    # Whatever `down` left: the project's containers, volumes and network.
    podman ps -aq --filter "label=io.podman.compose.project=$project" | xargs -r podman rm -f -v >/dev/null 2>&1
    podman volume ls -q --filter "label=io.podman.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1
    podman network rm -f "${project}_default" >/dev/null 2>&1
    podman rmi -f "$image" >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=.ci/podman.sh
source .ci/podman.sh
# shellcheck source=.ci/venv.sh
source .ci/venv.sh
ci_podman_setup "$work"
ci_podman_images "$work"

say "podman-compose $podman_compose_version in a Python environment of its own"
ci_venv compose "podman-compose==$podman_compose_version"
podman-compose --version 2>/dev/null | grep -i '^podman-compose'

# The stand-in for the official image, tagged by its files' hash and kept
# between runs like the base images.
pg_hash=$(cat .ci/compose/postgres/Containerfile .ci/compose/postgres/entrypoint.sh | sha256sum | cut -c1-12)
pg_image=localhost/fairdeal-ci-postgres:$pg_hash
if ! podman image exists "$pg_image"; then
  say "PostgreSQL image $pg_image: Debian's PostgreSQL on $ci_podman_base, the official image's entrypoint in short"
  podman build -q -t "$pg_image" --build-arg "BASE_IMAGE=$ci_podman_base" .ci/compose/postgres >/dev/null
  podman images --format '{{.Repository}}:{{.Tag}}' localhost/fairdeal-ci-postgres \
    | grep -vx "$pg_image" | xargs -r podman rmi >/dev/null 2>&1 || true
fi

say "a copy of the working tree, as a clone would be"
mkdir "$project_dir"
# (What git ignores stays out, an operator's data/ with its keys included.)
git ls-files -z --cached --others --exclude-standard \
  | tar -c --null -T - --ignore-failed-read -f - 2>/dev/null | tar -x -C "$project_dir"
[ -f "$project_dir/compose.yaml" ] || fail "no compose.yaml in the copy"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export COMPOSE_PROJECT_NAME=$project
export FAIRDEAL_IMAGE=$image FAIRDEAL_POSTGRES_IMAGE=$pg_image
export FAIRDEAL_DEALER_1_PORT FAIRDEAL_DEALER_2_PORT
FAIRDEAL_DEALER_1_PORT=$(free_port)
FAIRDEAL_DEALER_2_PORT=$(free_port)
export FAIRDEAL_GIT_COMMIT
FAIRDEAL_GIT_COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
build_args=$(printf '%q ' "${ci_podman_build_flags[@]}")
log=$work/compose.log
# podman-compose in the project's directory; its output goes to the log,
# shown when a step fails.
compose() { (cd "$project_dir" && podman-compose --podman-build-args "$build_args" "$@") </dev/null; }
quiet() { "$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; fail "$*"; }; }

container_of() {
  podman ps -a --filter "label=io.podman.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -n 1
}
# Runs the service's health check (compose.yaml's) until it passes, as
# Compose would before starting what depends on it.
wait_healthy() {
  local service=$1 limit=$2 container waited=0
  container=$(container_of "$service")
  [ -n "$container" ] || fail "no container for $service"
  until podman healthcheck run "$container" >/dev/null 2>&1; do
    if [ "$waited" -ge "$limit" ]; then
      podman logs --tail 30 "$container" >&2 || true
      fail "$service is not healthy after $waited s"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "$service healthy (its health check passes) after ${waited} s"
  # A process that exited and was started again by its restart policy is
  # said (not failed): what it printed first is why.
  local restarts
  restarts=$(podman inspect "$container" --format '{{.RestartCount}}')
  if [ "$restarts" != 0 ]; then
    echo "note: $service was restarted $restarts time(s) by its restart policy first; it began with:"
    podman logs "$container" 2>&1 | head -n 3 | cut -c1-300 | sed 's/^/  /'
  fi
}

say "1. the master key: podman-compose --profile setup run --rm master-key (builds the image first: the release build)"
started=$(date +%s)
quiet compose --profile setup run --rm master-key
echo "built and made in $(( $(date +%s) - started )) s"
key_file=$project_dir/data/compose/master.key
[ -s "$key_file" ] || fail "no $key_file"
fairdeal_uid=$(podman run --rm --entrypoint id "$image" -u fairdeal)
[ "$(stat -c '%u %a' "$key_file")" = "$fairdeal_uid 600" ] \
  || fail "the key file is $(stat -c '%u %a' "$key_file"), not the image user's ($fairdeal_uid) with mode 600"
grep -Eqx '[0-9a-f]{64}' "$key_file" || fail "the key file does not hold 64 hex characters"
if compose --profile setup run --rm master-key >>"$log" 2>&1; then
  fail "master-key wrote over an existing key"
fi
echo "data/compose/master.key: 64 hex characters, mode 600, owned by the image's user (uid $fairdeal_uid); a second run refuses to write over it"
# Where the key is, git does not look and the image build does not copy
# from (.gitignore, .dockerignore): a build of the context as it is now
# must not hold it.
git check-ignore -q data/compose/master.key || fail "git does not ignore data/compose/master.key"
printf 'FROM %s\nCOPY . /context\nRUN test ! -e /context/data/compose/master.key\n' "$ci_podman_base" >"$work/Containerfile.context"
context_image=$(podman build -q --layers=false -f "$work/Containerfile.context" "$project_dir" 2>>"$log") \
  || fail "the master key is in the image build's context"
podman rmi "$context_image" >/dev/null
echo "git ignores it and the image build's context leaves it out"

say "2. podman-compose up -d --build, in the order of its health conditions: postgres"
quiet compose up -d postgres
wait_healthy postgres 90

say "2. (cont.) dealer-1 and dealer-2, the image built again by --build (cached)"
started=$(date +%s)
quiet compose up -d --build dealer-1 dealer-2
echo "up in $(( $(date +%s) - started )) s"
wait_healthy dealer-1 120
wait_healthy dealer-2 120
d1=http://127.0.0.1:$FAIRDEAL_DEALER_1_PORT
d2=http://127.0.0.1:$FAIRDEAL_DEALER_2_PORT
for url in "$d1" "$d2"; do
  curl -fs "$url/readyz" >/dev/null || fail "$url/readyz"
done
echo "dealer-1 at $d1, dealer-2 at $d2 (published on the loopback)"

say "what the dealers run with: the secret, the user, the shared mirror"
for service in dealer-1 dealer-2; do
  seen=$(compose exec -T "$service" sh -c 'id -un; stat -c "%U %a" /run/secrets/master_key; cat /data/log-mirror/ID')
  [ "$(sed -n 1p <<<"$seen")" = fairdeal ] || fail "$service runs as $(sed -n 1p <<<"$seen")"
  [ "$(sed -n 2p <<<"$seen")" = "fairdeal 600" ] || fail "$service's secret is $(sed -n 2p <<<"$seen")"
  mirror_ids+=("$(sed -n 3p <<<"$seen")")
done
[ "${mirror_ids[0]}" = "${mirror_ids[1]}" ] || fail "the dealers have different log mirrors: ${mirror_ids[*]}"
echo "both run as fairdeal, read the master key secret (mode 600), and share log mirror ${mirror_ids[0]}"

say "3. an API key: podman-compose exec dealer-1 fairdeal keys create --name backend"
# -T: the key is read by this script, not a terminal.
key=$(compose exec -T dealer-1 fairdeal keys create --name backend 2>>"$log") || { tail -n 20 "$log" >&2; fail "keys create"; }
[ -n "$key" ] && [ "$(wc -l <<<"$key")" = 1 ] || fail "keys create printed ${key:-nothing}"
auth="Authorization: Bearer $key"

say "the README session through both dealers"
pair=$(curl -fs -X POST -H "$auth" "$d1/v1/seed-pairs") || fail "POST /v1/seed-pairs on dealer-1"
pair_id=$(jq -r .id <<<"$pair")
commitment=$(jq -r .server_seed_hash <<<"$pair")
curl -fs -X PUT -H "$auth" -H 'content-type: application/json' \
  -d "{\"client_seed\":\"chosen by the player $$\"}" "$d2/v1/seed-pairs/$pair_id/client-seed" >/dev/null \
  || fail "the client seed on dealer-2"
deal() {
  curl -fs -X POST -H "$auth" -H 'content-type: application/json' -H 'Idempotency-Key: hand-1' \
    -d '{"game":{"type":"holdem","players":6}}' "$1/v1/seed-pairs/$pair_id/rounds"
}
round=$(deal "$d2") || fail "the deal on dealer-2"
round_id=$(jq -r .id <<<"$round")
[ "$(jq -r .nonce <<<"$round")" = 0 ] || fail "the first deal has nonce $(jq -r .nonce <<<"$round")"
[ "$(deal "$d1" | jq -r .id)" = "$round_id" ] || fail "the same Idempotency-Key on dealer-1 dealt another round"
curl -fs -X POST -H "$auth" "$d1/v1/rounds/$round_id/close" >/dev/null || fail "close on dealer-1"
curl -fs -X POST -H "$auth" -H 'content-type: application/json' \
  -d "{\"client_seed\":\"next one $$\"}" "$d2/v1/seed-pairs/$pair_id/rotate" >/dev/null || fail "rotate on dealer-2"
seed=$(curl -fs "$d1/v1/rounds/$round_id" | jq -r .server_seed)
[ "$(printf '%s' "$seed" | xxd -r -p | sha256sum | cut -d' ' -f1)" = "$commitment" ] \
  || fail "the revealed seed does not hash to the commitment"
[ "$(curl -fs "$d2/v1/seed-pairs/$pair_id/rounds" | jq -r '.rounds | map(.id) | join(" ")')" = "$round_id" ] \
  || fail "dealer-2 does not list the round"
origin1=$(curl -fs "$d1/log/checkpoint" | head -n 1)
origin2=$(curl -fs "$d2/log/checkpoint" | head -n 1)
[ "$origin1" = "$origin2" ] || fail "the dealers serve two logs: $origin1, $origin2"
echo "pair made on dealer-1, seeded, dealt and rotated on dealer-2, retried on dealer-1 with the same Idempotency-Key (the same round), closed and read on dealer-1: the revealed seed opens the commitment; one log, $origin1"

say "the witness: the image must have \`fairdeal witness --log-url\` and \`fairdeal witnesses\`"
missing=()
# (Read whole, then searched: `podman run | grep -q` fails under pipefail
# when grep stops reading before podman has written everything.)
grep -q -- '--log-url' <<<"$(podman run --rm "$image" witness --help 2>/dev/null || true)" \
  || missing+=("fairdeal witness --log-url")
podman run --rm "$image" witnesses --help >/dev/null 2>&1 || missing+=("fairdeal witnesses")
if [ "${#missing[@]}" -gt 0 ]; then
  lacks=$(printf '%s, ' "${missing[@]}")
  fail "the image's fairdeal lacks ${lacks%, }: compose.yaml's witness and register-witness services need them; everything before this step passed"
fi

say "2. (cont.) the witness, then podman-compose up -d whole (starts register-witness)"
quiet compose up -d witness
wait_healthy witness 90
quiet compose up -d
register=$(container_of register-witness)
[ -n "$register" ] || fail "no register-witness container"
for _ in $(seq 120); do
  [ "$(podman inspect "$register" --format '{{.State.Status}}')" = exited ] && break
  sleep 0.5
done
code=$(podman inspect "$register" --format '{{.State.ExitCode}} {{.State.Status}}')
podman logs "$register" 2>&1 | sed 's/^/  register-witness: /'
[ "$code" = "0 exited" ] || fail "register-witness: $code"

say "the witness's cosignature on the witnessed checkpoint, on both dealers"
vkey=$(compose exec -T witness fairdeal witness --print-vkey --name witness.example/demo --data-dir /data 2>>"$log")
key_id=$(cut -d+ -f2 <<<"$vkey")
cosigned_by_witness() {
  local note line
  note=$(curl -fs "$1/v1/log/witnessed-checkpoint") || return 1
  line=$(grep '^— witness.example/demo ' <<<"$note") || return 1
  # A cosignature line's signature starts with the key id of the vkey.
  [ "$(cut -d' ' -f3 <<<"$line" | base64 -d 2>/dev/null | head -c 4 | xxd -p)" = "$key_id" ]
}
waited=0
until cosigned_by_witness "$d1" && cosigned_by_witness "$d2"; do
  [ "$waited" -lt 60 ] || { curl -s "$d1/readyz" >&2; fail "no checkpoint cosigned by the witness within 30 s"; }
  sleep 0.5
  waited=$((waited + 1))
done
echo "both dealers serve a checkpoint cosigned by $vkey (after $((waited / 2)) s)"

say "down -v (containers, network, volumes)"
quiet compose down -v -t 10
echo "total $(( $(date +%s) - started_all )) s"
echo "compose: passed"
