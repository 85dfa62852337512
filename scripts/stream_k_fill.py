#!/usr/bin/env python3
"""How stream-K (SK) fares against the grid (SK = 0) per shape, by how well the grid fills its waves:
for one tile of sweep data (its MWG x NWG), per shape the tiles, the share of its waves a grid
fills at 1 and at 2 work-groups per compute unit, and each SK copy's speed-up over the SK = 0
variant with the same other parameters (median device times). The data of the rule in
`Geometry::stream_k_groups` (src/codegen/params.rs).

Usage: python3 scripts/stream_k_fill.py DATA... [--tile 128 128] [--units 132]
"""
import argparse
import gzip
import json
import math

from set_records import NEUTRAL


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data', nargs='+')
    p.add_argument('--tile', type=int, nargs=2, default=[128, 128])
    p.add_argument('--units', type=int, default=132, help='compute units of the device')
    args = p.parse_args()
    times = {}  # (m, n, k) -> (params without SK) -> SK -> ms
    for path in args.data:
        for line in (gzip.open if path.endswith('.gz') else open)(path, 'rt'):
            r = json.loads(line)
            params = dict(NEUTRAL['xgemm'], **r['variant']['params'])
            if r['variant']['kernel'] != 'xgemm' or not r['valid'] or [params['MWG'], params['NWG']] != args.tile:
                continue
            sk = params.pop('SK')
            rest = tuple(sorted(params.items()))
            times.setdefault((r['m'], r['n'], r['k']), {}).setdefault(rest, {})[sk] = r['times']['median_ms']
    print(f'| shape | tiles | grid fills, 1 / 2 per unit | SK speed-ups over SK = 0 |')
    print('|---|---|---|---|')
    for (m, n, k), rows in sorted(times.items(), key=lambda x: math.prod(x[0])):
        tiles = math.ceil(m / args.tile[0]) * math.ceil(n / args.tile[1])
        fill = [tiles / (math.ceil(tiles / (j * args.units)) * j * args.units) for j in (1, 2)]
        gains = [f'SK {sk}: {by_sk[0] / t:.3f}' for by_sk in rows.values() if 0 in by_sk
                 for sk, t in sorted(by_sk.items()) if sk]
        print(f'| {m}x{n}x{k} | {tiles} | {fill[0]:.2f} / {fill[1]:.2f} | {", ".join(gains)} |')


if __name__ == '__main__':
    main()
