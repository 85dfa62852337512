#!/usr/bin/env bash
# On the lent GPU machine: builds each OpenCL source of a folder on its CPU's PoCL (installed there:
# PoCL 5.0, whose kernel compiler aborts the process on some barrier shapes, pocl/pocl#1435), one
# process per source so that an abort names its source, with the release `build_log` carried in
# .device/ (scripts/device/build.sh). Prints built / FAILED / ABORTED per source; sources given
# as extra arguments are also built with POCL_WORK_GROUP_METHOD=cbs.
# Usage: bash scripts/device/pocl-build-check.sh FOLDER [SOURCE_FOR_CBS...]
set -uo pipefail
cd "$(dirname "$0")/../.."
folder="$1"; shift
export FEWFIT_DEVICE=cpu POCL_CACHE_DIR=/tmp/pocl-cache-check
rm -rf "$POCL_CACHE_DIR"
.device/build_log --source /dev/null 2>&1 | head -1
check() {
  local out rc
  out=$(timeout 300 .device/build_log --source "$1" 2>&1); rc=$?
  case "$rc" in
    0) echo "$out" | grep -q "(built)" && echo "built    $2" || echo "FAILED   $2" ;;
    134) echo "ABORTED  $2: $(echo "$out" | grep -m1 -o "Assertion.*")" ;;
    *) echo "rc $rc   $2: $(echo "$out" | tail -1)" ;;
  esac
}
for f in "$folder"/*.cl; do check "$f" "$(basename "$f")"; done
for f in "$@"; do POCL_WORK_GROUP_METHOD=cbs check "$f" "$(basename "$f") (cbs)"; done
