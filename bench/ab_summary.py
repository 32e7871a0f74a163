#!/usr/bin/env python3
"""Summarises bench/gpu_ab.sh's runs: per workload, the median time of build A and of build B over
every round (with the spread of the rounds' medians), the fraction of copy bandwidth, and B's time
over A's. A workload where B is more than 3% slower is marked.

Usage: bench/ab_summary.py OUT   (OUT holds A/r*/ *.json and B/r*/ *.json)
"""
import glob
import json
import os
import statistics
import sys


def load(out, label):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, label, "r*", "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for r in data.get("results", []):
            if r.get("status") != "ok":
                continue
            key = (r["op"], r["dtype"], r["size"])
            rows.setdefault(key, []).append((r["median_ms"], r.get("copy_fraction", 0.0)))
    return rows


def main(out):
    a, b = load(out, "A"), load(out, "B")
    print(f"{'op':<18} {'dtype':<9} {'size':<15} {'A ms (rounds)':<26} {'B ms (rounds)':<26} "
          f"{'A %copy':>7} {'B %copy':>7} {'B/A':>6}")
    worst = 0.0
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key, []), b.get(key, [])
        if not ra or not rb:
            print(f"{key[0]:<18} {key[1]:<9} {key[2]:<15} missing in {'A' if not ra else 'B'}")
            continue
        ma = statistics.median(t for t, _ in ra)
        mb = statistics.median(t for t, _ in rb)
        ca = statistics.median(c for _, c in ra) * 100
        cb = statistics.median(c for _, c in rb) * 100
        spread = lambda r: f"{min(t for t, _ in r):.4f}-{max(t for t, _ in r):.4f}"
        ratio = mb / ma
        worst = max(worst, ratio)
        mark = "  <-- B slower by more than 3%" if ratio > 1.03 else ""
        print(f"{key[0]:<18} {key[1]:<9} {key[2]:<15} {ma:<9.4f}({spread(ra):<15}) {mb:<9.4f}({spread(rb):<15}) "
              f"{ca:>6.0f}% {cb:>6.0f}% {ratio:>6.3f}{mark}")
    print(f"\nlargest B/A: {worst:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
