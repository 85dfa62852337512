#!/usr/bin/env bash
# On the lent GPU machine: enable NVIDIA's OpenCL, run the correctness tests and the main job on
# the GPU, and time cuBLAS on the same shapes. Binaries are built on the dev machine into .device/
# by scripts/device/build.sh and carried there.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
for t in .device/tests/*; do echo "== $t"; "$t" --test-threads=4 2>&1 | grep -E "^test |test result|panicked|failed|^capi_test|^device:|^FAIL" ; done
echo "== main job (cold cache)"; .device/ml_shapes
echo "== main job (warm cache)"; .device/ml_shapes > /tmp/ml-shapes-warm.txt; head -3 /tmp/ml-shapes-warm.txt
echo "== cuBLAS"; python3 scripts/device/cublas.py "1 4096 4096" "8 11008 4096" "128 768 768" "384 3072 768" "512 768 3072" "196 256 2304" "49 512 4608" "16 32000 4096" "1000 1023 999" "1024 1024 1024" "4096 4096 4096"
