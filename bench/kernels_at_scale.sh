#!/usr/bin/env bash
# Race checks of the sample-style CUDA kernels of examples/cuda/scale at
# growing launches, up to a million threads (docs/PTX-KERNELS.md;
# examples/cuda/README.md, "Annotations"). Compiles every kernel file at
# -O1, then checks each kernel with `gpumc check --property races --engine
# $ENGINE` at its small annotated launch (`// gpumc-launch:`) and at the
# launches derived from its `// gpumc-scale:` lines: the block is kept, the
# grid scaled to each thread count of $SIZES that whole blocks reach (a
# 2-D grid keeps its aspect ratio; a size below one block is left out),
# and the `--param` expressions of GX, GY, GZ are evaluated at the scaled
# grid. Each check runs under
# `--timeout $TIMEOUT` and `/usr/bin/time -f '%e %M'` (bash's `time`, and
# no peak memory, where /usr/bin/time is missing). Prints a Markdown
# table: kernel file, kernel, launch, threads, verdict (with the reason of
# an UNKNOWN or ERROR: a timeout, the concrete engines' refusal of launches
# over 4,096 threads, an unknown engine), the racing CUDA line pairs, the
# expected ones (the gpumc-expect annotations, checked at the small
# launch), wall seconds and peak MiB. Needs clang with the NVPTX back-end.
#
# Usage: [ENGINE=parametric] [SIZES="64 1024 16384 262144 1048576"]
#        [TIMEOUT=60] [MAX_MEMORY=4096] [GPUMC=path/to/gpumc] [GNU_TIME=/usr/bin/time]
#        bash bench/kernels_at_scale.sh [FILE.cu ...]
# ENGINE: gpumc's --engine (default parametric; auto, explicit, symbolic).
# GPUMC: a gpumc binary to use; without it, `cargo build --release` and
# $CARGO_TARGET_DIR/release/gpumc (target/ by default).
# FILE.cu: kernel files (default examples/cuda/scale/*.cu).
set -eu
cd "$(dirname "$0")/.."
ENGINE=${ENGINE:-parametric}
SIZES=${SIZES:-64 1024 16384 262144 1048576}
TIMEOUT=${TIMEOUT:-60}
MAX_MEMORY=${MAX_MEMORY:-4096}
if [ -n "${GPUMC:-}" ]; then
    BIN=$GPUMC
else
    cargo build --release --quiet --bin gpumc
    BIN=${CARGO_TARGET_DIR:-target}/release/gpumc
