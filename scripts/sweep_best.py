#!/usr/bin/env python3
"""Prints, per shape, the best (oracle) throughput in sweep datasets as a markdown table, or with
--top N the N fastest variants of every shape with their parameters.
Usage: python3 scripts/sweep_best.py DATA.jsonl[.gz]... [--top N] [--shapes M N K ...]
(without --shapes: every shape for --top, a default list of bench shapes for the table)"""
import argparse, collections, gzip, json

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("data", nargs="+")
parser.add_argument("--top", type=int, default=0, help="list the N fastest variants per shape")
parser.add_argument("--shapes", type=int, nargs="+", default=[], help="M N K triples to show")
args = parser.parse_args()

rows, invalid, device = collections.defaultdict(list), collections.Counter(), None
for path in args.data:
    for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
        try:
            r = json.loads(line)
        except ValueError:  # a line cut short by an interrupted sweep
            continue
        device = r["device"]["name"]
        shape = (r["m"], r["n"], r["k"])
        if r["valid"]:
            rows[shape].append((2 * shape[0] * shape[1] * shape[2] / r["times"]["median_ms"] / 1e9, r["variant"]))
        else:
            invalid[shape] += 1
dims = args.shapes or ([] if args.top else [4096, 4096, 4096, 8192, 8192, 8192, 1024, 1024, 1024, 1, 4096, 4096,
                                            8, 4096, 4096, 49, 512, 4608, 196, 256, 2304])
shapes = list(zip(dims[0::3], dims[1::3], dims[2::3])) or list(rows)
print(f"Sweep data {' '.join(args.data)} on {device} (median device time, f32, row-major NN)\n")
if args.top:
    for s in shapes:
        ranked = sorted(rows.get(s, []), key=lambda x: -x[0])
        print(f"{'x'.join(map(str, s))}: {len(ranked)} valid, {invalid[s]} invalid; {args.top} fastest, TFLOP/s")
        for tflops, v in ranked[: args.top]:
            print(f"  {tflops:7.3f}  {v['kernel']} " + " ".join(f"{k}{x}" for k, x in sorted(v["params"].items())))
else:
    print("| M x N x K | best variant family | TFLOP/s |\n|---|---|---|")
    for s in shapes:
        if s in rows:
            tflops, v = max(rows[s], key=lambda x: x[0])
            print(f"| {'x'.join(map(str, s))} | {v['kernel']} | {tflops:.2f} |")
