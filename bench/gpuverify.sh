#!/usr/bin/env bash
# GPUVerify's OpenCL suite (../shared/corpus/gpuverify/OpenCL): every kernel
# checked for races at its launch; prints the table of docs/BENCHMARKS.md
# ("GPUVerify's OpenCL suite"). GPUMC_GPUVERIFY_TIMEOUT sets each check's
# limit in seconds (default 5; the figures in docs/BENCHMARKS.md use 20).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test gpuverify_corpus -- --nocapture 2>&1 \
    | sed -n '/^| GPUVerify expects/,/^test /p'
