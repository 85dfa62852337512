#!/usr/bin/env bash
# Issue 4's held-out H200 measure over four runs of the same 87 variants on the 44 held-out network
# shapes (NN and row-major NT): v30 and v31 time each variant over every shape in turn
# (heldout-oracle-2026-11-29/device.sh, then device.sh here), v32 and v33 time each shape's variants
# in rounds (device.sh with INTERLEAVE=1). Per run: the shipped trees and the best of the set against
# that run's oracle (`fewfit evaluate`, median of 10); then scripts/noise_floor.py: a perfect
# selector of one run judged in another (the noise floor), and the trees' picks judged in each run.
# Usage: bash docs/data/heldout-noise-2026-11-30/analyze.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
picks=$(mktemp -d); trap 'rm -rf "$picks"' EXIT
for layout in nn nt; do
  runs=(variants/data/h200-v30-heldout-oracle-$layout-f32.jsonl.gz variants/data/h200-v31-heldout-oracle-$layout-f32.jsonl.gz
        variants/data/h200-v32-heldout-oracle-il-$layout-f32.jsonl.gz variants/data/h200-v33-heldout-oracle-il-$layout-f32.jsonl.gz)
  echo "== ${layout^^}: the shipped trees (best of the set) against each run's oracle"
  for run in "${runs[@]}"; do
    target/release/fewfit evaluate --data "$run" --per-shape > "$picks/$(basename "$run" .jsonl.gz).tsv"
    echo "$(basename "$run"): $(grep '^tree:' "$picks/$(basename "$run" .jsonl.gz).tsv"); $(grep '^best in set:' "$picks/$(basename "$run" .jsonl.gz).tsv")"
  done
  echo "== ${layout^^}: noise floor (a perfect selector of one run judged in another)"
  python3 scripts/noise_floor.py "${runs[@]}" | sed 's|variants/data/||g'
done
