#!/usr/bin/env python3
"""Writes the variant sets that take a candidate into the shipped set: the set plus the candidate,
and, for each member of one device class's families, the set with that member swapped for the
candidate, for `scripts/set_compare.py` to score (the set limits each class to 8 variants, so a
candidate joins only in place of a member). Candidates are the variants of DATA whose parameters
match every NAME=VALUE given (neutral defaults filled in, as `scripts/records_with.py` matches).

Usage: python3 scripts/swap_sets.py OUT_DIR DATA NAME=VALUE[,...] [--families direct xgemm]
       [--selected variants/selected.json]
Writes OUT_DIR/plus-C.json and OUT_DIR/C-for-I.json (C the candidate's index, I the member's, both
listed on stdout).
"""
import argparse
import gzip
import json
import pathlib

from records_with import matches
from set_records import settings


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('out_dir')
    p.add_argument('data')
    p.add_argument('assignment', metavar='NAME=VALUE[,...]', help='what a candidate must have')
    p.add_argument('--families', nargs='+', default=['direct', 'xgemm'])
    p.add_argument('--selected', default='variants/selected.json')
    args = p.parse_args()
    wanted = settings(args.assignment)
    selected = json.load(open(args.selected))
    opener = gzip.open if args.data.endswith('.gz') else open
    candidates = {}
    with opener(args.data, 'rt') as src:
        for line in src:
            record = json.loads(line)
            if matches(record, wanted):
                candidates[json.dumps(record['variant'], sort_keys=True)] = record['variant']
    out = pathlib.Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    members = [v for v in selected['variants'] if v['family'] in args.families]
    for i, member in enumerate(members):
        print(f'member {i}: {member["id"]}')
    for c, variant in enumerate(sorted(candidates.values(), key=lambda v: json.dumps(v, sort_keys=True))):
        print(f'candidate {c}: {variant["kernel"]} {json.dumps(variant["params"], sort_keys=True)}')
        entry = {'id': f'candidate-{c}', 'family': variant['kernel'], 'params': variant['params']}
        write(out / f'plus-{c}.json', selected, selected['variants'] + [entry])
        for i, member in enumerate(members):
            kept = [v for v in selected['variants'] if v['id'] != member['id']]
            write(out / f'{c}-for-{i}.json', selected, kept + [entry])


def write(path, selected, variants):
    json.dump(dict(selected, variants=variants), open(path, 'w'), indent=1)


if __name__ == '__main__':
    main()
