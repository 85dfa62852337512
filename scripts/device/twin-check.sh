#!/usr/bin/env bash
# On the lent GPU machine: a quick check of the set after twins were substituted. Times the set's
# xgemm tiles named in TILES (default docs/data/set-neighbours-2026-11-29/set-after.jsonl) on the
# held-out shapes (variants/shapes/unseen.txt) in row-major NN and NT (10 repeats):
# $OUT/$prefix-twins-{nn,nt}-unseen-f32.jsonl.gz; runs the GPU `variants` tests and the C API test; then the
# peer bench on the 130 ML shapes in NN and NT (bench-ml.sh, without the oracle) into $OUT/ml, $OUT/ml-nt.
# Usage: bash scripts/device/twin-check.sh   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
for layout in nn nt; do
  args=(); [ "$layout" = nt ] && args=(--transpose-b)
  .device/fewfit sweep --device gpu --sample 0 --no-shipped --variants-from "${TILES:-docs/data/set-neighbours-2026-11-29/set-after.jsonl}" \
    --shapes variants/shapes/unseen.txt --repeats 10 --quiet "${args[@]}" --out "$out/$prefix-twins-$layout-unseen-f32.jsonl" 2>&1 | tail -1
done
gzip -f "$out"/*.jsonl
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
echo "== variants tests"; .device/tests/variants --test-threads=4 2>&1 | grep -E "test result|panicked|FAIL"
echo "== C API test"; .device/tests/capi_test 2>&1 | grep -E "^capi_test|^FAIL"
unset FEWFIT_TEST_DEVICE
echo "== ML shapes, NN"; OUT="$out/ml" NO_ORACLE=1 bash scripts/device/bench-ml.sh > "$out/ml.log" 2>&1; tail -3 "$out/ml/table-wall.md"
echo "== ML shapes, row-major NT"; OUT="$out/ml-nt" NO_ORACLE=1 bash scripts/device/bench-ml.sh --transpose-b > "$out/ml-nt.log" 2>&1
tail -3 "$out/ml-nt/table-wall.md"
rm -f "$out"/ml*/table-*.md.tmp
date -u
