#!/usr/bin/env python3
"""The slowdown that measurement noise alone costs a selector: for each ordered pair (A, B) of
sweeps that timed the same variants on the same shapes, pick on every shape the variant fastest in
A and judge it in B against B's fastest (among the variants both timed there). A perfect selector
trained on A scores this on B, so a held-out target below it cannot be told apart from noise.
Prints, per pair, the shapes compared, the geometric mean and the worst slowdown.

Usage: python3 scripts/noise_floor.py RUN_A.jsonl.gz RUN_B.jsonl.gz [RUN...]
"""
import argparse
import collections
import itertools
import math

from drift import geomean, times


def by_shape(path):
    """(m, n, k) -> {variant key: median ms} of one dataset."""
    out = collections.defaultdict(dict)
    for (variant, m, n, k), ms in times(path).items():
        out[(m, n, k)][variant] = ms
    return out


def floor(a, b):
    """(shapes, geomean, worst) of A's per-shape pick judged in B."""
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
    parser.add_argument('runs', nargs='+', help='two or more sweeps of the same pairs')
    args = parser.parse_args()
    if len(args.runs) < 2:
        parser.error('give at least two runs')
    data = {path: by_shape(path) for path in args.runs}
    for a, b in itertools.permutations(args.runs, 2):
        shapes, g, worst = floor(data[a], data[b])
        print(f'{a} -> {b}: {shapes} shapes, geomean {g:.3f}, worst {worst:.2f}')


if __name__ == '__main__':
    main()
