#!/usr/bin/env bash
# On the lent GPU machine, after adding VAD (vector loads of A) to the direct kernel:
#   1. the direct cases of kernel_timing (VAD = 0 and 1 side by side);
#   2. every VAD = 1 variant of variants/space-gpu-direct.json on the decode shapes (the VAD = 0
#      ones are in h200-v3-decode-f32 and are skipped);
#   3. the direct leaders (best on some shape of h200-v3-skinny, or of step 2) and their VAD = 1
#      copies on every training and held-out shape with min(M, N) <= 320.
# Pairs the committed H200 datasets hold are skipped (`--skip-measured`), so everything loads
# together. Usage: bash scripts/device/vad-sweep.sh [DECODE_SECS] [SKINNY_SECS]; writes to $OUT
# kernel-timing.txt, h200-v5-decode-f32.jsonl and h200-v5-skinny[-unseen]-f32.jsonl.gz (steps 2 and 3
# resume from .device/NAME.jsonl when carried back in). Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/vad-out}"; mkdir -p "$out" /tmp/vad
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
for f in h200-v5-decode-f32.jsonl h200-v5-skinny-f32.jsonl; do [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"; done
known=(variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v2-unseen-f32.jsonl.gz variants/data/h200-v3-decode-f32.jsonl.gz
       variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v3-skinny-unseen-f32.jsonl.gz
       variants/data/h200-v4-mid-f32.jsonl.gz variants/data/h200-v4-mid-unseen-f32.jsonl.gz)
python3 - <<'PY'
def shapes(path):
    out = []
    for line in open(path):
        f = line.split('#')[0].split()
        if len(f) >= 3:
            out.append(tuple(map(int, f[:3])))
    return out
every = set()
for name in ['train', 'train-ml', 'unseen']:
    every |= set(shapes(f'variants/shapes/{name}.txt'))
open('/tmp/vad/skinny.txt', 'w').write(''.join(f'{m} {n} {k}\n' for m, n, k in sorted(every) if min(m, n) <= 320))
PY
wc -l /tmp/vad/skinny.txt
echo "== 1. kernel_timing direct"
.device/kernel_timing direct 2>&1 | tee "$out/kernel-timing.txt"
sweep() { .device/fewfit sweep --device gpu --quiet --no-shipped --repeats 10 --skip-measured "${known[@]}" "$@"; }
echo "== 2. VAD = 1 direct variants on the decode shapes"
sweep --space variants/space-gpu-direct.json --shapes variants/shapes/decode.txt --budget-secs "${1:-150}" \
  --out "$out/h200-v5-decode-f32.jsonl"
python3 scripts/sweep_best.py "$out/h200-v5-decode-f32.jsonl" --top 3
echo "== 3. direct leaders and their VAD = 1 copies on the skinny shapes"
sweep --space variants/space-gpu-direct.json --shapes /tmp/vad/skinny.txt --sample 0 --near-best 1.0 \
  --variants-from variants/data/h200-v3-skinny-f32.jsonl.gz "$out/h200-v5-decode-f32.jsonl" --also-with VAD=1 \
  --budget-secs "${2:-300}" --out "$out/h200-v5-skinny-f32.jsonl"
python3 scripts/split_by_shapes.py "$out/h200-v5-skinny-f32.jsonl" variants/shapes/unseen.txt \
  "$out/h200-v5-skinny-unseen-f32.jsonl.gz" "$out/h200-v5-skinny-f32.jsonl.gz"
date -u
