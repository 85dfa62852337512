#!/usr/bin/env bash
# On the lent GPU machine: times the shipped set's H200 variants (those of variants/selected.json
# measured in the committed H200 datasets) on variants/shapes/train-trees.txt, shapes that only
# train the trees (`regenerate --train-only`): trees need the set measured, not the whole pool.
# Usage: bash scripts/device/tree-sweep.sh [BUDGET_SECS]; the dataset goes to $OUT (resumable:
# carry it back in .device/ and run again). Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/tree-out}"; mkdir -p "$out" /tmp/tree
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
[ -f .device/h200-v4-trees-f32.jsonl ] && cp .device/h200-v4-trees-f32.jsonl "$out/"
python3 scripts/set_records.py variants/selected.json /tmp/tree/set.jsonl.gz \
  variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v4-xgemm-f32.jsonl.gz
"$fewfit" sweep --device gpu --shapes variants/shapes/train-trees.txt --space variants/space-gpu.json --sample 0 \
  --no-shipped --variants-from /tmp/tree/set.jsonl.gz --repeats 10 --quiet --budget-secs "${1:-300}" \
  --out "$out/h200-v4-trees-f32.jsonl"
gzip -kf "$out/h200-v4-trees-f32.jsonl"
date -u
