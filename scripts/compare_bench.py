#!/usr/bin/env python3
"""Compares two runs of the peer bench (examples/peers.rs --json, with scripts/device/cublas.py's
JSON) on their common shapes: fewfit's speed new / old in wall and device time by problem size,
CLBlast's likewise (unchanged code: how much the GPU itself moved between the calls), fewfit /
cuBLAS device time on the shapes of at least 1 GFLOP in each run, and, in the new run, wall minus
device time where fewfit's launch split K and where it did not (KSPLIT from the variant id; for
KSPLIT = 0 the limits of scripts/fit_split_rule.py given by --rule). With --per-shape, first each
common shape's fewfit new / old in wall and device time and its wall minus device time in both runs.
Standard library only.

Usage: python3 scripts/compare_bench.py OLD_PEERS OLD_CUBLAS NEW_PEERS NEW_CUBLAS
       [--rule GROUPS,C,DEPTH,PER_GROUP] [--compute-units 132] [--per-shape]
"""
import argparse
import re
import statistics

from fit_split_rule import splits_for
from set_records import geomean, read_json

BUCKETS = [(0, 1e8), (1e8, 1e9), (1e9, 1e10), (1e10, float('inf'))]


def rows(path):
    return {(r['m'], r['n'], r['k']): r for r in read_json(path)['rows'] if not r.get('skipped')}


def flops(shape):
    return 2 * shape[0] * shape[1] * shape[2]


def launch_splits(variant, shape, limits, cu):
    if not variant.startswith('xgemm'):
        return 1
    field = lambda name: int(re.search(name + r'(\d+)', variant).group(1))
    fixed = field('ksplit')
    m, n, k = shape
    return fixed or splits_for((field('mwg'), field('nwg')), n, m, k, cu, *limits)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('old_peers')
    p.add_argument('old_cublas')
    p.add_argument('new_peers')
    p.add_argument('new_cublas')
    p.add_argument('--rule', default='64,131072,128,0')
    p.add_argument('--compute-units', type=int, default=132)
    p.add_argument('--per-shape', action='store_true')
    args = p.parse_args()
    old, new = rows(args.old_peers), rows(args.new_peers)
    old_cublas, new_cublas = rows(args.old_cublas), rows(args.new_cublas)
    common = [s for s in old if s in new]
    speed = lambda a, b, peer, clock: a[peer]['timing'][clock] / b[peer]['timing'][clock]
    print(f'{len(common)} common shapes; ratios > 1: faster in the new run')
    if args.per_shape:
        gap = lambda r: (r['fewfit']['timing']['wall_ms'] - r['fewfit']['timing']['event_ms']) * 1e3
        print('  M x N x K: fewfit new / old by wall, by device time; wall - device time old, new (us)')
        for s in common:
            fw, fe = speed(old[s], new[s], 'fewfit', 'wall_ms'), speed(old[s], new[s], 'fewfit', 'event_ms')
            print(f'  {"x".join(map(str, s)):>16} {fw:6.3f} {fe:6.3f} {gap(old[s]):8.1f} {gap(new[s]):8.1f}')
    for lo, hi in BUCKETS:
        shapes = [s for s in common if lo <= flops(s) < hi]
        if not shapes:
            continue
        fw = geomean([speed(old[s], new[s], 'fewfit', 'wall_ms') for s in shapes])
        fe = geomean([speed(old[s], new[s], 'fewfit', 'event_ms') for s in shapes])
        cw = geomean([speed(old[s], new[s], 'clblast', 'wall_ms') for s in shapes if old[s].get('clblast')])
        print(f'  {lo:.0e}-{hi:.0e} flops, {len(shapes)} shapes: fewfit wall {fw:.3f}, device {fe:.3f}; CLBlast wall {cw:.3f}')
    big = [s for s in common if flops(s) >= 1e9 and s in old_cublas and s in new_cublas]
    for name, run, cublas in (('old', old, old_cublas), ('new', new, new_cublas)):
        ratio = geomean([cublas[s]['event_ms'] / run[s]['fewfit']['timing']['event_ms'] for s in big])
        print(f'{name} run: fewfit / cuBLAS device time on the {len(big)} shapes of >= 1 GFLOP: {ratio:.3f}')
    limits = tuple(int(x) for x in args.rule.split(','))
    gaps = {True: [], False: []}
    for s, r in new.items():
        timing = r['fewfit']['timing']
        split = launch_splits(r['fewfit']['variant'], s, limits, args.compute_units) > 1
        gaps[split].append((timing['wall_ms'] - timing['event_ms']) * 1e3)
    for split, label in ((True, 'split K'), (False, 'did not split')):
        if gaps[split]:
            print(f'new run, wall - device time where the launch {label}: median {statistics.median(gaps[split]):.1f} us '
                  f'over {len(gaps[split])} shapes')


if __name__ == '__main__':
    main()
