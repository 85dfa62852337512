#!/usr/bin/env python3
"""The shipped set's variants around one shape in sweep data: every NN shape whose M, N and K each lie
within a factor WINDOW of the given one, with each selected variant's median time over the fastest
of them there (1.00: the fastest). Shows how regular the best choice is near a shape a tree misses:
where neighbours swap winners at 10-30 % margins, more splits cannot follow them. Parameters a
record omits take their neutral value (set_records.py).

Usage: python3 scripts/neighbours.py M N K DATA.jsonl.gz... [--window 1.6] [--selected variants/selected.json]
"""
import argparse
import gzip
import json

from ab_compare import label
from set_records import key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('m', type=int)
    p.add_argument('n', type=int)
    p.add_argument('k', type=int)
    p.add_argument('data', nargs='+')
    p.add_argument('--window', type=float, default=1.6)
    p.add_argument('--selected', default='variants/selected.json')
    args = p.parse_args()
    selected = {v['id'] for v in json.load(open(args.selected))['variants']}
    near = lambda a, b: b / args.window <= a <= b * args.window
    times = {}
    for path in args.data:
        for line in gzip.open(path, 'rt'):
            r = json.loads(line)
            if r.get('layout', 'NN') != 'NN' or not r.get('valid') or r['times']['median_ms'] <= 0:
                continue
            shape = (r['m'], r['n'], r['k'])
            if not all(near(a, b) for a, b in zip(shape, (args.m, args.n, args.k))):
                continue
            name = label(key(r['variant']['kernel'], r['variant']['params']))
            if name in selected:
                times.setdefault(shape, {})[name] = r['times']['median_ms']
    names = sorted({n for t in times.values() for n in t})
    print(f'{len(times)} shapes within {args.window}x of {args.m}x{args.n}x{args.k}; columns:')
    for i, n in enumerate(names):
        print(f'  {i}: {n}')
    print('M x N x K\t' + '\t'.join(str(i) for i in range(len(names))))
    for shape in sorted(times):
        best = min(times[shape].values())
        cells = [f'{times[shape][n] / best:.2f}' if n in times[shape] else '-' for n in names]
        print('x'.join(map(str, shape)) + '\t' + '\t'.join(cells))


if __name__ == '__main__':
    main()
