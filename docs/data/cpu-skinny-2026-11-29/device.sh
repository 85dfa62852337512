#!/usr/bin/env bash
# On the lent GPU machine, its 16-core Intel Xeon through the PoCL installed there: the shipped set's
# four CPU blocks (docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz) on the skinny shapes of at
# most 5 GFLOP, interleaved, 5 repeats: the held-out list (variants/shapes/unseen-skinny.txt, stage
# `heldout`) and the tree-only list (variants/shapes/train-tree-skinny.txt, stage `train`), each under
# a time budget; a sweep carried back in as .device/NAME.jsonl resumes. The second CPU beside the
# Zen 4 VM's records (docs/data/cpu-interleave-2026-11-29) for the `cpu` tree's skinny subtree.
# Stage `recheck` times the Xeon's worst held-out shape and three neighbours (recheck.txt) again in
# three sweeps.
# Usage: bash docs/data/cpu-skinny-2026-11-29/device.sh STAGE BUDGET_SECS
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
stage=$1 budget=$2
sweep() {  # NAME SHAPES: the set's CPU blocks on SHAPES into $OUT/NAME.jsonl(.gz), interleaved
  bash scripts/device/cpu-sweep.sh "$1" "$2" "$budget" --machine gpu-host-xeon-2026-11-29 \
    --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --interleave
}
case $stage in
  heldout) shapes=variants/shapes/unseen-skinny.txt ;;
  train) shapes=variants/shapes/train-tree-skinny.txt ;;
  recheck)
    for run in 1 2 3; do
      sweep xeon16-recheck-$run docs/data/cpu-skinny-2026-11-29/recheck.txt 2>&1 | grep -v "^ "
      rm -f "$OUT/xeon16-recheck-$run.jsonl"
    done
    exit 0 ;;
  *) echo "unknown stage $stage"; exit 2 ;;
esac
date -u
sweep xeon16-skinny-$stage $shapes
mv "$OUT/xeon16-skinny-$stage.jsonl" .device/   # a later call on this machine resumes it
date -u
