#!/usr/bin/env python3
"""Splits a GPU sweep dataset (JSON Lines, .gz allowed) into the records that the stream-K change of
2026-11-28 (bc54d30) made stale and the rest. The change: where a variant with SK > 0 streams but
its tiles' steps of K are too few for SK work-groups per compute unit, the launch takes fewer
work-groups instead of a grid of one work-group per tile. A record of such a variant on such a shape
timed the old launch. This script applies both rules of `Geometry::stream_k_groups`
(src/codegen/params.rs), the one before the change and today's, to every record of a GPU class and
calls it stale where they differ. --variants and --shapes give `fewfit sweep --variants-from` and
`--shapes` what to time again, --rest the dataset without the stale records, so that the new
records load beside it without conflict (with `--skip-measured REST` where a file holds several
such variants). It tells a stale record by its variant and shape alone, so it names records timed
again after the change too: apply it to files timed before the change.

Usage: python3 scripts/stream_k_stale.py DATA [--units 132] [--variants OUT.jsonl.gz] [--shapes OUT.txt]
       [--stale OUT.jsonl.gz] [--rest OUT.jsonl.gz]
  --units     the compute units of the device the records were timed on (132: H100 and H200)
  --variants  one record of each variant with stale records (gzipped)
  --shapes    the shapes of the stale records, `M N K` per line, sorted
  --stale     the stale records, in order and as written (gzipped)
  --rest      every other record, in order and as written (gzipped; may name DATA itself)
Prints the count of stale records and the count of records.
"""
import argparse
import gzip
import json

from set_records import NEUTRAL

# The constants of src/codegen/params.rs, unchanged by the change.
MIN_STEPS = 8
BELOW_FILL_PERCENT = 85


def stream_k_groups(tile, k_step, sk, m, n, k, units, before_change):
    """The work-groups of a stream-K launch, or None for a grid, by the rule before the change or
    by today's."""
    most = sk * units
    if most == 0:
        return None
    tiles = -(-m // tile[0]) * -(-n // tile[1])
    occupancies = [j for j in (1, 2, 4, 8, 16) if j <= sk]
    fills_its_waves = any(tiles * 100 >= -(-tiles // (j * units)) * j * units * BELOW_FILL_PERCENT
                          for j in occupancies)
    steps = -(-k // k_step)
    if before_change:
        return most if not fills_its_waves and tiles * steps >= most * MIN_STEPS else None
    groups = min(most, tiles * steps // MIN_STEPS)
    return groups if not fills_its_waves and (groups == most or groups > tiles) else None


def is_stale(record, units):
    """Whether the record timed a stream-K launch that today's rule no longer makes."""
    variant = record['variant']
    if variant['kernel'] != 'xgemm' or not record['device']['class'].endswith('gpu'):
        return False
    p = dict(NEUTRAL['xgemm'], **variant['params'])
    if p['SK'] == 0:
        return False
    args = ((p['MWG'], p['NWG']), p['KWG'], p['SK'], record['m'], record['n'], record['k'], units)
    return stream_k_groups(*args, True) != stream_k_groups(*args, False)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data')
    p.add_argument('--units', type=int, default=132)
    p.add_argument('--variants')
    p.add_argument('--shapes')
    p.add_argument('--stale')
    p.add_argument('--rest')
    args = p.parse_args()
    opener = gzip.open if args.data.endswith('.gz') else open
    with opener(args.data, 'rt') as f:
        lines = [line for line in f if line.strip()]
    records = [json.loads(line) for line in lines]
    flags = [is_stale(r, args.units) for r in records]
    stale = [r for r, flag in zip(records, flags) if flag]
    if args.variants:
        unique = {json.dumps(r['variant'], sort_keys=True): r for r in stale}
        with gzip.open(args.variants, 'wt') as out:
            out.writelines(json.dumps(r) + '\n' for r in unique.values())
    if args.shapes:
        shapes = sorted({(r['m'], r['n'], r['k']) for r in stale})
        with open(args.shapes, 'w') as out:
            out.writelines(f'{m} {n} {k}\n' for m, n, k in shapes)
    for path, keep in ((args.stale, True), (args.rest, False)):
        if path:
            with gzip.open(path, 'wt') as out:
                out.writelines(line for line, flag in zip(lines, flags) if flag == keep)
    print(f'{len(stale)} stale of {len(records)} records')


if __name__ == '__main__':
    main()
