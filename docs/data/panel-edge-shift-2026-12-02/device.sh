#!/usr/bin/env bash
# On the lent GPU machine, one call: the tests that changed with the panel kernel's block across M
# and the variants' build check, on the H200 and on the machine's CPU through its PoCL 5.0
# (another work-group compiler than the dev machine's 3.1); then run.sh's A/B there: the set's four
# CPU blocks on shapes.txt, interleaved, 5 repeats, .device/fewfit-before (binaries of 6c966c7) and
# .device/fewfit (after) in turn, two rounds, each under a time budget, into $OUT.
# Usage: bash docs/data/panel-edge-shift-2026-12-02/device.sh [BUDGET_SECS per sweep, default 90]
set -uo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/panel-edge-shift-2026-12-02
[ -d .device ] || tar -xJf .device.tar.xz
budget=${1:-90}
lscpu | grep -E "Model name|^CPU\(s\)"
(source scripts/device/nvidia.sh
 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
 for t in variants small_shapes device_class; do
   echo "== gpu: $t"
   FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require .device/tests/$t --test-threads=4 --nocapture 2>&1 \
     | grep -E "^test |test result|panicked|cases failed|on NVIDIA|^F(32|64) on"
 done)
for t in variants small_shapes; do
  echo "== cpu (PoCL there): $t"
  FEWFIT_DEVICE=cpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache-cpu FEWFIT_TEST_DEVICE=require timeout 300 .device/tests/$t --test-threads=1 2>&1 \
    | grep -E "^test |test result|panicked|cases failed"
done
.device/fewfit devices | head -5
for round in 1 2; do
  for side in before after; do
    bin=.device/fewfit; [ $side = before ] && bin=.device/fewfit-before
    POCL_AFFINITY=1 FEWFIT_DEVICE=cpu $bin sweep --device cpu --shapes $dir/shapes.txt --max-flops 5e9 --sample 0 --no-shipped \
      --repeats 5 --machine gpu-host-xeon-2026-12-02 --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz \
      --interleave --quiet --budget-secs "$budget" --out /tmp/xeon-$side-r$round.jsonl 2>&1 | tail -1
    wc -l < /tmp/xeon-$side-r$round.jsonl
    gzip -9c /tmp/xeon-$side-r$round.jsonl > "$OUT/xeon-$side-r$round.jsonl.gz"
  done
done
date -u
