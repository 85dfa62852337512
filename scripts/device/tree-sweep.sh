#!/usr/bin/env bash
# On the lent GPU machine: times the shipped set's H200 variants (those of variants/selected.json,
# found in the committed H200 datasets) on a list of shapes that only train the trees
# (`regenerate --train-only`): trees need the set measured, not the whole pool.
# Usage: bash scripts/device/tree-sweep.sh SHAPES NAME [BUDGET_SECS]
#   e.g. bash scripts/device/tree-sweep.sh variants/shapes/train-tree-dense.txt h200-v13-tree-dense-f32 400
# The dataset goes to $OUT/NAME.jsonl(.gz), resumable: carry NAME.jsonl back in .device/ and run
# again. SKIP_MEASURED=1 skips the pairs the committed H200 datasets hold (after a set change: its
# new members only). LAYOUT=NT times row-major NT calls (`sweep --transpose-b`: records say
# "layout": "NT"; SKIP_MEASURED then has nothing to skip). SET=FILE (records) times the variants of
# those records instead (e.g. a set before a twin's substitution). INTERLEAVE=1 times each shape's
# variants in rounds (`sweep --interleave`), so that they all meet the machine in the same state.
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes="$1"; name="$2"; budget="${3:-300}"
out="${OUT:-/tmp/tree-out}"; mkdir -p "$out" /tmp/tree
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
[ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out/"
set_records="${SET:-/tmp/tree/set.jsonl.gz}"
[ -n "${SET:-}" ] || python3 scripts/set_records.py variants/selected.json "$set_records" variants/data/h200-*.jsonl.gz
skip=(); [ "${SKIP_MEASURED:-0}" = 1 ] && skip=(--skip-measured variants/data/h200-*.jsonl.gz)
layout=(); [ "${LAYOUT:-NN}" = NT ] && layout=(--transpose-b)
[ "${INTERLEAVE:-0}" = 1 ] && layout+=(--interleave)
"$fewfit" sweep --device gpu --shapes "$shapes" --space variants/space-gpu.json --sample 0 \
  --no-shipped --variants-from "$set_records" --repeats 10 --quiet --budget-secs "$budget" \
  "${skip[@]}" "${layout[@]}" --out "$out/$name.jsonl"
gzip -kf "$out/$name.jsonl"
date -u
