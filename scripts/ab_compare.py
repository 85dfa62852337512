#!/usr/bin/env python3
"""Compares two sweeps of the same variants and shapes, BEFORE and AFTER a kernel change: per shape,
the fastest variant of each and its median time, and the geometric mean of before / after over that
shape's pairs per kernel family (> 1: faster after; a family the change did not touch shows the
run-to-run drift); then those geomeans over all shapes, and that of the per-shape best. Parameters a
record omits take their neutral value (set_records.py). BEFORE and AFTER may each name several sweeps
joined by commas (runs taken in turn): each pair's time is then the median over them. With --picks
(the TSV of `fewfit evaluate --per-shape`: the tree's pick per shape), also the geometric mean of
before / after of the picked variant, over all shapes and split at min(M, N) <= --small.

Usage: python3 scripts/ab_compare.py BEFORE.jsonl[.gz][,...] AFTER.jsonl[.gz][,...] [--picks PICKS.tsv]
       [--small 8]
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
    parser.add_argument('--picks', help='`fewfit evaluate --per-shape` output: the tree pick of each shape')
    parser.add_argument('--small', type=int, default=8, help='with --picks, also report min(M, N) <= this apart')
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
    if args.picks:
        report_picks(args.picks, before, after, args.small)


def read_picks(path):
    """(m, n, k) -> the variant label the tree picks, from `fewfit evaluate --per-shape` lines."""
    picks = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            if len(fields) >= 3 and fields[1].count('x') == 2 and fields[1].replace('x', '').isdigit():
                picks[tuple(int(d) for d in fields[1].split('x'))] = fields[2]
    return picks


def report_picks(path, before, after, small):
    """Geomean of before / after of the tree's pick per shape: all, min(M, N) <= small, the rest."""
    by_label = [{(label(v), s): t for (v, s), t in run.items()} for run in (before, after)]
    ratios = {}
    for shape, pick in read_picks(path).items():
        b, a = (run.get((pick, shape)) for run in by_label)
        if b and a:
            ratios[shape] = b / a
    groups = [('all', list(ratios.values())),
              (f'min(M, N) <= {small}', [r for s, r in ratios.items() if min(s[0], s[1]) <= small]),
              (f'min(M, N) > {small}', [r for s, r in ratios.items() if min(s[0], s[1]) > small])]
    for name, rs in groups:
        if rs:
            print(f'tree picks, {name}: geomean before / after {geomean(rs):.3f} over {len(rs)} shapes '
                  f'({min(rs):.3f}-{max(rs):.3f})')
    slower = sorted((r, s) for s, r in ratios.items() if r < 1 / 1.1)
    print(f'tree picks more than 10 % slower after: {len(slower)} shapes: '
          + ', '.join(f'{s[0]}x{s[1]}x{s[2]} {r:.2f}' for r, s in slower))


if __name__ == '__main__':
    main()
