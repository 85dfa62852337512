#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's GPU variants timed in row-major NT (tree-sweep.sh with
# LAYOUT=NT) on every shape list that trains or judges the NT subtree, in this order: the training
# shapes (-nt-set), the held-out ones (-nt-set-unseen), the tree-only network shapes (-nt-trees), the
# random ones (-nt-tree-dense) and the skinny ones (-nt-tree-skinny), into
# $OUT/$prefix-PREFIX-nt-*-f32.jsonl.gz. The lists share BUDGET_SECS in that order; each is
# resumable: carry its .jsonl back in .device/ and run again. PREFIX names the set (e.g. v24).
# Usage: bash scripts/device/nt-tree-data.sh PREFIX [BUDGET_SECS, 420]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
deadline=$(( $(date +%s) + ${2:-420} ))
for pair in set:train set-unseen:unseen trees:train-trees tree-dense:train-tree-dense tree-skinny:train-tree-skinny; do
  left=$(( deadline - $(date +%s) )); [ "$left" -le 5 ] && break
  name="$prefix-$1-nt-${pair%%:*}-f32"
  echo "== $name: variants/shapes/${pair#*:}.txt, ${left} s left"
  LAYOUT=NT bash scripts/device/tree-sweep.sh "variants/shapes/${pair#*:}.txt" "$name" "$left" 2>&1 | tail -2
done
date -u
