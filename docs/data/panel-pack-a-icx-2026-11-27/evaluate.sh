#!/usr/bin/env bash
# The `cpu` tree before (0f1ea8a's set and trees) and after the PA = 1 twin, on the four datasets
# that time the set's blocks with PA 0 and 1 (the oracle: the best of those 8 variants).
# Run from the crate root with target/release/fewfit built (`cargo build --release --features tune`).
set -euo pipefail
old=$(mktemp -d); mkdir -p "$old/variants" "$old/selector"
git show 0f1ea8a:variants/selected.json > "$old/variants/selected.json"
for c in cpu default gpu nvidia-gpu; do git show "0f1ea8a:selector/$c.json" > "$old/selector/$c.json"; done
for f in pocl-icx-pa-f32 pocl-icx-pa-unseen-f32 pocl5-xeon16-pa-f32 pocl5-xeon16-pa-unseen-f32; do
  echo "== $f"
  (cd "$old" && "$OLDPWD/target/release/fewfit" evaluate --data "$OLDPWD/variants/data/$f.jsonl.gz" | grep problems | sed 's/^/before: /')
  target/release/fewfit evaluate --data "variants/data/$f.jsonl.gz" | grep problems | sed 's/^/after:  /'
done
