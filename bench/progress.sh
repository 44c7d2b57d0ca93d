#!/usr/bin/env bash
# Benchmarks of the progress-model toolkit (release build):
#  * `gpumc progress check --model all` on the 483 corpus tests (11 models);
#  * `gpumc progress table` on the corpus;
#  * `gpumc progress synth` for the five paper configurations.
# Usage: bench/progress.sh [CORPUS_DIR]   (default ../shared/corpus/progress)
# Environment: GPUMC (a gpumc binary to use instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CORPUS=${1:-$ROOT/../shared/corpus/progress}
if [ ! -d "$CORPUS" ]; then
    echo "SKIPPED: progress corpus not found at $CORPUS" >&2
    exit 0
fi

GPUMC=${GPUMC:-}
if [ -z "$GPUMC" ]; then
    cargo build --release --quiet --bin gpumc
    GPUMC=${CARGO_TARGET_DIR:-$ROOT/target}/release/gpumc
fi

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }
runs=5

echo "== check --model all: $(find "$CORPUS" -name '*_simple.txt' | wc -l) tests x 11 models, best of $runs"
best=999
for _ in $(seq $runs); do
    t0=$(now); "$GPUMC" progress check --model all --json "$CORPUS" >/tmp/progress-check.json; t1=$(now)
    t=$(elapsed "$t0" "$t1"); best=$(echo "if ($t < $best) $t else $best" | bc)
done
echo "records: $(grep -c '"verdict"' /tmp/progress-check.json); wall time: ${best} s"

echo "== table"
t0=$(now); "$GPUMC" progress table "$CORPUS"; t1=$(now)
echo "wall time: $(elapsed "$t0" "$t1") s"

echo "== synth --all: the five configurations, enumeration + oracle on every test, no files, best of $runs"
best=999
for _ in $(seq $runs); do
    t0=$(now); "$GPUMC" progress synth --all >/tmp/progress-synth.txt; t1=$(now)
    t=$(elapsed "$t0" "$t1"); best=$(echo "if ($t < $best) $t else $best" | bc)
done
grep -E '^[0-9]t_[0-9]i:' /tmp/progress-synth.txt
echo "wall time: ${best} s"

echo "== synth, five configurations (paper scopes), compared with the corpus, files written"
OUT=$(mktemp -d)
total0=$(now)
for cfg in "2 2" "2 3" "2 4" "3 3" "3 4"; do
    set -- $cfg
    t0=$(now)
    "$GPUMC" progress synth --threads "$1" --instructions "$2" --out "$OUT" --compare "$CORPUS"
    t1=$(now)
    echo "  wall time (synthesis, oracle on every test, writing files): $(elapsed "$t0" "$t1") s"
done
total1=$(now)
echo "five configurations: $(elapsed "$total0" "$total1") s total; $(find "$OUT" -name '*.txt' | wc -l) files written"
rm -rf "$OUT"
