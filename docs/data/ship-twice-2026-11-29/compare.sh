#!/usr/bin/env bash
# The trees of several roots (each a checkout holding variants/selected.json and selector/*.json,
# e.g. two runs of scripts/ship.sh in fresh clones, and this repository) on the held-out lists:
# issue 4's H200 measure (docs/data/direct-split-2026-11-29/heldout.sh: 44 network shapes against
# the 195-variant oracle run of 2026-11-28) and `fewfit evaluate` on the set's own one-run H200
# records of the held-out network and skinny shapes (h200-v26-*-set-unseen*, NN and NT: the best of
# the set, not the oracle), on the two training CPUs' held-out files (which never timed the PA = 1
# twin, so picks of it go unscored) and on three CPUs no training file holds, whose held-out files
# time the twin (Ice Lake, the GPU machine's Xeon through PoCL 5.0, an AVX2 Zen 3).
# Usage: bash docs/data/ship-twice-2026-11-29/compare.sh ROOT...   (from the repository root)
set -euo pipefail
repo=$(pwd)
for root in "$@"; do
  echo "== $root"
  ROOT="$root" bash docs/data/direct-split-2026-11-29/heldout.sh 2>&1 | tail -1
  (cd "$root" && "$repo/target/release/fewfit" evaluate --data \
    "$repo"/variants/data/h200-v26-n{n,t}-set-unseen-f32.jsonl.gz "$repo"/variants/data/h200-v26-n{n,t}-set-unseen-skinny-f32.jsonl.gz \
    "$repo"/variants/data/pocl-zen4-unseen-f32.jsonl.gz "$repo"/variants/data/pocl-spr2-unseen-f32.jsonl.gz \
    "$repo"/variants/data/pocl-icx-pa-unseen-f32.jsonl.gz "$repo"/variants/data/pocl5-xeon16-pa-unseen-f32.jsonl.gz \
    "$repo"/variants/data/pocl-zen3-cap-unseen-f32.jsonl.gz 2>&1 | grep problems)
done
