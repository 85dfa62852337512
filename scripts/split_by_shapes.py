#!/usr/bin/env python3
"""Splits a sweep dataset (JSON Lines, .gz allowed) by shape: the records whose (M, N, K) is in
SHAPES go to IN_OUT, the others to REST_OUT (both gzipped). Keeps held-out shapes out of training
when one sweep measured both. Each --drop NAME=VALUE leaves out the records of variants with that
parameter value (a sweep's re-measured originals, which other datasets hold).

Usage: python3 scripts/split_by_shapes.py DATA SHAPES IN_OUT REST_OUT [--drop NAME=VALUE]...
"""
import argparse
import gzip
import json

from shape_list import read_shapes


def main():
    parser = argparse.ArgumentParser()
    for name in ('data', 'shapes', 'in_out', 'rest_out'):
        parser.add_argument(name)
    parser.add_argument('--drop', action='append', default=[], metavar='NAME=VALUE')
    args = parser.parse_args()
    data, shapes_path, in_out, rest_out = args.data, args.shapes, args.in_out, args.rest_out
    drop = {(name, int(value)) for name, value in (d.split('=') for d in args.drop)}
    shapes = read_shapes(shapes_path)
    opener = gzip.open if data.endswith('.gz') else open
    counts = [0, 0]
    with opener(data, 'rt') as src, gzip.open(in_out, 'wt') as inside, gzip.open(rest_out, 'wt') as rest:
        for line in src:
            if not line.strip():
                continue
            r = json.loads(line)
            if drop & set(r['variant']['params'].items()):
                continue
            hit = (r['m'], r['n'], r['k']) in shapes
            (inside if hit else rest).write(line)
            counts[0 if hit else 1] += 1
    print(f'{data}: {counts[0]} records on {shapes_path} shapes -> {in_out}, {counts[1]} -> {rest_out}')


if __name__ == '__main__':
    main()
