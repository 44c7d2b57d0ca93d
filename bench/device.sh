#!/usr/bin/env bash
# The device check (issue 26): everything gpumc does on a GPU, in one run
# of under 8 minutes on a machine with an NVIDIA GPU, its figures and the
# results database written to one folder (docs/HARDWARE.md, "The device
# check"):
#   1. the CUDA backend's own tests on the device (crates/hw: cuda_run,
#      cuda_corpus);
#   2. conformance: Sorensen's thesis tests (PTX on CUDA, their Vulkan
#      translations on the NVIDIA Vulkan driver) and the corpus's VULKAN
#      tests, every observed state judged by the model;
#   3. a diy campaign: every critical cycle of up to 4 edges in every
#      placement and region, generated, verified, run on both backends
#      into the results database, and the cross-device page;
#   4. the mutation score and a short tuning run.
# Usage: bash bench/device.sh [OUT_DIR] [PTX_BACKEND] [VULKAN_BACKEND]
# (defaults: $OUT or ./device-out, cuda, vulkan; `interp` stands in for a
# backend on a machine without it, to try the script).
# A GPU machine often has no Rust toolchain: then build here and pass the
# binaries (bench/device-pack.sh makes them): GPUMC_BIN=path/to/gpumc and
# GPUMC_TEST_BINS=dir holding the gpumc-hw test executables (cuda_run,
# cuda_corpus, ptx_ptxas, vulkan_run, vulkan_corpus).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-device-out}}
PTX=${2:-cuda}
VK=${3:-vulkan}
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
FIG=$OUT_DIR/figures.md
DB=$OUT_DIR/results.db
CORPUS=../shared/corpus/dat3m
if [ -n "${GPUMC_BIN:-}" ]; then
    BIN=$(cd "$(dirname "$GPUMC_BIN")" && pwd)/$(basename "$GPUMC_BIN")
else
    cargo build --release --quiet || exit 2
    BIN=$PWD/target/release/gpumc
fi
# The NVIDIA Vulkan driver's manifest, where the loader does not find it
# by itself (a container with the driver mounted under /usr/local/nvidia).
NV_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$NV_ICD" ] && ! "$BIN" devices 2>/dev/null | grep -qi '^vulkan.*nvidia'; then
    export VK_DRIVER_FILES=$NV_ICD
fi
start=$(date +%s)
# Each step gets a time limit; a step that fails or runs out is noted and
# the rest go on.
step() {
    local limit=$1 name=$2
    shift 2
    echo "== $name" | tee -a "$FIG"
    local t0=$(date +%s)
    timeout "$limit" "$@" >"$OUT_DIR/$name.out" 2>"$OUT_DIR/$name.err"
    local rc=$?
    echo "exit $rc after $(( $(date +%s) - t0 )) s; last lines:" >>"$FIG"
    tail -4 "$OUT_DIR/$name.out" | sed 's/^/    /' >>"$FIG"
    [ $rc -eq 0 ] || tail -3 "$OUT_DIR/$name.err" | sed 's/^/    err: /' >>"$FIG"
}
{
    echo "# gpumc device check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
    "$BIN" devices 2>&1
} >"$FIG"

# The backends' own tests on the device, through cargo or prebuilt, each
# test in a process of its own: after a kernel fault the CUDA driver
# refuses every later call in that process, which would hide the tests
# that follow it.
hw_test() {
    local limit=$1 name=$2 bin
    if [ -n "${GPUMC_TEST_BINS:-}" ]; then
        bin=$GPUMC_TEST_BINS/$name
    else
        bin=$(cargo test --release -p gpumc-hw --test "$name" --no-run --message-format=json 2>/dev/null |
            sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    fi
    local each='fail=0
for t in $("$0" --list --format terse | sed -n "s/: test\$//p"); do
    "$0" --exact "$t" --nocapture || fail=1
done
exit $fail'
    step "$limit" "$name" bash -c "$each" "$bin"
}
if [ "$PTX" = cuda ]; then
    hw_test 60 cuda_run
    hw_test 60 cuda_corpus
    hw_test 30 ptx_ptxas
fi
if [ "$VK" = vulkan ]; then
    hw_test 60 vulkan_run
fi
step 45 thesis-ptx "$BIN" run --backend "$PTX" --iterations 20 --seed 1 --db "$DB" \
    --out "$OUT_DIR/thesis-ptx" --skip-unsupported examples/thesis/D-cta_S-ker-Global \
    examples/thesis/D-warp_S-cta-Global examples/thesis/D-warp_S-cta-Shared
step 45 thesis-vulkan "$BIN" run --backend "$VK" --iterations 20 --seed 1 --db "$DB" \
    --out "$OUT_DIR/thesis-vulkan" --skip-unsupported examples/thesis/vulkan
if [ -d "$CORPUS/litmus/VULKAN" ]; then
    step 60 corpus-vulkan "$BIN" run --backend "$VK" --iterations 5 --seed 1 --db "$DB" \
        --out "$OUT_DIR/corpus-vulkan" --skip-unsupported "$CORPUS/litmus/VULKAN"
fi
step 20 diy-ptx "$BIN" diy --enumerate --max-edges 4 --out "$OUT_DIR/diy-ptx" \
    --model ptx-v7.5 --model ptx-v6.0
step 20 diy-vulkan "$BIN" diy --arch vulkan --enumerate --max-edges 4 --out "$OUT_DIR/diy-vulkan"
step 60 campaign-ptx "$BIN" run --backend "$PTX" --iterations 10 --seed 2 --db "$DB" \
    --out "$OUT_DIR/campaign-ptx" "$OUT_DIR/diy-ptx"
step 60 campaign-vulkan "$BIN" run --backend "$VK" --iterations 10 --seed 2 --db "$DB" \
    --out "$OUT_DIR/campaign-vulkan" "$OUT_DIR/diy-vulkan"
step 20 results "$BIN" results --db "$DB" --by family --html "$OUT_DIR/compare.html"
"$BIN" results --db "$DB" --by device >>"$FIG" 2>&1
step 45 mutants "$BIN" mutants --backend "$PTX" --iterations 20 --seed 1 \
    examples/thesis/D-cta_S-ker-Global
step 30 tune "$BIN" tune --backend "$PTX" --trials 5 --iterations 50 --seed 5 \
    examples/thesis/D-cta_S-ker-Global/SB.litmus examples/thesis/D-cta_S-ker-Global/MP.litmus
echo "total $(( $(date +%s) - start )) s" | tee -a "$FIG"
