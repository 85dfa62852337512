#!/usr/bin/env bash
# On the lent GPU machine: split-K chosen per launch (KSPLIT = 0, Geometry::splits_for). Copies of
# the xgemm leaders of h200-v4-xgemm (the fastest xgemm on some shape) with KSPLIT = 0, on every
# training and held-out shape with min(M, N) > 8, so that selection can weigh them against their
# KSPLIT = 1 originals everywhere: where the rule does not split they run the originals' program,
# where it does they should come close to the best fixed split of h200-v11-ksplit. First the split-K mechanism tests on
# the GPU. Usage: bash scripts/device/auto-split-sweep.sh [BUDGET_SECS]; writes
# h200-v13-autosplit[-unseen]-f32.jsonl.gz to $OUT (resumes from .device/h200-v13-autosplit-f32.jsonl
# when carried back in). Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
out="${OUT:-/tmp/autosplit-out}"; mkdir -p "$out" /tmp/autosplit
.device/tests/mechanisms --test-threads 1 2>&1 | tail -3
f=h200-v13-autosplit-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
python3 scripts/shape_list.py /tmp/autosplit/shapes.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
wc -l /tmp/autosplit/shapes.txt
python3 - <<'PY'
import gzip, json
with gzip.open('variants/data/h200-v4-xgemm-f32.jsonl.gz', 'rt') as src, gzip.open('/tmp/autosplit/xgemm.jsonl.gz', 'wt') as dst:
    dst.writelines(line for line in src if json.loads(line)['variant']['kernel'] == 'xgemm')
PY
.device/fewfit sweep --device gpu --quiet --no-shipped --repeats 10 --shapes /tmp/autosplit/shapes.txt \
  --space variants/space-gpu.json --sample 0 --variants-from /tmp/autosplit/xgemm.jsonl.gz --near-best 1.0 \
  --also-with KSPLIT=0 --skip-measured $(ls variants/data/h200-*.jsonl.gz | grep -v split) \
  --budget-secs "${1:-400}" --out "$out/$f"
python3 scripts/sweep_best.py "$out/$f" --top 3 | tail -10
python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
  "$out/h200-v13-autosplit-unseen-f32.jsonl.gz" "$out/h200-v13-autosplit-f32.jsonl.gz"
date -u
