#!/usr/bin/env python3
"""Writes one record of each leader of a kernel family in sweep datasets: a variant of that family
within FACTOR of the family's fastest on some shape of SHAPES (a shape list), counting only shapes
where the family's fastest is within --family-within of the fastest of all families. Variants are
told apart as set_records.py does (a parameter a record omits takes its neutral value). The file
feeds `fewfit sweep --variants-from`, which measures the leaders again (or copies of them with a
parameter changed, `--also-with`).

Usage: python3 scripts/leaders.py SHAPES OUT.jsonl.gz DATA... [--kernel xgemm] [--factor 1.0]
       [--family-within 1.3]
"""
import argparse
import collections
import gzip
import json

from set_records import key
from shape_list import read_shapes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('shapes')
    parser.add_argument('out')
    parser.add_argument('data', nargs='+')
    parser.add_argument('--kernel', default='xgemm')
    parser.add_argument('--factor', type=float, default=1.0)
    parser.add_argument('--family-within', type=float, default=1.3)
    args = parser.parse_args()
    shapes = read_shapes(args.shapes)
    family_best = collections.defaultdict(dict)
    oracle, records = {}, {}
    for path in args.data:
        for line in (gzip.open if path.endswith('.gz') else open)(path, 'rt'):
            r = json.loads(line)
            shape = (r['m'], r['n'], r['k'])
            if shape not in shapes or not r['valid']:
                continue
            t = r['times']['median_ms']
            oracle[shape] = min(t, oracle.get(shape, t))
            if r['variant']['kernel'] == args.kernel:
                k = key(r['variant']['kernel'], r['variant']['params'])
                family_best[shape][k] = min(t, family_best[shape].get(k, t))
                records.setdefault(k, line)
    leaders = set()
    for shape, by_variant in family_best.items():
        fastest = min(by_variant.values())
        if fastest <= args.family_within * oracle[shape]:
            leaders |= {k for k, t in by_variant.items() if t <= args.factor * fastest}
    with gzip.open(args.out, 'wt') as out:
        out.writelines(records[k] for k in sorted(leaders))
    print(f'{args.out}: {len(leaders)} {args.kernel} leaders on {len(family_best)} shapes')


if __name__ == '__main__':
    main()
