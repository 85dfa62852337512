#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's H200 xgemm variants with KSPLIT = 2, 4, 8 and 16 on every
# training and held-out shape with min(M, N) > 8, beyond the mid shapes of ksplit-sweep.sh (whose
# pairs are skipped), so that the rule of KSPLIT = 0 (Geometry::splits_for) is fitted on shapes with
# large C and short K too. Usage: bash scripts/device/ksplit-set-sweep.sh [BUDGET_SECS]; writes
# h200-v11-ksplit-set[-unseen]-f32.jsonl.gz to $OUT (resumes from .device/h200-v11-ksplit-set-f32.jsonl
# when carried back in). Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/ksplit-set-out}"; mkdir -p "$out" /tmp/ksplit-set
f=h200-v11-ksplit-set-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
python3 scripts/shape_list.py /tmp/ksplit-set/shapes.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
python3 scripts/set_records.py variants/selected.json /tmp/ksplit-set/set.jsonl.gz variants/data/h200-*.jsonl.gz --kernel xgemm
.device/fewfit sweep --device gpu --quiet --no-shipped --repeats 10 --shapes /tmp/ksplit-set/shapes.txt \
  --space variants/space-gpu.json --sample 0 --variants-from /tmp/ksplit-set/set.jsonl.gz \
  --also-with KSPLIT=2 --also-with KSPLIT=4 --also-with KSPLIT=8 --also-with KSPLIT=16 \
  --skip-measured variants/data/h200-v11-ksplit-f32.jsonl.gz variants/data/h200-v11-ksplit-unseen-f32.jsonl.gz \
  --budget-secs "${1:-400}" --out "$out/$f"
python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
  "$out/h200-v11-ksplit-set-unseen-f32.jsonl.gz" "$out/h200-v11-ksplit-set-f32.jsonl.gz" --drop KSPLIT=0 --drop KSPLIT=1
date -u
