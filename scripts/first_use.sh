#!/usr/bin/env bash
# Time to first use: runs the main job (examples/ml_shapes, release build) twice with empty caches,
# fewfit's (FEWFIT_CACHE_DIR) and PoCL's (POCL_CACHE_DIR) both in a fresh temporary directory:
# "cold" builds every program, "warm" finds what the first run cached. Prints the device, each
# run's wall time and exit status, and the job's last line (programs compiled / loaded).
# Usage: [FEWFIT_DEVICE=cpu] bash scripts/first_use.sh [BINARY]   (default: target/release/examples/ml_shapes)
set -uo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/examples/ml_shapes}"
[ -x "$bin" ] || cargo build --release --example ml_shapes
dir=$(mktemp -d)
for run in cold warm; do
  start=$(date +%s.%N)
  FEWFIT_CACHE_DIR="$dir/fewfit" POCL_CACHE_DIR="$dir/pocl" "$bin" > "$dir/$run.txt" 2>&1
  rc=$?
  secs=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
  [ "$run" = cold ] && grep -m1 -E '^device' "$dir/$run.txt"
  echo "$run: exit $rc in $secs s; $(grep -m1 -E "variant set ready" "$dir/$run.txt")"
done
rm -rf "$dir"
