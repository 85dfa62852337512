#!/usr/bin/env python3
"""The runs of docs/data/stream-k-hybrid-2026-11-30/device.sh with last-wave-one-body.patch applied
(after) and the build without it (before), SHAPES=band-shapes.txt LAYOUTS="nn nt" ROUNDS=2: per
layout and shape, fewfit's GFLOP/s by device time (median of 20) in each run of each build, and
after / before (the mean of each build's runs), with the grid's fill of its waves of one
work-group per compute unit (128 x 128 tiles, 132 compute units).
Usage: python3 docs/data/stream-k-one-body-2026-12-02/compare.py
"""
import glob
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / 'scripts'))
from set_records import geomean, read_json  # noqa: E402

DIR = pathlib.Path(__file__).resolve().parent


def runs(build, tag):
    paths = sorted(glob.glob(f'{DIR}/{build}-{tag}[0-9].json.gz'))
    return [{(r['m'], r['n'], r['k']): r['fewfit']['event_gflops'] for r in read_json(p)['rows']} for p in paths]


for tag, layout in [('', 'NN'), ('nt-', 'row-major NT')]:
    after, before = runs('after', tag), runs('before', tag)
    print(f'{layout}: | M x N x K | tiles | grid fill | before, TFLOP/s | after | after / before |')
    ratios = []
    for shape in after[0]:
        tiles = math.ceil(shape[0] / 128) * math.ceil(shape[1] / 128)
        fill = tiles / (math.ceil(tiles / 132) * 132)
        b, a = [r[shape] for r in before], [r[shape] for r in after]
        ratio = (sum(a) / len(a)) / (sum(b) / len(b))
        ratios.append(ratio)
        print(f'| {"x".join(map(str, shape))} | {tiles} | {fill:.0%} | {" / ".join(f"{x / 1e3:.1f}" for x in b)} '
              f'| {" / ".join(f"{x / 1e3:.1f}" for x in a)} | {ratio:.3f} |')
    print(f'geometric mean after / before: {geomean(ratios):.3f}')
