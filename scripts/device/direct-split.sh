#!/usr/bin/env bash
# On the lent GPU machine: the set's direct variants (SET, default
# docs/data/direct-split-2026-11-29/set-direct.jsonl, one record each) beside copies that split K
# (`fewfit sweep --also-with KSPLIT=...`), in NN and row-major NT, median of 10 device times, on the
# shapes of SHAPES (default the training, held-out and tree-only network lists) whose short side,
# min(M, N), is at most MAX_SIDE (default 16): $OUT/$prefix-direct-split-TAG-{nn,nt}-f32.jsonl.gz.
#   fixed: copies with KSPLIT 0, 2, 4, 8 and 16, to fit the split rule of KSPLIT = 0
#          (src/codegen/params.rs, FILL_DEVICE_LIMITS);
#   twins: copies with KSPLIT = 0 alone, to check that rule and judge the twins.
# Usage: [SET=..] [SHAPES=".."] [MAX_SIDE=16] bash scripts/device/direct-split.sh fixed|twins [BUDGET_SECS per layout, 170]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
case "$1" in
  fixed) params="KSPLIT=0 KSPLIT=2 KSPLIT=4 KSPLIT=8 KSPLIT=16" ;;
  twins) params="KSPLIT=0" ;;
  *) echo "usage: $0 fixed|twins [BUDGET_SECS]" >&2; exit 2 ;;
esac
shapes="$out/shapes.txt"
cat ${SHAPES:-variants/shapes/train.txt variants/shapes/unseen.txt variants/shapes/train-trees.txt} |
  awk -v side="${MAX_SIDE:-16}" '!/^#/ && NF >= 3 && ($1 <= side || $2 <= side)' | sort -u > "$shapes"
also=(); for p in $params; do also+=(--also-with "$p"); done
for layout in nn nt; do
  args=(); [ $layout = nt ] && args=(--transpose-b)
  .device/fewfit sweep --device gpu --sample 0 --no-shipped \
    --variants-from "${SET:-docs/data/direct-split-2026-11-29/set-direct.jsonl}" "${also[@]}" \
    --shapes "$shapes" --repeats 10 --quiet --budget-secs "${2:-170}" "${args[@]}" \
    --out "$out/$prefix-direct-split-$1-$layout-f32.jsonl" 2>&1 | tail -2
done
rm -f "$shapes"; gzip -f "$out"/*.jsonl
date -u
