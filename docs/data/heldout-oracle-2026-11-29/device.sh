#!/usr/bin/env bash
# On the lent GPU machine: issue 4's held-out H200 measure in one run. The candidates
# (candidates.jsonl.gz) are the five fastest variants on each of the 44 held-out network shapes of
# variants/shapes/unseen.txt in the held-out oracle run of 2026-11-28 (h200-heldout-oracle-f32: the
# set of that day and 195 near-best variants; 80 variants) and the set as shipped now (set-v29, 8;
# 87 in all: one is among the five); all timed on those shapes in NN and in row-major NT, 10
# repeats, into $OUT/h200-v30-heldout-oracle-{nn,nt}-f32.jsonl.gz (the call of 2026-11-29 20:24
# UTC, under `timeout 240`, finished NN; NT was cut; the NT half ran alone on 2026-11-29 evening).
# Usage: bash docs/data/heldout-oracle-2026-11-29/device.sh [nn] [nt]   (both when none is named)
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
dir=docs/data/heldout-oracle-2026-11-29
for layout in ${@:-nn nt}; do
  flag=(); [ $layout = nt ] && flag=(--transpose-b)
  .device/fewfit sweep --device gpu --shapes variants/shapes/unseen.txt --space variants/space-gpu.json --sample 0 \
    --no-shipped --variants-from $dir/candidates.jsonl.gz --repeats 10 --quiet "${flag[@]}" \
    --out /tmp/h200-v30-heldout-oracle-$layout-f32.jsonl 2>&1 | tail -2
  gzip -9c /tmp/h200-v30-heldout-oracle-$layout-f32.jsonl > "$OUT/h200-v30-heldout-oracle-$layout-f32.jsonl.gz"
done
date -u
