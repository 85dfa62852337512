#!/usr/bin/env bash
# Before and after a `regenerate`: `fewfit evaluate` of several shipped states (directories that each
# hold variants/selected.json and selector/*.json, e.g. one written from `git show`) on the data
# groups that `regenerate` reads, one summary line per state, group and device.
# Groups: the H200's training, tree-only and held-out data (the README's regenerate command), the
# CPUs' training and held-out data, and the Zen 4 VM's large squares (`pocl-zen4-large2`, the
# PoCL bench's shapes). Data files are named by glob, so new datasets of a group join it.
# Usage: bash scripts/evaluate_states.sh STATE_DIR...   (run from the repository root)
set -euo pipefail
root=$(pwd)
fewfit="$root/target/release/fewfit"
d="$root/variants/data"
# The H200 training datasets: the list the peer bench's oracle reads (BENCH_DATA cleared so that it is that list).
BENCH_DATA='' source scripts/device/oracle-data.sh
group() {
  case "$1" in
    h200-train) for f in $ORACLE_DATA; do echo "$root/$f"; done ;;
    h200-tree-only) ls "$d"/h200-v{13,17-db3,18-db3,19-sk-v13,20-ksplit0-128x32}-{trees,tree-dense}-f32.jsonl.gz ;;
    h200-holdout) ls "$d"/h200-v{2,3-skinny,4-mid,4-xgemm,5-rbr,11-ksplit,11-ksplit-set,18-autosplit,17-db3,17-db3-skinny,18-db3,18-db3-skinny,19-sk-v2}-unseen-f32.jsonl.gz ;;
    cpu-train) ls "$d"/pocl-spr2-f32.jsonl.gz "$d"/pocl-zen4-f32.jsonl.gz "$d"/pocl-zen4-ln32-f32.jsonl.gz ;;
    cpu-holdout) ls "$d"/pocl-spr2-unseen-f32.jsonl.gz "$d"/pocl-zen4-unseen-f32.jsonl.gz "$d"/pocl-zen4-ln32-unseen-f32.jsonl.gz ;;
    cpu-large) ls "$d"/pocl-zen4-large2-f32.jsonl.gz ;;
  esac
}
for state in "$@"; do
  for g in h200-train h200-tree-only h200-holdout cpu-train cpu-holdout cpu-large; do
    # shellcheck disable=SC2046
    (cd "$state" && "$fewfit" evaluate --data $(group "$g") 2>/dev/null) \
      | grep -E "^\S.*\[.*\]: " | sed "s|^|$(basename "$state") $g: |"
  done
done
