#!/usr/bin/env python3
"""For sweep data of panel blocks timed with PA = 0 and 1: the geometric mean over the shapes of
the best of the blocks, each in one PA mode, against the best of all (every one of the 2^blocks
choices, best first), over all shapes and over those of at least 1 GFLOP.
Usage: python3 set_modes.py DATA.jsonl[.gz]..."""
import collections
import gzip
import itertools
import json
import math
import sys


def load(path):
    times = collections.defaultdict(dict)
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        r = json.loads(line)
        p = r["variant"]["params"]
        block = "kc%d lm%d ln%d mv%d nr%d" % (p["KC"], p["LM"], p["LN"], p["MV"], p["NR"])
        if r["valid"]:
            times[(r["m"], r["n"], r["k"])][(block, p.get("PA", 0))] = r["times"]["median_ms"]
    return times


for path in sys.argv[1:]:
    times = load(path)
    blocks = sorted({b for s in times for (b, _) in times[s]})
    print(path, len(times), "shapes")
    results = []
    for modes in itertools.product([0, 1], repeat=len(blocks)):
        every, large = [], []
        for s, v in times.items():
            slowdown = math.log(min(v[(b, m)] for b, m in zip(blocks, modes)) / min(v.values()))
            every.append(slowdown)
            if 2 * s[0] * s[1] * s[2] >= 1e9:
                large.append(slowdown)
        results.append((math.exp(sum(every) / len(every)), math.exp(sum(large) / len(large)), modes))
    for all_shapes, large_shapes, modes in sorted(results):
        print("  all %.3f  >= 1 GFLOP %.3f  " % (all_shapes, large_shapes), dict(zip(blocks, modes)))
