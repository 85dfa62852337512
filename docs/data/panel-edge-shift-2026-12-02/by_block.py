#!/usr/bin/env python3
"""run.sh's A/B split by whether the change touches a (shape, block) pair: in a row-major NN call the
panel kernel's M is the user's N, and a block without PA that ends across M (M % BM != 0) with
M >= BM now computes the BM rows that end at M. The PA = 1 block, and every block where M is a
multiple of BM or smaller than BM, run the same code before and after: their ratio is the drift.
Prints, per block and class, the geometric mean of before / after (> 1: faster after) of each pair's
median over the rounds (scripts/ab_compare.py's median_times), the pairs' count and their spread.

Usage: python3 by_block.py BEFORE[,...] AFTER[,...] [--lanes 16]   (--lanes: the CPU's vector width)
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../scripts'))
from ab_compare import geomean, label, median_times  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('before')
    parser.add_argument('after')
    parser.add_argument('--lanes', type=int, default=16)
    args = parser.parse_args()
    before, after = median_times(args.before), median_times(args.after)
    groups = collections.defaultdict(list)
    for pair in before.keys() & after.keys():
        variant, (m, n, k) = pair
        params = dict(variant[1])
        bm = params['MV'] * min(params['VW'], args.lanes)
        kernel_m = n  # row-major NN: the kernel solves C^T, its M is the user's N
        touched = params.get('PA', 0) == 0 and kernel_m >= bm and kernel_m % bm != 0
        groups[(label(variant), 'touched' if touched else 'untouched')].append(before[pair] / after[pair])
    print('block | pairs the change touches / not | pairs | geomean before / after | least | greatest')
    for (block, cls), ratios in sorted(groups.items()):
        ratios.sort()
        print(f'{block} | {cls} | {len(ratios)} | {geomean(ratios):.3f} | {ratios[0]:.2f} | {ratios[-1]:.2f}')
    for cls in ('touched', 'untouched'):
        ratios = [r for (_, c), rs in groups.items() if c == cls for r in rs]
        print(f'all blocks | {cls} | {len(ratios)} | {geomean(ratios):.3f}')


if __name__ == '__main__':
    main()
