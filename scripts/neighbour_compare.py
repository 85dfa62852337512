#!/usr/bin/env python3
"""Compares each of a set's tiles with its one-parameter neighbours (scripts/device/neighbour-sweep.sh)
per layout: for each neighbour, the geometric mean over the training shapes of (the tile's time) /
(the neighbour's time), in every layout given, on all shapes and on the shapes where the shipped tree
picks the tile (--picks LAYOUT=FILE, a `fewfit evaluate --per-shape` output whose tree picks stand
for that layout's; optional, repeatable). Neighbours faster in some layout and no slower in the
others are the twins worth shipping.

Usage: python3 scripts/neighbour_compare.py SET.jsonl LAYOUT=DATA.jsonl.gz... [--min 1.01]
       [--picks LAYOUT=EVALUATE.txt]...
"""
import argparse
import collections
import json

from ab_compare import geomean, times
from set_records import key


def by_variant(path):
    """variant key -> {(m, n, k): median ms} of one dataset's valid records."""
    out = collections.defaultdict(dict)
    for (variant, shape), ms in times(path).items():
        out[variant][shape] = ms
    return out


def tree_picks(path):
    """variant id -> the shapes (m, n, k) a `fewfit evaluate --per-shape` output sends to it."""
    out = collections.defaultdict(set)
    for line in open(path):
        fields = line.rstrip('\n').split('\t')
        if len(fields) >= 3 and fields[1].count('x') == 2:
            out[fields[2]].add(tuple(int(x) for x in fields[1].split('x')))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('set')
    ap.add_argument('data', nargs='+', help='LAYOUT=DATA')
    ap.add_argument('--min', type=float, default=1.01, help='print neighbours at least this much faster in some layout')
    ap.add_argument('--picks', action='append', default=[], help='LAYOUT=FILE: also the geomean over the shapes the tree picks the tile for')
    args = ap.parse_args()
    picks = {p.split('=', 1)[0]: tree_picks(p.split('=', 1)[1]) for p in args.picks}
    tiles = [key(r['variant']['kernel'], r['variant']['params']) for r in map(json.loads, open(args.set))]
    layouts = [(d.split('=', 1)[0], by_variant(d.split('=', 1)[1])) for d in args.data]
    for tile in tiles:
        base = dict(tile[1])
        print(f"## {tile[0]} {' '.join(f'{k}{v}' for k, v in tile[1])}")
        tile_id = tile[0] + ''.join(f'_{k.lower()}{v}' for k, v in tile[1])
        columns = [(name, False) for name, _ in layouts] + [(name, True) for name, _ in layouts if name in picks]
        print('| change | ' + ' | '.join(f'{name}, tree picks' if kind else f'{name} (shapes)' for name, kind in columns) + ' |')
        print('|---|' + '---|' * len(columns))
        neighbours = {}
        for _, variants in layouts:
            for variant in variants:
                diff = {k: v for k, v in variant[1] if base.get(k) != v}
                if variant[0] == tile[0] and len(diff) == 1:
                    neighbours[variant] = diff
        rows = []
        for variant, diff in neighbours.items():
            cells, best = [], 0
            for name, kind in columns:
                variants = dict(layouts)[name]
                own, other = variants.get(tile, {}), variants.get(variant, {})
                shapes = picks[name].get(tile_id, ()) if kind else other
                ratios = [own[s] / other[s] for s in shapes if s in own and s in other]
                if ratios and not kind:
                    best = max(best, geomean(ratios))
                cells.append(f'{geomean(ratios):.3f} ({len(ratios)})' if ratios else '-')
            if best >= args.min:
                rows.append((best, f"| {' '.join(f'{k}={v}' for k, v in diff.items())} | " + ' | '.join(cells) + ' |'))
        for _, row in sorted(rows, reverse=True):
            print(row)
        print()


if __name__ == '__main__':
    main()
