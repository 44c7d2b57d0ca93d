#!/usr/bin/env bash
# Hardware-run figures of docs/BENCHMARKS.md ("Litmus tests on hardware"):
# instances per second in Sorensen's one-instance mode and in parallel
# mode, the weak outcomes the device shows with and without the
# incantations, the mutation score, a short tuning run and the VULKAN
# corpus campaign. Usage: bash bench/hardware.sh [BACKEND] [CORPUS_DIR]
# (BACKEND: vulkan (default; Mesa's lavapipe where no GPU is), cuda, interp).
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${1:-vulkan}
CORPUS=${2:-../shared/corpus/dat3m}
cargo build --release --quiet
BIN=target/release/gpumc
case $BACKEND in
    cuda) T=examples/thesis/D-cta_S-ker-Global ;;
    *) T=examples/thesis/vulkan/D-cta_S-ker-Global ;;
esac
"$BIN" devices --backend "$BACKEND" | head -1
echo "nproc=$(nproc)"

# One JSON report per line on stdin -> a table row per test.
row() { python3 bench/hw_row.py "$1"; }

echo
echo "## Instances per second: one instance per launch vs. many (same run)"
echo "| test | mode | launches x instances | instances/s | weak | weak per 100k | status |"
echo "|---|---|---|---|---|---|---|"
for t in MP SB LD IRIW; do
    "$BIN" run --backend "$BACKEND" --preset sorensen --iterations 2000 --seed 1 --json "$T/$t.litmus" | row sorensen
    "$BIN" run --backend "$BACKEND" --preset parallel --iterations 100 --seed 1 --json "$T/$t.litmus" | row parallel
done

echo
echo "## Weak outcomes with and without the incantations (200 launches each)"
echo "| test | parameters | launches x instances | instances/s | weak | weak per 100k | status |"
echo "|---|---|---|---|---|---|---|"
for t in SB R MP; do
    "$BIN" run --backend "$BACKEND" --preset parallel --iterations 200 --seed 3 --json "$T/$t.litmus" | row "parallel (all)"
    "$BIN" run --backend "$BACKEND" --preset parallel --set stress_workgroups=0 --set pre_stress_pct=0 \
        --iterations 200 --seed 3 --json "$T/$t.litmus" | row "parallel, no stress"
    "$BIN" run --backend "$BACKEND" --preset parallel --set barrier_pct=0 \
        --iterations 200 --seed 3 --json "$T/$t.litmus" | row "parallel, no start barrier"
    "$BIN" run --backend "$BACKEND" --preset plain --iterations 200 --seed 3 --json "$T/$t.litmus" | row "plain (none)"
done

echo
echo "## Mutation score"
"$BIN" mutants --backend "$BACKEND" --iterations 20 --seed 1 "$T" | tail -1
if [ -d "$CORPUS/litmus/VULKAN" ] && [ "$BACKEND" != cuda ]; then
    "$BIN" mutants --backend "$BACKEND" --iterations 20 --seed 1 \
        "$CORPUS/litmus/VULKAN/Manual" "$CORPUS/litmus/VULKAN/Kronos-Group" | tail -1
fi

echo
echo "## Tuning (10 random sets after the presets, on SB and R)"
GPUMC_TUNED_DIR=$(mktemp -d) "$BIN" tune --backend "$BACKEND" --trials 10 --iterations 100 --seed 5 "$T/SB.litmus" "$T/R.litmus"

if [ -d "$CORPUS/litmus/VULKAN" ] && [ "$BACKEND" != cuda ]; then
    echo
    echo "## The VULKAN corpus as a campaign (5 launches per test)"
    t0=$(date +%s.%N)
    "$BIN" run --backend "$BACKEND" --iterations 5 --seed 1 --skip-unsupported "$CORPUS/litmus/VULKAN" | tail -1
    t1=$(date +%s.%N)
    printf 'wall: %.1f s\n' "$(echo "$t1 - $t0" | bc)"
fi
