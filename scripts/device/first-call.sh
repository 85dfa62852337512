#!/usr/bin/env bash
# The first GEMM of a process with every cache off (fewfit's binary cache off, the NVIDIA driver's
# compute cache off, PoCL's kernel cache off), through fewfit and through CLBlast, each in fresh
# processes, ROUNDS times in turn (bench/examples/first_call.rs, built into .device/ by
# scripts/device/build.sh). Beside them: fewfit with its binary cache on in an empty folder
# ("empty cache": the first call also stores its program's binary, for which PoCL compiles every
# entry point of the program), and fewfit-all, fewfit with its device's whole tree built within the
# first call, as before the first call built only its own variant. Elsewhere than the GPU machine:
# DEVICE=cpu (PoCL).
# Usage: [DEVICE=cpu] [ROUNDS=3] bash scripts/device/first-call.sh [M N K]   (default 1024 1024 1024)
set -uo pipefail
cd "$(dirname "$0")/../.."
device="${DEVICE:-gpu}"
if [ "$device" = gpu ]; then source scripts/device/nvidia.sh; else date -u; fi
deb=$(ls .device/libclblast1_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
  rm -rf /tmp/clblast && dpkg -x "$deb" /tmp/clblast
  export LD_LIBRARY_PATH="$(dirname "$(find /tmp/clblast -name 'libclblast.so.1*' | head -1)")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
bin=.device/first_call; [ -x "$bin" ] || bin=target/release/examples/first_call
shape=("${@:-1024 1024 1024}"); [ $# -ge 3 ] || shape=(1024 1024 1024)
export FEWFIT_DEVICE="$device" CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
for round in $(seq "${ROUNDS:-3}"); do
  for library in fewfit fewfit-all clblast; do
    FEWFIT_CACHE_DIR=off "$bin" "$library" "${shape[@]}" 2>&1 | sed "s/^/round $round: /"
  done
  cache=$(mktemp -d)
  FEWFIT_CACHE_DIR="$cache" "$bin" fewfit "${shape[@]}" 2>&1 | sed "s/^/round $round, empty cache: /"
  rm -rf "$cache"
done
