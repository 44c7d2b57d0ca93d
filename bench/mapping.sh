#!/usr/bin/env bash
# Bounded mapping soundness (docs/MAPPING.md, "Soundness checking"), beside
# Lustig et al., ASPLOS'19 Fig. 17 (Alloy: scoped Coherence 41 s at 4 events
# and 6.4 h at 5; Atomicity 4 s / 5 s; SC 10 s / 15 min; de-scoped 1.8 min,
# 4 s, 21 s at 5 events and 3.1 h, 4 s, 26 s at 6).
# Every row is one `gpumc mapping check --json` run of the built-in ptx
# mapping (Fig. 11) against ptx-v6.0, one axiom at a time; then the flawed
# RMW_SC mapping of Fig. 12 from 1 event up until a counterexample.
# Usage: bash bench/mapping.sh [MAX_EVENTS (default 6)]
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=${1:-6}
cargo build --release --quiet
BIN=target/release/gpumc
row() {
    python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    cx = d.get("counterexample")
    res = "no counterexample" if cx is None else "counterexample (%d events)" % cx["events"]
    print("| %s | %s | %s | %d | %s | %.1f s |" % (sys.argv[1], d["axiom"], d["events"], d["shapes"], res, d["time_ms"] / 1000))
' "$1"
}
echo "| space | axiom | events | shapes | result | time |"
echo "|---|---|---|---|---|---|"
for n in $(seq 4 "$MAX"); do
    for ax in coherence atomicity sc; do
        "$BIN" mapping check --to ptx-v6.0 --events "$n" --axiom "$ax" --json | row scoped || true
    done
    "$BIN" mapping check --to ptx-v6.0 --events "$n" --axiom sc --no-sc-accesses --json \
        | row "scoped, no SC loads/stores" || true
    for ax in coherence atomicity sc; do
        "$BIN" mapping check --to ptx-v6.0 --events "$n" --axiom "$ax" --descoped --json \
            | row de-scoped || true
    done
done
for n in $(seq 1 7); do
    out=$("$BIN" mapping check --to ptx-v6.0 --events "$n" --axiom coherence --json \
        --mapping examples/mappings/ptx-rmw-sc-no-release.map || true)
    echo "$out" | row "flawed RMW_SC (Fig. 12)"
    case "$out" in *counterexample\"*) break ;; esac
done
