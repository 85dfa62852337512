#!/usr/bin/env bash
# On the lent GPU machine: other local staging schemes (DB values), or other values of any xgemm
# parameter (NAME=VALUE, e.g. KWI=4), against the measured ones.
#   large: the xgemm variants within 5 % of the fastest xgemm on some shape of
#          variants/shapes/gpu-large.txt or large.txt, and the set's, each timed with its copies of
#          the given DB values on those shapes (h200-TAG-large-f32), then the compiler's register
#          counts of them all (for at most $LOG_SECS seconds, 300); SHAPES="FILE..." replaces the
#          two shape lists.
#   all:   those copies of the xgemm leaders (the fastest xgemm on some training or held-out shape
#          with min(M, N) > 8, where xgemm is within 1.3x of the oracle) on those shapes; pairs the
#          committed H200 datasets hold are skipped. Split into h200-TAG[-unseen]-f32.jsonl.gz
#          for `regenerate` (resumes from .device/h200-TAG-f32.jsonl when carried back in).
#   control: the same leaders (chosen from the data before TAG's) and their copies of the given DB
#          values, timed together in one sweep on every $EVERY-th (3) of those shapes, nothing
#          skipped: a within-run comparison, and the drift of the leaders' times since their own
#          sweeps (h200-TAG-control-f32.jsonl.gz; for analysis, not for `regenerate`).
#   skinny: the shipped set's xgemm variants on the training and held-out shapes with
#          min(M, N) <= 8, which `all` left out, skipping the pairs the committed H200 datasets hold
#          (so: the set's members of new DB values): h200-TAG-skinny[-unseen]-f32.jsonl.gz.
# Usage: bash scripts/device/db-sweep.sh large|all|control|skinny TAG DB|NAME=VALUE... ; outputs into $OUT, stops each
# sweep after $BUDGET seconds (300). The h200-v14-db2 data came from `... v14-db2 2`.
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode="$1"; tag="$2"; shift 2
budget="${BUDGET:-300}"
also=(); for a in "$@"; do if [[ "$a" == *=* ]]; then also+=(--also-with "$a"); else also+=(--also-with "DB=$a"); fi; done
out="${OUT:-/tmp/db-out}"; mkdir -p "$out" /tmp/db2
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
build_log=.device/build_log; [ -x "$build_log" ] || build_log=target/release/examples/build_log
data=(variants/data/h200-*.jsonl.gz)
case "$mode" in
large)
  python3 scripts/shape_list.py /tmp/db2/shapes.txt ${SHAPES:-variants/shapes/gpu-large.txt variants/shapes/large.txt}
  python3 scripts/set_records.py variants/selected.json /tmp/db2/set.jsonl.gz "${data[@]}" --kernel xgemm
  python3 scripts/leaders.py /tmp/db2/shapes.txt /tmp/db2/leaders.jsonl.gz "${data[@]}" --factor 1.05 --family-within 1e9
  f="$out/h200-$tag-large-f32.jsonl"
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/leaders.jsonl.gz /tmp/db2/set.jsonl.gz "${also[@]}" --repeats 20 --quiet \
    --budget-secs "$budget" --out "$f"
  timeout "${LOG_SECS:-300}" "$build_log" --from "$f" -cl-nv-verbose | grep -E '^==|registers|spill' > "$out/$tag-large-registers.txt"
  python3 scripts/sweep_best.py "$f" --top 6
  ;;
all)
  f=h200-$tag-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
  python3 scripts/shape_list.py /tmp/db2/shapes.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
  python3 scripts/leaders.py /tmp/db2/shapes.txt /tmp/db2/leaders.jsonl.gz "${data[@]}"
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/leaders.jsonl.gz "${also[@]}" --skip-measured "${data[@]}" --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
    "$out/h200-$tag-unseen-f32.jsonl.gz" "$out/h200-$tag-f32.jsonl.gz"
  ;;
control)
  f=h200-$tag-control-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
  before=(); for d in "${data[@]}"; do [[ "$d" == *"-$tag-"* ]] || before+=("$d"); done
  python3 scripts/shape_list.py /tmp/db2/all.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
  awk -v n="${EVERY:-3}" 'NR % n == 1' /tmp/db2/all.txt > /tmp/db2/shapes.txt
  python3 scripts/leaders.py /tmp/db2/all.txt /tmp/db2/leaders.jsonl.gz "${before[@]}"
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/leaders.jsonl.gz "${also[@]}" --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  gzip -kf "$out/$f"
  ;;
skinny)
  f=h200-$tag-skinny-f32.jsonl
  python3 scripts/shape_list.py /tmp/db2/all.txt variants/shapes/{train,train-ml,unseen}.txt
  python3 scripts/shape_list.py /tmp/db2/wide.txt variants/shapes/{train,train-ml,unseen}.txt --min-mn-above 8
  grep -vxFf /tmp/db2/wide.txt /tmp/db2/all.txt > /tmp/db2/shapes.txt
  python3 scripts/set_records.py variants/selected.json /tmp/db2/set.jsonl.gz "${data[@]}" --kernel xgemm
  "$fewfit" sweep --device gpu --shapes /tmp/db2/shapes.txt --space variants/space-gpu.json --sample 0 --no-shipped \
    --variants-from /tmp/db2/set.jsonl.gz --skip-measured "${data[@]}" --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
    "$out/h200-$tag-skinny-unseen-f32.jsonl.gz" "$out/h200-$tag-skinny-f32.jsonl.gz"
  ;;
*) echo "usage: $0 large|all|control|skinny TAG DB|NAME=VALUE..." >&2; exit 2 ;;
esac
date -u
