#!/usr/bin/env python3
"""How well one tree per device class can do when the class's devices disagree: per device, the
geometric-mean slowdown against its oracle of (a) the best of the set on that device alone (what a
tree per device could reach) and (b) the best shared pick, the one member per shape that minimises
the product of the slowdowns over the class's devices (what any tree that sees the shape alone
could reach; no tree over (M, N, K) does better on these shapes). Only the shapes every device
measured count; median times, failures and unmeasured pairs count as 10x, as in selection.

Usage: python3 scripts/shared_pick.py --data DATA... [--class cpu] [--selected variants/selected.json]
"""
import argparse
import json
import math

from candidate_gain import PENALTY, load
from set_records import key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--data', nargs='+', required=True)
    p.add_argument('--class', dest='device_class', default='cpu')
    p.add_argument('--selected', default='variants/selected.json')
    args = p.parse_args()
    times = load(args.data, args.device_class)
    devices = sorted({problem[0] for problem in times})
    shapes = sorted({problem[1:] for problem in times})
    shapes = [s for s in shapes if all((d, *s) in times for d in devices)]
    members = [key(v['family'], v['params']) for v in json.load(open(args.selected))['variants']]
    members = [k for k in members if any(k in row for row in times.values())]

    def slowdown(device, shape, member):
        row = times[(device, *shape)]
        return min(row.get(member, math.inf) / min(row.values()), PENALTY)

    own = {d: 0.0 for d in devices}
    shared = {d: 0.0 for d in devices}
    for shape in shapes:
        pick = min(members, key=lambda m: sum(math.log(slowdown(d, shape, m)) for d in devices))
        for d in devices:
            own[d] += math.log(min(slowdown(d, shape, m) for m in members))
            shared[d] += math.log(slowdown(d, shape, pick))
    print(f'{len(shapes)} shapes measured on all {len(devices)} {args.device_class} devices, '
          f'{len(members)} members of the set measured')
    for d in devices:
        print(f'{d}: best in set on the device {math.exp(own[d] / len(shapes)):.3f}, '
              f'best shared pick {math.exp(shared[d] / len(shapes)):.3f}')


if __name__ == '__main__':
    main()
