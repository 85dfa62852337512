#!/usr/bin/env python3
"""What a change to KSPLIT = 0's split rule did, from two sweeps of the shipped set before and after
it (scripts/device/split-rule-ab.sh): the variants the rule does not touch (the run-to-run control),
each KSPLIT = 0 variant over every shape, and where the shipped trees pick it, on the training and
the held-out shapes. Ratios are before / after times (> 1: faster after).

--rules BEFORE AFTER FINAL (each DEPTH,PER_GROUP,DEPTH_PAST_16, as Geometry::splits_for with PTX
reductions) also scores a FINAL rule that was not swept itself: on each shape where it splits as
BEFORE or as AFTER did, it takes that sweep's time; other shapes are listed as unmeasured.

Usage: python3 scripts/split_rule_effect.py BEFORE.jsonl[.gz] AFTER.jsonl[.gz] PICKS.tsv
       [--unseen variants/shapes/unseen.txt] [--rules 128,0,128 64,2,64 64,2,128] [--compute-units 132]
PICKS.tsv: the output of `fewfit evaluate --data BEFORE --per-shape` (its lines of 5 tab-separated
fields: device, MxNxK, the tree's pick, slowdown, best in set).
"""
import argparse

from ab_compare import geomean, label, times
from fit_split_rule import read_shapes


def splits(tile, m, n, k, cu, depth, per_group, depth_past_16):
    """Geometry::splits_for with PTX reductions (C row-major, so the kernel's M is the problem's N)."""
    groups = -(-n // tile[0]) * -(-m // tile[1])
    s = 1
    while (s < 64 and groups * s * 2 <= 64 * cu and groups * tile[0] * tile[1] * s * 2 <= 131072 * cu
           and k // (s * 2) >= max(depth, per_group * groups)
           and (s < 16 or (groups * s * 2 <= 4 * cu and k // (s * 2) >= depth_past_16))):
        s *= 2
    return s


def summary(ratios):
    """Count, geometric mean, worst and best three of (ratio, shape) pairs."""
    if not ratios:
        return '0 shapes'
    ordered = sorted(ratios)
    show = lambda part: ', '.join(f'{"x".join(map(str, s))} {r:.3f}' for r, s in part)
    return (f'{len(ratios)} shapes, geomean {geomean([r for r, _ in ratios]):.4f}; '
            f'least {show(ordered[:3])}; most {show(ordered[-3:])}')


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('before')
    p.add_argument('after')
    p.add_argument('picks')
    p.add_argument('--unseen', default='variants/shapes/unseen.txt')
    p.add_argument('--rules', nargs=3, metavar='RULE')
    p.add_argument('--compute-units', type=int, default=132)
    args = p.parse_args()
    before, after = times(args.before), times(args.after)
    unseen = read_shapes(args.unseen)
    common = sorted(set(before) & set(after))
    auto = lambda variant: dict(variant[1]).get('KSPLIT') == 0
    control = [before[x] / after[x] for x in common if not auto(x[0])]
    print(f'control (the other variants): {len(control)} pairs, geomean before / after {geomean(control):.4f}')
    picks = {}
    for line in open(args.picks):
        fields = line.rstrip('\n').split('\t')
        if len(fields) == 5 and fields[1][0].isdigit():
            picks[tuple(int(x) for x in fields[1].split('x'))] = fields[2]
    for variant in sorted({v for v, _ in common if auto(v)}):
        name = label(variant)
        ratios = [(before[(variant, s)] / after[(variant, s)], s) for v, s in common if v == variant]
        print(f'{name}\n  every shape: {summary(ratios)}')
        for part, keep in (('training', lambda s: s not in unseen), ('held-out', lambda s: s in unseen)):
            picked = [(r, s) for r, s in ratios if picks.get(s) == name and keep(s)]
            print(f'  the tree picks it, {part} shapes: {summary(picked)}')
        if args.rules:
            rules = [tuple(int(x) for x in rule.split(',')) for rule in args.rules]
            params = dict(variant[1])
            final, unmeasured = [], []
            for r, s in ratios:
                old, new, chosen = (splits((params['MWG'], params['NWG']), *s, args.compute_units, *rule)
                                    for rule in rules)
                if chosen == old:
                    final.append((1.0, s))
                elif chosen == new:
                    final.append((r, s))
                else:
                    unmeasured.append(s)
            print(f'  the final rule {args.rules[2]}: {summary(final)}; unmeasured: {unmeasured or "none"}')


if __name__ == '__main__':
    main()
