#!/usr/bin/env bash
# Dartagnan's Table 7 (Tong et al., ASPLOS'24, sec. 7.4) at the paper's own
# grids: each SPIR-V benchmark of the corpus with `; @Config: X, 1, Y`
# ("Grid X.Y": X threads per workgroup, Y workgroups), checked for data
# races (`--property races`, Dat3M's cat_spec, as the artifact's
# generate-table-7.py does) at the artifact's unroll bound, then at twice
# the threads per workgroup. Buffers given one element per thread
# (`@Input` lists of the file's thread count are stretched).
# Prints: row, grid, bound, expected, verdict, check seconds (the report's
# time_ms), peak MiB (/usr/bin/time), Dartagnan's published time, and the
# smallest bound that decides (`--bound 1 --max-bound BOUND`); for the
# twice-the-threads rows too.
# Usage: bash bench/table7.sh [CORPUS_DIR] [extra gpumc options...]
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus/dat3m}
shift || true
cargo build --release --quiet
BIN=$PWD/target/release/gpumc
DIR="$CORPUS/spirv/vulkan/benchmarks"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$BIN" "$DIR" "$TMP" "$@" <<'PY'
import json, re, subprocess, sys
BIN, DIR, TMP, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# row, file, grid (X, Y), bound, expected (races: PASS = race-free), Dartagnan ms
ROWS = [
    ("caslock", "caslock-2.1.1", (2, 3), 2, "PASS", 23975),
    ("caslock-acq2rx", "caslock-acq2rx", (4, 2), 1, "FAIL", 1728),
    ("caslock-rel2rx", "caslock-rel2rx", (4, 2), 1, "FAIL", 1822),
    ("caslock-dv2wg", "caslock-dv2wg-2.1.1", (4, 1), 2, "PASS", 1994),
    ("caslock-dv2wg", "caslock-dv2wg-2.1.1", (4, 2), 1, "FAIL", 2183),
    ("ticketlock", "ticketlock-2.1.1", (2, 3), 1, "PASS", 33651),
    ("ticketlock-acq2rx", "ticketlock-acq2rx", (4, 2), 1, "FAIL", 1984),
    ("ticketlock-rel2rx", "ticketlock-rel2rx", (4, 2), 1, "FAIL", 1918),
    ("ticketlock-dv2wg", "ticketlock-dv2wg-2.1.1", (4, 1), 2, "PASS", 1865),
    ("ticketlock-dv2wg", "ticketlock-dv2wg-2.1.1", (4, 2), 1, "FAIL", 2083),
    ("ttaslock", "ttaslock-2.1.1", (2, 2), 4, "PASS", 65597),
    ("ttaslock-acq2rx", "ttaslock-acq2rx", (4, 2), 1, "FAIL", 2179),
    ("ttaslock-rel2rx", "ttaslock-rel2rx", (4, 2), 1, "FAIL", 1998),
    ("ttaslock-dv2wg", "ttaslock-dv2wg-2.1.1", (4, 1), 4, "PASS", 21893),
    ("ttaslock-dv2wg", "ttaslock-dv2wg-2.1.1", (4, 2), 1, "FAIL", 2403),
    ("xf-barrier", "xf-barrier-3.1.3", (3, 3), 9, "PASS", 13598),
    ("xf-barrier-acq2rx-1", "xf-barrier-fail1", (2, 2), 4, "FAIL", 2803),
    ("xf-barrier-acq2rx-2", "xf-barrier-fail2", (2, 2), 4, "FAIL", 2792),
    ("xf-barrier-rel2rx-1", "xf-barrier-fail3", (2, 2), 4, "FAIL", 2661),
    ("xf-barrier-rel2rx-2", "xf-barrier-fail4", (2, 2), 4, "FAIL", 2777),
]

def at_grid(name, x, y):
    """The file with `@Config: x, 1, y` and its buffers stretched to one
    element per thread where they had one per thread of the original."""
    src = open(f"{DIR}/{name}.spvasm").read()
    m = re.search(r"@Config:\s*(\d+),\s*(\d+),\s*(\d+)", src)
    old = int(m.group(1)) * int(m.group(2)) * int(m.group(3))
    new = x * y
    def stretch(line):
        def one(mm):
            items = [s.strip() for s in mm.group(1).split(",")]
            if len(items) == old and len(set(items)) == 1 and new > old:
                items = items * (new // old) + items[: new % old]
            return "{{" + ", ".join(items) + "}}"
        return re.sub(r"\{\{([^{}]*)\}\}", one, line) if line.startswith("; @Input") else line
    lines = [stretch(l) for l in src.split("\n")]
    out = "\n".join(lines)
    out = re.sub(r"@Config:\s*\d+,\s*\d+,\s*\d+", f"@Config: {x}, 1, {y}", out)
    path = f"{TMP}/{name}-{x}.{y}.spvasm"
    open(path, "w").write(out)
    return path

def run(path, bound, timeout=600, grow=False):
    # (`--engine auto` gives the symbolic engine, its first choice for
    # these kernels, half of the timeout.) `grow`: from bound 1 up to
    # `bound` (`--max-bound`), to find the smallest bound that decides.
    bounds = ["--bound", "1", "--max-bound", str(bound)] if grow else ["--bound", str(bound)]
    cmd = ["/usr/bin/time", "-f", "%M", BIN, "check", "--property", "races", "--json",
           "--timeout", str(timeout), "--max-memory", "16000"] + bounds + extra + [path]
    p = subprocess.run(cmd, capture_output=True, text=True)
    kb = int(p.stderr.strip().splitlines()[-1])
    r = json.loads(p.stdout.splitlines()[0])
    if grow:
        return r["verdict"], r["time_ms"] / 1e3, r.get("bound")
    return r["verdict"], r["time_ms"] / 1e3, kb / 1024, r.get("message") or ""

print("row | grid | bound | expected | gpumc | check s | peak MiB | Dartagnan s | speed-up | smallest deciding bound (verdict, s)")
for row, name, (x, y), bound, want, dart in ROWS:
    path = at_grid(name, x, y)
    v, s, mb, msg = run(path, bound)
    flag = "" if v == want else f"  <-- expected {want}: {msg}"
    gv, gs, gb = run(path, bound, grow=True)
    print(f"{row} | {x}.{y} | {bound} | {want} | {v} | {s:.2f} | {mb:.0f} | {dart/1e3:.1f} | {dart/1e3/max(s, 1e-3):.0f}x | {gb} ({gv}, {gs:.2f}){flag}")
import os
if os.environ.get("TABLE7_ONLY_PAPER"):
    sys.exit(0)
print("\ntwice the threads per workgroup:")
print("row | grid | bound | expected | gpumc | check s | peak MiB | smallest deciding bound (verdict, s)")
for row, name, (x, y), bound, want, dart in ROWS:
    path = at_grid(name, 2 * x, y)
    v, s, mb, msg = run(path, bound, timeout=240)
    gv, gs, gb = run(path, bound, timeout=240, grow=True)
    note = '' if v in ('PASS', 'FAIL') else '  ' + msg
    print(f"{row} | {2*x}.{y} | {bound} | {want} | {v} | {s:.2f} | {mb:.0f} | {gb} ({gv}, {gs:.2f}){note}")
PY
