#!/usr/bin/env python3
"""A selector change, before and after, from peer-bench runs of both builds in one call (the runs
interleaved, e.g. after, before, after, before, after): per shape the median over each build's runs
of fewfit's time, then the geometric mean of before / after over the shapes whose picked variant
differs between the builds and, as the control, over those whose pick is the same (there both run
the same kernel: the runs' noise), in device (event) and wall time, also for shapes of at least 1
GFLOP; the same by the pick after, over the shapes whose pick differs (to tell several twins
substituted at once apart); then those shapes, one per line. Standard library only.

Usage: python3 scripts/pick_ab.py --before RUN/peers.json[.gz]... --after RUN/peers.json[.gz]...
"""
import argparse
import statistics

from set_records import geomean, read_json


def load(path):
    """{(m, n, k): fewfit's result} of one run; refuses a run with wrong results."""
    run = read_json(path)
    if run['wrong_results']:
        raise SystemExit(f'{path}: {run["wrong_results"]} wrong results')
    return {(r['m'], r['n'], r['k']): r['fewfit'] for r in run['rows'] if r['fewfit']}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--before', nargs='+', required=True)
    p.add_argument('--after', nargs='+', required=True)
    args = p.parse_args()
    before, after = [load(x) for x in args.before], [load(x) for x in args.after]
    shapes = sorted(set.intersection(*(set(r) for r in before + after)))

    def time(runs, shape, key):
        return statistics.median(r[shape]['timing'][key] for r in runs)

    differ = [s for s in shapes if before[0][s]['variant'] != after[0][s]['variant']]
    print(f'{len(shapes)} shapes, {len(differ)} with another pick; {len(args.before)} runs before, '
          f'{len(args.after)} after; before / after, geometric mean (shapes):')
    print('| time | picks differ | of them >= 1 GFLOP | picks the same (control) | of them >= 1 GFLOP |')
    print('|---|---|---|---|---|')
    for key in ('event_ms', 'wall_ms'):
        cells = []
        for group in (differ, [s for s in shapes if s not in differ]):
            for chosen in (group, [s for s in group if 2 * s[0] * s[1] * s[2] >= 1e9]):
                ratios = [time(before, s, key) / time(after, s, key) for s in chosen]
                cells.append(f'{geomean(ratios):.3f} ({len(ratios)})')
        print(f'| {key} | ' + ' | '.join(cells) + ' |')
    print('\n| pick after | shapes | before / after, device time | wall time |')
    print('|---|---|---|---|')
    for variant in sorted({after[0][s]['variant'] for s in differ}):
        chosen = [s for s in differ if after[0][s]['variant'] == variant]
        cells = [geomean([time(before, s, key) / time(after, s, key) for s in chosen]) for key in ('event_ms', 'wall_ms')]
        print(f'| `{variant}` | {len(chosen)} | {cells[0]:.3f} | {cells[1]:.3f} |')
    print('\n| M x N x K | pick before | pick after | before / after, device time |')
    print('|---|---|---|---|')
    for s in differ:
        ratio = time(before, s, 'event_ms') / time(after, s, 'event_ms')
        print(f'| {s[0]}x{s[1]}x{s[2]} | `{before[0][s]["variant"]}` | `{after[0][s]["variant"]}` | {ratio:.3f} |')


if __name__ == '__main__':
    main()
