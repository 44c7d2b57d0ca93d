#!/bin/sh
# Compile CUDA kernels of this folder to PTX at -O0 and -O1 with clang's
# NVPTX back-end (no CUDA toolkit needed; clang >= 14 with the NVPTX target).
#
#   compile.sh [-o OUTDIR] [FILE.cu ...]
#
# With no files, every *.cu file next to this script.  FILE.cu becomes
# OUTDIR/FILE.O0.ptx and OUTDIR/FILE.O1.ptx; OUTDIR defaults to a fresh
# temporary directory, printed at the end.  CLANG overrides the compiler.
# Exit status: 0 when every file compiled without a warning, 1 otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
clang=${CLANG:-clang}
out=

usage() { echo "usage: $0 [-o OUTDIR] [FILE.cu ...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done

if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/gpumc-cuda.XXXXXX") || exit 1
else
  mkdir -p "$out" || exit 1
fi
if [ $# -eq 0 ]; then
  set -- "$here"/*.cu
fi

status=0
for f in "$@"; do
  name=$(basename "$f" .cu)
  for opt in O0 O1; do
    ptx="$out/$name.$opt.ptx"
    log="$out/$name.$opt.log"
    if "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib \
        --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 \
        -S -"$opt" -gline-tables-only \
        -I "$here" "$f" -o "$ptx" 2>"$log"; then
      if [ -s "$log" ]; then
        echo "warning: $f (-$opt):" >&2; cat "$log" >&2; status=1
      fi
    else
      echo "error: $f (-$opt):" >&2; cat "$log" >&2; status=1
    fi
    rm -f "$log"
  done
done
echo "$out"
exit $status
