#!/usr/bin/env bash
# On the lent GPU machine: a second AVX-512 CPU for a set change made on a 2-core VM. Times the panel
# variants of a dataset (e.g. the set's blocks with PA 0 and 1) on the training and held-out shapes
# through the PoCL installed there (5.0, many cores), then runs the C API test and the `variants`
# tests of the carried binaries on that CPU (the shipped set, built by PoCL 5.0's work-group compiler).
# Binaries: scripts/device/build.sh (fewfit, tests/capi_test, tests/variants). Writes $OUT/NAME-*.jsonl.gz.
# Usage: bash scripts/device/cpu-twin-check.sh NAME VARIANTS_DATA [BUDGET_SECS per shape file, 200]
#          [extra sweep arguments, e.g. --also-with PA=1]
set -uo pipefail
cd "$(dirname "$0")/../.."
name="$1" variants="$2" budget="${3:-200}"
shift $(( $# < 3 ? $# : 3 ))
date -u
for shapes in train unseen; do
  bash scripts/device/cpu-sweep.sh "$name-$shapes" "variants/shapes/$shapes.txt" "$budget" \
    --variants-from "$variants" --machine "$name" "$@" | tail -3
done
export FEWFIT_DEVICE=cpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
echo "== cpu: capi_test"
timeout 240 .device/tests/capi_test 2>&1 | grep -E "^capi_test|^FAIL"
echo "== cpu: variants"
timeout 240 .device/tests/variants --test-threads=1 2>&1 | grep -E "test result|panicked|FAIL"
date -u
