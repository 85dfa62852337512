#!/usr/bin/env bash
# On the lent GPU machine: issue 4's held-out measure on one card in one run. The 44 held-out network
# shapes of variants/shapes/unseen.txt are timed in NN with the shipped set and every variant within
# 5 % of the fastest on some shape of the committed H200 held-out datasets (`--near-best 1.05`:
# the candidates for the oracle), today's kernels for all of them. `fewfit evaluate` on the output
# then scores the set and trees against an oracle timed in the same run, where the committed files
# mix sweeps of 2026-11-22 to 2026-11-26. Each shape's variants are timed in rounds (`--interleave`):
# timed one variant after another, an oracle of many variants is too fast (docs/PERFORMANCE.md,
# "Issue 4's held-out H200 measure, timed again and timed in rounds"). Writes $OUT/PREFIX-heldout-oracle-f32.jsonl.gz; stops
# after BUDGET_SECS (480) and resumes from .device/heldout-oracle/ when run again with the partial
# file carried there.
# Usage: bash scripts/device/heldout-oracle.sh [BUDGET_SECS]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
name="$prefix-heldout-oracle-f32"
[ -f ".device/heldout-oracle/$name.jsonl.gz" ] && gunzip -c ".device/heldout-oracle/$name.jsonl.gz" > "$out/$name.jsonl"
held_out=()
for f in v2-unseen v3-skinny-unseen v4-mid-unseen v4-xgemm-unseen v5-rbr-unseen v11-ksplit-unseen \
         v11-ksplit-set-unseen v18-autosplit-unseen v17-db3-unseen v17-db3-skinny-unseen v18-db3-unseen \
         v18-db3-skinny-unseen v19-sk-v2-unseen; do
  held_out+=("variants/data/h200-$f-f32.jsonl.gz")
done
.device/fewfit sweep --device gpu --quiet --sample 0 --repeats 10 --shapes variants/shapes/unseen.txt \
  --variants-from "${held_out[@]}" --near-best 1.05 --interleave --budget-secs "${1:-480}" --out "$out/$name.jsonl"
gzip -f "$out/$name.jsonl"
.device/fewfit evaluate --per-shape --data "$out/$name.jsonl.gz" | tee "$out/evaluate.txt"
date -u
