#!/usr/bin/env python3
"""Best-in-set geometric-mean slowdown against the oracle of several variant sets (selected.json
files) on one device class's data, and best-in-set / oracle per set on chosen shapes (median
times; failures and unmeasured pairs count as 10x, as in selection).

Usage: python3 scripts/set_compare.py --sets A.json B.json ... --data DATA... [--holdout DATA...]
       [--class nvidia-gpu] [--weights variants/shapes/weights.txt] [--shape M N K ...]
The weights apply to --data (as in `regenerate`), not to --holdout.
"""
import argparse
import json
import math

from candidate_gain import PENALTY, geomean, load, read_weights
from set_records import key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--sets', nargs='+', required=True)
    p.add_argument('--data', nargs='+', required=True)
    p.add_argument('--holdout', nargs='*', default=[])
    p.add_argument('--class', dest='device_class', default='nvidia-gpu')
    p.add_argument('--weights')
    p.add_argument('--shape', nargs=3, type=int, action='append', default=[])
    args = p.parse_args()
    train = load(args.data, args.device_class)
    held = load(args.holdout, args.device_class) if args.holdout else {}
    weights = read_weights(args.weights)
    print(f'{args.device_class}: {len(train)} training problems, {len(held)} held-out')
    print('| set | training | held-out | ' + ' | '.join('x'.join(map(str, s)) for s in args.shape) + ' |')
    print('|---' * (3 + len(args.shape)) + '|')
    for path in args.sets:
        members = [key(v['family'], v['params']) for v in json.load(open(path))['variants']]
        cells = [f'{geomean(train, members, weights):.4f}', f'{geomean(held, members, {}):.4f}' if held else '-']
        for shape in args.shape:
            rows = [row for problem, row in {**train, **held}.items() if list(problem[1:]) == shape]
            cells.append(f'{min(min(min(r.get(k, math.inf) for k in members) / min(r.values()), PENALTY) for r in rows):.3f}'
                         if rows else '-')
        print(f'| {path} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
