#!/usr/bin/env python3
"""Writes the variants that come within FACTOR of the fastest on some shape of any one dataset, as
dataset records that only name variants (valid: false), for `fewfit sweep --variants-from`.
Each dataset is judged on its own, so runs of different kernel code (which `merge` refuses to join)
can feed one pool.
Usage: python3 scripts/near_best_pool.py FACTOR OUT.jsonl DATA.jsonl[.gz]..."""
import gzip, json, sys

factor, out, paths = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
pool = {}
for path in paths:
    opener = gzip.open if path.endswith(".gz") else open
    rows, best = [], {}
    for line in opener(path, "rt"):
        r = json.loads(line)
        if r.get("valid"):
            shape, t = (r["m"], r["n"], r["k"]), r["times"]["median_ms"]
            rows.append((shape, r, t))
            best[shape] = min(best.get(shape, t), t)
    for shape, r, t in rows:
        if t <= factor * best[shape]:
            name = json.dumps(r["variant"], sort_keys=True)
            pool[name] = dict(r, valid=False, m=1, n=1, k=1, times={"min_ms": 0, "median_ms": 0, "repeats": 0})
with open(out, "w") as f:
    for name in sorted(pool):
        f.write(json.dumps(pool[name]) + "\n")
print(f"{len(pool)} variants within {factor}x of the best on some shape of {len(paths)} datasets -> {out}")
