#!/usr/bin/env bash
# On the lent GPU machine: the copy from C's other dimension 512 for an A (the kernel's) of at least
# 16,384 rows (.device/peers-long) against the build before (.device/peers-before, 0c82626), on
# shapes-nt.txt in row-major NT and shapes-nn.txt in NN, in two rounds of alternating order, each
# with CLBlast and cuBLAS; then the 130 ML shapes in NT with peers-long (bench-ml.sh, no oracle).
# Outputs: {nt,nn}-{before,after}-{1,2} and ml-nt, each a folder and a log, packed into
# $OUT/runs.tar.gz (the device tool brings back 8 files at most). first-call/ holds the logs of a
# first call with the rule for B too (operand 1), whose runs.tar.gz did not come back.
# Binaries: the peers example of 0c82626 and of the change (TRANSPOSE_MIN_OTHER_LONG,
# TRANSPOSE_LONG_ROWS), stripped, in .device/.
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/transposed-copy-long-rows-2026-12-04
[ -f .device.tar.xz ] && tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; date -u
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
out=/tmp/long-rows-out; rm -rf "$out"; mkdir -p "$out"
for layout in nt nn; do
  args=""; [ $layout = nt ] && args="--transpose-b"
  for run in before-1 after-1 after-2 before-2; do
    peers=.device/peers-long; [[ $run == before-* ]] && peers=.device/peers-before
    echo "== $layout $run ($peers)"
    OUT="$out/$layout-$run" PEERS="$peers" NO_ORACLE=1 bash scripts/device/bench.sh $here/shapes-$layout.txt $args \
      > "$out/$layout-$run.log" 2>&1
    grep -E "geomean" "$out/$layout-$run.log" | head -1
  done
done
echo "== ML shapes, NT, after"
OUT="$out/ml-nt" PEERS=.device/peers-long NO_ORACLE=1 bash scripts/device/bench-ml.sh --transpose-b > "$out/ml-nt.log" 2>&1
tail -3 "$out/ml-nt/table-wall.md"
tar czf "${OUT:-/tmp}/runs.tar.gz" -C "$out" .
date -u
