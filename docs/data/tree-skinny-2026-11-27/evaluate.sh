#!/usr/bin/env bash
# The GPU trees before (1bba025) and after the skinny tree-only data, on the H100 held-out datasets
# (the set's 8 GPU variants timed: the oracle is the best of the set) and the H200's held-out
# network shapes (the oracle is the best of the whole space). From the crate root with
# target/release/fewfit built (`cargo build --release --features tune`).
set -euo pipefail
old=$(mktemp -d); mkdir -p "$old/variants" "$old/selector"
git show 1bba025:variants/selected.json > "$old/variants/selected.json"
for c in cpu default gpu nvidia-gpu; do git show "1bba025:selector/$c.json" > "$old/selector/$c.json"; done
d=variants/data
h200=($d/h200-v2-unseen-f32.jsonl.gz $d/h200-v3-skinny-unseen-f32.jsonl.gz $d/h200-v4-mid-unseen-f32.jsonl.gz
  $d/h200-v4-xgemm-unseen-f32.jsonl.gz $d/h200-v5-rbr-unseen-f32.jsonl.gz $d/h200-v11-ksplit-unseen-f32.jsonl.gz
  $d/h200-v11-ksplit-set-unseen-f32.jsonl.gz $d/h200-v18-autosplit-unseen-f32.jsonl.gz $d/h200-v17-db3-unseen-f32.jsonl.gz
  $d/h200-v17-db3-skinny-unseen-f32.jsonl.gz $d/h200-v18-db3-unseen-f32.jsonl.gz $d/h200-v18-db3-skinny-unseen-f32.jsonl.gz
  $d/h200-v19-sk-v2-unseen-f32.jsonl.gz)
run() {  # NAME FILES...: the summary line of each tree
  local name=$1; shift
  echo "== $name"
  (cd "$old" && "$OLDPWD/target/release/fewfit" evaluate --data "${@/#/$OLDPWD/}" | grep problems | sed 's/^/before: /')
  target/release/fewfit evaluate --data "$@" | grep problems | sed 's/^/after:  /'
}
for f in h100-set-unseen-skinny-f32 h100-nt-set-unseen-skinny-f32 h100-set-unseen-random-f32 h100-set-unseen-f32 \
         h100-nt-set-unseen-f32 h100-tree-skinny-f32 h100-nt-tree-skinny-f32; do
  run "$f" "$d/$f.jsonl.gz"
done
run "H200 held-out network shapes" "${h200[@]}"
