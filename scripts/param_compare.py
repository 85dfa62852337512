#!/usr/bin/env python3
"""Compares copies of the same variants that differ in one parameter, per shape of sweep data:
for each value of PARAM, the geometric mean over the variants measured with both of (time of the
fastest of the BASE values) / (time with that value), and the fastest variant with each value, in
TFLOP/s (median device time). Then per variant, the geometric mean of that speed-up over its shapes,
also split at --large flops and at --rows (M <= ROWS or not). Parameters a record omits take their
neutral value (set_records.py).

Usage: python3 scripts/param_compare.py DATA.jsonl[.gz]... --param DB --base 0 1 2 [--kernel xgemm]
       [--large 1e9] [--rows 64] [--gflops]
"""
import argparse
import collections
import gzip
import json
import math

from set_records import key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('data', nargs='+')
    p.add_argument('--param', required=True)
    p.add_argument('--base', type=int, nargs='+', required=True, help='the values compared against')
    p.add_argument('--kernel', default='xgemm')
    p.add_argument('--large', type=float, default=1e9, help='flops from which a shape counts as large')
    p.add_argument('--rows', type=int, default=64, help='M up to which a shape counts as few-row')
    p.add_argument('--gflops', action='store_true', help='the fastest variants in GFLOP/s (CPUs)')
    args = p.parse_args()
    # shape -> variant without PARAM -> value of PARAM -> median ms
    times = collections.defaultdict(lambda: collections.defaultdict(dict))
    device = None
    for path in args.data:
        for line in (gzip.open if path.endswith('.gz') else open)(path, 'rt'):
            try:
                r = json.loads(line)
            except ValueError:  # a line cut short by an interrupted sweep
                continue
            if not r['valid'] or r['variant']['kernel'] != args.kernel:
                continue
            device = r['device']['name']
            params = dict(key(args.kernel, r['variant']['params'])[1])
            value = params.pop(args.param)
            times[(r['m'], r['n'], r['k'])][tuple(sorted(params.items()))][value] = r['times']['median_ms']
    values = sorted({v for by_variant in times.values() for t in by_variant.values() for v in t} - set(args.base))
    unit, per_ms = ('GFLOP/s', 1e6) if args.gflops else ('TFLOP/s', 1e9)
    print(f'{args.param} on {device}: speed-up against the fastest of {args.param} = {args.base} (geomean over '
          f'the variants measured with both), and the fastest variant of each value, {unit}\n')
    print('| M x N x K | ' + ' | '.join(f'{args.param} {v} speed-up' for v in values) + ' | best '
          + ' | best '.join(f'{args.param} {v}' for v in ['/'.join(map(str, args.base))] + values) + ' |')
    print('|---' * (1 + 2 * len(values) + 1) + '|')
    # (variant, value) -> [(shape, speed-up)]
    per_variant = collections.defaultdict(list)
    for shape in sorted(times, key=lambda s: s[0] * s[1] * s[2]):
        flops = 2 * shape[0] * shape[1] * shape[2]
        ratios = collections.defaultdict(list)
        best = collections.defaultdict(lambda: math.inf)
        for variant, t in times[shape].items():
            base = min((t[b] for b in args.base if b in t), default=None)
            for v, ms in t.items():
                group = 'base' if v in args.base else v
                best[group] = min(best[group], ms)
                if base is not None and v not in args.base:
                    ratios[v].append(base / ms)
                    per_variant[(variant, v)].append((shape, base / ms))
        cells = [f'{math.exp(sum(map(math.log, ratios[v])) / len(ratios[v])):.3f} ({len(ratios[v])})'
                 if ratios[v] else '' for v in values]
        cells += [f'{flops / best[g] / per_ms:.1f}' if best[g] < math.inf else '' for g in ['base'] + values]
        print(f"| {'x'.join(map(str, shape))} | " + ' | '.join(cells) + ' |')
    geomean = lambda xs: f'{math.exp(sum(map(math.log, xs)) / len(xs)):.3f} ({len(xs)})' if xs else ''
    print(f'\n| variant | {args.param} | speed-up, all shapes | >= {args.large:g} flops | < {args.large:g} | '
          f'M <= {args.rows} | M > {args.rows} |')
    print('|---' * 7 + '|')
    for (variant, v), pairs in sorted(per_variant.items()):
        large = [r for s, r in pairs if 2 * s[0] * s[1] * s[2] >= args.large]
        small = [r for s, r in pairs if 2 * s[0] * s[1] * s[2] < args.large]
        few = [r for s, r in pairs if s[0] <= args.rows]
        many = [r for s, r in pairs if s[0] > args.rows]
        name = ' '.join(f'{n}{x}' for n, x in variant)
        print(f'| {name} | {v} | {geomean([r for _, r in pairs])} | {geomean(large)} | {geomean(small)} | '
              f'{geomean(few)} | {geomean(many)} |')


if __name__ == '__main__':
    main()
