#!/usr/bin/env bash
# Execution graphs (docs/GRAPHS.md): the time to draw the largest
# executions of the corpus. Checks every corpus test with a graph request
# (the witness, else the rejected candidate of a forbidden outcome, else
# one allowed execution), then times our DOT and SVG renderers and
# Graphviz's `dot -Tsvg` (when installed) on the drawings with the most
# events. Also the cost of --graph for a whole directory.
# Usage: bash bench/graphs.sh [CORPUS_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus/dat3m}
N=${2:-6}
cargo build --release --quiet --bin gpumc --example graph_time -p gpumc -p gpumc-verify
BIN=target/release/gpumc
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$BIN" check --json --graph svg --graph-out "$OUT/g" "$CORPUS/litmus" "$CORPUS/spirv/vulkan" > "$OUT/reports.jsonl" || true
target/release/examples/graph_time "$N" < "$OUT/reports.jsonl"
echo
# Whole litmus corpus (1,461 tests), best of 3 wall times.
for graph in "" "--graph svg" "--graph dot,svg"; do
    best=
    for _ in 1 2 3; do
        rm -rf "$OUT/h"
        t0=$(date +%s.%N)
        "$BIN" check --json $graph ${graph:+--graph-out "$OUT/h"} "$CORPUS/litmus" > /dev/null
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    printf 'litmus corpus, check %-18s %6.2f s wall\n' "${graph:-(no graph)}" "$best"
done
