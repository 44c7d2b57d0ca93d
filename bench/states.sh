#!/usr/bin/env bash
# Cost of listing final states with the symbolic engine (docs/SYMBOLIC.md,
# "Final states"): check time (the report's time_ms, in the worker) with
# `--max-states 0` (no list: the verdict, the observation, whether the bound
# cut an execution) against the default 100, on the
# Tong et al., ASPLOS'24 Fig. 15 scaling families and on the whole corpus.
# Usage: bash bench/states.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=target/release/gpumc
TMP=$(mktemp -d)
ms() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("%.1f %d %s" % (d["time_ms"], len(d["states"]), d["states_complete"]))'; }
echo "family arch N | --max-states 0: ms | default (100 states): ms states complete"
for arch in ptx vulkan; do
    for fam in mp sb lb iriw; do
        for n in 8 64; do
            f="$TMP/$fam-$n-$arch.litmus"
            "$BIN" gen "$fam" --threads "$n" --arch "$arch" --out "$f"
            a=$("$BIN" check --engine symbolic --json --max-states 0 "$f" | ms)
            b=$("$BIN" check --engine symbolic --json "$f" | ms)
            echo "$fam $arch $n | ${a%% *} | $b"
        done
    done
done
C=../shared/corpus/dat3m/litmus
if [ -d "$C" ]; then
    for m in 0 100 1000; do
        "$BIN" check --engine symbolic --json --max-states "$m" "$C" > "$TMP/corpus-$m.jsonl"
        python3 - "$TMP/corpus-$m.jsonl" "$m" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
t = sorted(r["time_ms"] for r in rs)
cut = sum(1 for r in rs if not r["states_complete"])
print(f"corpus, --engine symbolic --max-states {sys.argv[2]}: {len(rs)} tests, "
      f"sum {sum(t)/1e3:.2f} s, median {t[len(t)//2]:.2f} ms, max {t[-1]:.0f} ms, "
      f"{cut} lists incomplete")
PY
    done
fi
rm -rf "$TMP"
