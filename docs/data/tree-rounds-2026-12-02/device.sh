#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's GPU variants timed IN ROUNDS (scripts/device/tree-sweep.sh
# with INTERLEAVE=1) on the four lists that train the GPU trees' NN and NT subtrees (the training
# shapes, the tree-only network, random and skinny shapes), into
# $OUT/h200-v34-il-{nn,nt}-{set,trees,tree-dense,tree-skinny}-f32.jsonl.gz. The trees shipped on
# 2026-12-02 were trained on records timed variant by variant (h200-v29-*, h200-v26-nt-*), whose
# fastest variant of a shape is often the one that met a fast stretch of the machine.
# The set's eight GPU variants: docs/data/tree-v29-2026-11-29/set-v29.jsonl.gz (the set as shipped).
# Resumable: gunzip a partial output into .device/NAME.jsonl and run again; LAYOUTS picks the layouts.
# Usage: [LAYOUTS="NN NT"] [BUDGET=270] bash docs/data/tree-rounds-2026-12-02/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
final_out="$OUT"; export OUT=/tmp/tree-rounds; mkdir -p "$OUT"
for layout in ${LAYOUTS:-NN NT}; do
  deadline=$(( $(date +%s) + ${BUDGET:-270} ))
  for list in set:train trees:train-trees tree-dense:train-tree-dense tree-skinny:train-tree-skinny; do
    left=$(( deadline - $(date +%s) )); [ "$left" -le 5 ] && break
    name="h200-v34-il-${layout,,}-${list%%:*}-f32"
    echo "== $name: variants/shapes/${list#*:}.txt, $left s left"
    INTERLEAVE=1 LAYOUT=$layout SET=docs/data/tree-v29-2026-11-29/set-v29.jsonl.gz bash scripts/device/tree-sweep.sh \
      "variants/shapes/${list#*:}.txt" "$name" "$left" 2>&1 | tail -2
    cp "$OUT/$name.jsonl.gz" "$final_out/"
  done
done
date -u
