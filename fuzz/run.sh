#!/usr/bin/env bash
# Runs the libFuzzer targets (docs/TESTING.md), each for SECONDS from its
# seeds, and prints how many inputs each ran.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     # default: 60 s, every target
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). cargo-fuzz uses nightly
# compiler flags (-Zsanitizer, coverage passes); RUSTC_BOOTSTRAP=1 lets the
# stable compiler accept them, so no nightly toolchain is needed. Debug
# assertions are on (-a): an integer overflow is a crash, as in a debug
# build. New inputs go to fuzz/corpus/TARGET, crashes to
# fuzz/artifacts/TARGET (both ignored by git); logs to fuzz/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^gpumc-fuzz$')
fi

export RUSTC_BOOTSTRAP=1
# The fuzz workspace has its own target folder (fuzz/target): a shared
# CARGO_TARGET_DIR would rebuild the main workspace without sanitizers
# after every fuzz build.
unset CARGO_TARGET_DIR
mkdir -p fuzz/logs
printf '%-16s %12s %8s %10s\n' target inputs seconds inputs/s
status=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    # The first folder receives new inputs; the seeds are only read.
    # -timeout: one input past this many seconds is a hang (every check
    # one input starts has a deadline of half a second).
    if ! cargo fuzz run -a "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 >"fuzz/logs/$t.log" 2>&1; then
        echo "$t: crashed, see fuzz/logs/$t.log and fuzz/artifacts/$t/" >&2
        status=1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/logs/$t.log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "fuzz/logs/$t.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "fuzz/logs/$t.log" | tail -1)
    printf '%-16s %12s %8s %10s\n' "$t" "${runs:-?}" "${took:-?}" "${rate:-?}"
done
exit $status
