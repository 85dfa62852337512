#!/usr/bin/env bash
# Issue 4's CPU measure against an oracle with the set's PA = 2 block: the 21-block pool of
# docs/data/cpu-oracle-2026-12-02 (the PA = 1 and PA = 0 twins among them) and the PA = 2 block
# (space-pa2.json) on the held-out network shapes of at most 5 GFLOP, each shape's blocks in
# rounds, 10 repeats, two runs, on this machine's CPU through PoCL; then `fewfit evaluate` (the
# shipped `cpu` tree, which names the PA = 2 block) and scripts/noise_floor.py, and the same
# picks with the PA = 1 block in its place (the set before) by compare.py.
# Usage: bash docs/data/pa-where-large-2026-12-02/run.sh [sweep] NAME   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/pa-where-large-2026-12-02
mode=${1:-report}; name=${2:-$(hostname)}
fewfit=${FEWFIT:-target/release/fewfit}
out=${OUT:-$dir}
export POCL_AFFINITY=1
if [ "$mode" = sweep ]; then
  for run in 1 2; do
    file=$out/$name-r$run.jsonl.gz
    [ -f "$file" ] && continue
    "$fewfit" sweep --device cpu --shapes variants/shapes/unseen.txt --max-flops 5e9 --space $dir/space-pa2.json \
      --sample 1 --no-shipped --repeats 10 --machine "$name-pa2-$run" --interleave --quiet \
      --variants-from docs/data/cpu-oracle-2026-12-02/pool.jsonl.gz --out /tmp/$name-pa2-r$run.jsonl
    gzip -9c /tmp/$name-pa2-r$run.jsonl > "$file"
  done
fi
[ "$out" = "$dir" ] || exit 0
for run in 1 2; do
  echo "== $name run $run: the cpu tree (best of the set) against the pool's fastest, by the median"
  "$fewfit" evaluate --data $dir/$name-r$run.jsonl.gz | tail -1
done
"$fewfit" evaluate --data $dir/$name-r1.jsonl.gz --per-shape > $dir/$name-picks.tsv
for stat in min_ms median_ms; do
  echo "== by $stat: the tree's picks in each run, then the noise floor"
  python3 scripts/noise_floor.py --statistic $stat --picks $dir/$name-picks.tsv $dir/$name-r1.jsonl.gz $dir/$name-r2.jsonl.gz
  python3 scripts/noise_floor.py --statistic $stat $dir/$name-r1.jsonl.gz $dir/$name-r2.jsonl.gz
done
echo "== the same picks with the PA = 1 block (before) and with PA = 2 (now), by the median"
python3 $dir/compare.py $dir/$name-picks.tsv $dir/$name-r1.jsonl.gz $dir/$name-r2.jsonl.gz
