#!/usr/bin/env bash
# On the lent GPU machine: three builds of the transposed copy in one call, on shapes.txt in
# row-major NN and NT (PyTorch's `Linear`), each with CLBlast and cuBLAS: v1 (.device/peers-before,
# the build of c7c24a6: one 32 x 32 tile per work-group), v2 (.device/peers: two tiles per
# work-group) and v2 with the copy from the other dimension of C 512 (.device/peers-other512,
# TRANSPOSE_MIN_OTHER = 512). Outputs under $OUT/{nn,nt}/{v1,v2,other512}.
# Binaries: scripts/device/build.sh with v2, then the peers example of c7c24a6 copied to
# .device/peers-before and v2's with TRANSPOSE_MIN_OTHER = 512 to .device/peers-other512.
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/transposed-copy-v2-2026-12-04
[ -f .device.tar.xz ] && tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; date -u
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
echo "== transposed_copy"; .device/tests/transposed_copy --test-threads=1 2>&1 | grep -E "^test |test result|panicked"
out="${OUT:-/tmp/v2-out}"
for layout in nn nt; do
  args=""; [ $layout = nt ] && args="--transpose-b"
  for build in v1 v2 other512; do
    peers=.device/peers; [ $build = v1 ] && peers=.device/peers-before; [ $build = other512 ] && peers=.device/peers-other512
    echo "== $layout $build ($peers)"
    OUT="$out/$layout/$build" PEERS="$peers" NO_ORACLE=1 bash scripts/device/bench.sh $here/shapes.txt $args \
      > "$out/$layout-$build.log" 2>&1
    grep -E "geomean" "$out/$layout-$build.log" | head -2
  done
done
tar czf "$out/runs.tar.gz" -C "$out" nn nt && rm -rf "$out/nn" "$out/nt"
date -u
