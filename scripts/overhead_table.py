#!/usr/bin/env python3
"""Where a call's wall time goes, from the peer bench's JSON (bench/examples/peers.rs --json): per shape,
fewfit's median wall time (queue finished after the call), device time (event START..END), their
difference (launch and completion latency plus host work), and the time for the call to return
(argument checks, kernel choice, enqueue); CLBlast's wall and return times on the same queue; and
the launch floor, an empty kernel timed the same way. All in µs. Standard library only.

Usage: python3 scripts/overhead_table.py PEERS.json"""
import argparse

from set_records import read_json


def us(x):
    return f"{x * 1e3:.1f}" if x is not None else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peers")
    bench = read_json(p.parse_args().peers)
    d = bench["device"]
    print(f"{d['name']} ({d['platform_version'].split(' Linux')[0]}), {bench['date']}, "
          f"{bench.get('precision', 'f32')}; medians of "
          f"{bench['repeats']} calls after {bench['warmup']} warm-up calls, µs.\n")
    floor = bench.get("launch_floor")
    if floor:
        print(f"Launch floor (an empty kernel of one work-item, enqueue + finish): wall {us(floor['wall_ms'])}, "
              f"returns after {us(floor.get('enqueue_ms'))}, device {us(floor['event_ms'])}.\n")
    print("| M x N x K | fewfit wall | fewfit device | wall − device | fewfit returns after | CLBlast wall | CLBlast returns after |")
    print("|---|---|---|---|---|---|---|")
    for r in bench["rows"]:
        f, c = (r.get("fewfit") or {}).get("timing"), (r.get("clblast") or {}).get("timing")
        if not f:
            continue
        gap = f["wall_ms"] - f["event_ms"] if f.get("event_ms") is not None else None
        print(f"| {r['m']}x{r['n']}x{r['k']} | {us(f['wall_ms'])} | {us(f.get('event_ms'))} | {us(gap)} | "
              f"{us(f.get('enqueue_ms'))} | {us(c['wall_ms']) if c else '-'} | {us(c.get('enqueue_ms')) if c else '-'} |")


if __name__ == "__main__":
    main()
