#!/usr/bin/env bash
# Packs what bench/device.sh needs on a GPU machine that has no Rust
# toolchain and no network into DIR (default .dev, which git ignores
# through .git/info/exclude): the stripped gpumc binary, the gpumc-hw test
# executables, the corpus's litmus folders, and the Vulkan loader with the
# GL dispatch libraries NVIDIA's Vulkan driver loads (a CUDA container
# often has neither).
# On the GPU machine, from a copy of the repository at /work/main:
#   for f in DIR/gl/*.deb; do dpkg -x $f /; done; ldconfig
#   mkdir -p /work/shared && ln -sfn $PWD/DIR/corpus /work/shared/corpus
#   GPUMC_BIN=DIR/gpumc GPUMC_TEST_BINS=DIR/tests bash bench/device.sh OUT
# (the test executables find the repository and the corpus at the paths
# they were built at, hence /work/main and /work/shared.)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.dev}
mkdir -p "$DIR/tests" "$DIR/corpus/dat3m"
cargo build --release --quiet
cp target/release/gpumc "$DIR/gpumc"
strip "$DIR/gpumc"
cargo test --release -p gpumc-hw --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "test" in m["target"]["kind"]:
        print(m["target"]["name"], m["executable"])
' | while read -r name exe; do
    case $name in
    cuda_run | cuda_corpus | ptx_ptxas | vulkan_run | vulkan_corpus)
        cp "$exe" "$DIR/tests/$name" && strip "$DIR/tests/$name" ;;
    esac
done
[ -d ../shared/corpus/dat3m/litmus ] && cp -r ../shared/corpus/dat3m/litmus "$DIR/corpus/dat3m/"
mkdir -p "$DIR/gl"
(cd "$DIR/gl" && apt-get download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libgles2 libopengl0 >/dev/null 2>&1) ||
    echo "note: could not download the Vulkan loader and GL libraries; bring them another way" >&2
du -sh "$DIR"
