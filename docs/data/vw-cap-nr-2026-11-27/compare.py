"""Speed-up of each NR-halved block over the set's block it copies, per shape class, from sweep.jsonl.gz
(python3 docs/data/vw-cap-nr-2026-11-27/compare.py)."""
import collections, gzip, json, math, pathlib

here = pathlib.Path(__file__).parent
t = collections.defaultdict(dict)
for line in gzip.open(here / "sweep.jsonl.gz"):
    r = json.loads(line)
    p = r["variant"]["params"]
    t[(p["KC"], p["LM"], p["LN"], p["MV"], p["NR"], p["VW"])][(r["m"], r["n"], r["k"])] = r["times"]["median_ms"]
for a in [key for key in t if key[5] == 16]:
    b = (a[0], a[1] * 2, a[2] * 2, a[3], a[4] // 2, 8)
    shapes = t[a].keys() & t[b].keys()
    def geomean(keep):
        ratios = [math.log(t[a][s] / t[b][s]) for s in shapes if keep(s)]
        return math.exp(sum(ratios) / len(ratios)), len(ratios)
    large = lambda s: 2 * s[0] * s[1] * s[2] >= 1e9
    print("KC%d LM%d LN%d MV%d NR%d VW%d -> KC%d LM%d LN%d MV%d NR%d VW%d" % (a + b),
          "all %.3f (%d)" % geomean(lambda s: True), ">= 1 GFLOP %.3f (%d)" % geomean(large),
          "< 1 GFLOP %.3f (%d)" % geomean(lambda s: not large(s)))
