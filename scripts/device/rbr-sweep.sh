#!/usr/bin/env bash
# On the lent GPU machine, after adding RBR (the direct kernel's reduction one row of C at a time):
#   1. the mechanism tests on the GPU (RBR = 1 variants among them);
#   2. the variants of variants/space-gpu-direct-rbr.json on the decode shapes;
#   3. those within 5 % of the fastest on some decode shape, on every training and held-out shape
#      with min(M, N) <= 320 (where the direct family can win).
# Usage: bash scripts/device/rbr-sweep.sh [DECODE_SECS] [SKINNY_SECS]; writes to $OUT
# h200-v5-rbr-decode-f32.jsonl and h200-v5-rbr[-unseen]-f32.jsonl.gz (steps 2 and 3 resume from
# .device/NAME.jsonl when carried back in). Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/rbr-out}"; mkdir -p "$out" /tmp/rbr
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
for f in h200-v5-rbr-decode-f32.jsonl h200-v5-rbr-f32.jsonl; do [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"; done
python3 scripts/shape_list.py /tmp/rbr/skinny.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-at-most 320
wc -l /tmp/rbr/skinny.txt
echo "== 1. mechanism tests"
FEWFIT_TEST_DEVICE=require .device/tests/mechanisms --test-threads=2 2>&1 | grep -E "^test |test result|panicked"
sweep() { .device/fewfit sweep --device gpu --quiet --no-shipped --repeats 10 "$@"; }
echo "== 2. RBR = 1 direct variants on the decode shapes"
sweep --space variants/space-gpu-direct-rbr.json --shapes variants/shapes/decode.txt --budget-secs "${1:-150}" \
  --out "$out/h200-v5-rbr-decode-f32.jsonl"
python3 scripts/sweep_best.py "$out/h200-v5-rbr-decode-f32.jsonl" --top 3
echo "== 3. the RBR leaders on the skinny shapes"
sweep --space variants/space-gpu-direct-rbr.json --shapes /tmp/rbr/skinny.txt --sample 0 --near-best 1.05 \
  --variants-from "$out/h200-v5-rbr-decode-f32.jsonl" --skip-measured "$out/h200-v5-rbr-decode-f32.jsonl" --budget-secs "${2:-300}" --out "$out/h200-v5-rbr-f32.jsonl"
python3 scripts/split_by_shapes.py "$out/h200-v5-rbr-f32.jsonl" variants/shapes/unseen.txt \
  "$out/h200-v5-rbr-unseen-f32.jsonl.gz" "$out/h200-v5-rbr-f32.jsonl.gz"
date -u
