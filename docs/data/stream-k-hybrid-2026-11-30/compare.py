#!/usr/bin/env python3
"""device.sh's runs: per shape, fewfit's GFLOP/s by device time (median of 20) in each run of each
build, and after / before (the mean of each build's runs), with the grid's fill of its last wave of
one work-group per compute unit (128 x 128 tiles, 132 compute units).

Usage: python3 docs/data/stream-k-hybrid-2026-11-30/compare.py
"""
import glob
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / 'scripts'))
from set_records import geomean, read_json  # noqa: E402

DIR = 'docs/data/stream-k-hybrid-2026-11-30'


def runs(build):
    out = []
    for path in sorted(glob.glob(f'{DIR}/{build}-*.json.gz')):
        rows = read_json(path)['rows']
        out.append({(r['m'], r['n'], r['k']): r['fewfit']['event_gflops'] for r in rows})
    return out


def main():
    after, before = runs('after'), runs('before')
    print('| M x N x K | tiles | grid fill | before, GFLOP/s | after (last wave streamed) | after / before |')
    print('|---|---|---|---|---|---|')
    ratios = []
    for shape in after[0]:
        tiles = math.ceil(shape[0] / 128) * math.ceil(shape[1] / 128)
        fill = tiles / (math.ceil(tiles / 132) * 132)
        b = [r[shape] for r in before]
        a = [r[shape] for r in after]
        ratio = (sum(a) / len(a)) / (sum(b) / len(b))
        ratios.append(ratio)
        print(f'| {"x".join(map(str, shape))} | {tiles} | {fill:.0%} | {" / ".join(f"{x / 1e3:.1f}" for x in b)} k '
              f'| {" / ".join(f"{x / 1e3:.1f}" for x in a)} k | {ratio:.3f} |')
    print(f'geometric mean after / before: {geomean(ratios):.3f}')


if __name__ == '__main__':
    main()
