#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's GPU variants on variants/shapes/stream-k-few-tiles.txt
# (shapes where the set's 128 x 128 stream-K tile launched a grid of a few tiles before 2026-11-28
# and fewer work-groups than SK per compute unit since, then controls), timed by two builds of
# `fewfit sweep` in turn, old, new, old, new: .device/fewfit-old (before the change) and
# .device/fewfit. Then scripts/ab_compare.py on the two old runs against the two new ones, and the
# GPU tests carried in .device/tests (mechanisms, variants). Datasets and outputs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/sk-out}"; mkdir -p "$out" /tmp/sk
source scripts/device/nvidia.sh
python3 scripts/set_records.py variants/selected.json /tmp/sk/set.jsonl.gz variants/data/h200-*.jsonl.gz
sweep() {  # BINARY NAME
  "$1" sweep --device gpu --shapes variants/shapes/stream-k-few-tiles.txt --space variants/space-gpu.json --sample 0 \
    --no-shipped --variants-from /tmp/sk/set.jsonl.gz --repeats 20 --quiet --out "/tmp/sk/$2.jsonl" > "/tmp/sk/$2.log" 2>&1
  echo "$2: rc $? ($(date -u +%T))"; gzip -kf "/tmp/sk/$2.jsonl"
}
sweep .device/fewfit-old old1; sweep .device/fewfit new1; sweep .device/fewfit-old old2; sweep .device/fewfit new2
cp /tmp/sk/*.jsonl.gz "$out/"
(cd scripts && python3 ab_compare.py /tmp/sk/old1.jsonl.gz,/tmp/sk/old2.jsonl.gz /tmp/sk/new1.jsonl.gz,/tmp/sk/new2.jsonl.gz) > "$out/ab-compare.md"
tail -12 "$out/ab-compare.md"
export FEWFIT_DEVICE=gpu
for t in variants mechanisms; do
  [ -x ".device/tests/$t" ] && { ".device/tests/$t" 2>&1 | grep -E "test result|FAILED|panicked" | sed "s/^/$t: /"; }
done
date -u
