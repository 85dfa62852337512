#!/usr/bin/env bash
# On this session's 2-core VM (AMD EPYC, Zen 4, PoCL 3.1), after its selection records (the 33
# blocks of device.sh `blocks` on the training shapes, variants/data/pocl-epyc4-blocks-f32, and on
# train-large.txt, pocl-epyc4-large-f32; the commands in docs/PERFORMANCE.md, "The CPU blocks chosen
# for a fleet of CPUs"): the set's four CPU blocks (set-cpu.jsonl.gz) on the tree-only network shapes of at most
# 5 GFLOP (5 repeats), the `cpu` tree's 2-core training records, then issue 4's held-out CPU
# measure here: the 33 blocks on the held-out network shapes of at most 5 GFLOP, in rounds, 10
# repeats, two runs. Outputs in $OUT (default /tmp/epyc).
# Usage: bash docs/data/cpu-fleet-2026-12-04/local.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/cpu-fleet-2026-12-04
out=${OUT:-/tmp/epyc}; mkdir -p "$out"
export POCL_AFFINITY=1
sweep() { # NAME SHAPES REPEATS ARGS...
  local name=$1 shapes=$2 repeats=$3; shift 3
  target/release/fewfit sweep --device cpu --shapes "$shapes" --max-flops 5e9 --no-shipped --repeats "$repeats" \
    --machine "epyc-2026-12-04-$name" --interleave --quiet --out "$out/$name.jsonl" "$@" 2>&1 | tail -1
  gzip -9c "$out/$name.jsonl" > "$out/$name.jsonl.gz"; date -u
}
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Model:"
sweep set-trees variants/shapes/train-trees.txt 5 --space variants/space-cpu.json --sample 0 --variants-from $dir/set-cpu.jsonl.gz
for run in 1 2; do
  sweep heldout-r$run variants/shapes/unseen.txt 10 --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 \
    --variants-from variants/data/pocl-spr2-f32.jsonl.gz
done
