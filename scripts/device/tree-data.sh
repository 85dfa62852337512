#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's GPU variants timed in one layout (tree-sweep.sh; LAYOUT
# NN or NT, default NT) on every shape list that trains or judges that layout's subtree, in this
# order: the training shapes (-set), the held-out ones (-set-unseen), the tree-only network shapes
# (-trees), the random ones (-tree-dense), the skinny ones (-tree-skinny) and the held-out skinny
# ones (-set-unseen-skinny), into $OUT/$prefix-PREFIX-nn-*-f32.jsonl.gz (-nt- for NT). The lists
# share BUDGET_SECS in that order; each is resumable: carry its .jsonl back in .device/ and run
# again. PREFIX names the set (e.g. v25); SET=FILE (records, scripts/set_records.py) names its
# variants, which tree-sweep.sh otherwise takes from the H200 datasets, CPU blocks included.
# Usage: [LAYOUT=NN] [SET=FILE] bash scripts/device/tree-data.sh PREFIX [BUDGET_SECS, 420]
# Binaries: scripts/device/build.sh. (Named nt-tree-data.sh until 2026-11-29, when it took LAYOUT.)
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
layout="${LAYOUT:-NT}"
deadline=$(( $(date +%s) + ${2:-420} ))
for pair in set:train set-unseen:unseen trees:train-trees tree-dense:train-tree-dense \
            tree-skinny:train-tree-skinny set-unseen-skinny:unseen-skinny; do
  left=$(( deadline - $(date +%s) )); [ "$left" -le 5 ] && break
  name="$prefix-$1-${layout,,}-${pair%%:*}-f32"
  echo "== $name: variants/shapes/${pair#*:}.txt, ${left} s left"
  LAYOUT="$layout" bash scripts/device/tree-sweep.sh "variants/shapes/${pair#*:}.txt" "$name" "$left" 2>&1 | tail -2
done
date -u
