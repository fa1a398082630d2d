#!/usr/bin/env python3
"""Prints the fastest configurations of each kernel and shape in a CSV export of a cutune database
(`tune db export --format csv`), with TFLOP/s where the metric is one.
  scripts/dev/top_configs.py EXPORT.csv [N]"""
import csv
import sys
from collections import defaultdict

rows = defaultdict(list)
with open(sys.argv[1], newline="") as f:
    for r in csv.DictReader(f):
        if r["status"] == "ok":
            rows[(r["kernel"], r["shape"])].append(r)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
for (kernel, shape), rs in sorted(rows.items()):
    rs.sort(key=lambda r: float(r["median_ms"]))
    print(f"{kernel} {shape}: {len(rs)} ok")
    for r in rs[:n]:
        print(f"  {float(r['median_ms']) * 1000:9.1f} us  {float(r['metric']):9.1f}  regs {r['registers']:>3}  {r['config']}")
