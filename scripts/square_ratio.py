#!/usr/bin/env python3
"""fewfit / cuBLAS per round and shape from scripts/device/square-ratio.sh's folder (fewfit-R.json
from bench/examples/peers.rs, cublas-R.json from scripts/device/cublas.py), by wall and by device time, with
the median, least and greatest over the rounds.

Usage: python3 scripts/square_ratio.py FOLDER"""
import glob
import json
import os
import statistics
import sys


def rounds(folder):
    """Round numbers that have both files."""
    found = []
    for path in glob.glob(os.path.join(folder, 'fewfit-*.json')):
        r = int(os.path.basename(path)[len('fewfit-'):-len('.json')])
        if os.path.exists(os.path.join(folder, f'cublas-{r}.json')):
            found.append(r)
    return sorted(found)


def rates(folder, r):
    """(m, n, k) -> ((fewfit wall, fewfit event), (cuBLAS wall, cuBLAS event)) in TFLOP/s."""
    fewfit = json.load(open(os.path.join(folder, f'fewfit-{r}.json')))
    cublas = json.load(open(os.path.join(folder, f'cublas-{r}.json')))
    ours = {(row['m'], row['n'], row['k']): row['fewfit'] for row in fewfit['rows'] if row.get('fewfit')}
    out = {}
    for row in cublas['rows']:
        shape = (row['m'], row['n'], row['k'])
        f = ours.get(shape)
        if f and f.get('gflops'):
            out[shape] = ((f['gflops'] / 1e3, f['event_gflops'] / 1e3),
                          (row['gflops'] / 1e3, row['event_gflops'] / 1e3))
    return fewfit['device']['name'], out


def main():
    folder = sys.argv[1]
    found = rounds(folder)
    if not found:
        sys.exit(f'no rounds with both fewfit-R.json and cublas-R.json in {folder}')
    table = {}
    for r in found:
        device, out = rates(folder, r)
        for shape, pair in out.items():
            table.setdefault(shape, []).append((r, pair))
    print(f'device: {device}; {len(found)} rounds (odd rounds fewfit first)')
    for shape, entries in sorted(table.items()):
        name = 'x'.join(map(str, shape))
        print(f'== {name}: round, fewfit wall / event TFLOP/s, cuBLAS wall / event, ratio wall / event')
        ratios = {'wall': [], 'event': []}
        for r, ((fw, fe), (cw, ce)) in entries:
            ratios['wall'].append(fw / cw)
            ratios['event'].append(fe / ce)
            print(f'  {r}  {fw:6.1f} / {fe:6.1f}  {cw:6.1f} / {ce:6.1f}  {fw / cw:.3f} / {fe / ce:.3f}')
        for kind, values in ratios.items():
            print(f'  {kind}: median {statistics.median(values):.3f}, least {min(values):.3f}, greatest {max(values):.3f}')


if __name__ == '__main__':
    main()
