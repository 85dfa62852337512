#!/usr/bin/env bash
# On the lent GPU machine: the copy of an operand contiguous along K from the other dimension of C
# 512 (TRANSPOSE_MIN_OTHER = 512, .device/peers-other512) against 1,024 (.device/peers-before, the
# build of 0c82626), row-major NT on shapes.txt, in two rounds of alternating order (before, after,
# after, before), each with CLBlast and cuBLAS. Outputs under $OUT/{before,after}-{1,2}.
# Binaries: the peers example of 0c82626 with TRANSPOSE_MIN_OTHER 512 and 1,024, and
# scripts/device/build.sh's .device/tests for transposed_copy.
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/transposed-copy-other512-2026-12-04
[ -f .device.tar.xz ] && tar -xJf .device.tar.xz
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; date -u
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
out="${OUT:-/tmp/other512-out}"; mkdir -p "$out"
for run in before-1 after-1 after-2 before-2; do
  peers=.device/peers-other512; [[ $run == before-* ]] && peers=.device/peers-before
  echo "== $run ($peers)"
  OUT="$out/$run" PEERS="$peers" NO_ORACLE=1 bash scripts/device/bench.sh $here/shapes.txt --transpose-b > "$out/$run.log" 2>&1
  grep -E "geomean" "$out/$run.log" | head -1
done
tar czf "$out/runs.tar.gz" -C "$out" before-1 after-1 after-2 before-2 && rm -rf "$out"/{before,after}-?
date -u
