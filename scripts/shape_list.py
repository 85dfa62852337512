#!/usr/bin/env python3
"""Writes the sorted union of shape lists (variants/shapes/*.txt: `M N K` per line, `#` comments),
optionally only the shapes whose min(M, N) lies in (ABOVE, AT_MOST], whose K is at least MIN_K, or only the GEMMs of real
networks, one `M N K` per line: the shape list of the ML-shape peer bench (scripts/device/bench-ml.sh).

Usage: python3 scripts/shape_list.py OUT LIST... [--min-mn-above ABOVE] [--min-mn-at-most AT_MOST]
       [--min-k MIN_K] [--networks-only]
"""
import argparse

# The `# source` comments of the shape lists that are not a real network's GEMM.
SYNTHETIC_SOURCES = {"papers' grid", "square", "irregular", "primes", "small C, long K", "skinny"}


def read_shapes(path):
    """The set of (M, N, K) of a shape list."""
    shapes = set()
    for line in open(path):
        fields = line.split('#')[0].split()
        if len(fields) >= 3:
            shapes.add(tuple(map(int, fields[:3])))
    return shapes


def network_shapes(path):
    """The set of (M, N, K) of a shape list whose `# source` names a real network's GEMM."""
    shapes = set()
    for line in open(path):
        fields, _, source = line.partition('#')
        fields = fields.split()
        if len(fields) >= 3 and source.strip() and source.strip() not in SYNTHETIC_SOURCES:
            shapes.add(tuple(map(int, fields[:3])))
    return shapes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('out')
    parser.add_argument('lists', nargs='+')
    parser.add_argument('--min-mn-above', type=int, default=0)
    parser.add_argument('--min-mn-at-most', type=int, default=None)
    parser.add_argument('--min-k', type=int, default=0)
    parser.add_argument('--networks-only', action='store_true',
                        help="only the lines whose '# source' is a real network's GEMM")
    args = parser.parse_args()
    read = network_shapes if args.networks_only else read_shapes
    shapes = set().union(*(read(path) for path in args.lists))
    kept = [s for s in sorted(shapes)
            if args.min_mn_above < min(s[0], s[1]) and (args.min_mn_at_most is None or min(s[0], s[1]) <= args.min_mn_at_most)
            and s[2] >= args.min_k]
    with open(args.out, 'w') as out:
        out.write(''.join(f'{m} {n} {k}\n' for m, n, k in kept))


if __name__ == '__main__':
    main()
