#!/usr/bin/env bash
# The real Dockerfile, built and run as a user would, with podman:
#   - base images made locally (the official ones are not reachable here):
#     bookworm-slim by debootstrap, and a Rust build image from it with the
#     machine's own Rust toolchain, crate cache and CA bundle mounted in
#     for the build (cargo reaches the registry only for what the cache
#     lacks);
#   - the image run with a named volume for /data: the README session
#     against it (key made with `podman exec`), the process not root,
#     stopped with SIGTERM (exit 0), started again on the same volume with
#     the round still there;
#   - the same image against the machine's PostgreSQL with DATABASE_URL and
#     the master key in the environment.
# Usage: .ci/container.sh. Needs root (apt-get, podman).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf -- '--- %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

if ! command -v podman >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 \
   || ! command -v runc >/dev/null 2>&1; then
  say "installing podman, runc and debootstrap from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
fi

work=$(mktemp -d)
tag=fairdeal-ci-$$
volume=fairdeal-ci-data-$$
cleanup() {
  podman rm -f "$tag" "$tag-pg" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  [ -n "${pg_db:-}" ] && psql "$pg_admin" -qc "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# This VM's cgroups defeat crun: runc, cgroupfs, and explicit limits.
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
export CONTAINERS_CONF="$work/containers.conf"
podman --version

base=localhost/bookworm-slim
if ! podman image exists "$base"; then
  say "base image $base: debootstrap --variant=minbase bookworm"
  debootstrap --variant=minbase bookworm "$work/rootfs" >/dev/null
  tar -C "$work/rootfs" -c . | podman import - "$base" >/dev/null
  rm -rf "$work/rootfs"
fi

sysroot=$(rustc --print sysroot)
rust_version=$(rustc --version | cut -d' ' -f2)
builder=localhost/fairdeal-rust-build:$rust_version
if ! podman image exists "$builder"; then
  say "Rust build image $builder: $base with gcc and pkg-config (the toolchain is mounted at build time)"
  cat >"$work/Containerfile.rust" <<CONTAINERFILE
FROM $base
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev pkg-config ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV CARGO_HOME=/usr/local/cargo CARGO_HTTP_CAINFO=/run/host-ca-certificates.crt \\
    PATH=/usr/local/rust/bin:/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONTAINERFILE
  podman build -q -t "$builder" -f "$work/Containerfile.rust" "$work" >/dev/null
fi

say "podman build of the Dockerfile (release build inside)"
started=$(date +%s)
podman build -t "$tag" \
  --build-arg RUST_IMAGE="$builder" --build-arg RUNTIME_IMAGE="$base" \
  --build-arg FAIRDEAL_GIT_COMMIT="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
  -v "$sysroot:/usr/local/rust:ro" \
  -v "${CARGO_HOME:-$HOME/.cargo}/registry:/usr/local/cargo/registry" \
  -v /etc/ssl/certs/ca-certificates.crt:/run/host-ca-certificates.crt:ro \
  . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
echo "built in $(( $(date +%s) - started )) s"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_healthy() {
  for _ in $(seq 1 100); do
    curl -fs "$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "the container did not answer at $1" >&2
  podman logs "$2" >&2 || true
  return 1
}
fail() { echo "container check failed: $*" >&2; exit 1; }

say "run with a named volume for /data"
podman volume create "$volume" >/dev/null
port=$(free_port)
podman run -d --name "$tag" -p "127.0.0.1:$port:8080" -v "$volume:/data" "$tag" >/dev/null
url=http://127.0.0.1:$port
wait_healthy "$url" "$tag"
uid=$(podman exec "$tag" sh -c 'id -u')
[ "$uid" != 0 ] || fail "the service runs as root"
echo "the service runs as uid $uid"
pid1=$(podman exec "$tag" sh -c 'cat /proc/1/comm')
echo "PID 1 is $pid1"
# The image's HEALTHCHECK command, as the orchestrator runs it (no flags:
# the image's FAIRDEAL_LISTEN names the address).
podman exec "$tag" fairdeal healthcheck || fail "fairdeal healthcheck in the image"
podman exec "$tag" fairdeal healthcheck --live || fail "fairdeal healthcheck --live in the image"

say "the README session against the container"
key=$(podman exec "$tag" fairdeal keys create --name "ci-$$")
auth="Authorization: Bearer $key"
pair=$(curl -fs -X POST -H "$auth" "$url/v1/seed-pairs")
pair_id=$(jq -r .id <<<"$pair")
commitment=$(jq -r .server_seed_hash <<<"$pair")
curl -fs -X PUT -H "$auth" -H 'content-type: application/json' \
  -d "{\"client_seed\":\"chosen by the player $$\"}" "$url/v1/seed-pairs/$pair_id/client-seed" >/dev/null
round_id=$(curl -fs -X POST -H "$auth" -H 'content-type: application/json' -H 'Idempotency-Key: hand-1' \
  -d '{"game":{"type":"holdem","players":6}}' "$url/v1/seed-pairs/$pair_id/rounds" | jq -r .id)
curl -fs -X POST -H "$auth" "$url/v1/rounds/$round_id/close" >/dev/null
curl -fs -X POST -H "$auth" -H 'content-type: application/json' \
  -d "{\"client_seed\":\"next one $$\"}" "$url/v1/seed-pairs/$pair_id/rotate" >/dev/null
revealed=$(curl -fs "$url/v1/rounds/$round_id")
seed=$(jq -r .server_seed <<<"$revealed")
[ "$(printf '%s' "$seed" | xxd -r -p | sha256sum | cut -d' ' -f1)" = "$commitment" ] \
  || fail "the revealed seed does not hash to the commitment"
echo "round $round_id revealed, its seed opens the commitment"

say "SIGTERM, then started again on the same volume"
podman stop -t 20 "$tag" >/dev/null
code=$(podman inspect "$tag" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || { podman logs "$tag" | tail -5; fail "exit status $code after SIGTERM"; }
# The container's log may reach podman a moment after the stop returns.
# (Read whole, then searched: `podman logs | grep -q` fails under pipefail
# when grep stops reading before podman has written everything.)
shut_down() { grep -q "shutting down" <<<"$(podman logs "$tag" 2>&1)"; }
for _ in $(seq 50); do
  shut_down && break
  sleep 0.1
done
shut_down || { podman logs "$tag" 2>&1 | tail -5; fail "no graceful shutdown in the log"; }
podman rm "$tag" >/dev/null
port=$(free_port)
podman run -d --name "$tag" -p "127.0.0.1:$port:8080" -v "$volume:/data" "$tag" >/dev/null
url=http://127.0.0.1:$port
wait_healthy "$url" "$tag"
[ "$(curl -fs "$url/v1/rounds/$round_id" | jq -r .server_seed)" = "$seed" ] \
  || fail "the round is not there after a restart"
curl -fs -H "$auth" "$url/v1/seed-pairs?status=active" >/dev/null || fail "the key is not there after a restart"
echo "after SIGTERM (exit 0) and a new container on the volume, the round and the key are there"
podman stop -t 20 "$tag" >/dev/null

say "the same image against the machine's PostgreSQL"
pg_admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
pg_db=fairdeal_container_$$
psql "$pg_admin" -qc "CREATE DATABASE $pg_db" >/dev/null
pg_url="${pg_admin%/*}/$pg_db"
master=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
port=$(free_port)
podman run -d --name "$tag-pg" --network host \
  -e DATABASE_URL="$pg_url" -e FAIRDEAL_MASTER_KEY="$master" -e FAIRDEAL_LISTEN="127.0.0.1:$port" \
  "$tag" >/dev/null
url=http://127.0.0.1:$port
wait_healthy "$url" "$tag-pg"
key=$(podman run --rm --network host -e DATABASE_URL="$pg_url" "$tag" keys create --name "ci-pg-$$")
auth="Authorization: Bearer $key"
pair_id=$(curl -fs -X POST -H "$auth" "$url/v1/seed-pairs" | jq -r .id)
curl -fs -X PUT -H "$auth" -H 'content-type: application/json' \
  -d "{\"client_seed\":\"on postgres $$\"}" "$url/v1/seed-pairs/$pair_id/client-seed" >/dev/null
nonce=$(curl -fs -X POST -H "$auth" -H 'content-type: application/json' \
  -d '{"game":{"type":"deck"}}' "$url/v1/seed-pairs/$pair_id/rounds" | jq -r .nonce)
[ "$nonce" = 0 ] || fail "a deal on PostgreSQL answered nonce $nonce"
curl -fs "$url/readyz" >/dev/null || fail "not ready on PostgreSQL"
podman stop -t 20 "$tag-pg" >/dev/null
code=$(podman inspect "$tag-pg" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "exit status $code after SIGTERM on PostgreSQL"
echo "PostgreSQL: a pair and a deal through the image with DATABASE_URL and the master key alone"
echo "container: passed"
