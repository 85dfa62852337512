#!/usr/bin/env bash
# On the lent GPU machine: the set with the 32 x 32 tile's KSPLIT = 16 twin (the carried build,
# .device/peers) against the set before (.device/peers-before), on the 130 ML shapes, runs in turn
# (scripts/device/bench-two-sets.sh, its GPU tests first; no oracle column). LAYOUT=nt times
# row-major NT. First, with TN=1, the twin beside the tile in row-major TN on shapes.txt (a layout
# device.sh did not time).
# The calls of 2026-11-30 ran "after-ml before-ml after-ml" in NN and "before-ml after-ml before-ml"
# in NT, before bench-two-sets.sh refused a run named twice: each run's outputs overwrote the
# earlier one's of the same name, so ab-nn/ and ab-nt/ hold the last two runs of each.
# Usage: [LAYOUT=nt] [TN=1] [RUNS="after-ml before-ml"] bash docs/data/tile32-ksplit-2026-11-30/ab.sh
# Binaries: on the dev machine, the peers example built at the commit before copied aside, then
# `python3 scripts/substitute_twin.py <the tile's id> KSPLIT=16`, scripts/device/build.sh, the copy put in
# .device/peers-before and .device.tar.xz packed again (the set change itself was reverted after).
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
dir=docs/data/tile32-ksplit-2026-11-30
if [ -n "${TN:-}" ]; then
  SET=$dir/tile32.jsonl PARAMS="KSPLIT=16" SHAPES=$dir/shapes.txt LAYOUTS="tn" TAG=ksplit- \
    bash scripts/device/neighbour-sweep.sh 100
fi
args=(); [ "${LAYOUT:-nn}" = nt ] && args=(--transpose-b)
RUNS="${RUNS:-after-ml before-ml}" NO_ORACLE=1 BENCH_ARGS="${args[*]}" bash scripts/device/bench-two-sets.sh
