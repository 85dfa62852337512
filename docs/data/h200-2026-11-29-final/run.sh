#!/usr/bin/env bash
# The shipped set (HEAD 7021213: the 128 x 32 tile's DB = 5 twin in place) on the GPU machine,
# 2026-11-29 18:42-18:44 UTC, NVIDIA H200: the peer bench on the 13 shapes of bench.txt (with the
# oracle) and on the 130 ML shapes in NN and row-major NT (without it); the release call's benches
# without its tests and launch costs, for the device time left. Binaries: scripts/device/build.sh.
# Usage (on the GPU machine): OUT=... bash docs/data/h200-2026-11-29-final/run.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/device/oracle-data.sh
o=/tmp/final; mkdir -p $o
OUT=$o/bench BENCH_DATA="$ORACLE_DATA" bash scripts/device/bench.sh variants/shapes/bench.txt > $o/bench.log 2>&1
tail -16 $o/bench/table-wall.md
OUT=$o/ml NO_ORACLE=1 bash scripts/device/bench-ml.sh > $o/ml.log 2>&1; tail -2 $o/ml/table-wall.md
OUT=$o/ml-nt NO_ORACLE=1 bash scripts/device/bench-ml.sh --transpose-b > $o/ml-nt.log 2>&1; tail -2 $o/ml-nt/table-wall.md
tar czf "$OUT/final.tgz" -C /tmp final
