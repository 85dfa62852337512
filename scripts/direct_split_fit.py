#!/usr/bin/env python3
"""Fits and checks the split rule of the direct family's KSPLIT = 0 (src/codegen/params.rs,
FILL_DEVICE_LIMITS) from `scripts/device/direct-split.sh` sweeps.

`fit FIXED_NN FIXED_NT`: from the sweep of each variant with KSPLIT 1, 2, 4, 8 and 16, every rule
"split while the launch's work-items times the splits stay within W per compute unit and each split
keeps at least D of K" over a grid of W and D, scored by the geometric mean over all (variant,
shape) pairs and layouts of the unsplit time over the time at the rule's splits; then the chosen
rule's geomean per variant and layout, and each variant's own best rule of the grid (in sample: the
gain a rule per variant could reach). `check TWINS_NN TWINS_NT`: each variant against its KSPLIT = 0
twin timed in the same sweep, apart where the rule splits and where it does not (there both run
the same program: the noise of the sweep). Standard library only.

Usage: python3 scripts/direct_split_fit.py fit|check NN.jsonl.gz NT.jsonl.gz [--units 132] [--rule W,D]
"""
import argparse
import collections
import gzip
import json
import math

from set_records import geomean


def load(path):
    """{(params without KSPLIT, m, n, k): {KSPLIT: median ms}} of a sweep's valid records."""
    out = collections.defaultdict(dict)
    with gzip.open(path, 'rt') as f:
        for record in map(json.loads, f):
            if record['valid']:
                params = dict(record['variant']['params'])
                splits = params.pop('KSPLIT', 1)
                key = (json.dumps(params, sort_keys=True), record['m'], record['n'], record['k'])
                out[key][splits] = record['times']['median_ms']
    return out


def rule_splits(params, m, n, k, units, work_items_per_unit, min_depth):
    """The splits FILL_DEVICE_LIMITS gives (m and n as the host orients them: the short side first)."""
    m, n = min(m, n), max(m, n)
    groups = math.ceil(m / params['WPTM']) * math.ceil(n / (params['NDIMD'] * params['WPTN'] * params['VWD']))
    work_items = groups * params['NDIMD'] * params['KDIMD']
    splits = 1
    while splits < 16 and work_items * splits * 2 <= work_items_per_unit * units and k // (splits * 2) >= min_depth:
        splits *= 2
    return splits


def name(params):
    p = json.loads(params)
    return f"KDIMD {p['KDIMD']} NDIMD {p['NDIMD']} WPTM {p['WPTM']} RBR {p.get('RBR', 0)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('mode', choices=['fit', 'check'])
    ap.add_argument('nn')
    ap.add_argument('nt')
    ap.add_argument('--units', type=int, default=132, help='the compute units of the device swept')
    ap.add_argument('--rule', default='512,2048', help='W,D of the rule shown per variant')
    args = ap.parse_args()
    data = {'NN': load(args.nn), 'NT': load(args.nt)}
    chosen = tuple(map(int, args.rule.split(',')))

    def ratios(w, d):
        """(layout, variant) -> [unsplit / rule's time] over the pairs with every split timed."""
        out = collections.defaultdict(list)
        for layout, pairs in data.items():
            for (params, m, n, k), times in pairs.items():
                if all(s in times for s in (1, 2, 4, 8, 16)):
                    s = rule_splits(json.loads(params), m, n, k, args.units, w, d)
                    out[(layout, params)].append(times[1] / times[s])
        return out

    if args.mode == 'fit':
        print('| work-items per unit | least K per split | geomean | worst pair | least variant-layout geomean |')
        print('|---|---|---|---|---|')
        grid = {(w, d): ratios(w, d) for w in (256, 512, 768, 1024, 2048) for d in (1024, 2048, 4096)}
        for (w, d), r in grid.items():
            every = [x for xs in r.values() for x in xs]
            print(f'| {w} | {d} | {geomean(every):.3f} | {min(every):.3f} | {min(geomean(xs) for xs in r.values()):.3f} |')
        r = ratios(*chosen)
        print(f'\nRule {chosen[0]} work-items per unit, {chosen[1]} of K per split, per variant and layout '
              f'(pairs, geomean, worst):')
        for (layout, params), xs in sorted(r.items()):
            print(f'- {name(params)}, {layout}: {len(xs)}, {geomean(xs):.3f}, {min(xs):.3f}')
        print('\nEach variant\'s best rule of the grid, both layouts together (in sample; geomean, NN, NT, worst):')
        for params in sorted({p for _, p in r}):
            def score(rule):
                return geomean(grid[rule][('NN', params)] + grid[rule][('NT', params)])
            best = max(grid, key=score)
            nn, nt = grid[best][('NN', params)], grid[best][('NT', params)]
            print(f'- {name(params)}: W {best[0]}, D {best[1]}: {score(best):.3f} (rule {args.rule}: {score(chosen):.3f}), '
                  f'{geomean(nn):.3f}, {geomean(nt):.3f}, {min(nn + nt):.3f}')
        return
    print(f'Each variant against its KSPLIT = 0 twin in one sweep (unsplit time / twin time; rule {args.rule}):')
    print('| variant | layout | shapes not split: n, geomean | shapes split: n, geomean, worst, best |')
    print('|---|---|---|---|')
    for layout, pairs in data.items():
        by = collections.defaultdict(lambda: ([], []))
        for (params, m, n, k), times in pairs.items():
            if 0 in times and 1 in times:
                s = rule_splits(json.loads(params), m, n, k, args.units, *chosen)
                by[params][s > 1].append(times[1] / times[0])
        for params, (same, split) in sorted(by.items()):
            print(f'| {name(params)} | {layout} | {len(same)}, {geomean(same):.3f} | '
                  f'{len(split)}, {geomean(split):.3f}, {min(split):.3f}, {max(split):.2f} |')


if __name__ == '__main__':
    main()
