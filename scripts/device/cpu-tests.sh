#!/usr/bin/env bash
# On the lent GPU machine: runs the correctness tests and the C API test carried in .device/tests
# (scripts/device/build.sh) on its CPU through the PoCL installed there (5.0: another PoCL than the
# dev machine's 3.1, with another work-group compiler), then the kernel-mechanism test on the GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
export FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
for t in .device/tests/*; do
  echo "== cpu: $t"
  FEWFIT_DEVICE=cpu "$t" --test-threads=4 2>&1 | grep -E "test result|panicked|failed|Assertion|^capi_test|^FAIL"
  echo "exit ${PIPESTATUS[0]}"
done
source scripts/device/nvidia.sh
echo "== gpu: mechanisms"
FEWFIT_DEVICE=gpu .device/tests/mechanisms --test-threads=4 2>&1 | grep -E "test result|panicked|failed"
