#!/usr/bin/env python3
"""The `cpu` tree's picks (an `evaluate --per-shape` table) judged against the fastest of each
shape's records by the median, as shipped (the PA = 2 block) and with the PA = 1 block in its place
(the set before 2026-12-02 17:30 UTC). Usage: compare.py PICKS.tsv DATA.jsonl.gz..."""
import csv
import gzip
import json
import math
import sys

PA2, PA1 = "panel_kc256_lm1_ln16_mv4_nr4_pa2_vw16", "panel_kc256_lm1_ln16_mv4_nr4_pa1_vw16"


def label(variant):
    p = variant["params"]
    return variant["kernel"] + "_" + "_".join(f"{k.lower()}{v}" for k, v in sorted(p.items()))


def main():
    picks = {}
    with open(sys.argv[1]) as f:
        for row in csv.reader(f, delimiter="\t"):
            if len(row) > 2 and "x" in row[1] and row[1].replace("x", "").isdigit():
                picks[tuple(map(int, row[1].split("x")))] = row[2]
    for path in sys.argv[2:]:
        times = {}
        for line in gzip.open(path, "rt"):
            r = json.loads(line)
            if r["valid"]:
                times.setdefault((r["m"], r["n"], r["k"]), {})[label(r["variant"])] = r["times"]["median_ms"]
        for name, swap in (("PA = 1 (before)", PA1), ("PA = 2 (now)", PA2)):
            logs, worst = [], (0.0, None)
            for shape, t in times.items():
                pick = picks[shape]
                pick = swap if pick == PA2 else pick
                x = t[pick] / min(t.values())
                logs.append(math.log(x))
                worst = max(worst, (x, shape))
            shape = "x".join(map(str, worst[1]))
            print(f"{path}: {name}: {len(logs)} shapes, geomean {math.exp(sum(logs) / len(logs)):.3f}, worst {worst[0]:.2f} ({shape})")


if __name__ == "__main__":
    main()
