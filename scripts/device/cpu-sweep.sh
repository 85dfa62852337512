#!/usr/bin/env bash
# On the lent GPU machine: sweep panel variants on its CPU through the PoCL that is installed there
# (a many-core x86 CPU; no NVIDIA setup needed), with the release `fewfit` binary carried in .device/
# (scripts/device/build.sh). Prints the CPU and the OpenCL devices first; resumes from
# .device/NAME.jsonl if carried in; writes $OUT/NAME.jsonl(.gz).
# Usage: [MAX_FLOPS=5e9] bash scripts/device/cpu-sweep.sh NAME SHAPES BUDGET_SECS [extra sweep arguments]
# e.g.   bash scripts/device/cpu-sweep.sh host-cpu-pa variants/shapes/train.txt 420 \
#          --variants-from docs/data/panel-pack-a-2026-11-27/rule.jsonl --also-with PA=1
set -uo pipefail
cd "$(dirname "$0")/../.."
name="$1" shapes="$2" budget="$3"; shift 3
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed -E 's/(Flags: +).*(avx512f|avx2).*/\1... \2 .../'
grep -o -w -E "avx2|avx512f|avx512bw|amx_tile" /proc/cpuinfo | sort | uniq -c
out="${OUT:-/tmp}/$name.jsonl"
[ -f ".device/$name.jsonl" ] && cp ".device/$name.jsonl" "$out"
.device/fewfit devices
.device/fewfit sweep --device cpu --shapes "$shapes" --sample 0 --no-shipped --max-flops "${MAX_FLOPS:-5e9}" \
  --budget-secs "$budget" --repeats 5 --quiet --out "$out" "$@"
wc -l "$out"; gzip -kf "$out"
