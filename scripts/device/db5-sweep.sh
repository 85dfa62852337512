#!/usr/bin/env bash
# On the lent GPU machine: the set's 128 x 128 DB = 1 stream-K tile against its DB = 5 twin (the
# operand contiguous along M / N copied by cp.async, no staging registers or store for it), which
# could take its place in the set (scripts/substitute_twin.py) if it is as fast everywhere:
# - both twins' register counts (build-log.txt);
# - the mechanism tests, DB = 5 among them, on the GPU (tests.log);
# - both twins on the training, held-out, large and stream-K shapes in NN, twice
#   ($OUT/PREFIX-db5-nn-RUN-f32.jsonl.gz; `fewfit sweep` times the two back to back on each shape),
#   and on the large and stream-K shapes in row-major NT, where both operands are contiguous along K
#   and the twins run the same code ($OUT/PREFIX-db5-nt-f32.jsonl.gz).
# Usage: bash scripts/device/db5-sweep.sh [BUDGET_SECS]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /etc/OpenCL/vendors
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"; inputs=/tmp/db5; mkdir -p "$inputs"
deadline=$(( $(date +%s) + ${1:-420} ))
set_tile=DB=1,KSPLIT=1,KWG=16,KWI=2,MDIMA=16,MDIMC=16,MWG=128,NDIMB=32,NDIMC=16,NWG=128,SA=1,SB=1,SK=2,STRM=1,STRN=1,SWZ=0,VWK=4,VWM=2,VWN=4
python3 scripts/records_with.py variants/data/h200-v19-sk-v2-unseen-f32.jsonl.gz "$set_tile" --variants "$inputs/set-tile.jsonl.gz"
python3 scripts/records_with.py variants/data/h200-v19-sk-v2-unseen-f32.jsonl.gz "$set_tile" --variants "$inputs/db5-tile.jsonl.gz" --twins DB=5
.device/build_log --from "$inputs/set-tile.jsonl.gz" --from "$inputs/db5-tile.jsonl.gz" -cl-nv-verbose 2>&1 \
  | grep -E "^==|registers|spill" > "$out/build-log.txt"
cat "$out/build-log.txt"
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -4 | tee "$out/tests.log"
cat variants/shapes/large.txt variants/shapes/stream-k.txt variants/shapes/gpu-large.txt | sort -u > "$inputs/large.txt"
cat "$inputs/large.txt" variants/shapes/train.txt variants/shapes/unseen.txt | sort -u > "$inputs/nn.txt"
sweep() {  # OUT_NAME SHAPES [OPTIONS...]
  local name=$1 shapes=$2; shift 2
  local left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $name"; return; }
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 20 --shapes "$shapes" \
    --variants-from "$inputs/set-tile.jsonl.gz" --also-with DB=5 --budget-secs "$left" --out "$out/$name.jsonl" "$@"
  gzip -f "$out/$name.jsonl"
}
sweep "$prefix-db5-nt-f32" "$inputs/large.txt" --transpose-b
sweep "$prefix-db5-nn-1-f32" "$inputs/nn.txt"
sweep "$prefix-db5-nn-2-f32" "$inputs/nn.txt"
date -u
