#!/usr/bin/env bash
# On the lent GPU machine: issue 4's held-out H200 measure timed a second time, to learn how much
# of it is noise. The same 87 variants (docs/data/heldout-oracle-2026-11-29/candidates.jsonl.gz:
# the five fastest of the 2026-11-28 oracle run on each of the 44 held-out network shapes, and the
# set as shipped) on the same shapes, the same sweep command and repeats as the first run
# (variants/data/h200-v30-heldout-oracle-{nn,nt}-f32), into
# $OUT/h200-v31-heldout-oracle-{nn,nt}-f32.jsonl.gz (h100-* on an H100: nvidia.sh's prefix). scripts/noise_floor.py then judges, across the
# two runs, a perfect selector of one run in the other and the shipped trees' picks (analyze.sh).
# INTERLEAVE=1 times each shape's variants in rounds (`fewfit sweep --interleave`) instead of each
# variant over every shape in turn: $OUT/h200-v32-heldout-oracle-il-{nn,nt}-f32.jsonl.gz.
# RUN=NAME names the run in the outputs (another interleaved run: RUN=v33).
# Usage: [INTERLEAVE=1] [RUN=NAME] bash docs/data/heldout-noise-2026-11-30/device.sh [nn] [nt]   (both when none is named)
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
run=v31; [ -n "${INTERLEAVE:-}" ] && run=v32; run=${RUN:-$run}
for layout in ${@:-nn nt}; do
  flag=(); [ $layout = nt ] && flag=(--transpose-b)
  [ -n "${INTERLEAVE:-}" ] && flag+=(--interleave) && layout_name=il-$layout || layout_name=$layout
  .device/fewfit sweep --device gpu --shapes variants/shapes/unseen.txt --space variants/space-gpu.json --sample 0 \
    --no-shipped --variants-from docs/data/heldout-oracle-2026-11-29/candidates.jsonl.gz --repeats 10 --quiet \
    "${flag[@]}" --out /tmp/$prefix-$run-heldout-oracle-$layout_name-f32.jsonl 2>&1 | tail -2
  gzip -9c /tmp/$prefix-$run-heldout-oracle-$layout_name-f32.jsonl > "$OUT/$prefix-$run-heldout-oracle-$layout_name-f32.jsonl.gz"
  date -u
done
