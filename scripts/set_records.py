#!/usr/bin/env python3
"""Copies one record of each of a selected set's variants (variants/selected.json) from sweep
datasets into one file, so that `fewfit sweep --variants-from FILE` measures exactly those variants
that ran on the datasets' device. One record per variant, the first found: datasets measured with
other kernel code may disagree on its times, and only the variant matters here. Parameters a
record omits take their neutral value, as in the tuner.

With `--copy-with NAME=VALUE,...` (repeatable), each copied record of the family that has those
parameters is followed by a copy with them set (the tuner's sweep skips copies that break the
family's rules), e.g. `--copy-with KSPLIT=1,SK=2` for stream-K copies of the set's xgemm variants.

Usage: python3 scripts/set_records.py SELECTED_JSON OUT.jsonl.gz DATA... [--kernel FAMILY]
       [--copy-with NAME=VALUE,...]...
"""
import argparse
import gzip
import json
import math

# codegen/src/params.rs, Family::neutral_defaults (keep in step)
NEUTRAL = {'xgemm': {'VWK': 1, 'DB': 0, 'KSPLIT': 1, 'SWZ': 0, 'SK': 0, 'RP': 0}, 'direct': {'VWD': 1, 'UKD': 1, 'RBR': 0, 'UKK': 0, 'KSPLIT': 1}, 'panel': {'PA': 0}}


def settings(text):
    """{NAME: VALUE} of a `NAME=VALUE,...` argument."""
    return {name: int(value) for name, value in (kv.split('=') for kv in text.split(','))}


def geomean(xs):
    """The geometric mean of positive numbers; NaN for none."""
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def read_json(path):
    """A JSON file, gzipped (a name ending in .gz) or not: the peer bench's peers.json is stored gzipped."""
    with (gzip.open if str(path).endswith('.gz') else open)(path, 'rt') as f:
        return json.load(f)


def key(kernel, params):
    full = dict(NEUTRAL.get(kernel, {}), **params)
    return kernel, tuple(sorted(full.items()))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('selected')
    p.add_argument('out')
    p.add_argument('data', nargs='+')
    p.add_argument('--kernel', help='only the variants of this family')
    p.add_argument('--copy-with', action='append', default=[], metavar='NAME=VALUE,...',
                   help='also write a copy of each record with these parameters set')
    args = p.parse_args()
    copies = [settings(text) for text in args.copy_with]
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
                        params = dict(NEUTRAL.get(k[0], {}), **r['variant']['params'])
                        for changes in copies:
                            if all(n in params for n in changes):
                                copy = dict(r, variant=dict(r['variant'], params=dict(params, **changes)))
                                dst.write(json.dumps(copy) + '\n')
    print(f'{args.out}: one record each of {len(found)} of the {len(wanted)} selected variants'
          + (f', with copies ({", ".join(args.copy_with)})' if args.copy_with else ''))


if __name__ == '__main__':
    main()
