#!/usr/bin/env bash
# On the lent GPU machine: the sweeps that train the nvidia-gpu trees of f16, bf16 and tf32: the
# tensor-core space (SAMPLE=64 takes all of its 31 variants in 16-bit storage, 15 in tf32) (variants/space-gpu-mma.json) plus the shipped set (xgemm and
# direct in 16-bit storage, plain f32 kernels for tf32) over the training shapes and the decode
# shapes (every STEP-th training shape, default 3, to fit a call), row-major NN, with the release `fewfit` binary carried in .device/ (scripts/device/build.sh).
# Resumes from .device/NAME.jsonl where carried in; writes $OUT/NAME.jsonl.gz per precision.
# Usage: [SAMPLE=64] [BUDGET=150] [STEP=3] bash scripts/device/sweep-half.sh [PRECISION...]   (default f16 bf16 tf32)
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
shapes=/tmp/fewfit-half-shapes.txt
{ grep -v '^#' variants/shapes/train.txt | awk -v step="${STEP:-3}" 'NR % step == 0'
  grep -v '^#' variants/shapes/decode.txt; } | sort -u > "$shapes"
echo "shapes: $(wc -l < "$shapes")"
for precision in "${@:-f16 bf16 tf32}"; do
  for p in $precision; do
    name="$prefix-mma-$p"
    out="${OUT:-/tmp}/$name.jsonl"
    [ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out"
    echo "== $p"
    .device/fewfit sweep --device gpu --precision "$p" --shapes "$shapes" --space variants/space-gpu-mma.json \
      --sample "${SAMPLE:-64}" --budget-secs "${BUDGET:-150}" --repeats 10 --quiet --out "$out"
    wc -l "$out"; gzip -kf "$out"
  done
done
