#!/usr/bin/env bash
# On the lent GPU machine: runs the correctness tests and the C API test carried in .device/tests
# (scripts/device/build.sh) on its CPU through the PoCL installed there (5.0: another PoCL than the
# dev machine's 3.1, with another work-group compiler), each test alone with a time limit, so that a
# slow or stuck test names itself (2026-11-27: with cold caches each first GEMM built the whole set,
# minutes on PoCL, until the first call built only the tree's variants; the mechanism tests still
# take over 100 s each there); then the kernel-mechanism test on the GPU.
# Usage: [LIMIT=240] bash scripts/device/cpu-tests.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
export FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
limit="${LIMIT:-240}"
echo "== cpu: capi_test"
FEWFIT_DEVICE=cpu timeout "$limit" .device/tests/capi_test 2>&1 | grep -E "^capi_test|^FAIL"
for t in .device/tests/*; do
  [ "$(basename "$t")" = capi_test ] && continue
  for name in $("$t" --list 2>/dev/null | sed -n 's/: test$//p'); do
    start=$(date +%s)
    FEWFIT_DEVICE=cpu timeout "$limit" "$t" --exact "$name" --test-threads=1 2>&1 \
      | grep -E "panicked|Assertion" | head -2
    echo "cpu $(basename "$t") $name: exit ${PIPESTATUS[0]} in $(( $(date +%s) - start )) s"
  done
done
source scripts/device/nvidia.sh
echo "== gpu: mechanisms"
FEWFIT_DEVICE=gpu .device/tests/mechanisms --test-threads=4 2>&1 | grep -E "test result|panicked|failed"
