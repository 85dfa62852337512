#!/usr/bin/env bash
# The shipped set's four CPU blocks timed three times, back to back, on the 32 held-out shapes of at
# most 5 GFLOP (variants/shapes/unseen.txt) on a 2-core AMD EPYC Zen 4 VM (family 25 model 17,
# AVX-512, PoCL 3.1), 2026-11-29 19:00-19:01 UTC, nothing else running; then the shipped `cpu` tree
# judged in each run (its picks, from `fewfit evaluate --per-shape`, by the median and by the
# minimum of each pair's repeats), and the noise floor (scripts/noise_floor.py). set-cpu.jsonl.gz:
# `python3 scripts/set_records.py variants/selected.json set-cpu.jsonl.gz variants/data/pocl-icx-pa-f32.jsonl.gz --kernel panel`.
# Usage: bash docs/data/cpu-noise-2026-11-29/run.sh [sweep]   (writes evaluate.txt, noise-floor.txt)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/cpu-noise-2026-11-29
if [ "${1:-}" = sweep ]; then
  for run in a b c; do
    target/release/fewfit sweep --device cpu --shapes variants/shapes/unseen.txt --max-flops 5e9 --sample 0 \
      --no-shipped --repeats 10 --machine zen4-2026-11-29b --variants-from $dir/set-cpu.jsonl.gz --quiet \
      --out $dir/zen4-unseen-$run.jsonl
    gzip $dir/zen4-unseen-$run.jsonl
  done
fi
for run in a b c; do target/release/fewfit evaluate --data $dir/zen4-unseen-$run.jsonl.gz | tail -1; done > $dir/evaluate.txt
target/release/fewfit evaluate --per-shape --data $dir/zen4-unseen-a.jsonl.gz > $dir/picks.tsv
for stat in median_ms min_ms; do
  echo "== $stat: the shipped cpu tree's picks, then a perfect selector of each run judged in the others"
  python3 scripts/noise_floor.py --statistic $stat --picks $dir/picks.tsv $dir/zen4-unseen-{a,b,c}.jsonl.gz
  python3 scripts/noise_floor.py --statistic $stat $dir/zen4-unseen-{a,b,c}.jsonl.gz
done > $dir/noise-floor.txt
