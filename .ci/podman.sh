# shellcheck shell=bash
# Sourced by the CI scripts that build and run the Dockerfile's image with
# podman (.ci/compose.sh; .ci/container.sh does the same steps itself):
#
#   source .ci/podman.sh
#   ci_podman_setup "$work"   # podman, runc and debootstrap; containers.conf
#   ci_podman_images "$work"  # the local base images, made once and kept
#   podman build "${ci_podman_build_flags[@]}" -t TAG .
#
# The official images are not reachable here, so the base images are made
# locally and kept between runs: bookworm-slim by debootstrap, and a Rust
# build image from it with the machine's own Rust toolchain, crate cache
# and CA bundle mounted in for the build (cargo reaches the registry only
# for what the cache lacks). Needs root (apt-get, podman). WORK is the
# caller's temporary directory (the caller removes it).

ci_podman_say() { printf -- '--- %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

# podman, runc and debootstrap from Debian's packages, and a containers.conf
# (exported as CONTAINERS_CONF) that this VM's cgroups need.
ci_podman_setup() {
  local work=$1
  if ! command -v podman >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 \
     || ! command -v runc >/dev/null 2>&1; then
    ci_podman_say "installing podman, runc and debootstrap from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
  fi
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
}

# The base images (made when missing, then kept): sets ci_podman_base,
# ci_podman_builder, and ci_podman_build_flags, the arguments of `podman
# build` for the Dockerfile on them.
ci_podman_images() {
  local work=$1 sysroot rust_version
  ci_podman_base=localhost/bookworm-slim
  if ! podman image exists "$ci_podman_base"; then
    ci_podman_say "base image $ci_podman_base: debootstrap --variant=minbase bookworm"
    debootstrap --variant=minbase bookworm "$work/rootfs" >/dev/null
    tar -C "$work/rootfs" -c . | podman import --quiet - "$ci_podman_base" >/dev/null
    rm -rf "$work/rootfs"
  fi

  sysroot=$(rustc --print sysroot)
  rust_version=$(rustc --version | cut -d' ' -f2)
  ci_podman_builder=localhost/fairdeal-rust-build:$rust_version
  if ! podman image exists "$ci_podman_builder"; then
    ci_podman_say "Rust build image $ci_podman_builder: $ci_podman_base with gcc and pkg-config (the toolchain is mounted at build time)"
    cat >"$work/Containerfile.rust" <<CONTAINERFILE
FROM $ci_podman_base
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev pkg-config ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV CARGO_HOME=/usr/local/cargo CARGO_HTTP_CAINFO=/run/host-ca-certificates.crt \\
    PATH=/usr/local/rust/bin:/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONTAINERFILE
    podman build -q -t "$ci_podman_builder" -f "$work/Containerfile.rust" "$work" >/dev/null
  fi

  # shellcheck disable=SC2034 # the caller's
  ci_podman_build_flags=(
    --build-arg "RUST_IMAGE=$ci_podman_builder" --build-arg "RUNTIME_IMAGE=$ci_podman_base"
    -v "$sysroot:/usr/local/rust:ro"
    -v "${CARGO_HOME:-$HOME/.cargo}/registry:/usr/local/cargo/registry"
    -v /etc/ssl/certs/ca-certificates.crt:/run/host-ca-certificates.crt:ro
  )
}
