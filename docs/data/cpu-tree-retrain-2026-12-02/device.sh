#!/usr/bin/env bash
# On the lent GPU machine, its CPU through the PoCL installed there (5.0): run.sh's sweeps of the
# set's four CPU blocks on the training and tree-only network shapes (xeon-{train,trees}), and the
# held-out network shapes with the 21-block pool of docs/data/cpu-oracle-2026-12-02 (xeon-unseen),
# each shape's blocks in rounds; then, with TESTS=1, the f64 tests of the `small_shapes` and
# `variants` binaries on that CPU (scripts/device/build.sh). Outputs: $OUT/xeon-*.jsonl.gz.
# Usage: [TESTS=1] bash docs/data/cpu-tree-retrain-2026-12-02/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
dir=docs/data/cpu-tree-retrain-2026-12-02
date -u; lscpu | grep -E "Model name|^CPU\(s\)"
sweep() {  # NAME SHAPES VARIANTS BUDGET_SECS
  .device/fewfit sweep --device cpu --shapes "$2" --max-flops 5e9 --sample 0 --no-shipped --repeats 5 \
    --machine gpu-host-xeon --interleave --quiet --variants-from "$3" --budget-secs "$4" --out /tmp/$1.jsonl 2>&1 | tail -1
  gzip -9c /tmp/$1.jsonl > "$OUT/$1.jsonl.gz"; date -u
}
sweep xeon-unseen variants/shapes/unseen.txt docs/data/cpu-oracle-2026-12-02/pool.jsonl.gz 140
sweep xeon-train variants/shapes/train.txt docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz 100
sweep xeon-trees variants/shapes/train-trees.txt docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz 100
if [ -n "${TESTS:-}" ]; then
  export FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require FEWFIT_DEVICE=cpu
  for t in small_shapes:every_variant_on_small_edge_shapes_f64 variants:every_variant_matches_the_reference_f64; do
    start=$(date +%s)
    timeout 90 .device/tests/${t%%:*} --exact ${t#*:} 2>&1 | grep -E "^test |panicked|test result" | head -5
    echo "${t}: exit ${PIPESTATUS[0]} in $(( $(date +%s) - start )) s"
  done
fi
date -u
