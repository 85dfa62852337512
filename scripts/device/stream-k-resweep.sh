#!/usr/bin/env bash
# On the lent GPU machine (an H200: the records join the H200 datasets): times the stream-K twin
# (SK = 2) of the 128 x 128 DB = 1 tile (the set's large-shape tile before 2026-11-26) on every shape
# where an H200 dataset that `regenerate` reads holds the tile itself (SK = 0), so that selection
# and trees can weigh the two on the same shapes. For each dataset, `scripts/records_with.py` picks
# the tile's records and shapes, and `fewfit sweep --also-with SK=2 --skip-measured` times the twin
# alone on them. Writes $OUT/h200-v19-sk-NAME-f32.jsonl.gz for each dataset
# variants/data/h200-NAME-f32.jsonl.gz, and tests.log (the mechanism tests on the GPU). Stops after
# BUDGET_SECS (480); run again with the partial files carried back in .device/sk-resweep/ to resume.
# Usage: bash scripts/device/stream-k-resweep.sh [BUDGET_SECS]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: nothing timed"; exit 3; }
out="${OUT:-/tmp}"; inputs=/tmp/sk-resweep; mkdir -p "$inputs"
deadline=$(( $(date +%s) + ${1:-480} ))
tile=DB=1,KSPLIT=1,KWG=16,KWI=2,MDIMA=16,MDIMC=16,MWG=128,NDIMB=32,NDIMC=16,NWG=128,SA=1,SB=1,SK=0,STRM=1,STRN=1,SWZ=0,VWK=4,VWM=2,VWN=4
for name in v2-unseen v2 v2-ml v13-trees v13-tree-dense; do
  data="variants/data/h200-$name-f32.jsonl.gz" new="h200-v19-sk-$name-f32"
  left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $new"; break; }
  [ -f ".device/sk-resweep/$new.jsonl.gz" ] && gunzip -c ".device/sk-resweep/$new.jsonl.gz" > "$out/$new.jsonl"
  python3 scripts/records_with.py "$data" "$tile" --variants "$inputs/$name.jsonl.gz" --shapes "$inputs/$name.txt"
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 10 \
    --shapes "$inputs/$name.txt" --variants-from "$inputs/$name.jsonl.gz" --also-with SK=2 --skip-measured "$data" \
    --budget-secs "$left" --out "$out/$new.jsonl"
  gzip -f "$out/$new.jsonl"
done
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -4 | tee "$out/tests.log"
date -u
