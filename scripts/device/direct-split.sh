#!/usr/bin/env bash
# On the lent GPU machine: the set's direct variants (SET, default
# docs/data/direct-split-2026-11-29/set-direct.jsonl, one record each) beside copies that split K,
# in NN and row-major NT, median of 10 device times: neighbour-sweep.sh with FAMILY=direct on the
# shapes of SHAPES (default the training, held-out and tree-only network lists) whose short side,
# min(M, N), is at most MAX_SIDE (default 16).
#   fixed: copies with KSPLIT 0, 2, 4, 8 and 16, to fit the split rule of KSPLIT = 0
#          (src/codegen/params.rs, FILL_DEVICE_LIMITS): $OUT/$prefix-nb-direct-ksplit-{nn,nt}-f32;
#   twins: copies with KSPLIT = 0 alone, to check that rule and judge the twins:
#          $OUT/$prefix-nb-direct-ksplit0-{nn,nt}-f32.
# Usage: [SET=..] [SHAPES=".."] [MAX_SIDE=16] bash scripts/device/direct-split.sh fixed|twins [BUDGET_SECS per layout, 170]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in
  fixed) params="KSPLIT=0 KSPLIT=2 KSPLIT=4 KSPLIT=8 KSPLIT=16"; tag=ksplit- ;;
  twins) params="KSPLIT=0"; tag=ksplit0- ;;
  *) echo "usage: $0 fixed|twins [BUDGET_SECS]" >&2; exit 2 ;;
esac
FAMILY=direct LAYOUTS="nn nt" PARAMS="$params" TAG="$tag" MAX_SIDE="${MAX_SIDE:-16}" \
  SET="${SET:-docs/data/direct-split-2026-11-29/set-direct.jsonl}" \
  SHAPES="${SHAPES:-variants/shapes/train.txt variants/shapes/unseen.txt variants/shapes/train-trees.txt}" \
  exec bash scripts/device/neighbour-sweep.sh "${2:-170}"
