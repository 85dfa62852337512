#!/usr/bin/env bash
# On the lent GPU machine: times two builds of the peer bench (bench/examples/peers.rs; e.g. before
# and after a change) on the same shapes, in alternating rounds, fewfit only (no CLBlast, no oracle),
# then prints each shape's median wall and device time per build and the ratio old / new (> 1: the
# new build is faster), with geomeans. Outputs under $OUT (or /tmp/compare-builds).
# Usage: bash scripts/device/compare-builds.sh OLD_PEERS NEW_PEERS [SHAPES_FILE] [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
old=$1 new=$2 shapes="${3:-variants/shapes/bench.txt}" rounds="${4:-2}"
out="${OUT:-/tmp/compare-builds}"; mkdir -p "$out"
if [ "${DEVICE:-gpu}" = gpu ]; then source scripts/device/nvidia.sh; fi
export FEWFIT_DEVICE="${DEVICE:-gpu}" FEWFIT_CACHE_DIR="${FEWFIT_CACHE_DIR:-/tmp/fewfit-cache}"
for r in $(seq "$rounds"); do
  for build in old new; do
    bin=$old; [ "$build" = new ] && bin=$new
    "$bin" --shapes "$shapes" --clblast /nonexistent --json "$out/$build-$r.json" > "$out/$build-$r.txt" 2>&1 \
      || { echo "$build round $r failed:"; tail -5 "$out/$build-$r.txt"; }
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, math, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(build):
    runs = [json.load(open(f"{out}/{build}-{r}.json")) for r in range(1, rounds + 1)]
    times = {}
    for run in runs:
        for row in run["rows"]:
            f = row.get("fewfit") or {}
            t = f.get("timing")
            if t and f.get("check") == "ok":
                times.setdefault((row["m"], row["n"], row["k"]), []).append((t["wall_ms"], t["event_ms"], f.get("variant")))
    return runs[0]["device"]["name"], times
device, old = load("old")
_, new = load("new")
print(f"device: {device}; {rounds} alternating rounds; medians of the rounds' medians; ratio old/new (> 1: new faster)")
print(f"{'M':>6} {'N':>6} {'K':>6} {'old wall':>10} {'new wall':>10} {'ratio':>6} {'old dev':>10} {'new dev':>10} {'ratio':>6}  variant old / new")
walls, devs = [], []
for shape in sorted(set(old) & set(new)):
    ow = statistics.median(t[0] for t in old[shape]); nw = statistics.median(t[0] for t in new[shape])
    od = statistics.median(t[1] for t in old[shape]); nd = statistics.median(t[1] for t in new[shape])
    walls.append(ow / nw); devs.append(od / nd)
    print(f"{shape[0]:>6} {shape[1]:>6} {shape[2]:>6} {ow:>10.4f} {nw:>10.4f} {ow/nw:>6.3f} {od:>10.4f} {nd:>10.4f} {od/nd:>6.3f}  {old[shape][0][2]} / {new[shape][0][2]}")
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f"geomean over {len(walls)} shapes: wall {g(walls):.3f}, device {g(devs):.3f}")
PY
