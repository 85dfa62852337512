#!/usr/bin/env bash
# On the lent GPU machine: times the stream-K twin (SK = 2) of the 256 x 128 DB = 1 tile with 32 x 8
# work-items (the fastest tile at 4096³-8192³ in the 2026-11-25 wide sweep, `h200-v15-wide-*`, which
# lost on shapes that leave its last wave part full) on the shapes where the set's 128 x 128 twin
# was timed, so that selection can weigh the two twins on the same shapes.
# - On an H200: every shape of variants/data/h200-v19-sk-NAME-f32.jsonl.gz, written to
#   $OUT/h200-v21-wide-sk-NAME-f32.jsonl.gz. Stops after BUDGET_SECS (480); run again with the
#   partial files carried back in .device/wide-sk/ to resume.
# - Elsewhere (an H100): both twins on variants/shapes/stream-k.txt and large.txt, for comparison
#   only ($OUT/h100-wide-sk-f32.jsonl.gz).
# Also: the twins' register counts (build-log.txt) and the mechanism tests (tests.log).
# Usage: bash scripts/device/wide-sk-sweep.sh [BUDGET_SECS]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"; inputs=/tmp/wide-sk; mkdir -p "$inputs"
deadline=$(( $(date +%s) + ${1:-480} ))
wide=DB=1,KSPLIT=1,KWG=16,KWI=2,MDIMA=16,MDIMC=32,MWG=256,NDIMB=16,NDIMC=8,NWG=128,SA=1,SB=1,SK=0,STRM=1,STRN=1,SWZ=0,VWK=4,VWM=4,VWN=4
set_tile=DB=1,KSPLIT=1,KWG=16,KWI=2,MDIMA=16,MDIMC=16,MWG=128,NDIMB=32,NDIMC=16,NWG=128,SA=1,SB=1,SK=2,STRM=1,STRN=1,SWZ=0,VWK=4,VWM=2,VWN=4
python3 scripts/records_with.py variants/data/h200-v19-sk-v2-unseen-f32.jsonl.gz "$set_tile" --variants "$inputs/set-tile.jsonl.gz"
# The wide tile's record with SK = 2: the twin alone is timed.
python3 scripts/records_with.py variants/data/h200-v15-wide-unseen-f32.jsonl.gz "$wide" --variants "$inputs/wide-sk.jsonl.gz" --twins SK=2
.device/build_log --from "$inputs/wide-sk.jsonl.gz" --from "$inputs/set-tile.jsonl.gz" -cl-nv-verbose 2>&1 \
  | grep -E "^==|registers|spill" > "$out/build-log.txt"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  for name in v2-unseen v2 v2-ml v13-trees v13-tree-dense; do
    new="h200-v21-wide-sk-$name-f32"
    left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $new"; break; }
    [ -f ".device/wide-sk/$new.jsonl.gz" ] && gunzip -c ".device/wide-sk/$new.jsonl.gz" > "$out/$new.jsonl"
    python3 scripts/records_with.py "variants/data/h200-v19-sk-$name-f32.jsonl.gz" SK=2 --shapes "$inputs/$name.txt"
    .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 10 \
      --shapes "$inputs/$name.txt" --variants-from "$inputs/wide-sk.jsonl.gz" \
      --budget-secs "$left" --out "$out/$new.jsonl"
    gzip -f "$out/$new.jsonl"
  done
else
  cat variants/shapes/stream-k.txt variants/shapes/large.txt | sort -u > "$inputs/shapes.txt"
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 20 --shapes "$inputs/shapes.txt" \
    --variants-from "$inputs/wide-sk.jsonl.gz" "$inputs/set-tile.jsonl.gz" \
    --budget-secs $(( deadline - $(date +%s) )) --out "$out/h100-wide-sk-f32.jsonl"
  gzip -f "$out/h100-wide-sk-f32.jsonl"
fi
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -4 | tee "$out/tests.log"
date -u
