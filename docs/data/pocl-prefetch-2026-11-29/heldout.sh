#!/usr/bin/env bash
# Issue 4's CPU held-out measure with the prefetching CPU block: the set's four CPU blocks
# (docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz) on the held-out network shapes
# (variants/shapes/unseen.txt) and skinny shapes (unseen-skinny.txt) of at most 5 GFLOP, one
# interleaved sweep each, 10 repeats, as docs/data/cpu-interleave-2026-11-29/run.sh did before the
# change; then the shipped `cpu` tree judged by the minimum and by the median of the repeats.
# Usage: bash docs/data/pocl-prefetch-2026-11-29/heldout.sh MACHINE_LABEL   (writes heldout.txt here)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/pocl-prefetch-2026-11-29 label=$1
for list in unseen unseen-skinny; do
  target/release/fewfit sweep --device cpu --shapes variants/shapes/$list.txt --max-flops 5e9 --sample 0 --no-shipped \
    --repeats 10 --machine "$label" --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz \
    --interleave --quiet --out $dir/zen4-$list.jsonl
  gzip -f $dir/zen4-$list.jsonl
done
for list in unseen unseen-skinny; do
  target/release/fewfit evaluate --per-shape --data $dir/zen4-$list.jsonl.gz > $dir/picks-$list.tsv 2>/dev/null
  for stat in min_ms median_ms; do
    echo "$list, $stat: $(python3 scripts/noise_floor.py --statistic $stat --picks $dir/picks-$list.tsv $dir/zen4-$list.jsonl.gz | tail -1)"
  done
done | tee $dir/heldout.txt
