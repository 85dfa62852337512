#!/usr/bin/env bash
# On the lent GPU machine: builds the same variants through NVIDIA's OpenCL with two builds of
# examples/build_log (e.g. before and after a change of kernels/ that should not change the machine
# code) and compares each program's binary, the PTX the driver returns, byte for byte. Prints one line
# per program, "same" or "DIFFERS" (with the PTX lines that differ), and a count.
# Usage: bash scripts/device/ptx-compare.sh BUILD_LOG_BEFORE BUILD_LOG_AFTER [build_log arguments...]
# (no arguments: the shipped set). Binaries: scripts/device/build.sh, the first copied aside.
set -uo pipefail
cd "$(dirname "$0")/../.."
before=$1 after=$2; shift 2
work=/tmp/ptx-compare; rm -rf "$work"; mkdir -p "$work/before" "$work/after"
source scripts/device/nvidia.sh
"$before" --binaries "$work/before" "$@" > "$work/before.log" 2>&1 || { tail -5 "$work/before.log"; exit 1; }
"$after" --binaries "$work/after" "$@" > "$work/after.log" 2>&1 || { tail -5 "$work/after.log"; exit 1; }
same=0 differ=0
for bin in "$work"/before/*.bin; do
  name=$(basename "$bin")
  if cmp -s "$bin" "$work/after/$name"; then
    same=$((same + 1)); echo "same     $name"
  else
    differ=$((differ + 1)); echo "DIFFERS  $name"
    diff <(tr -d '\000' < "$bin") <(tr -d '\000' < "$work/after/$name" 2>/dev/null) | head -20
  fi
done
echo "programs: $same same, $differ differ; after built $(ls "$work"/after/*.bin | wc -l)"
