#!/usr/bin/env bash
# The A-packing CPU block (PA = 1) against its PA = 0 twin with today's panel kernel: the set's
# four blocks and the twin, each shape's blocks in rounds, 5 repeats, on this machine's CPU through
# PoCL. Lists: `squares` (the 7 large shapes of docs/data/pocl-zen4-bench-2026-11-29/pa-squares.txt,
# where packing was measured a gain on Intel AVX-512 CPUs on 2026-11-27; two runs) and `train` (the
# training shapes of variants/shapes/train.txt of at most 5 GFLOP; one run). Then
# scripts/param_compare.py per file. FEWFIT and OUT point it at the GPU machine's copies (device.sh).
# Usage: bash docs/data/pa-twin-2026-12-02/run.sh sweep|report NAME squares|train
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/pa-twin-2026-12-02
mode=$1 name=$2 list=$3
fewfit=${FEWFIT:-target/release/fewfit}
out=${OUT:-$dir}
export POCL_AFFINITY=1
case $list in
  squares) shapes=docs/data/pocl-zen4-bench-2026-11-29/pa-squares.txt runs="1 2" max=1e12 ;;
  train) shapes=variants/shapes/train.txt runs=1 max=5e9 ;;
esac
if [ "$mode" = sweep ]; then
  for run in $runs; do
    file=$out/$name-$list-r$run.jsonl.gz
    [ -f "$file" ] && continue
    "$fewfit" sweep --device cpu --shapes $shapes --max-flops $max --sample 0 --no-shipped --repeats 5 \
      --machine "$name-pa-twin-$list-$run" --interleave --quiet \
      --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --also-with PA=0 \
      --out /tmp/$name-$list-r$run.jsonl
    gzip -9c /tmp/$name-$list-r$run.jsonl > "$file"
  done
fi
for f in "$out"/$name-$list-r*.jsonl.gz; do
  echo "== $f: PA = 1 over PA = 0"
  python3 scripts/param_compare.py "$f" --kernel panel --param PA --base 0 --gflops --large 2e9 2>&1 | tail -3
done