fi
[ $# -gt 0 ] || set -- examples/cuda/scale/*.cu
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sh examples/cuda/compile.sh -o "$TMP" "$@" >/dev/null

# The plan: one tab-separated row per check (file stem, kernel, expected
# racing lines at -O1, threads, gpumc's launch options).
python3 - "$SIZES" "$@" >"$TMP/plan" <<'PY'
import math, re, sys

sizes = [int(s) for s in sys.argv[1].split()]

def value(expr, env):
    """An integer expression of GX, GY, GZ (+ - * / and parentheses)."""
    if not re.fullmatch(r"[0-9GXYZ+\-*/() ]+", expr):
        raise SystemExit(f"bad gpumc-scale value `{expr}`")
    return eval(expr.replace("/", "//"), {"__builtins__": {}}, env)

def dims(s):
    d = [int(x) for x in s.split(",")]
    return d + [1] * (3 - len(d))

def grids(grid, want_blocks):
    """The grid of want_blocks blocks with the aspect ratio of `grid`."""
    gx, gy, gz = grid
    if gy == 1 and gz == 1:
        return [want_blocks, 1, 1]
    if gz != 1:
        return None
    best = None
    for y in range(1, want_blocks + 1):
        if want_blocks % y == 0:
            x = want_blocks // y
            err = abs(math.log(x / y) - math.log(gx / gy))
            if best is None or err < best[0]:
                best = (err, [x, y, 1])
    return best[1] if best else None

def options(words, names, env=None):
    out = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--param":
            k, v = words[i + 1].split("=", 1)
            if k in names:
                k = str(names.index(k))
            if env is not None:
                kind, _, num = v.rpartition(":")
                v = (kind + ":" if kind else "") + str(value(num, env))
            out += [w, f"{k}={v}"]
            i += 2
        else:
            out.append(w)
            i += 1
    return out

def flag(words, name, default):
    return words[words.index(name) + 1] if name in words else default

for cu in sys.argv[2:]:
    stem = cu.rsplit("/", 1)[-1][:-3]
    notes = []
    for line in open(cu):
        line = line.rstrip("\n")
        if line.startswith("// gpumc-") or line.startswith("// why:"):
            notes.append(line)
            continue
        m = re.search(r"__global__\s+void\s+(\w+)\s*\(([^)]*)\)", line)
        if not m:
            if line.strip():
                notes = []
            continue
        name = m.group(1)
        names = [a.split()[-1].lstrip("*") for a in m.group(2).split(",") if a.strip()]
        field = lambda key: [n.split(":", 1)[1].split() for n in notes if n.startswith(f"// {key}:")]
        expect = field("gpumc-expect-O1") or field("gpumc-expect")
        pairs = sorted({tuple(sorted(map(int, e[1:]))) for e in expect if e[0] == "race"})
        expected = ", ".join(f"{a}-{b}" for a, b in pairs) or "none"
        extra = [w for o in field("gpumc-options") for w in o]
        rows = []
        for launch in field("gpumc-launch"):
            t = math.prod(dims(flag(launch, "--grid", "1"))) * math.prod(dims(flag(launch, "--block", "1")))
            rows.append((t, options(launch, names) + extra))
        for scale in field("gpumc-scale"):
            grid, block = dims(flag(scale, "--grid", "1")), dims(flag(scale, "--block", "1"))
            per_block = math.prod(block)
            for t in sizes:
                if t % per_block:
                    continue
                g = grids(grid, t // per_block)
                if g is None:
                    continue
                env = dict(GX=g[0], GY=g[1], GZ=g[2])
                words = list(scale)
                words[words.index("--grid") + 1] = ",".join(str(x) for x in g[: len(flag(scale, "--grid", "1").split(","))])
                rows.append((t, options(words, names, env) + extra))
        for t, opts in rows:
            print("\t".join([stem, name, expected, str(t), " ".join(opts)]))
        notes = []
PY

GNU_TIME=${GNU_TIME:-/usr/bin/time}
if [ -x "$GNU_TIME" ]; then TIMER=gnu; else TIMER=bash; fi
OUTER=
if command -v timeout >/dev/null; then OUTER="timeout $((${TIMEOUT%.*} + 60))"; fi

# One report (JSON on stdout, stderr) -> "verdict<TAB>racing lines".
summary() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
out, err = open(sys.argv[1]).read(), open(sys.argv[2]).read().strip()
try:
    r = json.loads(out.splitlines()[0])
except (IndexError, ValueError):
    last = err.splitlines()[-1] if err else ""
    print((f"no report: {last}" if last else "no report")[:160] + "\t-")
    raise SystemExit
verdict = r.get("verdict", "?")
if verdict not in ("PASS", "FAIL"):
    msg = " ".join(str(r.get("message") or r.get("error") or "").split())
    msg = re.sub(r"^\S+\.ptx: ", "", msg)
    verdict = f"{verdict}: {msg}"[:160] if msg else verdict
def line(s):
    try:
        return int(str(s).rsplit(":", 2)[-2])
    except (ValueError, IndexError):
        return 0
pairs = sorted({tuple(sorted(line(s) for s in x.get("source", [])[:2])) for x in r.get("races", [])})
lines = ", ".join("-".join(map(str, p)) for p in pairs) or ("none" if r.get("verdict") in ("PASS", "FAIL") else "-")
if r.get("races_complete") is False:
    lines += " (cut)"
print(f"{verdict}\t{lines}")
PY
}

echo "engine: $ENGINE, gpumc: $BIN, --timeout $TIMEOUT, --max-memory $MAX_MEMORY, -O1, $(nproc) cores"
echo
echo "| kernel | variant | launch | threads | verdict | racing lines | expected (small launch) | s | MiB |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS=$'\t' read -r stem kernel expected threads opts; do
    # shellcheck disable=SC2086 # $opts: the launch's words
    set -- "$BIN" check --property races --json --engine "$ENGINE" \
        --timeout "$TIMEOUT" --max-memory "$MAX_MEMORY" --kernel "$kernel" $opts "$TMP/$stem.O1.ptx"
    rc=0
    if [ $TIMER = gnu ]; then
        # shellcheck disable=SC2086 # $OUTER: a command and its argument, or nothing
        $OUTER "$GNU_TIME" -o "$TMP/time" -f '%e %M' "$@" </dev/null >"$TMP/out" 2>"$TMP/err" || rc=$?
        secs= kib=
        read -r secs kib < <(tail -n 1 "$TMP/time") || true
        case $kib in '' | *[!0-9]*) mib=- ;; *) mib=$((kib / 1024)) ;; esac
    else
        TIMEFORMAT=%R
        # shellcheck disable=SC2086
        { time $OUTER "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; } 2>"$TMP/time" || rc=$?
        secs=$(tail -n 1 "$TMP/time")
        mib=-
    fi
    verdict=? lines=-
    IFS=$'\t' read -r verdict lines < <(summary "$TMP/out" "$TMP/err") || true
    if [ $rc -eq 124 ]; then
        verdict="killed after $((${TIMEOUT%.*} + 60)) s (outer timeout)" lines=-
    fi
    launch=$(echo "$opts" | sed -E 's/--param [^ ]+ ?//g; s/--(grid|block) //g; s/ +$//; s/ / x /')
    echo "| $stem | $kernel | $launch | $threads | $verdict | $lines | $expected | ${secs:--} | $mib |"
done <"$TMP/plan"
