#!/usr/bin/env bash
# On the lent GPU machine: a before/after comparison of a direct-kernel change. Sweeps the compact
# direct space (variants/space-gpu-direct-ab.json, plus the shipped set, whose xgemm variants are
# the run-to-run control) on the decode shapes with two builds of the tuner: .device/before/fewfit
# (the commit before the change) and .device/fewfit (scripts/device/build.sh after it), then prints
# the fastest variants per shape of each and the before / after times (scripts/ab_compare.py).
# Writes $OUT/before.jsonl, $OUT/after.jsonl and $OUT/compare.txt.
# Usage: bash scripts/device/direct-ab.sh [SHAPES_FILE]   (default variants/shapes/decode.txt)
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes="${1:-variants/shapes/decode.txt}"
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
export FEWFIT_DEVICE=gpu
for build in before after; do
  bin=.device/fewfit; [ "$build" = before ] && bin=.device/before/fewfit
  # A cache per build: the two builds' kernels differ but may share a variant id.
  FEWFIT_CACHE_DIR=/tmp/fewfit-cache-$build "$bin" sweep --device gpu --quiet --space variants/space-gpu-direct-ab.json \
    --shapes "$shapes" --repeats 20 --out "$out/$build.jsonl"
done
{
  for build in before after; do
    echo "== fastest per shape, $build"
    python3 scripts/sweep_best.py "$out/$build.jsonl" --top 3
  done
  echo "== before / after"
  python3 scripts/ab_compare.py "$out/before.jsonl" "$out/after.jsonl"
} 2>&1 | tee "$out/compare.txt"
