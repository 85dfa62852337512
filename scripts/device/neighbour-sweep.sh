#!/usr/bin/env bash
# On the lent GPU machine: the set's xgemm tiles beside their one-parameter neighbours. Each tile of
# SET (default docs/data/set-neighbours-2026-11-29/set.jsonl: one record per tile, written by
# `scripts/set_records.py variants/selected.json OUT DATA... --kernel xgemm`) is timed
# with a copy for each value of each parameter listed below (`fewfit sweep --also-with`; copies
# that break the family's rules are left out), on the training shapes in the row-major LAYOUTS (default
# "nn nt tn"), median of 10 device times: $OUT/$prefix-nb-$FAMILY-$layout-f32.jsonl.gz. For twins that gain in
# one layout without losing in the others (scripts/neighbour_compare.py on the dev machine).
# PARAMS="UKK=1 ..." replaces the list of changes; SHAPES="FILE ..." the shape lists (default
# variants/shapes/train.txt; with FAMILY=direct their shapes with M <= 16, with MAX_SIDE=S those whose
# short side min(M, N) is at most S; a shape listed twice is timed once); TAG names the output
# ($prefix-nb-$FAMILY-$TAG$layout-f32).
# Usage: [FAMILY=direct] [SET=FILE] [LAYOUTS="nt"] [PARAMS=..] [SHAPES=..] [MAX_SIDE=..] [TAG=..] bash scripts/device/neighbour-sweep.sh [BUDGET_SECS per layout, 150]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
# FAMILY=direct: the set's direct variants (SET default set-direct.jsonl) on the training shapes
# with M <= 16, where the trees pick them.
max_m=$([ "${FAMILY:-xgemm}" = direct ] && echo 16 || echo 2147483647)
shapes="$out/shapes.txt"
cat ${SHAPES:-variants/shapes/train.txt} | awk -v max_m="$max_m" -v side="${MAX_SIDE:-}" \
  '!/^#/ && NF >= 3 && (side == "" ? $1 <= max_m : ($1 <= side + 0 || $2 <= side + 0)) && !seen[$1 " " $2 " " $3]++' > "$shapes"
if [ "${FAMILY:-xgemm}" = direct ]; then
  set_file="${SET:-docs/data/set-neighbours-2026-11-29/set-direct.jsonl}"
  params="WPTM=1 WPTM=2 WPTM=4 WPTM=8 WPTM=16 WPTN=1 WPTN=2 WPTN=4 WPTN=8 NDIMD=4 NDIMD=8 NDIMD=16 NDIMD=32
          NDIMD=64 KDIMD=8 KDIMD=16 KDIMD=32 KDIMD=64 KDIMD=128 VWD=1 VWD=2 VWD=4 VWD=8 UKD=1 UKD=2 UKD=4 UKD=8 RBR=0 RBR=1
          UKK=1 UKK=2 UKK=4 UKK=8"
else
  set_file="${SET:-docs/data/set-neighbours-2026-11-29/set.jsonl}"
  params="VWK=1 VWK=2 VWK=4 VWK=8 KWI=1 KWI=2 KWI=4 KWI=8 SWZ=0 SWZ=1 STRM=0 STRM=1 STRN=0 STRN=1
          VWM=1 VWM=2 VWM=4 VWM=8 VWN=1 VWN=2 VWN=4 VWN=8 MDIMA=8 MDIMA=16 MDIMA=32 NDIMB=8 NDIMB=16 NDIMB=32
          KWG=16 KWG=32 KWG=64"
fi
also=(); for p in ${PARAMS:-$params}; do also+=(--also-with "$p"); done
for layout in ${LAYOUTS:-nn nt tn}; do
  args=()
  case $layout in nt) args=(--transpose-b) ;; tn) args=(--transpose-a) ;; esac
  .device/fewfit sweep --device gpu --sample 0 --no-shipped --variants-from "$set_file" \
    "${also[@]}" --shapes "$shapes" --repeats 10 --quiet --budget-secs "${1:-150}" "${args[@]}" \
    --out "$out/$prefix-nb-${FAMILY:-xgemm}-${TAG:-}$layout-f32.jsonl" 2>&1 | tail -2
done
rm -f "$shapes"; gzip -f "$out"/*.jsonl
date -u
