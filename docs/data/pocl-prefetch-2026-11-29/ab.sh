#!/usr/bin/env bash
# The set's A-packing CPU block (KC 256, LM 1, LN 16, MV 4 x NR 4, PA 1) before and after the
# prefetch of the next slice's A columns in kernels/panel.cl: two `fewfit` binaries (BEFORE built from
# the commit before that change, AFTER from it) sweep the block in turn, before, after, before,
# after, on the 218 training and 44 held-out shapes of variants/shapes/train.txt and unseen.txt and
# 1024³, 2048³, 4096³ (up to 2·10¹¹ flops), 5 repeats; then compare.py. Shapes with K <= KC never
# prefetch: they run the same code in both, the control. ORDER="after before" runs AFTER first in
# each round. BLOCKS (a grep pattern over the set's CPU records, '"PA":1' by default) picks the
# blocks swept.
# Usage: [ORDER="after before"] bash docs/data/pocl-prefetch-2026-11-29/ab.sh BEFORE AFTER OUT_DIR [sweep arguments, e.g. --machine L]
set -euo pipefail
before=$1 after=$2 out=$3; shift 3
cd "$(dirname "$0")/../../.."
dir=docs/data/pocl-prefetch-2026-11-29
mkdir -p "$out"
shapes=$(mktemp); trap 'rm -f "$shapes"' EXIT
grep -hv '^#' variants/shapes/train.txt variants/shapes/unseen.txt | grep -v '^$' > "$shapes"
printf '1024 1024 1024\n2048 2048 2048\n4096 4096 4096\n' >> "$shapes"
zcat docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz | grep "${BLOCKS:-\"PA\":1}" > "$out/block.jsonl"
date -u; grep -m1 "model name" /proc/cpuinfo; nproc
for run in 1 2; do
  for build in ${ORDER:-before after}; do
    bin=$before; [ $build = after ] && bin=$after
    "$bin" sweep --device cpu --shapes "$shapes" --sample 0 --no-shipped --variants-from "$out/block.jsonl" \
      --repeats 5 --max-flops 2e11 --quiet --out "$out/$build-$run.jsonl" "$@" 2>&1 | tail -1
  done
done
date -u
gzip -f "$out"/before-?.jsonl "$out"/after-?.jsonl
python3 $dir/compare.py "$out" | tee "$out/compare.txt"
