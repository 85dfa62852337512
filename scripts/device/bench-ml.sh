#!/usr/bin/env bash
# On the lent GPU machine: the peer bench (scripts/device/bench.sh) on every real network's GEMM of
# variants/shapes/train.txt (issue 5's "ML shapes"), with the oracle from the H200 datasets in
# BENCH_DATA (default: the H200 data the shipped set was selected from). Outputs go to $OUT (or /tmp/peers-out).
# Usage: [PRECISION=f32|f16|bf16|tf32] bash scripts/device/bench-ml.sh [extra peers arguments]   (PRECISION: see bench.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes=/tmp/fewfit-ml-shapes.txt
python3 scripts/shape_list.py "$shapes" variants/shapes/train.txt --networks-only
echo "ML shapes of variants/shapes/train.txt: $(wc -l < "$shapes")"
source scripts/device/oracle-data.sh
BENCH_DATA="$ORACLE_DATA" exec bash scripts/device/bench.sh "$shapes" "$@"
