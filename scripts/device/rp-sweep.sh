#!/usr/bin/env bash
# On the lent GPU machine: register prefetch (RP) on the shipped set's 128 x 128 stream-K tile, in
# one call. Outputs are named after the GPU (h200 or h100).
#  1. The mechanism tests (tests/mechanisms.rs, carried in .device/tests/), the RP variants among
#     them, against the f64 reference through NVIDIA's OpenCL: $OUT/tests.log.
#  2. The tile with the RP values RPS (default "0 1 2 3", variants/space-gpu-rp.json) over the
#     training and held-out shapes (variants/shapes/train.txt, unseen.txt), in the row-major
#     LAYOUTS (default "nn nt tn"), median of 10 device times: $OUT/$prefix-rp-$layout-f32.jsonl.gz,
#     and RP against RP = 0 (which RPS must hold; scripts/param_compare.py) in $OUT/compare.txt.
# Stops sweeping after BUDGET_SECS (420); the sweeps resume from their files when run again.
# Usage: [RPS="0 3"] [LAYOUTS="nn tn"] bash scripts/device/rp-sweep.sh [BUDGET_SECS]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp}"
deadline=$(( $(date +%s) + ${1:-420} ))
layouts=${LAYOUTS:-nn nt tn}
space="$out/space-rp.json"
python3 - "${RPS:-0 1 2 3}" "$space" <<'EOF'
import json, sys
space = json.load(open('variants/space-gpu-rp.json'))
space['families']['xgemm']['RP'] = [int(v) for v in sys.argv[1].split()]
json.dump(space, open(sys.argv[2], 'w'))
EOF
FEWFIT_DEVICE=gpu .device/tests/mechanisms 2>&1 | tail -8 | tee "$out/tests.log"
for layout in $layouts; do
  args=()
  case $layout in nt) args=(--transpose-b) ;; tn) args=(--transpose-a) ;; tt) args=(--transpose-a --transpose-b) ;; esac
  for shapes in variants/shapes/train.txt variants/shapes/unseen.txt; do
    left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $layout $shapes"; break; }
    .device/fewfit sweep --device gpu --space "$space" --shapes "$shapes" --repeats 10 \
      --quiet --no-shipped --budget-secs "$left" "${args[@]}" --out "$out/$prefix-rp-$layout-f32.jsonl" 2>&1 | tail -2
  done
done
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for layout in $layouts; do
    echo "## $layout: RP = ${RPS:-0 1 2 3} against 0"
    python3 scripts/param_compare.py "$out/$prefix-rp-$layout-f32.jsonl" --param RP --base 0
  done
} > "$out/compare.txt" 2>&1
cat "$out/compare.txt"
rm -f "$space"
gzip -f "$out"/*.jsonl
