"""Draws bench/scaling.csv as an SVG line chart (no plotting library
needed): time against thread count, one line per family and dialect,
log2 x axis, linear y axis."""
import csv
import math
import sys

src, dst = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(src)))
series = {}
for r in rows:
    series.setdefault((r["family"], r["arch"]), []).append((int(r["threads"]), float(r["seconds"])))
W, H, L, B, T, R = 720, 420, 60, 50, 30, 170
ymax = max(0.5, max(s for pts in series.values() for _, s in pts) * 1.1)
xs = [2, 4, 8, 16, 32, 64, 128]
def X(n):
    return L + (math.log2(n) - 1) / (math.log2(xs[-1]) - 1) * (W - L - R)
def Y(s):
    return H - B - s / ymax * (H - B - T)
colors = {"mp": "#1f77b4", "sb": "#ff7f0e", "lb": "#2ca02c", "iriw": "#d62728"}
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{L}" y="18" font-size="14">gpumc symbolic engine: time vs threads (Tong et al., ASPLOS 2024, Fig. 15 families)</text>',
       f'<line x1="{L}" y1="{H-B}" x2="{W-R}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H-B}" stroke="black"/>']
for n in xs:
    out.append(f'<text x="{X(n)}" y="{H-B+18}" text-anchor="middle">{n}</text>')
out.append(f'<text x="{(L+W-R)/2}" y="{H-12}" text-anchor="middle">threads N</text>')
steps = 5
for i in range(steps + 1):
    v = ymax * i / steps
    out.append(f'<line x1="{L-4}" y1="{Y(v)}" x2="{W-R}" y2="{Y(v)}" stroke="#ddd"/>')
    out.append(f'<text x="{L-8}" y="{Y(v)+4}" text-anchor="end">{v:.2f}</text>')
out.append(f'<text x="16" y="{(T+H-B)/2}" transform="rotate(-90 16 {(T+H-B)/2})" text-anchor="middle">seconds (wall)</text>')
ly = T + 10
for (fam, arch), pts in sorted(series.items()):
    pts.sort()
    dash = "" if arch == "ptx" else ' stroke-dasharray="6 4"'
    path = " ".join(f"{X(n):.1f},{Y(s):.1f}" for n, s in pts)
    out.append(f'<polyline points="{path}" fill="none" stroke="{colors[fam]}" stroke-width="2"{dash}/>')
    for n, s in pts:
        out.append(f'<circle cx="{X(n):.1f}" cy="{Y(s):.1f}" r="3" fill="{colors[fam]}"/>')
    out.append(f'<line x1="{W-R+15}" y1="{ly}" x2="{W-R+45}" y2="{ly}" stroke="{colors[fam]}" stroke-width="2"{dash}/>')
    out.append(f'<text x="{W-R+52}" y="{ly+4}">{fam.upper()} {"ptx-v7.5" if arch == "ptx" else "vulkan"}</text>')
    ly += 20
out.append("</svg>")
open(dst, "w").write("\n".join(out) + "\n")
