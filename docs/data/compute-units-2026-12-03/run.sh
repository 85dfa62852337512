#!/usr/bin/env bash
# Issue 4's held-out CPU measure with the `cpu` tree that sees `compute_units`: `fewfit evaluate` of
# the trees of ff3d5aa (before the feature) and of this checkout's on the held-out network shapes of
# at most 5 GFLOP against the fastest of a 22-block pool (the 21 of docs/data/cpu-oracle-2026-12-02
# and the set's PA = 2 block), each shape's blocks in rounds, 10 repeats, two runs per device: the
# GPU machine's 16-core Xeon through PoCL 5.0 on 16 cores (docs/data/pa-where-large-2026-12-02,
# 2026-12-02), on 8 and on 4 (`device.sh heldout`, 2026-12-03), and the dev machine's 2-core
# Emerald Rapids VM through PoCL 3.1 (pa-where-large-2026-12-02, 2026-12-02). Nothing is measured.
# Usage: bash docs/data/compute-units-2026-12-03/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
dir=docs/data/compute-units-2026-12-03
held=docs/data/pa-where-large-2026-12-02
before=$(mktemp -d); trap 'rm -rf "$before"' EXIT
mkdir -p "$before/selector" "$before/variants"
git show ff3d5aa:variants/selected.json > "$before/variants/selected.json"
for class in cpu nvidia-gpu gpu default; do git show ff3d5aa:selector/$class.json > "$before/selector/$class.json"; done
for root in "$before" .; do
  [ "$root" = . ] && echo "== this checkout's trees" || echo "== the trees of ff3d5aa"
  for data in $held/gpu-host-xeon-r{1,2} $dir/xeon-cu8-heldout-r{1,2} $dir/xeon-cu4-heldout-r{1,2} $held/emr-r{1,2}; do
    "$fewfit" evaluate --root "$root" --data $data.jsonl.gz 2>/dev/null | tail -1
  done
done
