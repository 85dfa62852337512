#!/usr/bin/env bash
# On the lent GPU machine: fills the gaps of the H200 matrix that selection and training read, and
# tries the swizzled local slices (SWZ = 1) on the leaders. Pairs already in the committed H200
# datasets are skipped (`--skip-measured`), so the new records never conflict with them.
#   1. UKD direct leaders (best on some skinny shape of h200-v3-skinny) on the training and held-out
#      shapes with 128 < min(M, N) <= 320, which that sweep left out.
#   2. xgemm leaders (best on some shape of h200-v2) and their SWZ = 1 copies on every training
#      (train.txt, train-ml.txt) and held-out (unseen.txt) shape.
# Usage: bash scripts/device/gap-sweep.sh [BUDGET1_SECS] [BUDGET2_SECS]; datasets into $OUT (resumable:
# carry them back in .device/ and run again to continue), each also split into its held-out shapes
# (*-unseen-f32.jsonl.gz) and the rest (*-f32.jsonl.gz) for variants/data/. Binaries:
# scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/gap-out}"; mkdir -p "$out" /tmp/gap
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
# Resume from datasets carried back in .device/.
for f in h200-v4-mid-f32.jsonl h200-v4-xgemm-f32.jsonl; do [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"; done
known=(variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v2-ml-f32.jsonl.gz variants/data/h200-v2-unseen-f32.jsonl.gz
       variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v3-skinny-unseen-f32.jsonl.gz)
lists=(variants/shapes/train.txt variants/shapes/train-ml.txt variants/shapes/unseen.txt)
python3 scripts/shape_list.py /tmp/gap/mid.txt "${lists[@]}" --min-mn-above 128 --min-mn-at-most 320
python3 scripts/shape_list.py /tmp/gap/all.txt "${lists[@]}"
python3 - <<'EOF'
import gzip, json
with gzip.open('variants/data/h200-v2-f32.jsonl.gz', 'rt') as src, gzip.open('/tmp/gap/h200-v2-xgemm.jsonl.gz', 'wt') as dst:
    for line in src:
        if json.loads(line)['variant']['kernel'] == 'xgemm':
            dst.write(line)
EOF
wc -l /tmp/gap/mid.txt /tmp/gap/all.txt
echo "== 1. UKD direct leaders on mid shapes"
"$fewfit" sweep --device gpu --shapes /tmp/gap/mid.txt --space variants/space-gpu.json --sample 0 --no-shipped \
  --variants-from variants/data/h200-v3-skinny-f32.jsonl.gz --near-best 1.0 --skip-measured "${known[@]}" \
  --repeats 10 --quiet --budget-secs "${1:-150}" --out "$out/h200-v4-mid-f32.jsonl"
echo "== 2. xgemm leaders and their SWZ = 1 copies on every shape"
"$fewfit" sweep --device gpu --shapes /tmp/gap/all.txt --space variants/space-gpu.json --sample 0 --no-shipped \
  --variants-from /tmp/gap/h200-v2-xgemm.jsonl.gz --near-best 1.0 --also-with SWZ=1 --skip-measured "${known[@]}" \
  --repeats 10 --quiet --budget-secs "${2:-300}" --out "$out/h200-v4-xgemm-f32.jsonl"
for f in mid xgemm; do
  python3 scripts/split_by_shapes.py "$out/h200-v4-$f-f32.jsonl" variants/shapes/unseen.txt \
    "$out/h200-v4-$f-unseen-f32.jsonl.gz" "$out/h200-v4-$f-f32.jsonl.gz"
done
date -u
