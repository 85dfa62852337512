#!/usr/bin/env bash
# Issue 4's CPU measure against an oracle, on this machine's CPU through PoCL: the `cpu` tree's
# picks against the fastest of a pool of 24 CPU blocks (pool.jsonl.gz: the 20 of the Zen 4
# held-out sweeps of 2026-11-26 and the set's four) on the held-out network shapes of at most
# 5 GFLOP (variants/shapes/unseen.txt), each shape's blocks timed in rounds, 10 repeats, two runs.
# Then scripts/noise_floor.py by the minimum and by the median: the tree's picks in each run, and
# a perfect selector of one run judged in the other (the noise floor).
# Usage: bash docs/data/cpu-oracle-2026-12-02/run.sh [sweep]   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=${DIR:-docs/data/cpu-oracle-2026-12-02}  # DIR: another folder for the runs and the report (the pool stays here)
pool=docs/data/cpu-oracle-2026-12-02/pool.jsonl.gz
export POCL_AFFINITY=1
if [ "${1:-}" = sweep ]; then
  for run in 1 2; do
    [ -f $dir/run$run.jsonl.gz ] && continue
    target/release/fewfit sweep --device cpu --shapes variants/shapes/unseen.txt --max-flops 5e9 --sample 0 \
      --no-shipped --repeats 10 --machine "$(hostname)-cpu-oracle-$run" --variants-from $pool \
      --interleave --quiet --out $dir/run$run.jsonl
    gzip -f $dir/run$run.jsonl
  done
fi
{
  target/release/fewfit evaluate --data $dir/run1.jsonl.gz --per-shape > $dir/picks.tsv
  for run in 1 2; do
    echo "== run $run: the cpu tree (best of the set) against the pool's fastest, by the median"
    target/release/fewfit evaluate --data $dir/run$run.jsonl.gz | tail -3
  done
  for stat in min_ms median_ms; do
    echo "== by $stat: the tree's picks in each run, then the noise floor"
    python3 scripts/noise_floor.py --statistic $stat --picks $dir/picks.tsv $dir/run1.jsonl.gz $dir/run2.jsonl.gz
    python3 scripts/noise_floor.py --statistic $stat $dir/run1.jsonl.gz $dir/run2.jsonl.gz
  done
} > $dir/results.txt 2>&1
cat $dir/results.txt
