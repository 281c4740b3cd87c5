#!/usr/bin/env bash
# fairdeal-v1 holdem-6 deals side by side in one run: this crate (release),
# a Node.js peer written as a Node backend would (benches/peers/
# node-fairdeal-v1.mjs, the standard `crypto` module), and the independent
# Python reference (tools/fairdeal_v1_reference.py); each peer first proves
# it deals the published vectors. Prints ns per deal and the ratios.
# Usage: benches/peers/run.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-200000}
python_n=$(( n / 20 ))
cargo build --release -q --locked --example deal_throughput
rust=$(target/release/examples/deal_throughput "$n")
echo "$rust"
node_line=$(node benches/peers/node-fairdeal-v1.mjs "$n")
echo "$node_line"
python3 tools/fairdeal_v1_reference.py --check test-vectors/fairdeal-v1.json >/dev/null
python_line=$(python3 - "$python_n" <<'PY'
import sys, time
sys.path.insert(0, "tools")
import fairdeal_v1_reference as ref
n = int(sys.argv[1])
seed = "07" * 32
game = {"type": "holdem", "players": 6}
started = time.perf_counter()
for nonce in range(n):
    ref.deal(seed, "benchmark client seed", nonce, game)
seconds = time.perf_counter() - started
print(f"python {sys.version.split()[0]} reference: {n} holdem-6 deals in {seconds:.3f} s = {seconds / n * 1e9:.0f} ns/deal")
PY
)
echo "$python_line"
ns() { sed -E "s/.*= ([0-9]+) ns\/deal.*/\1/" <<<"$1"; }
rust_seed=$(sed -E 's/.*: ([0-9]+) ns\/deal from the seed.*/\1/' <<<"$rust")
rust_prepared=$(sed -E 's/.*, ([0-9]+) ns\/deal from a prepared seed.*/\1/' <<<"$rust")
rust_inline=$(sed -E 's/.*, ([0-9]+) ns\/deal inline.*/\1/' <<<"$rust")
awk -v r="$rust_seed" -v p="$rust_prepared" -v i="$rust_inline" -v node="$(ns "$node_line")" -v py="$(ns "$python_line")" 'BEGIN {
  printf "Node.js / fairdeal: %.1fx (from the seed), %.1fx (prepared seed), %.1fx (inline, prepared seed)\n", node / r, node / p, node / i
  printf "Python / fairdeal:  %.0fx (from the seed), %.0fx (prepared seed), %.0fx (inline)\n", py / r, py / p, py / i
}'
