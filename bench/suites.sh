#!/usr/bin/env bash
# Times the four safety conformance suites (release build), as recorded in
# docs/BENCHMARKS.md. Usage: bash bench/suites.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus/dat3m}
cargo build --release --quiet
BIN=target/release/gpumc
run() {
    local csv=$1 model=$2 prop=${3:-safety}
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" suite --expected "$CORPUS/expected/$csv" --root "$CORPUS" --model "$model" --property "$prop" | grep -v "^mismatch" | tail -2 || true
    t1=$(date +%s.%N)
    printf '%-32s %-16s %6.2f s wall\n' "$csv" "$model" "$(echo "$t1 - $t0" | bc)"
}
T0=$(date +%s.%N)
run PTXv6_0-expected.csv ptx-v6.0
run PTXv7_5-expected.csv ptx-v7.5
run VULKAN-expected.csv vulkan
run VULKAN-NOCHAINS-expected.csv vulkan-nochains
T1=$(date +%s.%N)
printf 'all four safety suites: %.2f s wall (nproc=%s)\n' "$(echo "$T1 - $T0" | bc)" "$(nproc)"
run VULKAN-DR-expected.csv vulkan races
run VULKAN-DR-NOCHAINS-expected.csv vulkan-nochains races
T2=$(date +%s.%N)
printf 'with the two race suites: %.2f s wall\n' "$(echo "$T2 - $T0" | bc)"
