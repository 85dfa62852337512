#!/usr/bin/env python3
"""One variant in two builds, from sweeps of the same variants and shapes taken in turn (BEFORE and
AFTER, each comma-joined runs whose medians are taken per pair, as ab_compare.py): per shape, the
variant's time before / after, and after against the fastest variant of the after runs; then their
geometric means and ranges.

Usage: python3 scripts/variant_ab.py VARIANT_ID BEFORE[,...] AFTER[,...]"""
import sys

from ab_compare import geomean, label, median_times


def main():
    variant, before_runs, after_runs = sys.argv[1:4]
    before, after = median_times(before_runs), median_times(after_runs)
    gains, against_best = [], []
    print('| M x N x K | before (µs) | after (µs) | before / after | after / fastest after |')
    print('|---|---|---|---|---|')
    for shape in sorted({s for _, s in after}):
        times = {label(v): t for (v, s), t in after.items() if s == shape}
        old = {label(v): t for (v, s), t in before.items() if s == shape}.get(variant)
        if variant not in times or old is None:
            continue
        gains.append(old / times[variant])
        against_best.append(times[variant] / min(times.values()))
        print(f'| {"x".join(map(str, shape))} | {old * 1e3:.1f} | {times[variant] * 1e3:.1f} | '
              f'{gains[-1]:.2f} | {against_best[-1]:.2f} |')
    if not gains:
        sys.exit(f'{variant} is in neither run')
    print(f'{len(gains)} shapes: before / after geomean {geomean(gains):.3f} ({min(gains):.2f}-{max(gains):.2f}); '
          f'after / fastest geomean {geomean(against_best):.3f} ({min(against_best):.2f}-{max(against_best):.2f}), '
          f'within 1.1 on {sum(r <= 1.1 for r in against_best)}')


if __name__ == '__main__':
    main()
