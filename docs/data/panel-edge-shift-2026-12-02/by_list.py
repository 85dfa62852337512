#!/usr/bin/env python3
"""The `cpu` tree's picks (`fewfit evaluate --per-shape` output) against the best of the set in one
sweep, by the minimum of each pair's repeats, on the shapes of each list apart (held-out skinny,
held-out network, controls): geometric mean, worst, and the count over 1.5.
Usage: python3 by_list.py PICKS.tsv SWEEP.jsonl.gz LIST...
"""
import gzip
import json
import math
import sys


def shapes(path):
    with open(path) as f:
        return {tuple(map(int, line.split('#')[0].split()[:3])) for line in f if line.split('#')[0].strip()}


def main():
    picks_path, sweep_path, lists = sys.argv[1], sys.argv[2], sys.argv[3:]
    best, by_variant = {}, {}
    with gzip.open(sweep_path, 'rt') as f:
        for r in map(json.loads, f):
            if not r.get('valid'):
                continue
            s, t = (r['m'], r['n'], r['k']), r['times']['min_ms']
            best[s] = min(best.get(s, math.inf), t)
            by_variant[(r['variant']['kernel'] + '_' + '_'.join(f'{k.lower()}{v}' for k, v in sorted(r['variant']['params'].items())), s)] = t
    picked = {}
    with open(picks_path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) >= 3 and 'x' in cols[1] and cols[1][0].isdigit():
                picked[tuple(map(int, cols[1].split('x')))] = cols[2]
    for path in lists:
        ratios = sorted((by_variant[(picked[s], s)] / best[s], s) for s in shapes(path) if s in picked and (picked[s], s) in by_variant)
        g = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
        worst, ws = ratios[-1]
        over = sum(r > 1.5 for r, _ in ratios)
        print(f'{path}: {len(ratios)} shapes, geomean {g:.3f}, worst {worst:.2f} at {ws[0]}x{ws[1]}x{ws[2]}, {over} over 1.5')


if __name__ == '__main__':
    main()
