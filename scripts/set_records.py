#!/usr/bin/env python3
"""Copies one record of each of a selected set's variants (variants/selected.json) from sweep
datasets into one file, so that `fewfit sweep --variants-from FILE` measures exactly those variants
that ran on the datasets' device. One record per variant, the first found: datasets measured with
other kernel code may disagree on its times, and only the variant matters here. Parameters a
record omits take their neutral value, as in the tuner.

Usage: python3 scripts/set_records.py SELECTED_JSON OUT.jsonl.gz DATA... [--kernel FAMILY]
"""
import argparse
import gzip
import json

# src/codegen/params.rs, Family::neutral_defaults
NEUTRAL = {'xgemm': {'VWK': 1, 'DB': 0, 'KSPLIT': 1, 'SWZ': 0}, 'direct': {'VWD': 1, 'UKD': 1, 'RBR': 0}, 'panel': {}}


def key(kernel, params):
    full = dict(NEUTRAL.get(kernel, {}), **params)
    return kernel, tuple(sorted(full.items()))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('selected')
    p.add_argument('out')
    p.add_argument('data', nargs='+')
    p.add_argument('--kernel', help='only the variants of this family')
    args = p.parse_args()
    wanted = {key(v['family'], v['params']) for v in json.load(open(args.selected))['variants']
              if args.kernel in (None, v['family'])}
    found = set()
    with gzip.open(args.out, 'wt') as dst:
        for path in args.data:
            opener = gzip.open if path.endswith('.gz') else open
            with opener(path, 'rt') as src:
                for line in src:
                    r = json.loads(line)
                    k = key(r['variant']['kernel'], r['variant']['params'])
                    if k in wanted and k not in found:
                        dst.write(line)
                        found.add(k)
    print(f'{args.out}: one record each of {len(found)} of the {len(wanted)} selected variants')


if __name__ == '__main__':
    main()
