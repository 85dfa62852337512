#!/usr/bin/env python3
"""What a candidate variant would add to the shipped set on one device class's data: the shapes
where it beats the set's best, and the best-in-set geometric-mean slowdown against the oracle of the
set, of the set with the candidate added, and of the set with the candidate replacing each member
of its family (median times; failures and unmeasured pairs count as 10x, as in selection).

Usage: python3 scripts/candidate_gain.py --candidate CAND.jsonl.gz --data DATA... [--class nvidia-gpu]
       [--weights variants/shapes/weights.txt] [--pick NAME=VALUE,...]
The candidate is the first valid variant of CAND (a file of `sweep` records) with KSPLIT 1 if it
has xgemm ones, or with `--pick` the first whose parameters have those values (a parameter a record
omits takes its neutral value); DATA are the datasets the selection reads (CAND among them or not).
"""
import argparse
import gzip
import json
import math

from set_records import key, settings

PENALTY = 10.0


def load(paths, device_class):
    """{(device, m, n, k): {variant key: median ms, inf where invalid}} of one class. A layout other
    than NN joins the device's name (`NVIDIA H200 [NT]`), so NN and NT records stay apart, as
    `fewfit` keeps them."""
    times = {}
    for path in paths:
        opener = gzip.open if path.endswith('.gz') else open
        with opener(path, 'rt') as src:
            for line in src:
                r = json.loads(line)
                if r['device']['class'] != device_class:
                    continue
                device = r['device']['name']
                if r['device'].get('layout', 'NN') != 'NN':
                    device += f" [{r['device']['layout']}]"
                problem = (device, r['m'], r['n'], r['k'])
                t = r['times']['median_ms'] if r['valid'] else math.inf
                times.setdefault(problem, {})[key(r['variant']['kernel'], r['variant']['params'])] = t
    return times


def read_weights(path):
    """{(m, n, k): weight} of a `regenerate --shape-weights` file; empty without one."""
    weights = {}
    for line in open(path) if path else []:
        fields = line.split('#')[0].split()
        if len(fields) == 4:
            weights[tuple(map(int, fields[:3]))] = float(fields[3])
    return weights


def geomean(times, members, weights):
    """Weighted geometric mean over problems of best-in-set / oracle, capped at PENALTY."""
    log_sum = total = 0.0
    for problem, row in times.items():
        w = weights.get(problem[1:], 1.0)
        best = min((row.get(k, math.inf) for k in members), default=math.inf)
        log_sum += w * math.log(min(best / min(row.values()), PENALTY))
        total += w
    return math.exp(log_sum / total)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--candidate', required=True)
    p.add_argument('--data', nargs='+', required=True)
    p.add_argument('--class', dest='device_class', default='nvidia-gpu')
    p.add_argument('--selected', default='variants/selected.json')
    p.add_argument('--weights')
    p.add_argument('--pick', help='the candidate: the first variant of CAND with these parameter values')
    args = p.parse_args()
    weights = read_weights(args.weights)
    candidates = [k for row in load([args.candidate], args.device_class).values() for k in row]
    if args.pick:
        wanted = settings(args.pick)
        candidate = next(k for k in candidates if all(dict(k[1]).get(n) == v for n, v in wanted.items()))
    else:
        candidate = next((k for k in candidates if dict(k[1]).get('KSPLIT', 1) == 1), candidates[0])
    times = load(args.data + [args.candidate], args.device_class)
    members = [key(v['family'], v['params']) for v in json.load(open(args.selected))['variants']]
    members = [k for k in members if any(k in row for row in times.values())]
    print('candidate:', candidate[0], ' '.join(f'{n}{v}' for n, v in candidate[1]))
    gains = sorted(((min(row.get(k, math.inf) for k in members) / row[candidate], problem)
                    for problem, row in times.items() if math.isfinite(row.get(candidate, math.inf))), reverse=True)
    print(f'{len(times)} problems; candidate timed on {len(gains)}, faster than the set on '
          f'{sum(g > 1 for g, _ in gains)}, by more than 2 % on {sum(g > 1.02 for g, _ in gains)}; '
          f'most: ' + ', '.join(f'{m}x{n}x{k} {g:.3f}x' for g, (_, m, n, k) in gains[:5]))
    print(f'best in set: set {geomean(times, members, weights):.4f}, '
          f'with the candidate added {geomean(times, members + [candidate], weights):.4f}')
    for member in (k for k in members if k[0] == candidate[0]):
        swapped = [k for k in members if k != member] + [candidate]
        print(f'  replacing {" ".join(f"{n}{v}" for n, v in member[1])}: {geomean(times, swapped, weights):.4f}')


if __name__ == '__main__':
    main()
