#!/usr/bin/env python3
"""Prints the transposed-copy A/B (device.sh's tables under nn/ and nt/): per shape, fewfit's
GFLOP/s after / before by wall time and by device time, and the geomeans of after/before."""
import math, os, re
here = os.path.dirname(os.path.abspath(__file__))

def table(path):
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and re.match(r"^\d+x\d+x\d+$", cells[1]):
            rows[cells[1]] = float(cells[2])
    return rows

for layout in ("nn", "nt"):
    print(f"row-major {layout.upper()}: shape, after / before by wall time, by device time")
    ratios = {"wall": [], "event": []}
    wall = {r: table(f"{here}/{layout}/{r}/table-wall.md") for r in ("after", "before")}
    event = {r: table(f"{here}/{layout}/{r}/table-event.md") for r in ("after", "before")}
    for shape in wall["before"]:
        w = wall["after"][shape] / wall["before"][shape]
        e = event["after"][shape] / event["before"][shape]
        ratios["wall"].append(w); ratios["event"].append(e)
        print(f"  {shape:>16} {w:6.3f} {e:6.3f}")
    g = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in ratios.items()}
    print(f"  {'geomean':>16} {g['wall']:6.3f} {g['event']:6.3f}")
