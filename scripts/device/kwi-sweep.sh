#!/usr/bin/env bash
# On the lent GPU machine: KWI (the multiply loop's unroll within a slice of K) on the set's three
# DB = 3 tiles, whose row-major NT entry point holds KWI steps of both operands in registers (254
# registers in the 128 x 32 tile's at KWI = 8, against 128 in NN). Times the copies named in
# docs/data/kwi-nt-2026-11-29/variants.jsonl (each tile at KWI 2, 4 and 8, 64 x 64 at 2 and 4) on the
# shapes of variants/shapes/$SHAPES.txt (default "train unseen") in the row-major LAYOUTS (default
# "nt"), median of 10 device times:
# $OUT/$prefix-kwi-$layout-f32.jsonl.gz, and KWI against 2 and against 8 in $OUT/kwi-compare.txt.
# Usage: [LAYOUTS="nt nn"] [SHAPES=train] bash scripts/device/kwi-sweep.sh [BUDGET_SECS per sweep, 300]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
for layout in ${LAYOUTS:-nt}; do
  args=()
  case $layout in nt) args=(--transpose-b) ;; tn) args=(--transpose-a) ;; esac
  for shapes in ${SHAPES:-train unseen}; do
    .device/fewfit sweep --device gpu --sample 0 --no-shipped --variants-from docs/data/kwi-nt-2026-11-29/variants.jsonl \
      --shapes "variants/shapes/$shapes.txt" --repeats 10 --quiet --budget-secs "${1:-300}" "${args[@]}" \
      --out "$out/$prefix-kwi-$layout-f32.jsonl" 2>&1 | tail -2
  done
done
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for layout in ${LAYOUTS:-nt}; do
    for base in 2 8; do
      echo "## $layout: KWI against $base"
      python3 scripts/param_compare.py "$out/$prefix-kwi-$layout-f32.jsonl" --param KWI --base $base
    done
  done
} > "$out/kwi-compare.txt" 2>&1
cat "$out/kwi-compare.txt"
gzip -f "$out"/*.jsonl
