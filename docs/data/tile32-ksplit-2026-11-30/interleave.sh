#!/usr/bin/env bash
# On the lent GPU machine: the 32 x 32 tile (KSPLIT 8) and its KSPLIT 16 twin (tile32-pair.jsonl)
# timed in rounds on each shape (`fewfit sweep --interleave`), on the 130 ML shapes and on shapes.txt,
# in NN and row-major NT, 10 repeats: $OUT/h200-ksplit16-il-{ml,picks}-{nn,nt}-f32.jsonl.gz. The
# sweeps of device.sh timed each pair's repeats back to back; the ML bench (ab.sh) disagreed.
# Usage: bash docs/data/tile32-ksplit-2026-11-30/interleave.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
dir=docs/data/tile32-ksplit-2026-11-30
python3 scripts/shape_list.py /tmp/ml-shapes.txt variants/shapes/train.txt --networks-only
for list in ml:/tmp/ml-shapes.txt picks:$dir/shapes.txt; do
  for layout in nn nt; do
    flag=(); [ $layout = nt ] && flag=(--transpose-b)
    name=h200-ksplit16-il-${list%%:*}-$layout-f32
    .device/fewfit sweep --device gpu --shapes "${list#*:}" --sample 0 --no-shipped --variants-from $dir/tile32-pair.jsonl \
      --repeats 10 --interleave --quiet "${flag[@]}" --out /tmp/$name.jsonl 2>&1 | tail -1
    gzip -9c /tmp/$name.jsonl > "$OUT/$name.jsonl.gz"
  done
done
date -u
