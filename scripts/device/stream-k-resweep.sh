#!/usr/bin/env bash
# On the lent GPU machine (an H200: the records join the H200 datasets): times the stream-K twin
# (SK = 2) of the set's 128 x 128 DB = 1 tile on every shape where an H200 dataset that `regenerate`
# reads holds the tile itself (SK = 0), so that selection and trees can weigh the two on the same
# shapes. Inputs, made on the dev machine (docs/PERFORMANCE.md, "Stream-K"): .device/sk-resweep/NAME.txt,
# the shapes of variants/data/NAME-f32.jsonl.gz where the tile was timed, and .device/sk-resweep/sk2.jsonl.gz,
# a record naming the twin. Writes $OUT/h200-v19-sk-NAME-f32.jsonl.gz for each NAME (NAME without its
# h200- prefix), tests.log (the mechanism tests on the GPU). Stops after BUDGET_SECS (480); run again
# with the partial files carried back in .device/sk-resweep/ to resume.
# Usage: bash scripts/device/stream-k-resweep.sh [BUDGET_SECS]
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: nothing timed"; exit 3; }
out="${OUT:-/tmp}"
deadline=$(( $(date +%s) + ${1:-480} ))
for name in h200-v2-unseen h200-v2 h200-v2-ml h200-v13-trees h200-v13-tree-dense; do
  new="h200-v19-sk-${name#h200-}-f32"
  left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $new"; break; }
  [ -f ".device/sk-resweep/$new.jsonl.gz" ] && gunzip -c ".device/sk-resweep/$new.jsonl.gz" > "$out/$new.jsonl"
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 10 \
    --shapes ".device/sk-resweep/$name.txt" --variants-from .device/sk-resweep/sk2.jsonl.gz \
    --budget-secs "$left" --out "$out/$new.jsonl"
  gzip -f "$out/$new.jsonl"
done
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -4 | tee "$out/tests.log"
date -u
