#!/usr/bin/env python3
"""The A/B of device.sh ab split by what the cost model changed: per KSPLIT = 0 tile of the set, the
geometric mean of before / after (> 1: the model faster) over the pairs where the model takes fewer
splits than the limits, more, or the same (the control), with the furthest pairs of each side.
Usage: python3 docs/data/split-cost-2026-12-02/direction.py   (from the repository root)"""
import collections
import gzip
import json
import math
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[2] / 'scripts'))
import fit_split_cost  # noqa: E402
fit_split_rule = fit_split_cost.fit_split_rule
MODEL, LIMITS, CU = (0.7, 64, 16, 32), (64, 131072, 64, 2), 132


def auto_split_times(path):
    times = {}
    for line in gzip.open(path, 'rt'):
        r = json.loads(line)
        params = r['variant']['params']
        if r['valid'] and r['variant']['kernel'] == 'xgemm' and params['KSPLIT'] == 0 and not params.get('SK'):
            times[(r['m'], r['n'], r['k'], json.dumps(params, sort_keys=True))] = r['times']['median_ms']
    return times


before, after = auto_split_times(here / 'before.jsonl.gz'), auto_split_times(here / 'after.jsonl.gz')
groups = collections.defaultdict(list)
for key, t in before.items():
    m, n, k, text = key
    params = json.loads(text)
    old = fit_split_cost.rule_split(params, m, n, k, CU, LIMITS)
    new = fit_split_cost.model_split(params, m, n, k, CU, MODEL)
    side = 'same' if new == old else ('fewer' if new < old else 'more')
    groups[(params['MWG'], params['NWG'], params['DB'], side)].append((t / after[key], (m, n, k), old, new))
for (mwg, nwg, db, side), pairs in sorted(groups.items()):
    geo = math.exp(sum(math.log(x[0]) for x in pairs) / len(pairs))
    line = f'{mwg} x {nwg} DB = {db}, the model takes {side:<5} splits: {len(pairs):3d} pairs, before / after {geo:.3f}'
    if side != 'same':
        ends = sorted(pairs)[:2] + sorted(pairs)[-2:]
        line += '; ' + ', '.join(f'{"x".join(map(str, s))} {r:.2f} ({o} -> {nw})' for r, s, o, nw in ends)
    print(line)
