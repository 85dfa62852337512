#!/usr/bin/env python3
"""Summarises ab.sh: per size class, the block's speed after / before (the faster of each build's
two runs, by the minimum and by the median of the repeats), the control of the shapes with K <= KC
(the same code in both builds) and the two before runs against each other (the noise), and the
large squares in GFLOP/s. With several folders of one machine, then the same speed pooled over all
their runs (the fastest of each build's runs). Standard library only.

Usage: python3 docs/data/pocl-prefetch-2026-11-29/compare.py OUT_DIR [OUT_DIR...]
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / 'scripts'))
from drift import times  # noqa: E402  (the project's reader of sweep records)
from set_records import geomean  # noqa: E402


def runs(folders, build, stat):
    """The `build` runs of the folders, each (block key, m, n, k) -> `stat` ms (drift.times)."""
    return [times(f'{out}/{build}-{i}.jsonl.gz', stat) for out in folders for i in (1, 2)]


CLASSES = [('K <= KC (control)', lambda p, m, n, k: k <= p['KC'])] + [
    (f'K > KC, {lo:.0e}-{hi:.0e} flops', lambda p, m, n, k, lo=lo, hi=hi: k > p['KC'] and lo <= 2 * m * n * k < hi)
    for lo, hi in [(0, 1e8), (1e8, 1e9), (1e9, 1e10), (1e10, 1e13)]]


def summary(folders):
    """Prints the speed after / before per class for the runs of `folders`."""
    for stat in ('min_ms', 'median_ms'):
        before, after = runs(folders, 'before', stat), runs(folders, 'after', stat)
        shapes = set.intersection(*(set(d) for d in before + after))
        speedup = {s: min(b[s] for b in before) / min(a[s] for a in after) for s in shapes}
        print(f'{stat}: after / before speed, the faster of {len(before)} runs each')
        for name, member in CLASSES:
            group = [s for s in shapes if member(dict(s[0][1]), *s[1:])]
            if group:
                ups = [speedup[s] for s in group]
                noise = geomean([before[0][s] / before[1][s] for s in group])
                print(f'  {name}: {len(group)} shapes, {geomean(ups):.3f} (worst {min(ups):.3f}); before run 2 / run 1 {noise:.3f}')
        for s in sorted(shapes):
            n = s[1]
            if s[1:] == (n, n, n) and n in (1024, 2048, 4096) and len(folders) == 1:
                rates = [2 * n ** 3 / d[s] / 1e6 for d in before + after]
                block = 'KC {KC} LM {LM} LN {LN} MV {MV} NR {NR} PA {PA}'.format(**dict(s[0][1]))
                print(f'  {block}, {n}³ GFLOP/s: before {rates[0]:.1f} {rates[1]:.1f}, after {rates[2]:.1f} {rates[3]:.1f}')


def main():
    folders = sys.argv[1:]
    for out in folders:
        print(f'== {out}')
        summary([out])
    if len(folders) > 1:
        print('== pooled: ' + ' '.join(folders))
        summary(folders)


if __name__ == '__main__':
    main()
