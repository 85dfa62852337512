#!/usr/bin/env bash
# On the lent GPU machine, its CPU through the PoCL installed there: the compute units PoCL reports
# (what a core-count tree feature would read), then the set's four CPU blocks as shipped (the
# A-packing block with PA = 2, space-pa2.json of docs/data/pa-where-large-2026-12-02) beside its
# PA = 1 twin (docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz) on the training and tree-only
# network shapes of at most 5 GFLOP, each shape's blocks in rounds, 5 repeats: training records
# for a `cpu` tree that knows the core count. Outputs: $OUT/xeon16-{train,trees}[-RUN].jsonl.gz.
# Usage: [RUN=r2] bash docs/data/cpu-cores-tree-2026-12-02/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket"
clinfo 2>/dev/null | grep -E "Device Name|Max compute units" | paste - - | grep -iv nvidia
export POCL_AFFINITY=1
for list in train:train trees:train-trees; do
  name=xeon16-${list%%:*}${RUN:+-$RUN}
  .device/fewfit sweep --device cpu --shapes variants/shapes/${list#*:}.txt --max-flops 5e9 \
    --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 --no-shipped --repeats 5 \
    --machine gpu-host-xeon-$name --interleave --quiet --budget-secs 220 \
    --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --out /tmp/$name.jsonl 2>&1 | tail -2
  gzip -9c /tmp/$name.jsonl > "$OUT/$name.jsonl.gz"; date -u
done
