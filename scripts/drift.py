#!/usr/bin/env python3
"""How the times of the same (variant, shape) pairs moved between sweeps: for each pair of CONTROL
(a later sweep) also measured in DATA, the ratio DATA median / CONTROL median; geomean over all
pairs and per decade of flops (> 1: the pair ran faster in CONTROL). Variants are told apart as
set_records.py does (a parameter a record omits takes its neutral value); a pair measured in
several DATA files takes the last one's time.

Usage: python3 scripts/drift.py CONTROL.jsonl.gz DATA...
"""
import argparse
import collections
import gzip
import json
import math

from set_records import key


def times(path, stat='median_ms'):
    """(variant key, m, n, k) -> the `stat` time (median_ms or min_ms) of the valid records of one dataset."""
    out = {}
    for line in gzip.open(path, 'rt'):
        r = json.loads(line)
        if r.get('valid') and r['times'][stat] > 0:
            out[(key(r['variant']['kernel'], r['variant']['params']), r['m'], r['n'], r['k'])] = r['times'][stat]
    return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('control')
    parser.add_argument('data', nargs='+')
    args = parser.parse_args()
    control = times(args.control)
    before = {}
    for path in args.data:
        before.update(times(path))
    by_decade = collections.defaultdict(list)
    for pair, t in control.items():
        if pair in before:
            _, m, n, k = pair
            by_decade[int(math.log10(2 * m * n * k))].append(before[pair] / t)
    ratios = [r for rs in by_decade.values() for r in rs]
    if not ratios:
        print('no pair of the control sweep is in the data')
        return
    print(f'{len(ratios)} pairs: data / control time, geomean {geomean(ratios):.3f}')
    for decade in sorted(by_decade):
        print(f'  flops 1e{decade}: {len(by_decade[decade])} pairs, {geomean(by_decade[decade]):.3f}')


if __name__ == '__main__':
    main()
