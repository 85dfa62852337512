#!/usr/bin/env bash
# On the lent GPU machine: the cost model of KSPLIT = 0's splits (REDUCTION_SPLIT_COST,
# src/codegen/params.rs) against the limits before it.
#   ab:      scripts/device/split-rule-ab.sh: the shipped set swept on the training and held-out
#            shapes by .device/before/fewfit (the limits) and .device/fewfit (the model), in turn;
#            into $OUT/{before,after}.jsonl.gz and $OUT/compare.txt.
#   heldout: issue 4's held-out measure in rounds with the model (the 87 variants of
#            docs/data/heldout-noise-2026-11-30, RUN=v35): $OUT/h200-v35-heldout-oracle-il-{nn,nt}-f32.jsonl.gz.
# Usage: bash docs/data/split-cost-2026-12-02/device.sh ab|heldout
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
case "$1" in
  ab)
    mkdir -p /tmp/ab; OUT=/tmp/ab bash scripts/device/split-rule-ab.sh 2>&1 | sed -n 1,3p
    gzip -9c /tmp/ab/before.jsonl > "$OUT/before.jsonl.gz"; gzip -9c /tmp/ab/after.jsonl > "$OUT/after.jsonl.gz"
    cp /tmp/ab/compare.txt "$OUT/"; grep -E "^(tree|best in set|NVIDIA)|geomean" /tmp/ab/compare.txt | head -40 ;;
  heldout)
    INTERLEAVE=1 RUN=v35 bash docs/data/heldout-noise-2026-11-30/device.sh nn nt ;;
esac
date -u
