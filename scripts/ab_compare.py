#!/usr/bin/env python3
"""Compares two sweeps of the same variants and shapes, BEFORE and AFTER a kernel change: per shape,
the fastest variant of each and its median time, and the geometric mean of before / after over that
shape's pairs per kernel family (> 1: faster after; a family the change did not touch shows the
run-to-run drift); then those geomeans over all shapes, and that of the per-shape best. Parameters a
record omits take their neutral value (set_records.py). BEFORE and AFTER may each name several sweeps
joined by commas (runs taken in turn): each pair's time is then the median over them.

Usage: python3 scripts/ab_compare.py BEFORE.jsonl[.gz][,...] AFTER.jsonl[.gz][,...]
"""
import argparse
import collections
import gzip
import json
import math
import statistics

from set_records import key


def times(path):
    """(variant key, (m, n, k)) -> median ms of the valid records of one dataset."""
    opener = gzip.open if path.endswith('.gz') else open
    out = {}
    with opener(path, 'rt') as f:
        for line in f:
            r = json.loads(line)
            if r.get('valid') and r['times']['median_ms'] > 0:
                out[(key(r['variant']['kernel'], r['variant']['params']), (r['m'], r['n'], r['k']))] = r['times']['median_ms']
    return out


def median_times(paths):
    """(variant key, (m, n, k)) -> the median over comma-joined sweeps of each pair's median ms
    (pairs that every sweep holds)."""
    runs = [times(p) for p in paths.split(',')]
    pairs = set.intersection(*(set(r) for r in runs))
    return {pair: statistics.median(r[pair] for r in runs) for pair in pairs}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def label(variant):
    kernel, params = variant
    return kernel + '_' + '_'.join(f'{k.lower()}{v}' for k, v in params)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('before')
    parser.add_argument('after')
    args = parser.parse_args()
    before, after = median_times(args.before), median_times(args.after)
    shapes = sorted({s for _, s in before} & {s for _, s in after})
    all_ratios = collections.defaultdict(list)
    best_ratios = []
    print('| M x N x K | best before (µs) | best after (µs) | before / after | family: geomean before / after (pairs) | fastest after |')
    print('|---|---|---|---|---|---|')
    for s in shapes:
        b = {v: t for (v, sh), t in before.items() if sh == s}
        a = {v: t for (v, sh), t in after.items() if sh == s}
        fam = collections.defaultdict(list)
        for v in b.keys() & a.keys():
            fam[v[0]].append(b[v] / a[v])
            all_ratios[v[0]].append(b[v] / a[v])
        best_b, best_a = min(b.values()), min(a.values())
        best_ratios.append(best_b / best_a)
        fastest = min(a, key=a.get)
        per_family = ', '.join(f'{f}: {geomean(r):.3f} ({len(r)})' for f, r in sorted(fam.items()))
        print(f'| {s[0]}x{s[1]}x{s[2]} | {best_b * 1e3:.1f} | {best_a * 1e3:.1f} | {best_b / best_a:.3f} | {per_family} | `{label(fastest)}` |')
    for f, r in sorted(all_ratios.items()):
        print(f'all shapes, {f}: geomean before / after {geomean(r):.3f} over {len(r)} pairs')
    if best_ratios:
        print(f'all shapes, best of each: geomean before / after {geomean(best_ratios):.3f} over {len(best_ratios)} shapes '
              f'({min(best_ratios):.3f}-{max(best_ratios):.3f})')


if __name__ == '__main__':
    main()
