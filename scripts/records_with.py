#!/usr/bin/env python3
"""Picks out the records of a sweep dataset (JSON Lines, .gz allowed) whose variant has parameter
values NAME=VALUE,... (a parameter a record omits takes its neutral value, as in the tuner). Used when a
host-side change makes those records stale (a new KSPLIT = 0 split rule, say): --variants and
--shapes give `fewfit sweep --variants-from` and `--shapes` what to measure again, --rest the
dataset without the stale records, so that the new measurements load beside it without conflict.

Usage: python3 scripts/records_with.py DATA NAME=VALUE[,...] [--variants OUT.jsonl.gz] [--twins NAME=VALUE[,...]]
       [--shapes OUT.txt] [--matching OUT.jsonl.gz] [--rest OUT.jsonl.gz]
  --variants  one record of each such variant (gzipped)
  --twins     with --variants: those records' variants with these values instead (a twin to build or
              time through `--variants-from`)
  --matching  every such record, in order (gzipped): with --rest, a dataset split in two
  --shapes    the shapes of those records, `M N K` per line, sorted
  --rest      every other record, in order (gzipped; may name DATA itself)
"""
import argparse
import gzip
import json

from set_records import NEUTRAL, settings


def matches(record, wanted):
    """Whether the record's variant has every NAME = VALUE of `wanted`, neutral defaults filled in."""
    variant = record['variant']
    params = dict(NEUTRAL.get(variant['kernel'], {}), **variant['params'])
    return all(params.get(name) == value for name, value in wanted.items())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data')
    p.add_argument('assignment', metavar='NAME=VALUE[,...]')
    p.add_argument('--variants')
    p.add_argument('--twins')
    p.add_argument('--shapes')
    p.add_argument('--matching')
    p.add_argument('--rest')
    args = p.parse_args()
    wanted = settings(args.assignment)
    opener = gzip.open if args.data.endswith('.gz') else open
    with opener(args.data, 'rt') as src:
        lines = [line for line in src if line.strip()]
    chosen, rest = [], []
    for line in lines:
        (chosen if matches(json.loads(line), wanted) else rest).append(line)
    variants, shapes = {}, set()
    for line in chosen:
        r = json.loads(line)
        variants.setdefault(json.dumps(r['variant'], sort_keys=True), line)
        shapes.add((r['m'], r['n'], r['k']))
    if args.variants:
        twins = settings(args.twins) if args.twins else {}
        with gzip.open(args.variants, 'wt') as dst:
            for line in variants.values():
                r = json.loads(line)
                r['variant']['params'].update(twins)
                dst.write(json.dumps(r) + '\n')
    if args.shapes:
        with open(args.shapes, 'w') as dst:
            dst.writelines(f'{m} {n} {k}\n' for m, n, k in sorted(shapes))
    if args.matching:
        with gzip.open(args.matching, 'wt') as dst:
            dst.writelines(chosen)
    if args.rest:
        with gzip.open(args.rest, 'wt') as dst:
            dst.writelines(rest)
    print(f'{args.data}: {len(chosen)} records with {args.assignment} ({len(variants)} variants, '
          f'{len(shapes)} shapes), {len(rest)} others')


if __name__ == '__main__':
    main()
