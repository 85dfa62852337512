#!/usr/bin/env bash
# Issue 4's held-out H200 measure with KSPLIT = 0 under the cost model for DB <= 3 tiles (v35,
# device.sh heldout) beside the two in-rounds runs before it (v32, v33; 2026-11-30): the shipped
# trees and the best of the set against each run's oracle (`fewfit evaluate`), the picks whose
# slowdown moved by more than 3 % between v33 and v35, and the noise floor between the runs
# (scripts/noise_floor.py). Writes heldout.txt beside it.
# Usage: bash docs/data/split-cost-2026-12-02/heldout.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/split-cost-2026-12-02
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
  for l in nn nt; do
    echo "== ${l^^}"
    for r in v32 v33 v35; do
      target/release/fewfit evaluate --per-shape --data variants/data/h200-$r-heldout-oracle-il-$l-f32.jsonl.gz 2>/dev/null > "$tmp/$r.tsv"
      echo "$r: $(grep -E '\[nvidia-gpu\]' "$tmp/$r.tsv" | sed 's/.*\[nvidia-gpu\]: //')"
    done
    echo "picks that moved by more than 3 % from v33 to v35 (slowdown against each run's oracle):"
    join -t$'\t' <(awk -F'\t' 'NR > 1 && $2 ~ /x/ {print $2 "\t" $3 "\t" $4}' "$tmp/v33.tsv" | sort) \
                 <(awk -F'\t' 'NR > 1 && $2 ~ /x/ {print $2 "\t" $4}' "$tmp/v35.tsv" | sort) \
      | awk -F'\t' '{ if ($4 / $3 < 0.97 || $4 / $3 > 1.03) printf "  %s %s: %.3f -> %.3f\n", $1, $2, $3, $4 }'
    python3 scripts/noise_floor.py variants/data/h200-v3{2,3,5}-heldout-oracle-il-$l-f32.jsonl.gz | sed 's|variants/data/||g'
  done
} | tee $here/heldout.txt
