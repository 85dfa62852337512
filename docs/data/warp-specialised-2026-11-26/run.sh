#!/usr/bin/env bash
# Warp-specialised SGEMM probe on the lent GPU machine. From the repository root:
#   bash docs/data/warp-specialised-2026-11-26/run.sh [MxNxK ...]
# The probe binary is built on the dev machine (README.md) and carried here; it needs only
# libOpenCL at run time. Output goes to stdout and, when $OUT is set, to $OUT/ws-probe.txt.
set -u
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# NVIDIA's OpenCL ICD is installed there but not registered.
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd

run() {
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
  if [ ! -x "$dir/probe" ]; then
    echo "error: $dir/probe missing (build it first, see README.md)"
    return 1
  fi
  # CUDA_CACHE_DISABLE: compile afresh, so -cl-nv-verbose always prints ptxas registers / spills.
  CUDA_CACHE_DISABLE=1 PROBE_DEVICE=gpu FEWFIT_DEVICE=gpu PROBE_KERNEL="$dir/ws.cl" PROBE_PTX_DIR="${OUT:-}" \
    "$dir/probe" "$@" 2>&1
}

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  run "$@" | tee "$OUT/ws-probe.txt"
  exit "${PIPESTATUS[0]}"
else
  run "$@"
fi
