#!/usr/bin/env bash
# On the lent GPU machine: enable NVIDIA's OpenCL, then sweep a sample of the GPU space over the
# training shapes with the release `fewfit` binary carried in .device/ (built here with
# `cargo build --release --features tune --bin fewfit`). Resumes from $OUT/DATA if carried back in.
# Usage: bash scripts/device/sweep.sh SAMPLE BUDGET_SECS [SHARD]
set -uo pipefail
cd "$(dirname "$0")/../.."
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
out="${OUT:-/tmp}/h200-sweep.jsonl"
[ -f .device/h200-sweep.jsonl ] && cp .device/h200-sweep.jsonl "$out"
.device/fewfit devices
.device/fewfit sweep --device gpu --shapes variants/shapes/train.txt --space variants/space-gpu.json \
  --sample "${1:-200}" --budget-secs "${2:-420}" --shard "${3:-0/1}" --repeats 10 --quiet --out "$out"
wc -l "$out"; gzip -kf "$out"
