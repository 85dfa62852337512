#!/usr/bin/env bash
# On the lent GPU machine: the peer bench (scripts/device/bench.sh) on every real network's GEMM of
# variants/shapes/train.txt (issue 5's "ML shapes"), with the oracle from the H200 datasets in
# BENCH_DATA (default: the H200 data the shipped set was selected from). Outputs go to $OUT (or /tmp/peers-out).
# Usage: bash scripts/device/bench-ml.sh [extra peers arguments]
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes=/tmp/fewfit-ml-shapes.txt
python3 scripts/shape_list.py "$shapes" variants/shapes/train.txt --networks-only
echo "ML shapes of variants/shapes/train.txt: $(wc -l < "$shapes")"
BENCH_DATA="${BENCH_DATA:-$(ls variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v2-ml-f32.jsonl.gz \
  variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v4-mid-f32.jsonl.gz \
  variants/data/h200-v4-xgemm-f32.jsonl.gz variants/data/h200-v5-rbr-decode-f32.jsonl.gz \
  variants/data/h200-v5-rbr-f32.jsonl.gz variants/data/h200-v11-ksplit-f32.jsonl.gz \
  variants/data/h200-v11-ksplit-set-f32.jsonl.gz variants/data/h200-v13-autosplit-f32.jsonl.gz \
  variants/data/h200-v16-db3-large-f32.jsonl.gz variants/data/h200-v17-db3-f32.jsonl.gz \
  variants/data/h200-v17-db3-skinny-f32.jsonl.gz | tr '\n' ' ')}" exec bash scripts/device/bench.sh "$shapes" "$@"
