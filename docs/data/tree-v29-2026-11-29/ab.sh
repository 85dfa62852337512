#!/usr/bin/env bash
# On the lent GPU machine: the ML shapes with the trees before (.device/peers-before: HEAD d703cc6)
# and after the v29 NN and NT subtrees (.device/peers), NN then row-major NT, by
# scripts/device/bench-two-sets.sh without the oracle. ORDER="after-ml before-ml" or the reverse;
# outputs in $OUT/NAME.tgz. Usage: bash docs/data/tree-v29-2026-11-29/ab.sh NAME "RUNS"
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
final="$OUT"; tmp=/tmp/$1; mkdir -p "$tmp"
for l in nn nt; do
  args=(); [ $l = nt ] && args=(BENCH_ARGS=--transpose-b)
  env OUT="$tmp/$l" RUNS="$2" NO_ORACLE=1 "${args[@]}" bash scripts/device/bench-two-sets.sh 2>&1 | grep -v "^test " | tail -12
done
gzip -9 "$tmp"/*/*.log
tar -czf "$final/$1.tgz" -C /tmp "$1"
