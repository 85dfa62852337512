#!/usr/bin/env bash
# On the lent GPU machine: after a change to how KSPLIT = 0 chooses its splits (Geometry::splits_for)
# the KSPLIT = 0 records of the H200 datasets are stale. For each OLD=NEW pair below, the KSPLIT = 0
# variants of variants/data/h200-OLD-f32 are timed again on that file's shapes into
# $OUT/h200-NEW-f32.jsonl.gz; on the dev machine `scripts/records_with.py OLD KSPLIT=0 --rest OLD`
# then drops the stale records, so that the two load together. Most important first (the set's
# tile and the selection's candidates on the training and held-out shapes, then the tree-only
# shapes, then the older leaders' copies). Stops after BUDGET_SECS (500) in all; carry the partial
# .jsonl.gz files back in .device/ksplit0/ and run again to resume: nothing is measured twice.
# Each variant is timed on every shape of its file, so a file whose records were not the whole
# product gets more pairs than it had; where another dataset holds some of them, drop them from one
# of the two before they load together (56 pairs of h200-v18-db3-f32 that -large holds, 2026-11-26).
# Usage: bash scripts/device/ksplit0-resweep.sh [BUDGET_SECS]. Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/ksplit0-out}"; mkdir -p "$out" /tmp/ksplit0
deadline=$(( $(date +%s) + ${1:-500} ))
export FEWFIT_DEVICE=gpu
for pair in v17-db3=v18-db3 v17-db3-unseen=v18-db3-unseen v17-db3-skinny=v18-db3-skinny \
    v17-db3-skinny-unseen=v18-db3-skinny-unseen v16-db3-large=v18-db3-large v17-db3-trees=v18-db3-trees \
    v17-db3-tree-dense=v18-db3-tree-dense v13-autosplit=v18-autosplit v13-autosplit-unseen=v18-autosplit-unseen; do
  old="${pair%=*}"; new="h200-${pair#*=}-f32"
  left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $new"; break; }
  [ -f ".device/ksplit0/$new.jsonl.gz" ] && gunzip -c ".device/ksplit0/$new.jsonl.gz" > "$out/$new.jsonl"
  python3 scripts/records_with.py "variants/data/h200-$old-f32.jsonl.gz" KSPLIT=0 \
    --variants "/tmp/ksplit0/$old.jsonl.gz" --shapes "/tmp/ksplit0/$old.txt"
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 10 \
    --space variants/space-gpu.json --shapes "/tmp/ksplit0/$old.txt" \
    --variants-from "/tmp/ksplit0/$old.jsonl.gz" --budget-secs "$left" --out "$out/$new.jsonl"
  gzip -f "$out/$new.jsonl"
done
date -u
