#!/usr/bin/env bash
# The GPU trees' NN and NT subtrees trained on the set's records timed in rounds (device.sh:
# variants/data/h200-v34-il-*), grafted into a scratch copy of the shipped trees, and both judged
# on issue 4's held-out shapes: against the oracle of the two in-rounds runs of the 87 variants
# (h200-v3{2,3}-heldout-oracle-il-*), and against the best of the set on the held-out network and
# skinny lists of the v29 records. Writes results.txt beside it.
# Usage: bash docs/data/tree-rounds-2026-12-02/analyze.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/tree-rounds-2026-12-02
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/variants" && cp -r selector "$scratch/" && cp variants/selected.json "$scratch/variants/"
{
  for layout in NN NT; do
    l=${layout,,}
    target/release/fewfit train --class nvidia-gpu --out "$scratch/$l.json" --shape-weights variants/shapes/weights.txt \
      --data variants/data/h200-v34-il-$l-{set,trees,tree-dense,tree-skinny}-f32.jsonl.gz 2>&1 | tail -1
    python3 scripts/graft_subtree.py "$scratch/$l.json" --layout $layout "$scratch/selector/nvidia-gpu.json" \
      "$scratch/selector/gpu.json" > /dev/null
  done
  for root in . "$scratch"; do
    [ "$root" = . ] && echo "== shipped trees" || echo "== both subtrees from the records in rounds"
    for l in nn nt; do
      for data in h200-v32-heldout-oracle-il-$l h200-v33-heldout-oracle-il-$l h200-v29-$l-set-unseen h200-v29-$l-set-unseen-skinny; do
        echo "$data: $(target/release/fewfit evaluate --root "$root" --data variants/data/$data-f32.jsonl.gz 2>/dev/null | grep -E '^tree:')"
      done
    done
  done
} | tee "$here/results.txt"
