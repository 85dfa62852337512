#!/usr/bin/env bash
# On the lent GPU machine, after a kernel change: find the new best variants near the old ones,
# then re-measure the likely winners on the training and the held-out shapes with the new kernels.
# Uses the release `fewfit` carried in .device/ (scripts/device/build.sh) and
#   .device/neighbours.jsonl  xgemm variants to try on the large shapes (their parameters only)
#   .device/h200-large-v2.jsonl  an earlier focused sweep with the new kernels, if any
# Writes to $OUT: large.jsonl (focused xgemm sweep), decode.jsonl (direct-family sample on decode
# shapes), h200-v2-f32.jsonl (train.txt) and h200-v2-unseen-f32.jsonl (unseen.txt), each resumed
# from .device/NAME.jsonl when carried back in.
# Usage: bash scripts/device/resweep.sh LARGE_SECS DECODE_SECS POOL_SECS  (0 skips a step, e.g. to
# resume the pool with the large and decode sweeps carried back in)
set -uo pipefail
cd "$(dirname "$0")/../.."
large_secs="$1" decode_secs="$2" pool_secs="$3"
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
for name in large decode h200-v2-f32 h200-v2-unseen-f32; do
  [ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out/$name.jsonl"
done
sweep() { .device/fewfit sweep --device gpu --quiet --no-shipped "$@"; }
[ "$large_secs" -gt 0 ] && sweep --space variants/space-gpu-large.json --shapes variants/shapes/gpu-large.txt --sample 0 --repeats 10 \
  --variants-from .device/neighbours.jsonl --budget-secs "$large_secs" --out "$out/large.jsonl"
[ "$decode_secs" -gt 0 ] && sweep --space variants/space-gpu-direct.json --shapes variants/shapes/decode.txt --sample 250 --repeats 10 \
  --budget-secs "$decode_secs" --out "$out/decode.jsonl"
# The pool: every variant within 5 % of the fastest on some shape of any one dataset, old and new
# (`sweep --near-best` judges each dataset on its own, so runs of different kernel code can be named).
from=(variants/data/h200-f32.jsonl.gz variants/data/h200-dense-f32.jsonl.gz "$out/large.jsonl" "$out/decode.jsonl")
[ -f .device/h200-large-v2.jsonl ] && from+=(.device/h200-large-v2.jsonl)
# The training shapes get all but a fifth of POOL_SECS, the held-out shapes what is left.
deadline=$(( $(date +%s) + pool_secs ))
pool() {  # SHAPES NAME SECS
  [ "$3" -gt 10 ] && sweep --space variants/space-gpu.json --shapes "$1" --sample 0 --repeats 5 \
    --variants-from "${from[@]}" --near-best 1.05 --budget-secs "$3" --out "$out/$2.jsonl"
}
pool variants/shapes/train.txt h200-v2-f32 $(( pool_secs * 4 / 5 ))
pool variants/shapes/unseen.txt h200-v2-unseen-f32 $(( deadline - $(date +%s) ))
wc -l "$out"/*.jsonl
for f in "$out/large.jsonl" "$out/decode.jsonl"; do [ -f "$f" ] && python3 scripts/sweep_best.py "$f" --top 3; done
