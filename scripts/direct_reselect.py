#!/usr/bin/env python3
"""Re-chooses the set's direct variants among peers timed in the same run: with the set's other
GPU variants fixed, the NUM direct variants (default 4) that minimise the weighted geometric mean
of best-in-set / best-of-run time over the problems of the given datasets (NN and NT records kept
apart, as `fewfit` keeps them), by greedy forward choice then swaps until none helps. Prints the
set's own score and the chosen variants' per file and by the short side min(M, N), and, with
--judge, both scored on other datasets of the same run (held-out shapes, unweighted).

Usage: python3 scripts/direct_reselect.py --set SET_RECORDS --data A.jsonl.gz B.jsonl.gz
       [--judge C.jsonl.gz ...] [--weights variants/shapes/weights.txt] [--num 4] [--write OUT.jsonl]
"""
import argparse
import gzip
import json

from candidate_gain import geomean, load, read_weights
from set_records import key

SHORT_SIDES = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16))


def name(k):
    """A variant key as its id."""
    return k[0] + ''.join(f'_{n.lower()}{v}' for n, v in k[1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--set', required=True)
    p.add_argument('--data', nargs='+', required=True)
    p.add_argument('--judge', nargs='*', default=[])
    p.add_argument('--weights')
    p.add_argument('--num', type=int, default=4)
    p.add_argument('--write')
    args = p.parse_args()
    set_keys = [key(r['variant']['kernel'], r['variant']['params']) for r in map(json.loads, gzip.open(args.set, 'rt'))]
    fixed = [k for k in set_keys if k[0] != 'direct']
    current = [k for k in set_keys if k[0] == 'direct']
    per_file = {path: load([path], 'nvidia-gpu') for path in args.data + args.judge}
    times = {}
    for path in args.data:
        for problem, row in per_file[path].items():
            times.setdefault(problem, {}).update(row)
    weights = read_weights(args.weights)
    candidates = sorted({k for row in times.values() for k in row if k[0] == 'direct'})
    score = lambda direct: geomean(times, fixed + direct, weights)
    chosen = []
    while len(chosen) < args.num:
        chosen.append(min((c for c in candidates if c not in chosen), key=lambda c: score(chosen + [c])))
    now, improved = score(chosen), True
    while improved:
        improved = False
        for i in range(len(chosen)):
            for c in (c for c in candidates if c not in chosen):
                trial = chosen[:i] + [c] + chosen[i + 1:]
                if (s := score(trial)) < now - 1e-12:
                    chosen, now, improved = trial, s, True
    print(f'{len(candidates)} direct candidates, {len(fixed)} fixed members; geomean best-in-set / best of run')
    print('set as shipped:\n  ' + '\n  '.join(map(name, current)))
    print('chosen:\n  ' + '\n  '.join(map(name, chosen)))
    for label, paths, w in (('data', args.data, weights), ('judge', args.judge, {})):
        for path in paths:
            part = per_file[path]
            print(f'{label} {path.split("/")[-1]}: {len(part)} shapes, shipped {geomean(part, fixed + current, w):.4f},'
                  f' chosen {geomean(part, fixed + chosen, w):.4f}')
    print('by the short side min(M, N), unweighted: shapes, shipped, chosen')
    for path, part in per_file.items():
        for lo, hi in SHORT_SIDES:
            side = {pr: row for pr, row in part.items() if lo <= min(pr[1:3]) <= hi}
            if side:
                print(f'  {path.split("/")[-1]} {lo}-{hi}: {len(side)}, {geomean(side, fixed + current, {}):.3f},'
                      f' {geomean(side, fixed + chosen, {}):.3f}')
    print(f'all data: shipped {score(current):.4f}, chosen {score(chosen):.4f}')
    if args.write:
        records = {}
        for path in args.data:
            for r in map(json.loads, gzip.open(path, 'rt')):
                records.setdefault(key(r['variant']['kernel'], r['variant']['params']), r)
        with open(args.write, 'w') as f:
            f.writelines(json.dumps(records[k]) + '\n' for k in chosen)


if __name__ == '__main__':
    main()
