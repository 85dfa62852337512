#!/usr/bin/env python3
"""Per shape of run.sh's sweeps: the PA = 1 block's time over the best block's in the same sweep
(each pair's median over the rounds, scripts/ab_compare.py's median_times), before and after: a
ratio that the VM's drift between sweeps leaves alone, since all four blocks of a shape run in the
same rounds. Also each block's before / after.
Usage: python3 pa1_share.py BEFORE[,...] AFTER[,...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../scripts'))
from ab_compare import median_times  # noqa: E402


def name(variant):
    p = dict(variant[1])
    return 'PA1' if p.get('PA') else f"KC{p['KC']}/MV{p['MV']}"


def main():
    before, after = median_times(sys.argv[1]), median_times(sys.argv[2])
    for s in sorted({s for _, s in before} & {s for _, s in after}):
        b = {name(v): t for (v, sh), t in before.items() if sh == s}
        a = {name(v): t for (v, sh), t in after.items() if sh == s}
        blocks = ', '.join(f'{n} {b[n] / a[n]:.2f}' for n in sorted(b.keys() & a.keys()))
        print(f"{s[0]}x{s[1]}x{s[2]}: PA1 / best before {b['PA1'] / min(b.values()):.2f}, "
              f"after {a['PA1'] / min(a.values()):.2f} | before / after: {blocks}")


if __name__ == '__main__':
    main()
