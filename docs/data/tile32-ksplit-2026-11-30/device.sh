#!/usr/bin/env bash
# On the lent GPU machine: the set's 32 x 32 split-K tile (tile32.jsonl: DB 3, KSPLIT 8, KWI 4, VWK 8)
# beside its KSPLIT = 0 (splits chosen per launch by the host's rule), 4 and 16 copies, on the
# shapes where the shipped trees pick it (shapes.txt, make_shapes.sh), in NN and row-major NT, median
# of 10 device times (scripts/device/neighbour-sweep.sh): $OUT/h200-nb-xgemm-ksplit-{nn,nt}-f32.jsonl.gz.
# Usage: bash docs/data/tile32-ksplit-2026-11-30/device.sh [BUDGET_SECS per layout, 200]
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
dir=docs/data/tile32-ksplit-2026-11-30
SET=$dir/tile32.jsonl PARAMS="KSPLIT=0 KSPLIT=4 KSPLIT=16" SHAPES=$dir/shapes.txt LAYOUTS="nn nt" TAG=ksplit- \
  bash scripts/device/neighbour-sweep.sh "${1:-200}"
