#!/usr/bin/env bash
# On the lent GPU machine: issue 5's large squares (4096³ and 8192³) timed ROUNDS times (default 6)
# in one call, fewfit as shipped (bench/examples/peers.rs, no oracle, no CLBlast) and cuBLAS FP32
# (scripts/device/cublas.py) in turn, the one that goes first alternating by round, so that the
# ratio's spread from call to call shows beside its median (scripts/square_ratio.py). Outputs go to
# /tmp/square-ratio, packed into $OUT/square-ratio.tgz with the summary in $OUT/square-ratio.txt.
# Binaries: scripts/device/build.sh on the dev machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=/tmp/square-ratio; rm -rf "$work"; mkdir -p "$work"
source scripts/device/nvidia.sh
printf '4096 4096 4096\n8192 8192 8192\n' > "$work/shapes.txt"
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
fewfit() { .device/peers --shapes "$work/shapes.txt" --clblast none --json "$work/fewfit-$1.json" > "$work/fewfit-$1.txt" 2>&1; }
cublas() { python3 scripts/device/cublas.py --shapes "$work/shapes.txt" --json "$work/cublas-$1.json" > "$work/cublas-$1.txt" 2>&1; }
for round in $(seq 1 "${ROUNDS:-6}"); do
  if (( round % 2 )); then fewfit "$round"; cublas "$round"; else cublas "$round"; fewfit "$round"; fi
done
python3 scripts/square_ratio.py "$work" | tee "$work/square-ratio.txt"
if [ -n "${OUT:-}" ]; then cp "$work/square-ratio.txt" "$OUT/"; tar czf "$OUT/square-ratio.tgz" -C /tmp square-ratio; fi
