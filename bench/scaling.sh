#!/usr/bin/env bash
# Times the Tong et al., ASPLOS'24 Fig. 15 scaling families with the symbolic engine:
# no states listed (`--max-states 0`; bench/states.sh times the listing of states):
# MP/SB/LB/IRIW at N = 2, 4, 8, 16, 32, 64, 128 under ptx-v7.5 and vulkan,
# with each process's peak memory (/usr/bin/time).
# Writes bench/scaling.csv and draws docs/scaling.svg.
# Usage: bash bench/scaling.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=target/release/gpumc
OUT=bench/scaling.csv
TMP=$(mktemp -d)
echo "family,arch,threads,seconds,verdict,peak_mib" > "$OUT"
for arch in ptx vulkan; do
    for fam in mp sb lb iriw; do
        for n in 2 4 8 16 32 64 128; do
            [ "$fam" = iriw ] && [ "$n" -lt 4 ] && continue
            f="$TMP/$fam-$n-$arch.litmus"
            "$BIN" gen "$fam" --threads "$n" --arch "$arch" --out "$f"
            t0=$(date +%s.%N)
            v=$(/usr/bin/time -f %M -o "$TMP/mem" "$BIN" check --engine symbolic --max-states 0 --json "$f" | sed 's/.*"verdict":"\([A-Z]*\)".*/\1/')
            t1=$(date +%s.%N)
            printf '%s,%s,%s,%.3f,%s,%d\n' "$fam" "$arch" "$n" "$(echo "$t1 - $t0" | bc)" "$v" "$(( $(tail -1 "$TMP/mem") / 1024 ))" >> "$OUT"
        done
    done
done
rm -rf "$TMP"
python3 bench/plot_scaling.py "$OUT" docs/scaling.svg
cat "$OUT"
