#!/usr/bin/env python3
"""Merges the peer bench's JSON (bench/examples/peers.rs --json) and, optionally, the cuBLAS script's
JSON (scripts/device/cublas.py --json) into the markdown table of docs/PERFORMANCE.md: GFLOP/s per
implementation and fewfit's ratios to each (> 1: fewfit is faster), with geomeans over the shapes
both ran. Both files must time the same precision (f32, f16, bf16 or tf32; files without one are
f32) and layout. Columns no run filled are left out. Standard library only.

Usage: python3 scripts/perf_table.py PEERS.json [CUBLAS.json] [--time wall|event]"""
import argparse
import math

from set_records import read_json

COLUMNS = [("fewfit", "fewfit"), ("oracle", "oracle"), ("clblast", "CLBlast"), ("cublas", "cuBLAS"),
           ("openblas", "OpenBLAS")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peers")
    p.add_argument("cublas", nargs="?")
    p.add_argument("--time", choices=["wall", "event"], default="wall",
                   help="wall: queue finished after each call; event: device time")
    args = p.parse_args()
    bench = read_json(args.peers)
    key = "gflops" if args.time == "wall" else "event_gflops"
    precision = bench.get("precision", "f32")
    cublas = {}
    cublas_note = ""
    if args.cublas:
        c = read_json(args.cublas)
        layouts = (bench.get("layout", "NN"), c.get("layout", "NN"))
        if layouts[0] != layouts[1]:
            raise SystemExit(f"{args.peers} times row-major {layouts[0]}, {args.cublas} {layouts[1]}: not one table")
        if c.get("precision", "f32") != precision:
            raise SystemExit(f"{args.peers} times {precision}, {args.cublas} {c.get('precision', 'f32')}: not one table")
        cublas = {(r["m"], r["n"], r["k"]): r.get(key) for r in c["rows"] if not r.get("skipped")}
        cublas_note = (f"; cuBLAS: torch {c['torch']} on {c['device']}, TF32 {'on' if c.get('tf32') else 'off'}, "
                       f"median of {c['repeats']}")
        if c["device"] != bench["device"]["name"]:
            cublas_note += " (a CUDA device name; the bench ran on the OpenCL device above)"

    rows = []
    for r in bench["rows"]:
        if r.get("skipped"):
            continue
        g = {}
        for col, _ in COLUMNS:
            if col == "cublas":
                g[col] = cublas.get((r["m"], r["n"], r["k"]))
            else:
                o = r.get(col)
                g[col] = o.get(key) if o and o.get("check") == "ok" else None
        rows.append((r, g))
    cols = [(c, t) for c, t in COLUMNS if any(g[c] for _, g in rows)]
    ratios = [(c, t) for c, t in cols if c != "fewfit"]

    d = bench["device"]
    peers = [f"CLBlast {bench['clblast']}" if bench.get("clblast") else "CLBlast not run"]
    if bench.get("openblas"):
        peers.append(f"OpenBLAS {bench['openblas']} (host memory)")
    runs_as = bench.get("runs_as", precision)
    precision_note = precision if runs_as == precision else f"{precision} (runs as {runs_as} on this device)"
    print(f"{d['name']} ({d['platform_version'].split(' Linux')[0]}), {bench['date']}, {precision_note}, "
          f"row-major {bench.get('layout', 'NN')}; "
          f"{'wall time, queue finished after each call' if args.time == 'wall' else 'device time (events)'}, "
          f"median of {bench['repeats']} after {bench['warmup']} warm-up calls; "
          f"{', '.join(peers)}{cublas_note}. GFLOP/s; ratios are fewfit / peer.\n")
    header = ["M x N x K"] + [t for _, t in cols] + [f"fewfit/{t}" for _, t in ratios] + ["fewfit variant"]
    print("| " + " | ".join(header) + " |")
    print("|---" * (1 + len(cols) + len(ratios)) + "|---|")
    logs = {c: [] for c, _ in ratios}
    for r, g in rows:
        cells = [f"{g[c]:.1f}" if g[c] else "-" for c, _ in cols]
        rcells = []
        for c, _ in ratios:
            if g["fewfit"] and g[c]:
                logs[c].append(math.log(g["fewfit"] / g[c]))
                rcells.append(f"{g['fewfit'] / g[c]:.2f}")
            else:
                rcells.append("-")
        variant = (r.get("fewfit") or {}).get("variant") or ""
        print("| " + " | ".join([f"{r['m']}x{r['n']}x{r['k']}"] + cells + rcells + [f"`{variant}`"]) + " |")
    geo = [f"**{math.exp(sum(l) / len(l)):.2f}** ({len(l)})" if l else "-" for l in logs.values()]
    print("| " + " | ".join(["geomean (shapes)"] + [""] * len(cols) + geo + [""]) + " |")
    skipped = [f"{r['m']}x{r['n']}x{r['k']}" for r in bench["rows"] if r.get("skipped")]
    if skipped:
        print(f"\nNot run (over --max-flops): {', '.join(skipped)}.")
    floor = bench.get("launch_floor")
    if floor:
        print(f"\nLaunch floor on this queue (an empty kernel, enqueue + finish, median of {bench['repeats']}): "
              f"wall {floor['wall_ms'] * 1e3:.1f} µs, device {floor['event_ms'] * 1e3:.1f} µs.")
    if bench.get("wrong_results"):
        print(f"\n**{bench['wrong_results']} results were WRONG or failed** (see the bench output).")


if __name__ == "__main__":
    main()
