#!/usr/bin/env python3
"""Compares two runs of scripts/device/split-compare.sh (the same variants with KSPLIT = 0 and 1 on
the same shapes, timed by two fewfit binaries): per run, how KSPLIT = 0 (splits chosen per launch)
times against KSPLIT = 1 (never split), and after / before for each.

Usage: python3 scripts/split_compare.py BEFORE.jsonl.gz AFTER.jsonl.gz
"""
import gzip
import json
import sys

from set_records import geomean


def load(path):
    times = {}
    with gzip.open(path, 'rt') as src:
        for line in src:
            r = json.loads(line)
            if not r['valid']:
                continue
            params = dict(r['variant']['params'])
            ksplit = params.pop('KSPLIT')
            times[(tuple(sorted(params.items())), r['m'], r['n'], r['k'], ksplit)] = r['times']['median_ms']
    return times


def summary(label, ratios):
    worst = max(ratios, key=lambda t: t[0]) if ratios else (float('nan'), None)
    slower = sum(r > 1.05 for r, _ in ratios)
    print(f'{label}: {len(ratios)} pairs, geomean {geomean([r for r, _ in ratios]):.3f}, '
          f'{slower} over 1.05, worst {worst[0]:.3f} at {worst[1]}')


def main():
    runs = {name: load(path) for name, path in zip(('before', 'after'), sys.argv[1:3])}
    for name, t in runs.items():
        ratios = [(t[key[:-1] + (0,)] / t[key], '{}x{}x{} {}'.format(*key[1:4], dict(key[0]).get('MWG')))
                  for key in t if key[-1] == 1 and key[:-1] + (0,) in t]
        summary(f'{name}: KSPLIT 0 / KSPLIT 1', ratios)
    before, after = runs['before'], runs['after']
    for ksplit in (1, 0):
        ratios = [(after[key] / before[key], '{}x{}x{}'.format(*key[1:4]))
                  for key in before if key[-1] == ksplit and key in after]
        summary(f'after / before, KSPLIT {ksplit}', ratios)


if __name__ == '__main__':
    main()
