#!/usr/bin/env bash
# On the lent GPU machine: stream-K of the last wave alone (whole tiles in the full waves, the tiles
# left over shared by steps of K), the carried build (.device/peers, tests), against the build before
# (.device/peers-before: a grid wherever the grid fills 85 % of its waves). First the variants test of
# the carried build (its 1537 x 1543 shape runs whole waves and a streamed remainder); then
# `peers` on SHAPES (default shapes.txt), after / before in turn, ROUNDS times, wall and device time,
# no oracle, in the LAYOUTS given (nn, nt: row-major NT): {after,before}-[nt-]N.txt and .json in
# $OUT/runs.tar.gz (the second call returned the first 8 files only: band/ holds its after-* runs).
# The first call (00:52 UTC) ran the last wave alone wherever it was partial; the second
# (SHAPES=band-shapes.txt LAYOUTS="nn nt") only where the grid fills less than 90 % of its waves.
# Usage: [ROUNDS=2] [SHAPES=FILE] [LAYOUTS="nn nt"] bash docs/data/stream-k-hybrid-2026-11-30/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
.device/tests/variants --test-threads=4 2>&1 | grep -E "^test |test result|panicked|failed" | tee "$OUT/tests.log"
for layout in ${LAYOUTS:-nn}; do
  flag=(); tag=; [ $layout = nt ] && flag=(--transpose-b) && tag=nt-
  for round in $(seq 1 "${ROUNDS:-2}"); do
    for build in after before; do
      peers=.device/peers; [ $build = before ] && peers=.device/peers-before
      "$peers" --shapes "${SHAPES:-docs/data/stream-k-hybrid-2026-11-30/shapes.txt}" "${flag[@]}" \
        --json "$OUT/$build-$tag$round.json" > "$OUT/$build-$tag$round.txt" 2>&1
      grep -A10 "GFLOP/s, device time" "$OUT/$build-$tag$round.txt" | cut -c1-40
    done
  done
done
# The device tool returns at most 8 files: the runs go back as one archive.
(cd "$OUT" && tar czf runs.tar.gz after-* before-* && rm -f after-* before-*)
date -u
