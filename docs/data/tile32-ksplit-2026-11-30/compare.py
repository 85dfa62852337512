#!/usr/bin/env python3
"""The 32 x 32 tile's KSPLIT copies against the shipped KSPLIT 8 tile, per layout (NN, row-major NT):
1. device.sh's sweeps (each pair's repeats back to back): the geometric mean of (tile's median
   time) / (copy's) over the shapes where the shipped trees pick the tile in that layout
   (picks-LAYOUT.txt, make_shapes.sh), by size class and on the held-out lists, with the least ratio;
   and KSPLIT 16 in row-major TN on every shape of shapes.txt (ab.sh with TN=1);
2. interleave.sh's sweeps (KSPLIT 16 only, timed in rounds): the same ratio on those shapes, on the
   130 ML shapes and on the ML shapes whose pick was the tile in ab.sh's bench of the set before.

Usage: python3 docs/data/tile32-ksplit-2026-11-30/compare.py   (from the repository root)
"""
import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / 'scripts'))
from drift import times  # noqa: E402
from set_records import geomean, read_json  # noqa: E402

DIR = 'docs/data/tile32-ksplit-2026-11-30'
TILE = 'xgemm_db3_ksplit8_kwg32_kwi4_mdima16_mdimc16_mwg32_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm0_strn1_swz1_vwk8_vwm2_vwn2'
HELDOUT = ['variants/shapes/unseen.txt', 'variants/shapes/unseen-skinny.txt']


def shape_list(path):
    return {tuple(map(int, l.split()[:3])) for l in open(path) if l.strip() and l[0] != '#'}


def sweep(path, stat='median_ms'):
    """(m, n, k) -> {KSPLIT: time}."""
    out = collections.defaultdict(dict)
    for ((_, params), m, n, k), ms in times(path, stat).items():
        out[(m, n, k)][dict(params)['KSPLIT']] = ms
    return out


def ratios(data, copy, shapes=None):
    return {s: t[8] / t[copy] for s, t in data.items() if 8 in t and copy in t and (shapes is None or s in shapes)}


def bench_picks(layout):
    """The ML shapes whose pick was the tile in the bench of the set before."""
    run = read_json(f'{DIR}/ab-{layout}/before-ml/peers.json.gz')
    return {(r['m'], r['n'], r['k']) for r in run['rows'] if r['fewfit'] and r['fewfit']['variant'] == TILE}


def main():
    heldout = set().union(*map(shape_list, HELDOUT))
    flops = lambda s: 2 * s[0] * s[1] * s[2]
    classes = [('< 1e8', lambda s: flops(s) < 1e8), ('1e8-1e9', lambda s: 1e8 <= flops(s) < 1e9),
               ('>= 1e9', lambda s: flops(s) >= 1e9), ('held-out', lambda s: s in heldout)]
    print('1. back to back (device.sh), median of 10: tile / copy on the shapes the trees pick the tile for')
    for layout in ['nn', 'nt']:
        data, picks = sweep(f'{DIR}/h200-nb-xgemm-ksplit-{layout}-f32.jsonl.gz'), shape_list(f'{DIR}/picks-{layout}.txt')
        for copy in (0, 4, 16):
            r = ratios(data, copy, picks)
            parts = [f'{name} {geomean([x for s, x in r.items() if test(s)]):.3f} ({sum(map(test, r))})' for name, test in classes]
            least = min(r, key=r.get)
            print(f'  {layout} KSPLIT {copy:2}: {geomean(list(r.values())):.3f} ({len(r)}); ' + '; '.join(parts)
                  + f'; least {r[least]:.2f} at {"x".join(map(str, least))}')
    tn = ratios(sweep(f'{DIR}/h200-nb-xgemm-ksplit-tn-f32.jsonl.gz'), 16)
    print(f'  tn KSPLIT 16 (ab.sh with TN=1), every shape of shapes.txt: {geomean(list(tn.values())):.3f} ({len(tn)})')
    print('2. interleaved (interleave.sh), KSPLIT 8 / KSPLIT 16')
    for layout in ['nn', 'nt']:
        for stat in ['median_ms', 'min_ms']:
            picks = sweep(f'{DIR}/h200-ksplit16-il-picks-{layout}-f32.jsonl.gz', stat)
            ml = sweep(f'{DIR}/h200-ksplit16-il-ml-{layout}-f32.jsonl.gz', stat)
            tree = ratios(picks, 16, shape_list(f'{DIR}/picks-{layout}.txt'))
            all_ml, picked_ml = ratios(ml, 16), ratios(ml, 16, bench_picks(layout))
            print(f'  {layout} {stat}: tree picks {geomean(list(tree.values())):.3f} ({len(tree)}); '
                  f'130 ML shapes {geomean(list(all_ml.values())):.3f} ({len(all_ml)}); '
                  f'ML shapes picking the tile {geomean(list(picked_ml.values())):.3f} ({len(picked_ml)})')


if __name__ == '__main__':
    main()
