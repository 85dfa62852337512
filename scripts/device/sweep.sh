#!/usr/bin/env bash
# On the lent GPU machine: enable NVIDIA's OpenCL, then sweep a sample of the GPU space with the
# release `fewfit` binary carried in .device/ (built by scripts/device/build.sh). Resumes from
# .device/NAME.jsonl if carried in; writes $OUT/NAME.jsonl(.gz).
# Usage: bash scripts/device/sweep.sh NAME SHAPES SAMPLE BUDGET_SECS [extra sweep arguments]
# e.g.   bash scripts/device/sweep.sh h200-unseen variants/shapes/unseen.txt 150 400 \
#          --variants-from variants/data/h200-v2-f32.jsonl.gz
set -uo pipefail
cd "$(dirname "$0")/../.."
name="$1" shapes="$2" sample="$3" budget="$4"; shift 4
source scripts/device/nvidia.sh
out="${OUT:-/tmp}/$name.jsonl"
[ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out"
.device/fewfit devices
.device/fewfit sweep --device gpu --shapes "$shapes" --space variants/space-gpu.json \
  --sample "$sample" --budget-secs "$budget" --repeats 10 --quiet --out "$out" "$@"
wc -l "$out"; gzip -kf "$out"
