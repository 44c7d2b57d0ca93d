#!/usr/bin/env bash
# `gpumc diy --enumerate`: every critical cycle up to 4 and 6 edges (PTX;
# orderings po, membar.cta, membar.gl, addr, data), in every placement of
# the threads in CTAs and every global/shared assignment of the
# locations, once up to symmetry, each generated, verified under
# ptx-v7.5 and ptx-v6.0 and written to a temporary directory. Prints
# the summary and the wall time of each run (docs/BENCHMARKS.md).
# Usage: bash bench/diy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=$PWD/target/release/gpumc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for edges in 4 6; do
  echo "== up to $edges edges"
  /usr/bin/time -f "wall %e s, peak %M KB" "$BIN" diy --enumerate --max-edges "$edges" \
    --model ptx-v7.5 --model ptx-v6.0 --out "$TMP/e$edges"
  echo "configurations: $(ls "$TMP/e$edges" | grep -c '^cta-')"
done
