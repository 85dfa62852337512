#!/usr/bin/env bash
# On the lent GPU machine: what the whole variant space holds, beyond the shipped set, for a C with
# few columns and many rows or 17-64 rows and many columns (variants/shapes/narrow-probe.txt). Sweeps
# a sample of the direct family and one of the tiled family (each with the shipped set, which
# `sweep` always adds last, so a budget that ends a sweep early leaves the set out: the bench's
# fewfit column times it), widened by a 16-row direct kernel (WPTM = 16) and 16-wide tiles, then
# runs the peer bench on the same shapes with those datasets as its oracle (NN only).
# Usage: bash scripts/device/narrow-probe.sh [DIRECT_SAMPLE] [XGEMM_SAMPLE] [BUDGET_SECS]
# Datasets, bench tables into $OUT (PREFIX h200 or h100 by the card). Binaries: build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/narrow-out}"; mkdir -p "$out" /tmp/narrow
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
python3 - <<'PY'
import json
space = json.load(open('variants/space-gpu.json'))
direct = dict(space['families']['direct'], WPTM=[1, 2, 4, 8, 16])
xgemm = dict(space['families']['xgemm'], MWG=[16, 32, 64, 128], NWG=[16, 32, 64, 128])
for name, family, params in [('direct', 'direct', direct), ('xgemm', 'xgemm', xgemm)]:
    json.dump({'families': {family: params}}, open(f'/tmp/narrow/space-{name}.json', 'w'))
PY
budget="${3:-200}"
for family in direct xgemm; do
  sample=$([ "$family" = direct ] && echo "${1:-300}" || echo "${2:-300}")
  echo "== $family: $sample sampled variants and the set"
  "$fewfit" sweep --device gpu --shapes variants/shapes/narrow-probe.txt --space "/tmp/narrow/space-$family.json" \
    --sample "$sample" --repeats 10 --quiet --budget-secs "$budget" --out "$out/$prefix-narrow-$family-f32.jsonl"
  gzip -kf "$out/$prefix-narrow-$family-f32.jsonl"
done
OUT="$out/bench" BENCH_DATA="$out/$prefix-narrow-direct-f32.jsonl $out/$prefix-narrow-xgemm-f32.jsonl" \
  bash scripts/device/bench.sh variants/shapes/narrow-probe.txt > /dev/null 2>&1
tail -4 "$out/bench/table-wall.md"
date -u
