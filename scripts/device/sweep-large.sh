#!/usr/bin/env bash
# On the lent GPU machine: enable NVIDIA's OpenCL, then sweep the xgemm space for large and
# mid-size shapes (variants/space-gpu-large.json x variants/shapes/gpu-large.txt) with the release
# `fewfit` carried in .device/, and print the 5 fastest variants per shape.
# Writes $OUT/$NAME-f32.jsonl(.gz) and $OUT/summary.txt.
# Usage: [SPACE=... SHAPES=... NAME=...] bash scripts/device/sweep-large.sh [SAMPLE [BUDGET_SECS]]
#   (defaults: variants/space-gpu-large.json, variants/shapes/gpu-large.txt, h200-large; 572 and 330)
#
# Order, so that a sweep cut short by the budget still holds what matters:
#  1. the variants listed in .device/seeds.jsonl if carried (the best measured so far at 4096^3 and
#     its one-parameter neighbours), first, so they are timed and set the abandon baseline
#     (records of those variants, any shape; `valid: false`, they only name variants: on
#     2026-11-23 the 4096^3 best, its 20 valid one-parameter neighbours in the space, and the 7
#     other in-space top-2 variants of variants/data/h200-f32.jsonl.gz on these shapes, 28 in all);
#  2. a deterministic sample of SAMPLE variants of the space, in 4 shards run one after another
#     (a sweep walks its variants in the space's order, MWG=64 before MWG=128: shards make a cut
#     lose a random part of the sample rather than its last region).
# Every step gets what is left of BUDGET_SECS; the whole sweep is stopped at BUDGET_SECS + 50 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
sample="${1:-572}" budget="${2:-330}"
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}/${NAME:-h200-large}-f32.jsonl"
shapes="${SHAPES:-variants/shapes/gpu-large.txt}" space="${SPACE:-variants/space-gpu-large.json}"
.device/fewfit devices
start=$(date +%s) deadline=$(( $(date +%s) + budget ))
step() {  # sweep arguments...; runs only while budget is left
  local left=$(( deadline - $(date +%s) ))
  [ "$left" -gt 5 ] || { echo "skipped (budget spent): $*"; return; }
  timeout -k 10 -s INT $(( left + 50 )) .device/fewfit sweep --device gpu --shapes "$shapes" --space "$space" \
    --budget-secs "$left" --repeats 10 --quiet --no-shipped --out "$out" "$@"
  echo "rc=$? after $(( $(date +%s) - start )) s: $*"
}
[ -f .device/seeds.jsonl ] && step --sample 0 --variants-from .device/seeds.jsonl
for i in 0 1 2 3; do step --sample "$sample" --shard "$i/4"; done
wc -l "$out"; gzip -kf "$out"; ls -la "$OUT" 2>/dev/null
python3 scripts/sweep_best.py "$out" --top 5 | tee "${OUT:-/tmp}/summary.txt"
