#!/usr/bin/env bash
# Compile cost of a sweep: times `fewfit sweep` of the given variants on one 64x64x64 shape (where
# building and checking each variant is nearly all the work) with fresh, empty fewfit and PoCL
# caches, once per `fewfit` binary given, and prints the device and each binary's wall time.
# Usage: bash scripts/sweep_compile_time.sh VARIANTS_JSONL [extra sweep args] -- FEWFIT_BINARY...
set -uo pipefail
cd "$(dirname "$0")/.."
variants="$1"; shift
extra=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do extra+=("$1"); shift; done
shift
dir=$(mktemp -d)
printf '64 64 64\n' > "$dir/shape.txt"
for bin in "$@"; do
  run="$dir/$(date +%s%N)"; mkdir -p "$run"
  start=$(date +%s.%N)
  FEWFIT_CACHE_DIR="$run/fewfit" POCL_CACHE_DIR="$run/pocl" "$bin" sweep --device "${FEWFIT_DEVICE:-cpu}" \
    --shapes "$dir/shape.txt" --sample 0 --no-shipped --repeats 3 --quiet --variants-from "$variants" \
    --out "$run/out.jsonl" "${extra[@]}" > "$run/log.txt" 2>&1
  rc=$?
  echo "$bin: exit $rc in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s; $(grep -m1 -E 'pairs measured' "$run/log.txt")"
done
"${1:-target/release/fewfit}" devices 2>/dev/null | grep -E "^[0-9]+:[0-9]+ +${FEWFIT_DEVICE:-cpu}" | head -1
rm -rf "$dir"
