#!/usr/bin/env bash
# On the lent GPU machine: stream-K of the last wave alone (whole tiles in the full waves, the tiles
# left over shared by steps of K), the carried build (.device/peers, tests), against the build before
# (.device/peers-before: a grid wherever the grid fills 85 % of its waves). First the variants test of
# the carried build (its 1537 x 1543 shape runs whole waves and a streamed remainder); then
# `peers` on shapes.txt, after / before in turn, ROUNDS times, wall and device time, no oracle:
# $OUT/{after,before}-N.txt and .json.
# Usage: [ROUNDS=2] bash docs/data/stream-k-hybrid-2026-11-30/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
.device/tests/variants --test-threads=4 2>&1 | grep -E "^test |test result|panicked|failed" | tee "$OUT/tests.log"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for build in after before; do
    peers=.device/peers; [ $build = before ] && peers=.device/peers-before
    "$peers" --shapes docs/data/stream-k-hybrid-2026-11-30/shapes.txt --json "$OUT/$build-$round.json" > "$OUT/$build-$round.txt" 2>&1
    grep -A9 "GFLOP/s, device time" "$OUT/$build-$round.txt" | head -10
  done
done
date -u
