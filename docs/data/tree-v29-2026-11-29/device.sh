#!/usr/bin/env bash
# On the lent GPU machine (2026-11-29 19:27-19:45 UTC): the set as shipped (the 128 x 32 tile's DB = 5
# twin in place) timed on every shape list of the NN and NT subtrees, one run per layout
# (scripts/device/tree-data.sh, records of set-v29.jsonl.gz). Outputs: $OUT/v29-LAYOUT.tgz of the
# h200-v29-* datasets. Usage: bash docs/data/tree-v29-2026-11-29/device.sh "NN NT" [BUDGET_SECS]
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
final="$OUT"
for layout in $1; do
  export OUT=/tmp/v29-$layout; mkdir -p "$OUT"
  LAYOUT=$layout SET=docs/data/tree-v29-2026-11-29/set-v29.jsonl.gz bash scripts/device/tree-data.sh v29 "${2:-540}" 2>&1 | tail -20
  tar -czf "$final/v29-$layout.tgz" -C "$OUT" $(cd "$OUT" && ls *.jsonl.gz)
done
ls -la "$final"
