#!/usr/bin/env bash
# Issue 4's held-out CPU measure with the CPU blocks chosen for a fleet of CPUs: `fewfit evaluate`
# of the set and trees of fc4c0dc (before) and of this checkout's on the held-out network shapes of
# at most 5 GFLOP, each against the pool timed beside the set on that run: the 33 blocks of
# device.sh / local.sh here (the GPU machine's 16-core Xeon on 16 and 8 cores, this session's 2-core
# Zen 4 VM, two runs), and the 22-block pool of the runs before (the Xeon on 16 cores,
# docs/data/pa-where-large-2026-12-02, and on 8 and 4, docs/data/compute-units-2026-12-03; the 2-core
# Emerald Rapids VM, pa-where-large-2026-12-02). Nothing is measured.
# Usage: bash docs/data/cpu-fleet-2026-12-04/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
dir=docs/data/cpu-fleet-2026-12-04
before=$(mktemp -d); trap 'rm -rf "$before"' EXIT
mkdir -p "$before/selector" "$before/variants"
git show fc4c0dc:variants/selected.json > "$before/variants/selected.json"
for class in cpu nvidia-gpu gpu default; do git show fc4c0dc:selector/$class.json > "$before/selector/$class.json"; done
for root in "$before" .; do
  [ "$root" = . ] && echo "== this checkout's set and trees" || echo "== the set and trees of fc4c0dc"
  for data in $dir/xeon-cu16-heldout-r1 $dir/xeon-cu8-heldout-r1 $dir/epyc-heldout-r{1,2} \
              docs/data/pa-where-large-2026-12-02/gpu-host-xeon-r{1,2} docs/data/compute-units-2026-12-03/xeon-cu{8,4}-heldout-r{1,2} \
              docs/data/pa-where-large-2026-12-02/emr-r{1,2}; do
    "$fewfit" evaluate --root "$root" --data $data.jsonl.gz 2>/dev/null | tail -1
  done
done
