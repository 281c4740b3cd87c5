#!/usr/bin/env bash
# A short run of every fuzz target (docs/FUZZING.md): builds them all once
# (no sanitizer, debug assertions on), replays each target's minimised
# crash inputs (fuzz/regressions/<target>/), then fuzzes it for a fixed
# time from its kept corpus (fuzz/corpus/<target>/, read only: new inputs
# go to a scratch folder). Fails when any target crashes or breaks a
# property; prints one summary line a target.
#
#   bash .ci/fuzz.sh                 # every target, FUZZ_SECONDS (10) each
#   FUZZ_SECONDS=30 bash .ci/fuzz.sh cosignature chain_fields
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
SECONDS_EACH=${FUZZ_SECONDS:-10}
# cargo-fuzz needs nightly flags; the toolchain is stable.
export RUSTC_BOOTSTRAP=1
FLAGS=(--sanitizer none --debug-assertions)

started=$SECONDS
step() { printf -- '--- %s (%ds)\n' "$1" "$((SECONDS - started))"; }

step "cargo-fuzz"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
cargo fuzz --version

cd fuzz
# The fuzz workspace's own build, kept beside the main one when CI shares a
# target folder between runs (an instrumented release build: minutes cold).
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/fuzz"
fi
step "build every target"
cargo fuzz build "${FLAGS[@]}"

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
summary=()
failed=()
for target in "${targets[@]}"; do
    step "$target"
    log="$scratch/$target.log"
    status=ok
    # The crashes found before, each run once.
    regressions=()
    if [ -d "regressions/$target" ]; then
        mapfile -t regressions < <(find "regressions/$target" -type f | sort)
    fi
    if [ "${#regressions[@]}" -gt 0 ]; then
        if ! cargo fuzz run "${FLAGS[@]}" "$target" "${regressions[@]}" -- \
            -timeout=60 >"$log.replay" 2>&1; then
            tail -n 30 "$log.replay"
            status="regression fails"
        fi
    fi
    # New inputs go to the scratch folder; the kept corpus is only read.
    mkdir -p "$scratch/$target"
    corpora=("$scratch/$target")
    [ -d "corpus/$target" ] && corpora+=("corpus/$target")
    if ! cargo fuzz run "${FLAGS[@]}" "$target" "${corpora[@]}" -- \
        -max_total_time="$SECONDS_EACH" -timeout=60 \
        -artifact_prefix="$scratch/$target-" >"$log" 2>&1; then
        tail -n 40 "$log"
        ls "$scratch/$target-"* 2>/dev/null || true
        status="crash"
    fi
    # libFuzzer's last status line: "#RUNS DONE cov: C ft: F corp: U/SIZE …".
    done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -n 1 || true)
    runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$done_line")
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
    corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$done_line")
    line=$(printf '%-24s %-18s %10s runs  cov %5s  ft %6s  corpus %-12s  regressions %d' \
        "$target" "$status" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${#regressions[@]}")
    echo "$line"
    summary+=("$line")
    [ "$status" = ok ] || failed+=("$target")
done

step "summary"
printf '%s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]}" >&2
    exit 1
fi
echo "${#targets[@]} passed, 0 failed"
