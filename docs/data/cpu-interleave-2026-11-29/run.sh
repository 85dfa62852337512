#!/usr/bin/env bash
# The shipped set's four CPU blocks on the 32 held-out shapes of at most 5 GFLOP (variants/shapes/
# unseen.txt), six sweeps back to back on a 2-core AMD EPYC Zen 4 VM (family 25 model 17, AVX-512,
# PoCL 3.1), 2026-11-29, nothing else running: in turn with `--interleave` (each shape's blocks in
# rounds: runs i1, i2, i3) and without (each pair's repeats back to back, as
# docs/data/cpu-noise-2026-11-29: runs p1, p2, p3). Then, per mode, the shipped `cpu` tree judged in
# each run and the noise floor (scripts/noise_floor.py: a perfect selector of one run judged in
# another). set-cpu.jsonl.gz is that folder's.
# Usage: bash docs/data/cpu-interleave-2026-11-29/run.sh [sweep]   (writes evaluate.txt, noise-floor.txt)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/cpu-interleave-2026-11-29
sweep_set() {  # SHAPES NAME [sweep flags...]: the set's blocks on SHAPES into $dir/NAME.jsonl(.gz)
  local shapes=$1 name=$2; shift 2
  target/release/fewfit sweep --device cpu --shapes "$shapes" --max-flops 5e9 --sample 0 --no-shipped \
    --repeats 10 --machine zen4-2026-11-29c --variants-from $dir/set-cpu.jsonl.gz --quiet "$@" --out $dir/$name.jsonl
}
if [ "${1:-}" = sweep ]; then
  for i in 1 2 3; do
    for mode in i p; do
      flag=(); [ $mode = i ] && flag=(--interleave)
      sweep_set variants/shapes/unseen.txt zen4-unseen-$mode$i "${flag[@]}"
      gzip -f $dir/zen4-unseen-$mode$i.jsonl
    done
  done
fi
for mode in i p; do
  for i in 1 2 3; do echo "$mode$i: $(target/release/fewfit evaluate --data $dir/zen4-unseen-$mode$i.jsonl.gz | tail -1)"; done
done > $dir/evaluate.txt
for mode in i p; do
  target/release/fewfit evaluate --per-shape --data $dir/zen4-unseen-${mode}1.jsonl.gz > $dir/picks-$mode.tsv
  for stat in median_ms min_ms; do
    echo "== $mode, $stat: the shipped cpu tree's picks, then a perfect selector of each run judged in the others"
    python3 scripts/noise_floor.py --statistic $stat --picks $dir/picks-$mode.tsv $dir/zen4-unseen-${mode}{1,2,3}.jsonl.gz
    python3 scripts/noise_floor.py --statistic $stat $dir/zen4-unseen-${mode}{1,2,3}.jsonl.gz
  done
done > $dir/noise-floor.txt
# The held-out skinny shapes of at most 5 GFLOP (variants/shapes/unseen-skinny.txt), one interleaved
# sweep (run with `skinny`; the evaluation lines are appended to evaluate.txt and noise-floor.txt).
if [ "${1:-}" = skinny ]; then
  sweep_set variants/shapes/unseen-skinny.txt zen4-unseen-skinny-i1 --interleave
  gzip -f $dir/zen4-unseen-skinny-i1.jsonl
fi
if [ -f $dir/zen4-unseen-skinny-i1.jsonl.gz ]; then
  echo "skinny i1: $(target/release/fewfit evaluate --data $dir/zen4-unseen-skinny-i1.jsonl.gz | tail -1)" >> $dir/evaluate.txt
  target/release/fewfit evaluate --per-shape --data $dir/zen4-unseen-skinny-i1.jsonl.gz > $dir/picks-skinny.tsv
  for stat in median_ms min_ms; do
    echo "== skinny i1, $stat: the shipped cpu tree's picks"
    python3 scripts/noise_floor.py --statistic $stat --picks $dir/picks-skinny.tsv $dir/zen4-unseen-skinny-i1.jsonl.gz
  done >> $dir/noise-floor.txt
fi
# The 1,495 skinny tree-only shapes (variants/shapes/train-tree-skinny.txt) of at most 5 GFLOP, one
# interleaved sweep (run with `tree-skinny`): shapes no CPU dataset held, for a later `cpu` tree.
if [ "${1:-}" = tree-skinny ]; then
  sweep_set variants/shapes/train-tree-skinny.txt zen4-tree-skinny-i1 --interleave --budget-secs 1500
  gzip -kf $dir/zen4-tree-skinny-i1.jsonl
fi
if [ -f $dir/zen4-tree-skinny-i1.jsonl.gz ]; then
  echo "tree-skinny i1: $(target/release/fewfit evaluate --data $dir/zen4-tree-skinny-i1.jsonl.gz | tail -1)" >> $dir/evaluate.txt
fi
