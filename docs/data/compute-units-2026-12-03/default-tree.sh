#!/usr/bin/env bash
# How often the `default` tree (the one for devices of no known class) picks a CPU block on the H200:
# for the trees of ff3d5aa and of this checkout (or of ROOT, a folder holding selector/ and
# variants/selected.json, such as the output of another `scripts/ship.sh` run), the `default` tree
# is judged as if it were the H200's (`fewfit evaluate`, its class renamed in a scratch copy) on
# the held-out NN and NT network shapes (h200-v36-heldout-oracle-il-*) and the 295 network shapes of
# h200-v2-ml: per dataset, the count of shapes where it picks a `panel` (CPU) block, then the
# geomean over the shapes whose pick the dataset timed. Nothing is measured.
# Usage: bash docs/data/compute-units-2026-12-03/default-tree.sh [ROOT]   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
before=$(mktemp -d); trap 'rm -rf "$before" "$scratch"' EXIT
mkdir -p "$before/selector" "$before/variants"
git show ff3d5aa:variants/selected.json > "$before/variants/selected.json"
for class in cpu nvidia-gpu gpu default; do git show ff3d5aa:selector/$class.json > "$before/selector/$class.json"; done
scratch=$(mktemp -d)
for which in "$before" "${1:-.}"; do
  rm -rf "$scratch"/* && mkdir -p "$scratch/selector" "$scratch/variants"
  cp "$which/variants/selected.json" "$scratch/variants/" && cp "$which"/selector/*.json "$scratch/selector/"
  python3 -c "import json, sys; t = json.load(open(sys.argv[1])); t['class'] = 'nvidia-gpu'; json.dump(t, open(sys.argv[2], 'w'))" \
    "$which/selector/default.json" "$scratch/selector/nvidia-gpu.json"
  [ "$which" = "$before" ] && echo "== the default tree of ff3d5aa" || echo "== the default tree of $which"
  for d in h200-v36-heldout-oracle-il-nn-f32 h200-v36-heldout-oracle-il-nt-f32 h200-v2-ml-f32; do
    panels=$("$fewfit" evaluate --root "$scratch" --per-shape --data variants/data/$d.jsonl.gz 2>/dev/null | awk -F'\t' 'NR > 1 && $3 ~ /^panel/' | wc -l)
    echo "$d: $panels CPU-block picks; $("$fewfit" evaluate --root "$scratch" --data variants/data/$d.jsonl.gz 2>/dev/null | tail -1)"
  done
done
