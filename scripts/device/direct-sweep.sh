#!/usr/bin/env bash
# On the lent GPU machine, after a change to the direct kernel: time the direct cases of
# kernel_timing, sweep variants/space-gpu-direct.json on the decode shapes, then measure the new
# variants that come within 5 % of the fastest there (those with UKD > 1: the UKD = 1 variants are
# the earlier kernel, already in the h200-v2 datasets) on every skinny shape (min(M, N) <= 128) of
# the training lists and of the held-out list, so selection and training see them wherever the
# direct family can win. Uses the release binaries in .device/ (scripts/device/build.sh).
# Writes to $OUT: kernel-timing.txt, h200-v3-decode-f32.jsonl, h200-v3-skinny-f32.jsonl and
# h200-v3-skinny-unseen-f32.jsonl (each resumed from .device/NAME.jsonl when carried back in).
# Usage: bash scripts/device/direct-sweep.sh DECODE_SECS POOL_SECS  (0 skips a step)
set -uo pipefail
cd "$(dirname "$0")/../.."
decode_secs="$1" pool_secs="$2"
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
for name in h200-v3-decode-f32 h200-v3-skinny-f32 h200-v3-skinny-unseen-f32; do
  [ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out/$name.jsonl"
done
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
.device/kernel_timing direct 2>&1 | tee "$out/kernel-timing.txt"
sweep() { .device/fewfit sweep --device gpu --quiet --no-shipped "$@"; }
decode="$out/h200-v3-decode-f32.jsonl"
[ "$decode_secs" -gt 0 ] && sweep --space variants/space-gpu-direct.json --shapes variants/shapes/decode.txt \
  --repeats 10 --budget-secs "$decode_secs" --out "$decode"
python3 scripts/sweep_best.py "$decode" --top 5
python3 - "$decode" "$out/pool-from.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
best = collections.defaultdict(lambda: float("inf"))
for r in rows:
    if r["valid"]:
        s = (r["m"], r["n"], r["k"])
        best[s] = min(best[s], r["times"]["median_ms"])
keep = {}
for r in rows:
    s = (r["m"], r["n"], r["k"])
    if r["valid"] and r["variant"]["params"].get("UKD", 1) > 1 and r["times"]["median_ms"] <= 1.05 * best[s]:
        keep[json.dumps(r["variant"], sort_keys=True)] = r
with open(sys.argv[2], "w") as f:
    for r in keep.values():
        f.write(json.dumps(r) + "\n")
print(f"pool: {len(keep)} variants with UKD > 1 within 5 % of the fastest on some decode shape")
PY
skinny() {  # the shapes of the given lists with min(M, N) <= 128
  cat "$@" | python3 -c "import sys
for line in sys.stdin:
    f = line.split('#')[0].split()
    if len(f) >= 3 and min(int(f[0]), int(f[1])) <= 128: print(' '.join(f[:3]))"
}
skinny variants/shapes/train.txt variants/shapes/train-ml.txt > /tmp/skinny-train.txt
skinny variants/shapes/unseen.txt > /tmp/skinny-unseen.txt
wc -l /tmp/skinny-train.txt /tmp/skinny-unseen.txt
deadline=$(( $(date +%s) + pool_secs ))
pool() {  # SHAPES NAME SECS
  [ "$3" -gt 10 ] && sweep --space variants/space-gpu-direct.json --shapes "$1" --sample 0 --repeats 5 \
    --variants-from "$out/pool-from.jsonl" --budget-secs "$3" --out "$out/$2.jsonl"
}
pool /tmp/skinny-train.txt h200-v3-skinny-f32 $(( pool_secs * 4 / 5 ))
pool /tmp/skinny-unseen.txt h200-v3-skinny-unseen-f32 $(( deadline - $(date +%s) ))
wc -l "$out"/*.jsonl
