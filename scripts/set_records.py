#!/usr/bin/env python3
"""Copies the records of a selected set's variants (variants/selected.json) from sweep datasets into
one file, so that `fewfit sweep --variants-from FILE` measures exactly those variants that ran on
the datasets' device. Parameters a record omits take their neutral value, as in the tuner.

Usage: python3 scripts/set_records.py SELECTED_JSON OUT.jsonl.gz DATA...
"""
import gzip
import json
import sys

# src/codegen/params.rs, Family::neutral_defaults
NEUTRAL = {'xgemm': {'VWK': 1, 'DB': 0, 'KSPLIT': 1, 'SWZ': 0}, 'direct': {'VWD': 1, 'UKD': 1, 'RBR': 0}, 'panel': {}}


def key(kernel, params):
    full = dict(NEUTRAL.get(kernel, {}), **params)
    return kernel, tuple(sorted(full.items()))


def main():
    selected, out, data = sys.argv[1], sys.argv[2], sys.argv[3:]
    wanted = {key(v['family'], v['params']) for v in json.load(open(selected))['variants']}
    found, kept = set(), 0
    with gzip.open(out, 'wt') as dst:
        for path in data:
            opener = gzip.open if path.endswith('.gz') else open
            with opener(path, 'rt') as src:
                for line in src:
                    r = json.loads(line)
                    k = key(r['variant']['kernel'], r['variant']['params'])
                    if k in wanted:
                        dst.write(line)
                        found.add(k)
                        kept += 1
    print(f'{out}: {kept} records of {len(found)} of the {len(wanted)} selected variants')


if __name__ == '__main__':
    main()
