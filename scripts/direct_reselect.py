#!/usr/bin/env python3
"""Re-chooses the set's direct variants among peers timed in the same run: with the set's other
GPU variants fixed, the NUM direct variants (default 4) that minimise the weighted geometric mean
of best-in-set / best-of-run time over the shapes of the given datasets (each file one layout of
one run; every file counts), by greedy forward choice then swaps until none helps. Prints the set's
own score, the chosen direct variants and their score per file, and, with --judge, the same two
sets scored on other datasets of the same run (held-out shapes).

Usage: python3 scripts/direct_reselect.py --set SET_RECORDS --data A.jsonl.gz B.jsonl.gz
       [--judge C.jsonl.gz ...] [--weights variants/shapes/weights.txt] [--num 4] [--write OUT.jsonl]
"""
import argparse
import gzip
import json
import math

from set_records import key


def load(path):
    """{shape: {variant key: median ms}} of the valid records of one dataset."""
    times, records = {}, {}
    for line in gzip.open(path, 'rt'):
        r = json.loads(line)
        if r['valid']:
            k = key(r['variant']['kernel'], r['variant']['params'])
            times.setdefault((r['m'], r['n'], r['k']), {})[k] = r['times']['median_ms']
            records.setdefault(k, r)
    return times, records


def name(k):
    """A variant key as its id."""
    return k[0] + ''.join(f'_{n.lower()}{v}' for n, v in k[1])


def read_weights(path):
    weights = {}
    if path:
        for line in open(path):
            f = line.split('#')[0].split()
            if len(f) >= 4:
                weights[tuple(map(int, f[:3]))] = float(f[3])
    return weights


def score(tables, members, weights):
    """Weighted mean log of best-in-set over best-of-run, over every file's shapes."""
    total, weight = 0.0, 0.0
    for times in tables:
        for shape, row in times.items():
            best = min(row.values())
            have = [row[v] for v in members if v in row]
            w = weights.get(shape, 1.0)
            total += w * math.log((min(have) if have else 10 * best) / best)
            weight += w
    return total / weight


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--set', required=True)
    p.add_argument('--data', nargs='+', required=True)
    p.add_argument('--judge', nargs='*', default=[])
    p.add_argument('--weights')
    p.add_argument('--num', type=int, default=4)
    p.add_argument('--write')
    args = p.parse_args()
    set_keys = [key(r['variant']['kernel'], r['variant']['params'])
                for r in map(json.loads, gzip.open(args.set, 'rt'))]
    fixed = [k for k in set_keys if k[0] != 'direct']
    current = [k for k in set_keys if k[0] == 'direct']
    loaded = [load(path) for path in args.data]
    tables = [t for t, _ in loaded]
    records = {k: r for _, rs in loaded for k, r in rs.items()}
    weights = read_weights(args.weights)
    candidates = sorted({k for t in tables for row in t.values() for k in row if k[0] == 'direct'})
    chosen = []
    while len(chosen) < args.num:
        chosen.append(min((c for c in candidates if c not in chosen),
                          key=lambda c: score(tables, fixed + chosen + [c], weights)))
    improved = True
    while improved:
        improved = False
        now = score(tables, fixed + chosen, weights)
        for i in range(len(chosen)):
            for c in candidates:
                if c in chosen:
                    continue
                trial = chosen[:i] + [c] + chosen[i + 1:]
                s = score(tables, fixed + trial, weights)
                if s < now - 1e-12:
                    chosen, now, improved = trial, s, True
    print(f'{len(candidates)} direct candidates, {len(fixed)} fixed members; geomean best-in-set / best of run')
    print('set as shipped:', '\n  '.join(map(name, current)))
    print('chosen:        ', '\n  '.join(map(name, chosen)))
    for label, paths in (('data', args.data), ('judge', args.judge)):
        for path in paths:
            t = [load(path)[0]]
            print(f'{label} {path.split("/")[-1]}: {len(t[0])} shapes, shipped {math.exp(score(t, fixed + current, weights if label == "data" else {})):.4f},'
                  f' chosen {math.exp(score(t, fixed + chosen, weights if label == "data" else {})):.4f}')
    buckets = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16))
    print('by the short side min(M, N), unweighted: shapes, shipped, chosen (geomean; worst)')
    for path in args.data + args.judge:
        times = load(path)[0]
        for lo, hi in buckets:
            part = {s: row for s, row in times.items() if lo <= min(s[:2]) <= hi}
            if part:
                worst = lambda members: max(min(row[v] for v in members if v in row) / min(row.values()) for row in part.values())
                print(f'  {path.split("/")[-1]} {lo}-{hi}: {len(part)}, {math.exp(score([part], fixed + current, {})):.3f}'
                      f' ({worst(fixed + current):.2f}), {math.exp(score([part], fixed + chosen, {})):.3f} ({worst(fixed + chosen):.2f})')
    print(f'all data: shipped {math.exp(score(tables, fixed + current, weights)):.4f}, chosen {math.exp(score(tables, fixed + chosen, weights)):.4f}')
    if args.write:
        with open(args.write, 'w') as f:
            for k in chosen:
                f.write(json.dumps(records[k]) + '\n')


if __name__ == '__main__':
    main()
