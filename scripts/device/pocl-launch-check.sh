#!/usr/bin/env bash
# On the lent GPU machine: launches variants on its CPU's PoCL (5.0 there, whose work-group compiler
# aborts the process on some barrier shapes at the first launch, pocl/pocl#1435) through `fewfit
# sweep` (each variant checked against the reference first, then timed), once per carried fewfit
# binary .device/fewfit*, each family in its own process so that one abort does not hide the rest.
# Prints per binary and records file: the pairs measured and valid, or the abort.
# Usage: bash scripts/device/pocl-launch-check.sh SHAPES RECORDS... [-- extra sweep arguments]
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes="$1"; shift
records=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do records+=("$1"); shift; done; [ $# -gt 0 ] && shift
export POCL_CACHE_DIR=/tmp/pocl-cache-launch
for bin in .device/fewfit*; do
  for rec in "${records[@]}"; do
    rm -rf "$POCL_CACHE_DIR"; out=/tmp/launch-$(basename "$bin")-$(basename "$rec").jsonl; rm -f "$out"
    log=$(timeout 300 "$bin" sweep --device cpu --shapes "$shapes" --sample 0 --no-shipped --repeats 2 --quiet \
      --variants-from "$rec" --out "$out" "$@" 2>&1); rc=$?
    valid=$(grep -c '"valid":true' "$out" 2>/dev/null); all=$(cat "$out" 2>/dev/null | wc -l)
    echo "$(basename "$bin") $(basename "$rec"): rc $rc, $all pairs, $valid valid $(echo "$log" | grep -m1 -o "Assertion.*failed")"
  done
done
