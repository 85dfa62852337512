#!/usr/bin/env bash
# On the lent GPU machine: split-K on the mid shapes, where the ML-shape bench (bench-ml.sh) found
# fewfit furthest below cuBLAS (M of 32-256 with large N and K: too few 128x128 tiles for 132 SMs,
# and small tiles re-read the operands). Copies of the xgemm leaders of h200-v4-xgemm (the fastest
# xgemm on some shape) with KSPLIT = 2, 4, 8 and 16, on every training and held-out shape with
# 16 < min(M, N) <= 512 and K >= 1024. Pairs already in the committed H200 datasets are skipped, but for
# the split-K ones (v6, v8: measured before split-K added by PTX reductions on NVIDIA).
# Usage: bash scripts/device/ksplit-sweep.sh [BUDGET_SECS]; writes h200-v11-ksplit[-unseen]-f32.jsonl.gz
# to $OUT (resumes from .device/h200-v11-ksplit-f32.jsonl when carried back in). Binaries:
# scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/ksplit-out}"; mkdir -p "$out" /tmp/ksplit
f=h200-v11-ksplit-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
python3 scripts/shape_list.py /tmp/ksplit/mid.txt variants/shapes/{train,train-ml,unseen}.txt \
  --min-mn-above 16 --min-mn-at-most 512 --min-k 1024
wc -l /tmp/ksplit/mid.txt
python3 - <<'PY'
import gzip, json
with gzip.open('variants/data/h200-v4-xgemm-f32.jsonl.gz', 'rt') as src, gzip.open('/tmp/ksplit/xgemm.jsonl.gz', 'wt') as dst:
    dst.writelines(line for line in src if json.loads(line)['variant']['kernel'] == 'xgemm')
PY
.device/fewfit sweep --device gpu --quiet --no-shipped --repeats 10 --shapes /tmp/ksplit/mid.txt \
  --space variants/space-gpu.json --sample 0 --variants-from /tmp/ksplit/xgemm.jsonl.gz --near-best 1.0 \
  --also-with KSPLIT=2 --also-with KSPLIT=4 --also-with KSPLIT=8 --also-with KSPLIT=16 \
  --skip-measured $(ls variants/data/h200-*.jsonl.gz | grep -v split) \
  --budget-secs "${1:-400}" --out "$out/$f"
python3 scripts/sweep_best.py "$out/$f" --top 3 | tail -20
python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
  "$out/h200-v11-ksplit-unseen-f32.jsonl.gz" "$out/h200-v11-ksplit-f32.jsonl.gz"
date -u
