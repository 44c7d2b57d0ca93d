#!/usr/bin/env bash
# Times every kernel of spirv/vulkan/benchmarks for races (cat_spec) at the
# bound its row of SPIRV-VULKAN-expected.csv gives, one at a time (release
# build, the default `--engine auto`), as recorded in docs/BENCHMARKS.md.
# Prints: kernel, bound, expected, verdict, wall seconds (process included).
# Usage: bash bench/spirv.sh [CORPUS_DIR] [PROPERTY]
#   PROPERTY: cat_spec | program_spec (the benchmarks' rows) | termination
#   (the termination kernels' rows, each with its progress model)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus/dat3m}
PROP=${2:-cat_spec}
cargo build --release --quiet
BIN=target/release/gpumc
CSV="$CORPUS/expected/SPIRV-VULKAN-expected.csv"
case $PROP in
    cat_spec) P=races; DIR=benchmarks ;;
    program_spec) P=safety; DIR=benchmarks ;;
    termination) P=liveness; DIR=termination ;;
    *) echo "bad property $PROP" >&2; exit 2 ;;
esac
printf '%-34s %5s %-8s %-8s %8s\n' kernel bound expected verdict seconds
total=0
grep "^spirv/vulkan/$DIR/.*,$PROP," "$CSV" | while IFS=, read -r path _ bound progress expected _ _; do
    t0=$(date +%s.%N)
    out=$("$BIN" check --json --property "$P" --bound "$bound" --progress "$progress" "$CORPUS/$path" 2>&1 || true)
    t1=$(date +%s.%N)
    verdict=$(printf '%s' "$out" | grep -o '"verdict":"[A-Z]*"' | head -1 | cut -d'"' -f4)
    printf '%-34s %5s %-8s %-8s %8.2f\n' "$(basename "$path" .spvasm)$([ "$DIR" = termination ] && echo " $progress")" "$bound" "$expected" "${verdict:-?}" "$(echo "$t1 - $t0" | bc)"
done
