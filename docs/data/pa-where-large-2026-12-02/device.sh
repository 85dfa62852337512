#!/usr/bin/env bash
# On the lent GPU machine, its CPU through the PoCL installed there: run.sh's held-out sweep (the
# pool and the PA = 2 block), then the PA = 2 block beside its PA = 1 and PA = 0 twins on the 7
# large shapes of docs/data/pocl-zen4-bench-2026-11-29/pa-squares.txt, in rounds, two runs. Outputs
# in $OUT; run.sh and compare.py report them here.
# Usage: bash docs/data/pa-where-large-2026-12-02/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
dir=docs/data/pa-where-large-2026-12-02
date -u; lscpu | grep -E "Model name|^CPU\(s\)"; clinfo -l 2>/dev/null | grep -i device
FEWFIT=.device/fewfit OUT=$OUT bash $dir/run.sh sweep gpu-host-xeon
date -u
for run in 1 2; do
  .device/fewfit sweep --device cpu --shapes docs/data/pocl-zen4-bench-2026-11-29/pa-squares.txt --space $dir/space-pa2.json \
    --sample 1 --no-shipped --repeats 5 --machine gpu-host-xeon-pa2-squares-$run --interleave --quiet \
    --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --also-with PA=0 --out /tmp/squares-r$run.jsonl
  gzip -9c /tmp/squares-r$run.jsonl > $OUT/gpu-host-xeon-squares-r$run.jsonl.gz
done
date -u
