#!/usr/bin/env bash
# On the lent GPU machine: builds programs through NVIDIA's OpenCL with the engine's options
# (examples/build_log, its arguments passed on: --variant ID, --source FILE, ...), then for each one
# assembles the PTX that the driver returns as its binary with CUDA's ptxas for sm_90 (registers,
# spills and stack in NAME.ptxas.txt) and disassembles it (NAME.sass), to compare the machine code
# of two programs (scripts/sass_loops.py reads their multiply loops). Everything goes to /tmp/sass,
# packed into $OUT/sass.tgz. The same ptxas and nvdisasm (CUDA 13.0) run on the dev machine from
# PyPI's nvidia-cuda-nvcc wheel, on the PTX brought back.
# Usage: bash scripts/device/sass.sh BUILD_LOG [build_log arguments...]
set -uo pipefail
cd "$(dirname "$0")/../.."
build_log=$1; shift
work=/tmp/sass; rm -rf "$work"; mkdir -p "$work"
source scripts/device/nvidia.sh
export PATH=$PATH:/usr/local/cuda/bin
ptxas --version | tail -1
"$build_log" --binaries "$work" "$@" -cl-nv-verbose > "$work/build.log" 2>&1
grep -E '^== |registers|spill' "$work/build.log"
for bin in "$work"/*.bin; do
  name=${bin%.bin}
  tr -d '\000' < "$bin" > "$name.ptx"  # the binary ends in a NUL, which ptxas rejects
  ptxas -arch=sm_90 -v "$name.ptx" -o "$name.cubin" > "$name.ptxas.txt" 2>&1
  nvdisasm -c "$name.cubin" > "$name.sass"
  echo "$(basename "$name"):"; grep -E 'Compiling entry|registers' "$name.ptxas.txt"
done
if [ -n "${OUT:-}" ]; then tar czf "$OUT/sass.tgz" -C /tmp sass; fi
