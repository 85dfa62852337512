#!/usr/bin/env python3
"""Fits the cost model by which KSPLIT = 0 chooses 1-16 splits on devices that add by reductions,
(REDUCTION_SPLIT_COST under SplitRule::AtomicAddCost, src/codegen/params.rs) offline, on every (xgemm
variant, shape) pair whose KSPLIT 1, 2, 4, 8 and 16 copies were all measured (scripts/fit_split_rule.py's pairs):
the slowdown of the split the model picks against the best of those five, as a geometric mean,
over a grid of its parameters; also on the training and the held-out shapes apart, with the limits
of scripts/fit_split_rule.py (--rule) as the comparison.

The model: a launch takes as long as its most loaded compute unit, which holds
g = ceil(tiles x splits / CU) work-groups; time(s) = (K / s + FIXED) x (1 + (g - 1) x SHARE)
+ ADD x g where s > 1; splits below MIN_DEPTH of K are not considered. The least time wins, the
fewer splits on a tie. Standard library only. Measured on the H200 on 2026-12-02 (docs/PERFORMANCE.md,
"A cost model for KSPLIT = 0's splits"): it gains the set's 64 x 64 DB = 3 tile and loses on its
128 x 32 DB = 5 tile, which wants more splits, so it ships for DB <= 3 only (SplitRule::AtomicAddCost).

Usage: python3 scripts/fit_split_cost.py DATA... [--unseen variants/shapes/unseen.txt]
       [--compute-units 132] [--top 10] [--rule GROUPS,C,DEPTH,PER_GROUP] [--model SHARE,FIXED,ADD,MIN_DEPTH]
       [--by-tile]
"""
import argparse
import itertools
import math
import fit_split_rule

SPLITS = fit_split_rule.SPLITS


def cheapest_splits(tiles, k, cu, share, fixed, add, min_depth, k_step):
    """The splits of least modelled time (SplitCost::cheapest_splits)."""
    best = (math.inf, 1)
    for s in SPLITS:
        if s > 1 and k // s < max(min_depth, k_step):
            break
        g = -(-tiles * s // cu)
        t = (k / s + fixed) * (1 + (g - 1) * share) + (add * g if s > 1 else 0.0)
        if t < best[0] * (1 - 1e-9):
            best = (t, s)
    return best[1]


def model_split(params, m, n, k, cu, model):
    """The model's split of a pair (C row-major: the kernel's M is the problem's N)."""
    tiles = -(-n // params['MWG']) * -(-m // params['NWG'])
    return cheapest_splits(tiles, k, cu, *model, params['KWG'])


def rule_split(params, m, n, k, cu, rule):
    return fit_split_rule.splits_for((params['MWG'], params['NWG']), n, m, k, cu, *rule)


def score(pairs, pick, keep=lambda shape: True):
    """(geomean slowdown, worst (slowdown, shape)) of the split `pick` chooses per pair."""
    logs, worst = [], (float('nan'), None)
    for params, (m, n, k), t in pairs:
        if not keep((m, n, k)):
            continue
        r = t[pick(params, m, n, k)] / min(t.values())
        logs.append(math.log(r))
        worst = max(worst, (r, (m, n, k)), key=lambda w: -1 if math.isnan(w[0]) else w[0])
    return (math.exp(sum(logs) / len(logs)) if logs else float('nan')), worst


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data', nargs='+')
    p.add_argument('--unseen', default='variants/shapes/unseen.txt')
    p.add_argument('--compute-units', type=int, default=132)
    p.add_argument('--top', type=int, default=5)
    p.add_argument('--rule', default='64,131072,64,2', help='the limits to compare with (fit_split_rule.py)')
    p.add_argument('--model', action='append', default=[], help='SHARE,FIXED,ADD,MIN_DEPTH to score')
    p.add_argument('--by-tile', action='store_true', help='also score each tile (MWG, NWG, KWG, DB) apart')
    args = p.parse_args()
    pairs = fit_split_rule.load_pairs(args.data)
    unseen = fit_split_rule.read_shapes(args.unseen)
    cu = args.compute_units
    rule = tuple(float(x) if '.' in x else int(x) for x in args.rule.split(','))
    print(f'{len(pairs)} (variant, shape) pairs with KSPLIT 1, 2, 4, 8, 16 measured; {cu} compute units')

    def line(label, pick, subset=pairs):
        total, worst = score(subset, pick)
        train = score(subset, pick, lambda s: s not in unseen)[0]
        held = score(subset, pick, lambda s: s in unseen)[0]
        print(f'{label:<44} {total:.4f}  (training shapes {train:.4f}, held-out shapes {held:.4f}; '
              f'worst {worst[0]:.2f} at {worst[1]})')

    by_rule = lambda params, m, n, k: rule_split(params, m, n, k, cu, rule)
    line('never split', lambda *_: 1)
    line(f'limits {rule}', by_rule)
    models = [tuple(float(x) for x in m.split(',')) for m in args.model]
    grid = itertools.product([0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0], [0, 32, 64, 128, 256],
                             [0, 16, 32, 64, 128, 256, 512], [32, 64, 128])
    ranked = sorted((score(pairs, lambda prm, m, n, k: model_split(prm, m, n, k, cu, g))[0], g) for g in grid)
    print(f'best {args.top} of the grid (share per extra group, fixed depth, add cost, min depth):')
    for _, g in ranked[:args.top]:
        line(f'  model {g}', lambda prm, m, n, k: model_split(prm, m, n, k, cu, g))
    for g in models:
        line(f'model {g}', lambda prm, m, n, k: model_split(prm, m, n, k, cu, g))
    if args.by_tile:
        tiles = sorted({(prm['MWG'], prm['NWG'], prm['KWG'], prm['DB']) for prm, _, _ in pairs})
        for tile in tiles:
            subset = [x for x in pairs if (x[0]['MWG'], x[0]['NWG'], x[0]['KWG'], x[0]['DB']) == tile]
            print(f'tile (MWG, NWG, KWG, DB) = {tile}, {len(subset)} pairs:')
            line('  limits', by_rule, subset)
            for g in models or [ranked[0][1]]:
                line(f'  model {g}', lambda prm, m, n, k: model_split(prm, m, n, k, cu, g), subset)


if __name__ == '__main__':
    main()
