#!/usr/bin/env bash
# On the lent GPU machine: the 130 ML shapes (bench-ml.sh) in row-major NT (B stored N x K, as
# PyTorch's `Linear` holds its weights), then NN, in one call, every peer in both; each run into its
# own folder of $OUT (or /tmp/layout-bench), the two tables' last lines printed. The oracle column
# is left empty (the shipped datasets time NN only). With BUILDS="after before" the peers example of the build
# before a change (.device/peers-before) runs too, after the carried one, for a before / after in
# one call (scripts/compare_bench.py); LAYOUTS="NT" runs one layout. Binaries: scripts/device/build.sh
# on the dev machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/layout-bench}"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for build in ${BUILDS:-after}; do
  peers=.device/peers; [ "$build" = before ] && peers=.device/peers-before
  for layout in ${LAYOUTS:-NT NN}; do
    flag=(); [ "$layout" = NT ] && flag=(--transpose-b)
    echo "== ML shapes, row-major $layout, $peers"
    # No oracle: the same columns in both layouts.
    OUT="$out/$build-$layout" PEERS="$peers" NO_ORACLE=1 bash scripts/device/bench-ml.sh ${flag[@]+"${flag[@]}"} \
      > "$out/$build-$layout.log" 2>&1
    tail -4 "$out/$build-$layout/table-wall.md"
  done
done
date -u
