#!/usr/bin/env bash
# On the lent GPU machine: stream-K (SK) against the shipped tiles, in one call.
#  1. The mechanism tests (tests/mechanisms.rs, carried in .device/tests/): every SK variant there
#     against the f64 reference on edge shapes, through NVIDIA's path (a tile's first part stores and
#     releases it by a flag, the others wait and add by PTX reductions).
#  2. Sweeps of variants/space-gpu-sk.json (the 128 x 128 DB = 1 tile) and space-gpu-sk64.json (the
#     64 x 64 DB = 3 tile) over variants/shapes/stream-k.txt, median of 10 device times.
#  3. Per shape, each SK against SK = 0 (scripts/param_compare.py) and the fastest variants
#     (scripts/sweep_best.py); cuBLAS FP32 on the same shapes (device time: its `event_ms`).
# Writes $OUT/h200-sk-f32.jsonl.gz, $OUT/tests.log, $OUT/compare.txt, $OUT/cublas.txt.
#
# With the argument `set`, instead: the shipped set's GPU variants and their stream-K copies
# (.device/set-sk.jsonl.gz, made on the dev machine by
# `python3 scripts/set_records.py variants/selected.json .device/set-sk.jsonl.gz H200_DATA...
#  --copy-with KSPLIT=1,SK=2 --copy-with KSPLIT=1,SK=4`) swept over the training and held-out shapes
# (variants/shapes/train.txt, unseen.txt) into $OUT/sk-set-f32.jsonl.gz and $OUT/sk-set-unseen-f32.jsonl.gz,
# for scripts/candidate_gain.py on the dev machine.
# Usage: bash scripts/device/stream-k-sweep.sh [set]
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
if [ "${1:-}" = set ]; then
  for shapes in train unseen; do
    name=sk-set; [ "$shapes" = unseen ] && name=sk-set-unseen
    .device/fewfit sweep --device gpu --shapes "variants/shapes/$shapes.txt" --sample 0 --no-shipped \
      --variants-from .device/set-sk.jsonl.gz --repeats 10 --quiet --out "$out/$name-f32.jsonl"
    gzip -f "$out/$name-f32.jsonl"
  done
  exit
fi
data="$out/h200-sk-f32.jsonl"
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -8 | tee "$out/tests.log"
for space in variants/space-gpu-sk.json variants/space-gpu-sk64.json; do
  .device/fewfit sweep --device gpu --shapes variants/shapes/stream-k.txt --space "$space" --repeats 10 \
    --quiet --no-shipped --out "$data"
done
gzip -kf "$data"
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 scripts/param_compare.py "$data" --param SK --base 0
  python3 scripts/sweep_best.py "$data" --top 8
} 2>&1 | tee "$out/compare.txt"
python3 scripts/device/cublas.py --shapes variants/shapes/stream-k.txt 2>&1 | tee "$out/cublas.txt"
