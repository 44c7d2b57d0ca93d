"""Turns gpumc run --json reports (one per line on stdin) into rows of the
markdown tables of bench/hardware.sh. Usage: hw_row.py LABEL"""
import json
import sys

label = sys.argv[1]
for line in sys.stdin:
    r = json.loads(line)
    o = r.get("observation") or {}
    weak = o.get("positive", 0)
    n = max(1, r["iterations"] * r["instances"])
    print(
        "| {} | {} | {} x {} | {:,.0f} | {} | {:.1f} | {} |".format(
            r["name"], label, r["iterations"], r["instances"], r["rate_per_s"],
            weak, 1e5 * weak / n, r["status"],
        )
    )
