#!/usr/bin/env bash
# On the lent GPU machine: times the shipped set's H200 xgemm variants, each with KSPLIT = 0 and
# KSPLIT = 1, on every training and held-out shape with min(M, N) > 8, once with each of two fewfit
# binaries, so that a change to split-K (its epilogue, its rule) is measured before and after in one
# call. Usage: bash scripts/device/split-compare.sh BEFORE_BIN AFTER_BIN; writes
# split-before.jsonl.gz and split-after.jsonl.gz to $OUT; compare them with
# `python3 scripts/split_compare.py`. Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/split-compare-out}"; mkdir -p "$out" /tmp/split-compare
python3 scripts/shape_list.py /tmp/split-compare/shapes.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
python3 scripts/set_records.py variants/selected.json /tmp/split-compare/set.jsonl.gz variants/data/h200-*.jsonl.gz --kernel xgemm
for run in before:$1 after:$2; do
  "${run#*:}" sweep --device gpu --quiet --no-shipped --repeats 10 --shapes /tmp/split-compare/shapes.txt \
    --space variants/space-gpu.json --sample 0 --variants-from /tmp/split-compare/set.jsonl.gz \
    --also-with KSPLIT=0 --also-with KSPLIT=1 --out "/tmp/split-compare/${run%%:*}.jsonl"
  gzip -c "/tmp/split-compare/${run%%:*}.jsonl" > "$out/split-${run%%:*}.jsonl.gz"
done
date -u
