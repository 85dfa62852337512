#!/usr/bin/env bash
# The shipped trees (BEFORE, a crate root; default: this one) against retrained ones (AFTER, the
# scratch root that regenerate.sh printed) on the held-out datasets of both GPUs and on the skinny
# training shapes, each line `fewfit evaluate`'s summary: the tree and the best of the set against
# the best variant the dataset holds. From the crate root with target/release/fewfit built.
# Usage: bash docs/data/tree-h200-skinny-2026-11-28/evaluate.sh AFTER_ROOT [BEFORE_ROOT]
set -euo pipefail
after=$1; before=${2:-$(pwd)}; crate=$(pwd); d=$crate/variants/data
h200=($d/h200-v2-unseen-f32.jsonl.gz $d/h200-v3-skinny-unseen-f32.jsonl.gz $d/h200-v4-mid-unseen-f32.jsonl.gz
  $d/h200-v4-xgemm-unseen-f32.jsonl.gz $d/h200-v5-rbr-unseen-f32.jsonl.gz $d/h200-v11-ksplit-unseen-f32.jsonl.gz
  $d/h200-v11-ksplit-set-unseen-f32.jsonl.gz $d/h200-v18-autosplit-unseen-f32.jsonl.gz $d/h200-v17-db3-unseen-f32.jsonl.gz
  $d/h200-v17-db3-skinny-unseen-f32.jsonl.gz $d/h200-v18-db3-unseen-f32.jsonl.gz $d/h200-v18-db3-skinny-unseen-f32.jsonl.gz
  $d/h200-v19-sk-v2-unseen-f32.jsonl.gz)
run() {  # NAME FILES...: the summary lines of each tree
  local name=$1; shift
  echo "== $name"
  (cd "$before" && "$crate/target/release/fewfit" evaluate --data "$@" | grep -E "^(tree|best in set):" | sed 's/^/before: /')
  (cd "$after" && "$crate/target/release/fewfit" evaluate --data "$@" | grep -E "^(tree|best in set):" | sed 's/^/after:  /')
}
run "H200 held-out network shapes, NN (oracle: the whole space)" "${h200[@]}"
for f in h200-set-unseen-skinny-f32 h200-nt-set-unseen-skinny-f32 h200-nt-set-unseen-f32 \
         h100-set-unseen-skinny-f32 h100-nt-set-unseen-skinny-f32 h100-set-unseen-random-f32 h100-set-unseen-f32 \
         h100-nt-set-unseen-f32 h200-tree-skinny-f32 h100-tree-skinny-f32 h100-nt-tree-skinny-f32; do
  run "$f" "$d/$f.jsonl.gz"
done
