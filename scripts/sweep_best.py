#!/usr/bin/env python3
"""Prints, per shape, the best (oracle) throughput in a sweep dataset, as a markdown table.
Usage: python3 scripts/sweep_best.py DATA.jsonl[.gz] [M N K ...]  (no shapes: a default list)"""
import gzip, json, sys

path = sys.argv[1]
opener = gzip.open if path.endswith(".gz") else open
best, device = {}, None
for line in opener(path, "rt"):
    r = json.loads(line)
    device = r["device"]["name"]
    if not r["valid"]:
        continue
    shape, t = (r["m"], r["n"], r["k"]), r["times"]["median_ms"]
    if shape not in best or t < best[shape][0]:
        best[shape] = (t, r["variant"]["kernel"])
dims = [int(x) for x in sys.argv[2:]] or [4096, 4096, 4096, 8192, 8192, 8192, 1024, 1024, 1024, 1, 4096, 4096,
                                           8, 4096, 4096, 49, 512, 4608, 196, 256, 2304]
print(f"Oracle of {path} on {device} (median device time, f32, row-major NN)\n")
print("| M x N x K | best variant family | TFLOP/s |\n|---|---|---|")
for m, n, k in zip(dims[0::3], dims[1::3], dims[2::3]):
    if (m, n, k) in best:
        t, kernel = best[(m, n, k)]
        print(f"| {m}x{n}x{k} | {kernel} | {2 * m * n * k / t / 1e9:.2f} |")
