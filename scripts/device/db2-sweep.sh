#!/usr/bin/env bash
# On the lent GPU machine: DB = 2 (the two operands staged in turn) against DB = 1.
#   large: the xgemm variants within 5 % of the fastest xgemm on some shape of
#          variants/shapes/gpu-large.txt or large.txt, and the set's, each timed with its DB = 2 copy
#          on those shapes (h200-v14-db2-large-f32), then the compiler's register counts of them all.
#   all:   DB = 2 copies of the xgemm leaders (the fastest xgemm on some training or held-out shape
#          with min(M, N) > 8, where xgemm is within 1.3x of the oracle) on those shapes; pairs the
#          committed H200 datasets hold are skipped. Split into h200-v14-db2[-unseen]-f32.jsonl.gz
#          for `regenerate` (resumes from .device/h200-v14-db2-f32.jsonl when carried back in).
#   skinny: the shipped set's xgemm variants on the training and held-out shapes with
#          min(M, N) <= 8, which `all` left out, skipping the pairs the committed H200 datasets hold
#          (so: the set's DB = 2 members): h200-v14-db2-skinny[-unseen]-f32.jsonl.gz.
# Usage: bash scripts/device/db2-sweep.sh large|all|skinny [BUDGET_SECS]; outputs into $OUT.
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode="$1"; budget="${2:-300}"
out="${OUT:-/tmp/db2-out}"; mkdir -p "$out" /tmp/db2
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
build_log=.device/build_log; [ -x "$build_log" ] || build_log=target/release/examples/build_log
data=(variants/data/h200-*.jsonl.gz)
case "$mode" in
large)
  python3 scripts/shape_list.py /tmp/db2/shapes.txt variants/shapes/gpu-large.txt variants/shapes/large.txt
  python3 scripts/set_records.py variants/selected.json /tmp/db2/set.jsonl.gz "${data[@]}" --kernel xgemm
  python3 scripts/leaders.py /tmp/db2/shapes.txt /tmp/db2/leaders.jsonl.gz "${data[@]}" --factor 1.05 --family-within 1e9
  f="$out/h200-v14-db2-large-f32.jsonl"
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/leaders.jsonl.gz /tmp/db2/set.jsonl.gz --also-with DB=2 --repeats 20 --quiet \
    --budget-secs "$budget" --out "$f"
  "$build_log" --from "$f" -cl-nv-verbose | grep -E '^==|registers' > "$out/db2-large-registers.txt"
  python3 scripts/sweep_best.py "$f" --top 6
  ;;
all)
  f=h200-v14-db2-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
  python3 scripts/shape_list.py /tmp/db2/shapes.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
  python3 scripts/leaders.py /tmp/db2/shapes.txt /tmp/db2/leaders.jsonl.gz "${data[@]}"
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/leaders.jsonl.gz --also-with DB=2 --skip-measured "${data[@]}" --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
    "$out/h200-v14-db2-unseen-f32.jsonl.gz" "$out/h200-v14-db2-f32.jsonl.gz"
  ;;
skinny)
  f=h200-v14-db2-skinny-f32.jsonl
  python3 scripts/shape_list.py /tmp/db2/all.txt variants/shapes/{train,train-ml,unseen}.txt
  python3 scripts/shape_list.py /tmp/db2/wide.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
  grep -vxFf /tmp/db2/wide.txt /tmp/db2/all.txt > /tmp/db2/shapes.txt
  python3 scripts/set_records.py variants/selected.json /tmp/db2/set.jsonl.gz "${data[@]}" --kernel xgemm
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/set.jsonl.gz --skip-measured "${data[@]}" --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
    "$out/h200-v14-db2-skinny-unseen-f32.jsonl.gz" "$out/h200-v14-db2-skinny-f32.jsonl.gz"
  ;;
*) echo "usage: $0 large|all|skinny [BUDGET_SECS]" >&2; exit 2 ;;
esac
date -u
