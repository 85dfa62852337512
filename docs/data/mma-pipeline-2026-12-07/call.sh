#!/usr/bin/env bash
# The GPU call of 2026-12-07 22:53 UTC (H100), run from the tree of 0164ec2 with .device/ built by
# scripts/device/build.sh, fewfit-old built from fce3354 and the two cmp-*.json spaces in .device/.
set -uo pipefail
source scripts/device/nvidia.sh
export FEWFIT_CACHE_DIR=/tmp/fc
echo "== tests/mma $(date -u +%T)"; timeout 90 .device/tests/mma 2>&1 | tail -4
printf '4096 4096 4096\n8192 8192 8192\n1024 4096 4096\n4096 4096 1024\n2048 2048 2048\n512 4096 1024\n' > /tmp/big.txt
echo "== cublas f16 $(date -u +%T)"
timeout 40 python3 scripts/device/cublas.py --dtype f16 --shapes /tmp/big.txt 2>&1 | tail -6
timeout 40 python3 scripts/device/cublas.py --dtype f16 --shapes /tmp/big.txt --transpose-b 2>&1 | tail -6
mkdir -p /tmp/cmp
run() { b=$1 sp=$2 p=$3 l=$4 bud=$5; t=; [ "$l" = NT ] && t=--transpose-b; s=$(date +%s)
  timeout $((bud + 12)) .device/$b sweep --device gpu --precision $p --shapes /tmp/big.txt --space $sp --no-shipped --repeats 10 \
    --quiet --budget-secs $bud $t --out /tmp/cmp/$b-$p-$l.jsonl > /tmp/cmp/$b-$p-$l.log 2>&1
  echo "$b $p $l: $(wc -l < /tmp/cmp/$b-$p-$l.jsonl) records, $(( $(date +%s) - s )) s: $(tail -1 /tmp/cmp/$b-$p-$l.log)"; }
run fewfit-old .device/cmp-old.json f16 NN 25
run fewfit .device/cmp-new.json f16 NN 40
run fewfit-old .device/cmp-old.json f16 NT 25
run fewfit .device/cmp-new.json f16 NT 40
(cd /tmp/cmp && tar -czf "$OUT/compare.tgz" *.jsonl *.log)
echo "== sweep-half f16 $(date -u +%T)"
ALSO="--variants-from variants/data/h100-mma-f16.jsonl.gz --near-best 1.02 --also-with VWD=8" SAMPLE=500 STEP=3 \
  BUDGET=${SWEEP_BUDGET:-220} timeout 260 bash scripts/device/sweep-half.sh f16 2>&1 | tail -6
date -u
