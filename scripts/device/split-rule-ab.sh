#!/usr/bin/env bash
# On the lent GPU machine: a before/after comparison of a change to how KSPLIT = 0 chooses its
# splits (Geometry::splits_for). Sweeps the shipped set on the training and held-out shapes with
# two builds of the tuner, .device/before/fewfit (the commit before the change) and .device/fewfit
# (scripts/device/build.sh after it); only KSPLIT = 0 variants change, the others are the
# run-to-run control. Then `evaluate` of the shipped trees on each sweep, and the before / after
# times per variant (scripts/ab_compare.py). Writes $OUT/{before,after}.jsonl and $OUT/compare.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
shapes=/tmp/fewfit-split-ab-shapes.txt
python3 scripts/shape_list.py "$shapes" variants/shapes/train.txt variants/shapes/unseen.txt
export FEWFIT_DEVICE=gpu
for build in before after; do
  bin=.device/fewfit; [ "$build" = before ] && bin=.device/before/fewfit
  FEWFIT_CACHE_DIR=/tmp/fewfit-cache-$build "$bin" sweep --device gpu --quiet --sample 0 \
    --shapes "$shapes" --repeats 20 --out "$out/$build.jsonl"
done
{
  for build in before after; do
    echo "== evaluate, $build"
    .device/fewfit evaluate --data "$out/$build.jsonl" 2>&1
  done
  echo "== before / after"
  python3 scripts/ab_compare.py "$out/before.jsonl" "$out/after.jsonl"
} 2>&1 | tee "$out/compare.txt"
