#!/usr/bin/env bash
# On the lent GPU machine: the transposed copy of an operand contiguous along K into scratch buffers
# reused across calls, before and after in one call. First tests/transposed_copy of the carried
# build on the GPU (bench-two-sets.sh then runs the variants, errors and threads tests), then
# scripts/device/bench-two-sets.sh on shapes.txt in row-major NN and NT (PyTorch's `Linear`), fewfit
# after (.device/peers) and before (.device/peers-before, the build of dfb75de) in turn, with
# CLBlast and cuBLAS in each run. Outputs under $OUT/nn and $OUT/nt.
# Binaries: scripts/device/build.sh with the change, .device/tests/transposed_copy (its test),
# .device/peers-before (dfb75de).
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/transposed-copy-reuse-2026-12-04
[ -f .device.tar.xz ] && tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; date -u
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
echo "== transposed_copy"; .device/tests/transposed_copy --test-threads=1 2>&1 | grep -E "^test |test result|panicked"
for layout in ${LAYOUTS:-nn nt}; do
  args=""; [ $layout = nt ] && args="--transpose-b"
  OUT="${OUT:-/tmp}/$layout" RUNS="after-bench before-bench" SHAPES=$here/shapes.txt NO_ORACLE=1 BENCH_ARGS="$args" \
    bash scripts/device/bench-two-sets.sh 2>&1 | grep -v "^test " | tail -12
done
date -u
