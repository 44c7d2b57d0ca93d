#!/usr/bin/env bash
# Race checks of compiled CUDA kernels (docs/PTX-KERNELS.md): every kernel
# of examples/cuda at -O0 and -O1 with its annotated launch, then the
# lavaMD-like kernel at larger launches. Per check: the report's time_ms
# (the check, in the worker) and the process's wall time and peak memory
# (/usr/bin/time), and the memory instructions per thread of the kernel's
# PTX. Needs clang with the NVPTX back-end.
# Usage: bash bench/ptx_kernels.sh [--no-large]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=$PWD/target/release/gpumc
TMP=$(mktemp -d)
sh examples/cuda/compile.sh -o "$TMP" >/dev/null
python3 - "$BIN" "$TMP" "${1:-}" <<'PY'
import glob, json, os, re, statistics, subprocess, sys, time
BIN, TMP, opt = sys.argv[1], sys.argv[2], sys.argv[3]

def kernels(cu):
    notes, out = [], []
    for line in open(cu):
        line = line.rstrip("\n")
        if line.startswith("// gpumc-") or line.startswith("// why:"):
            notes.append(line); continue
        m = re.search(r"__global__\s+void\s+(\w+)\s*\(([^)]*)\)", line)
        if m and notes:
            args = [a.split()[-1].lstrip("*") for a in m.group(2).split(",") if a.strip()]
            launch = next(n for n in notes if n.startswith("// gpumc-launch:")).split(":", 1)[1].split()
            for i, w in enumerate(launch):
                if w == "--param":
                    k, v = launch[i + 1].split("=", 1)
                    if k in args:
                        launch[i + 1] = f"{args.index(k)}={v}"
            opts = [w for n in notes if n.startswith("// gpumc-options:") for w in n.split(":", 1)[1].split()]
            out.append((m.group(1), launch, opts))
        if line.strip() and not line.startswith("//"):
            notes = []
    return out

def mem_instrs(ptx, kernel):
    body, inside = 0, False
    for line in open(ptx):
        if re.match(rf"\.visible \.entry {kernel}\(", line):
            inside = True
        elif inside and line.startswith("}"):
            break
        elif inside and re.match(r"\s*(@!?%p\d+\s+)?(ld|st|atom|red)\.", line) and ".param" not in line and ".local" not in line and "%SP" not in line:
            body += 1
    return body

def check(ptx, name, launch, opts):
    cmd = ["/usr/bin/time", "-f", "%e %M", BIN, "check", "--property", "races", "--json",
           "--timeout", "600", "--max-memory", "16000", "--kernel", name] + launch + opts + [ptx]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall, kb = p.stderr.strip().splitlines()[-1].split()
    r = json.loads(p.stdout.splitlines()[0])
    return r["verdict"], r["time_ms"], float(wall), int(kb) / 1024, len(r.get("races", []))

rows = []
for cu in sorted(glob.glob("examples/cuda/*.cu")):
    stem = os.path.basename(cu)[:-3]
    for name, launch, opts in kernels(cu):
        for lvl in ("O0", "O1"):
            ptx = f"{TMP}/{stem}.{lvl}.ptx"
            v, ms, wall, mb, races = check(ptx, name, launch, opts)
            rows.append((stem, name, lvl, v, ms, wall, mb, races, mem_instrs(ptx, name), " ".join(launch + opts)))
print("file kernel level | verdict | check ms | wall s | peak MiB | racing pairs | memory instructions | launch")
for r in rows:
    print(f"{r[0]} {r[1]} -{r[2]} | {r[3]} | {r[4]:.1f} | {r[5]:.2f} | {r[6]:.0f} | {r[7]} | {r[8]} | {r[9]}")
small = [r for r in rows if r[0] != "lavamd"]
t = [r[4] for r in small]
print(f"\n{len(small)} checks of the small kernels: median {statistics.median(t):.1f} ms, "
      f"max {max(t):.1f} ms ({max(small, key=lambda r: r[4])[1]}), {sum(1 for x in t if x >= 500)} at or over 500 ms")
if opt != "--no-large":
    # One kernel at growing launches: bench/kernels/reduce_dynamic.cu.
    ptx = f"{TMP}/reduce_dynamic.ptx"
    subprocess.run(["clang", "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                    "--cuda-gpu-arch=sm_70", "-S", "-O1", "-gline-tables-only",
                    "bench/kernels/reduce_dynamic.cu", "-o", ptx], check=True)
    print("\nreduce_dynamic (-O1), 2 blocks: threads per block | race-free: verdict, check s, peak MiB | racy: verdict, check s, peak MiB")
    for n in (8, 16, 32, 64, 128, 256, 512):
        launch = ["--grid", "2", "--block", str(n), "--shared-bytes", str(4 * n),
                  "--param", f"0=buf:{8 * n}", "--param", "1=buf:8"]
        a = check(ptx, "reduce_dynamic", launch, [])
        b = check(ptx, "reduce_dynamic_racy", launch, [])
        print(f"{n} | {a[0]} {a[1]/1e3:.2f} {a[3]:.0f} | {b[0]} {b[1]/1e3:.2f} {b[3]:.0f}")
PY
rm -rf "$TMP"
