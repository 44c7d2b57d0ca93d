#!/bin/sh
# List the memory and synchronisation instructions of PTX kernels with the
# source line each comes from (its `.loc`): a reviewing aid for the
# `gpumc-expect` lines.
#
#   accesses.sh FILE.ptx [KERNEL]
#
# Prints `KERNEL FILE:LINE INSTRUCTION` for every ld/st/atom/red, membar,
# fence and bar instruction, leaving out kernel-parameter loads and the
# thread's own stack (-O0 keeps local variables in `__local_depot`, addressed
# through %SP/%SPL), which never race.  With KERNEL, that kernel only.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 FILE.ptx [KERNEL]" >&2; exit 2; }
awk -v want="${2:-}" '
  # first pass: the .file table (clang writes it after the functions)
  FNR == NR { if ($1 == ".file") { f = $3; gsub(/"/, "", f); sub(/.*\//, "", f); file[$2] = f }; next }
  /\.entry[ \t]/ { k = $0; sub(/.*\.entry[ \t]+/, "", k); sub(/[( \t].*/, "", k); kern = k; next }
  /^[ \t]*\.loc[ \t]/ { loc = $2 ":" $3; next }
  /^}/ { kern = "" }
  kern == "" || (want != "" && kern != want) { next }
  {
    line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]*\/\/.*/, "", line)
    op = line; sub(/[ \t].*/, "", op)
    if (op ~ /^@/) { sub(/^@[^ \t]+[ \t]+/, "", line); op = line; sub(/[ \t].*/, "", op) }
    if (op !~ /^(ld|st|atom|red|membar|fence|bar|barrier)(\.|$)/) next
    if (op ~ /^(ld|st)\.param/ || op ~ /\.local/ || line ~ /\[%SPL?[+\]]/) next
    gsub(/[ \t]+/, " ", line)
    n = split(loc, a, ":")
    printf "%s %s:%s %s\n", kern, (a[1] in file ? file[a[1]] : a[1]), a[2], line
  }
' "$1" "$1"
