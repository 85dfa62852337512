#!/usr/bin/env bash
# On the lent GPU machine: the set's xgemm tiles beside their one-parameter neighbours. Each tile of
# SET (default docs/data/set-neighbours-2026-11-29/set.jsonl: one record per tile, written by
# `scripts/set_records.py variants/selected.json OUT DATA... --kernel xgemm`) is timed
# with a copy for each value of each parameter listed below (`fewfit sweep --also-with`; copies
# that break the family's rules are left out), on the training shapes in the row-major LAYOUTS (default
# "nn nt tn"), median of 10 device times: $OUT/$gpu-nb-$layout-f32.jsonl.gz. For twins that gain in
# one layout without losing in the others (scripts/neighbour_compare.py on the dev machine).
# Usage: [SET=FILE] [LAYOUTS="nt"] bash scripts/device/neighbour-sweep.sh [BUDGET_SECS per layout, 150]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o 'H[0-9]00' | tr 'H' 'h')
also=()
for p in VWK=1 VWK=2 VWK=4 VWK=8 KWI=1 KWI=2 KWI=4 KWI=8 SWZ=0 SWZ=1 STRM=0 STRM=1 STRN=0 STRN=1 \
         VWM=1 VWM=2 VWM=4 VWM=8 VWN=1 VWN=2 VWN=4 VWN=8 MDIMA=8 MDIMA=16 MDIMA=32 NDIMB=8 NDIMB=16 NDIMB=32 \
         KWG=16 KWG=32 KWG=64; do
  also+=(--also-with "$p")
done
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for layout in ${LAYOUTS:-nn nt tn}; do
  args=()
  case $layout in nt) args=(--transpose-b) ;; tn) args=(--transpose-a) ;; esac
  .device/fewfit sweep --device gpu --sample 0 --no-shipped --variants-from "${SET:-docs/data/set-neighbours-2026-11-29/set.jsonl}" \
    "${also[@]}" --shapes variants/shapes/train.txt --repeats 10 --quiet --budget-secs "${1:-150}" "${args[@]}" \
    --out "$out/$gpu-nb-$layout-f32.jsonl" 2>&1 | tail -2
done
gzip -f "$out"/*.jsonl
date -u
