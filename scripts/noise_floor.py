#!/usr/bin/env python3
"""The slowdown that measurement noise alone costs a selector: for each ordered pair (A, B) of
sweeps that timed the same variants on the same shapes, pick on every shape the variant fastest in
A and judge it in B against B's fastest (among the variants both timed there). A perfect selector
trained on A scores this on B, so a held-out target below it cannot be told apart from noise.
Prints, per pair, the shapes compared, the geometric mean and the worst slowdown. With --picks,
judges instead the picks that `fewfit evaluate --per-shape` printed (a selector's) in every run.
--statistic min_ms judges the minimum of each pair's repeats instead of the median.

Usage: python3 scripts/noise_floor.py [--statistic min_ms] [--picks PER_SHAPE.tsv] RUN_A.jsonl.gz [RUN...]
"""
import argparse
import collections
import itertools
import math

from ab_compare import label
from drift import geomean, times


def by_shape(path, stat):
    """(m, n, k) -> {variant key: `stat` ms} of one dataset."""
    out = collections.defaultdict(dict)
    for (variant, m, n, k), ms in times(path, stat).items():
        out[(m, n, k)][variant] = ms
    return out


def read_picks(path):
    """(m, n, k) -> variant id, from `fewfit evaluate --per-shape` lines (device, MxNxK, pick, ...)."""
    picks = {}
    for line in open(path):
        fields = line.rstrip('\n').split('\t')
        if len(fields) >= 3 and fields[1] != 'shape':
            picks[tuple(int(d) for d in fields[1].split('x'))] = fields[2]
    return picks


def judged(picks, b):
    """(shapes, geomean, worst) of the picks judged in B against B's fastest."""
    slowdowns = []
    for shape, pick in picks.items():
        in_b = {label(v): t for v, t in b.get(shape, {}).items()}
        if pick in in_b:
            slowdowns.append(in_b[pick] / min(in_b.values()))
    return len(slowdowns), geomean(slowdowns) if slowdowns else math.nan, max(slowdowns, default=math.nan)


def floor(a, b):
    """(shapes, geomean, worst) of A's per-shape pick judged in B (among the variants both timed)."""
    slowdowns = []
    for shape, in_a in a.items():
        common = set(in_a) & set(b.get(shape, {}))
        if not common:
            continue
        pick = min(common, key=lambda v: (in_a[v], v))
        slowdowns.append(b[shape][pick] / min(b[shape][v] for v in common))
    return len(slowdowns), geomean(slowdowns) if slowdowns else math.nan, max(slowdowns, default=math.nan)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('runs', nargs='+', help='two or more sweeps of the same pairs (one with --picks)')
    parser.add_argument('--statistic', choices=['median_ms', 'min_ms'], default='median_ms')
    parser.add_argument('--picks', help='`fewfit evaluate --per-shape` output: judge these picks in each run')
    args = parser.parse_args()
    data = {path: by_shape(path, args.statistic) for path in args.runs}
    if args.picks:
        picks = read_picks(args.picks)
        for b in args.runs:
            shapes, g, worst = judged(picks, data[b])
            print(f'{args.picks} in {b}: {shapes} shapes, geomean {g:.3f}, worst {worst:.2f}')
        return
    if len(args.runs) < 2:
        parser.error('give at least two runs')
    for a, b in itertools.permutations(args.runs, 2):
        shapes, g, worst = floor(data[a], data[b])
        print(f'{a} -> {b}: {shapes} shapes, geomean {g:.3f}, worst {worst:.2f}')


if __name__ == '__main__':
    main()
