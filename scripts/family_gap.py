#!/usr/bin/env python3
"""How far one kernel family's best runs from another's on each shape of sweep data: per
(device, shape) measured by both, the best median time of --family over the best of --against,
then their range and geometric mean (the cost of running one family's kernels where the other's
belong, e.g. GPU kernels on a CPU).

Usage: python3 scripts/family_gap.py DATA... --class cpu --family xgemm --against panel [--max-m 8]
"""
import argparse
import math

from candidate_gain import load


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data', nargs='+')
    p.add_argument('--class', dest='device_class', required=True)
    p.add_argument('--family', required=True)
    p.add_argument('--against', required=True)
    p.add_argument('--max-m', type=int, help='only shapes with M at most this')
    args = p.parse_args()
    ratios = []
    for (device, m, n, k), row in sorted(load(args.data, args.device_class).items()):
        best = {f: min((t for v, t in row.items() if v[0] == f), default=math.inf) for f in (args.family, args.against)}
        if (args.max_m and m > args.max_m) or not all(math.isfinite(t) for t in best.values()):
            continue
        ratios.append(best[args.family] / best[args.against])
        print(f'{device}  {m}x{n}x{k}  {ratios[-1]:.1f}x')
    if ratios:
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f'{len(ratios)} shapes: {args.family} / {args.against} {min(ratios):.1f}-{max(ratios):.1f}x, geomean {geomean:.1f}x')


if __name__ == '__main__':
    main()
