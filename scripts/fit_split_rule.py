#!/usr/bin/env python3
"""Fits the limits of KSPLIT = 0 (Geometry::splits_for, src/codegen/params.rs) offline: on every
(xgemm variant, shape) pair whose KSPLIT 1, 2, 4, 8 and 16 copies were all measured, the slowdown
of the split a rule picks against the best of those five, as a geometric mean, over a grid of
limits; also on the training and the held-out shapes apart. Standard library only.

A rule: the most of 1, 2, 4, 8, 16 splits with tiles x splits <= GROUPS x CU, padded C x splits
<= C x CU, and K / splits >= max(DEPTH, PER_GROUP x tiles), as in splits_for (C row-major, so the
kernel's M is the problem's N). Splits past 16 (Geometry::splits_for allows up to 64 with few
work-groups) are not fitted: the fixed-split sweeps stop at 16. --overhead-us adds a cost to every
split time (a sweep that timed the kernel alone misses the scale_c launch before it).

Each line gives the geometric mean over all pairs, the training and the held-out shapes, and the
worst pair. --only NAME=VALUE,... keeps the pairs of the variants with those parameters (e.g. the
shipped set's KSPLIT = 0 tile); --depths and --per-group set the grid's depth values (PER_GROUP may
be fractional).

Usage: python3 scripts/fit_split_rule.py DATA... [--unseen variants/shapes/unseen.txt]
       [--compute-units 132] [--overhead-us 0] [--top 10] [--rule GROUPS,C,DEPTH,PER_GROUP]...
       [--only NAME=VALUE,...] [--depths 64,128,...] [--per-group 0,1,2,4]
"""
import argparse
import gzip
import itertools
import json
import math

SPLITS = (1, 2, 4, 8, 16)
# src/codegen/params.rs, Family::neutral_defaults (xgemm)
NEUTRAL = {'VWK': 1, 'DB': 0, 'SWZ': 0, 'SK': 0, 'RP': 0}


def splits_for(tile, m, n, k, cu, groups_per_unit, c_per_unit, min_depth, depth_per_group):
    groups = -(-m // tile[0]) * -(-n // tile[1])
    padded_c = groups * tile[0] * tile[1]
    depth = max(min_depth, depth_per_group * groups)
    s = 1
    while (s < 16 and groups * s * 2 <= groups_per_unit * cu and padded_c * s * 2 <= c_per_unit * cu
           and k // (s * 2) >= depth):
        s *= 2
    return s


def load_pairs(paths):
    times = {}
    for path in paths:
        with (gzip.open if path.endswith('.gz') else open)(path, 'rt') as src:
            for line in src:
                r = json.loads(line)
                if not r['valid'] or r['variant']['kernel'] != 'xgemm':
                    continue
                params = dict(NEUTRAL, **r['variant']['params'])
                ksplit = params.pop('KSPLIT')
                if ksplit == 0:
                    continue
                key = (tuple(sorted(params.items())), r['m'], r['n'], r['k'])
                times.setdefault(key, {})[ksplit] = r['times']['median_ms']
    return [(dict(key[0]), key[1:], t) for key, t in times.items() if all(s in t for s in SPLITS)]


def read_shapes(path):
    shapes = set()
    for line in open(path):
        fields = line.split('#')[0].split()
        if len(fields) >= 3:
            shapes.add(tuple(int(x) for x in fields[:3]))
    return shapes


def slowdowns(pairs, limits, cu, overhead_ms, keep=lambda shape: True):
    """(slowdown of the rule's split against the best, shape) per pair whose shape `keep` accepts."""
    out = []
    for params, (m, n, k), t in pairs:
        if not keep((m, n, k)):
            continue
        cost = {s: t[s] + (overhead_ms if s > 1 else 0.0) for s in SPLITS}
        s = splits_for((params['MWG'], params['NWG']), n, m, k, cu, *limits)
        out.append((cost[s] / min(cost.values()), (m, n, k)))
    return out


def score(pairs, limits, cu, overhead_ms, keep=lambda shape: True):
    logs = [math.log(r) for r, _ in slowdowns(pairs, limits, cu, overhead_ms, keep)]
    return math.exp(sum(logs) / len(logs)) if logs else float('nan')


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data', nargs='+')
    p.add_argument('--unseen', default='variants/shapes/unseen.txt')
    p.add_argument('--compute-units', type=int, default=132)
    p.add_argument('--overhead-us', type=float, default=0.0)
    p.add_argument('--top', type=int, default=10)
    p.add_argument('--rule', action='append', default=[], help='GROUPS,C,DEPTH,PER_GROUP to score')
    p.add_argument('--only', default='', help='NAME=VALUE,... : only the variants with these parameters')
    p.add_argument('--depths', default='64,128,192,256,384,512', help="the grid's depths per split")
    p.add_argument('--per-group', default='0,1,2,4', help="the grid's depths per work-group")
    args = p.parse_args()
    only = dict((name, int(value)) for name, value in (item.split('=') for item in args.only.split(',') if item))
    pairs = [pair for pair in load_pairs(args.data) if all(pair[0].get(n) == v for n, v in only.items())]
    unseen = read_shapes(args.unseen)
    cu, overhead = args.compute_units, args.overhead_us / 1e3
    print(f'{len(pairs)} (variant, shape) pairs with KSPLIT 1, 2, 4, 8, 16 measured; '
          f'{args.compute_units} compute units; {args.overhead_us} us per split launch added')

    def line(label, limits):
        total = score(pairs, limits, cu, overhead)
        train = score(pairs, limits, cu, overhead, lambda s: s not in unseen)
        held = score(pairs, limits, cu, overhead, lambda s: s in unseen)
        worst = max(slowdowns(pairs, limits, cu, overhead), default=(float('nan'), None))
        print(f'{label:<40} {total:.4f}  (training shapes {train:.4f}, held-out shapes {held:.4f}; '
              f'worst {worst[0]:.2f} at {worst[1]})')

    line('never split', (0, 0, 1 << 62, 0))
    for rule in args.rule:
        limits = tuple(float(x) if '.' in x else int(x) for x in rule.split(','))
        line(f'rule {limits}', limits)
    number = lambda x: float(x) if '.' in x else int(x)
    grid = itertools.product([8, 12, 16, 24, 32, 48, 64], [16384, 32768, 65536, 131072, 1 << 30],
                             [int(x) for x in args.depths.split(',')],
                             [number(x) for x in args.per_group.split(',')])
    ranked = sorted((score(pairs, limits, cu, overhead), limits) for limits in grid)
    print(f'best {args.top} of the grid (groups per unit, C per unit, depth, depth per group):')
    for value, limits in ranked[:args.top]:
        line(f'  {limits}', limits)


if __name__ == '__main__':
    main()
