#!/usr/bin/env bash
# On the lent GPU machine: stream-K (SK) against the shipped set, in one call. Outputs are named
# after the GPU ($prefix: h200 or h100).
#  1. The mechanism tests (tests/mechanisms.rs, carried in .device/tests/): every SK variant there
#     against the f64 reference on edge shapes, through NVIDIA's path (a tile's first part stores and
#     releases it by a flag, the others wait and add by PTX reductions). $OUT/tests.log.
#  2. The set's 128 x 128 DB = 1 and 64 x 64 DB = 3 tiles with SK = 0, 1, 2 (and 4)
#     (variants/space-gpu-sk.json, space-gpu-sk64.json) over variants/shapes/stream-k.txt, median of
#     10 device times, into $OUT/$prefix-sk-tiles-f32.jsonl.gz; SK against SK = 0 per shape and the fastest
#     variants in $OUT/compare.txt; cuBLAS FP32 on the same shapes in $OUT/cublas.txt (device time:
#     its `event_ms`).
#  3. The shipped set's GPU variants and their stream-K copies (.device/set-sk.jsonl.gz, made on the
#     dev machine by `python3 scripts/set_records.py variants/selected.json .device/set-sk.jsonl.gz
#     H200_DATA... --copy-with KSPLIT=1,SK=2 --copy-with KSPLIT=1,SK=4`) over the training and
#     held-out shapes (variants/shapes/train.txt, unseen.txt), into $OUT/$prefix-sk-set-f32.jsonl.gz and
#     $OUT/$prefix-sk-set-unseen-f32.jsonl.gz, for scripts/candidate_gain.py on the dev machine.
# Usage: bash scripts/device/stream-k-sweep.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -8 | tee "$out/tests.log"
sweep() {  # shapes out args...
  local shapes=$1 name=$2; shift 2
  .device/fewfit sweep --device gpu --shapes "$shapes" --repeats 10 --quiet --no-shipped \
    --out "$out/$prefix-$name-f32.jsonl" "$@"
}
for space in variants/space-gpu-sk.json variants/space-gpu-sk64.json; do
  sweep variants/shapes/stream-k.txt sk-tiles --space "$space"
done
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 scripts/param_compare.py "$out/$prefix-sk-tiles-f32.jsonl" --param SK --base 0
  python3 scripts/sweep_best.py "$out/$prefix-sk-tiles-f32.jsonl" --top 8
} 2>&1 > "$out/compare.txt"
python3 scripts/device/cublas.py --shapes variants/shapes/stream-k.txt > "$out/cublas.txt" 2>&1
sweep variants/shapes/train.txt sk-set --sample 0 --variants-from .device/set-sk.jsonl.gz
sweep variants/shapes/unseen.txt sk-set-unseen --sample 0 --variants-from .device/set-sk.jsonl.gz
gzip -f "$out"/*.jsonl
ls -la "$out"
