#!/usr/bin/env bash
# On the lent GPU machine: 256-wide xgemm tiles with 128 accumulators per work-item (256 x 128 and
# 128 x 256 tiles, 256 work-items each, 16 x 8 or 8 x 16 register tiles). The 2026-11-24 sweep of
# 256-wide tiles (space-gpu-xl.json) only timed ones with 256 accumulators, which spill.
#   large: on the large shapes (variants/shapes/large.txt), next to the shipped set. Each of the four
#          (tile, work-group shape) pairs gets its own space file (written to /tmp: a space file
#          cannot tie MDIMC to MWG), SAMPLE variants sampled from each, the other parameters around
#          the large-square leaders; then the compiler's register counts of what was timed and the
#          8 fastest per shape. Writes h200-wide-large-f32.jsonl.gz and wide-registers.txt.
#   all:   the leaders of the committed large-shape data (docs/data/wide-2026-11-25, within 1 % of
#          the fastest on some large shape) and their KSPLIT = 0 copies on the training and held-out
#          shapes (train, train-ml, unseen), split into h200-v15-wide[-unseen]-f32.jsonl.gz for
#          `regenerate`, then on the shapes that only train the trees (train-trees, train-tree-dense)
#          into h200-v15-wide-trees-f32.jsonl.gz; resumes from .device/h200-v15-wide*-f32.jsonl when
#          carried back in.
# Usage: bash scripts/device/wide-sweep.sh large [SAMPLE [BUDGET_SECS]] (defaults 24 and 300)
#        bash scripts/device/wide-sweep.sh all [BUDGET_SECS] (default 400); outputs into $OUT.
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-large}"
out="${OUT:-/tmp/wide-out}"; mkdir -p "$out" /tmp/wide
source scripts/device/nvidia.sh
case "$mode" in
large)
  sample="${2:-24}" budget="${3:-300}"
  data="$out/h200-wide-large-f32.jsonl"
  deadline=$(( $(date +%s) + budget ))
  sweep() {  # sweep arguments...; each step gets what is left of the budget
    local left=$(( deadline - $(date +%s) ))
    [ "$left" -gt 5 ] || { echo "skipped (budget spent): $*"; return; }
    .device/fewfit sweep --device gpu --shapes variants/shapes/large.txt --repeats 10 --quiet \
      --budget-secs "$left" --out "$data" "$@"
    echo "rc=$?: $*"
  }
  # The shipped set first: the control, timed in the same run.
  sweep --space variants/space-gpu.json --sample 0
  for shape in "256 128 16 16" "256 128 32 8" "128 256 16 16" "128 256 8 32"; do
    read -r mwg nwg mdimc ndimc <<< "$shape"
    space="/tmp/wide/space-$mwg-$nwg-$mdimc-$ndimc.json"
    cat > "$space" <<EOF
{"comment": "wide-sweep.sh: MWG $mwg NWG $nwg MDIMC $mdimc NDIMC $ndimc",
 "families": {"xgemm": {"MWG": [$mwg], "NWG": [$nwg], "KWG": [8, 16], "MDIMC": [$mdimc], "NDIMC": [$ndimc],
   "MDIMA": [16, 32], "NDIMB": [16, 32], "KWI": [2, 8], "VWM": [2, 4], "VWN": [2, 4], "STRM": [1], "STRN": [1],
   "SA": [1], "SB": [1], "VWK": [4], "DB": [1, 2], "KSPLIT": [1], "SWZ": [0]}}}
EOF
    sweep --space "$space" --sample "$sample" --no-shipped
  done
  wc -l "$data"
  .device/build_log --from "$data" -cl-nv-verbose | grep -E '^==|registers' > "$out/wide-registers.txt"
  gzip -f "$data"
  python3 scripts/sweep_best.py "$data.gz" --top 8
  ;;
all)
  budget="${2:-400}"
  f=h200-v15-wide-f32.jsonl; [ -f ".device/$f" ] && cp ".device/$f" "$out/$f"
  python3 scripts/shape_list.py /tmp/wide/shapes.txt variants/shapes/{train,train-ml,unseen}.txt
  python3 scripts/leaders.py variants/shapes/large.txt /tmp/wide/leaders.jsonl.gz \
    docs/data/wide-2026-11-25/h200-wide-large-f32.jsonl.gz --factor 1.01
  .device/fewfit sweep --device gpu --shapes /tmp/wide/shapes.txt --space variants/space-gpu.json --sample 0 \
    --no-shipped --variants-from /tmp/wide/leaders.jsonl.gz --also-with KSPLIT=0 --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$f"
  python3 scripts/split_by_shapes.py "$out/$f" variants/shapes/unseen.txt \
    "$out/h200-v15-wide-unseen-f32.jsonl.gz" "$out/h200-v15-wide-f32.jsonl.gz"
  # The same variants on the shapes that only train the trees (`regenerate --train-only`).
  t=h200-v15-wide-trees-f32.jsonl; [ -f ".device/$t" ] && cp ".device/$t" "$out/$t"
  python3 scripts/shape_list.py /tmp/wide/tree-shapes.txt variants/shapes/{train-trees,train-tree-dense}.txt
  .device/fewfit sweep --device gpu --shapes /tmp/wide/tree-shapes.txt --space variants/space-gpu.json --sample 0 \
    --no-shipped --variants-from /tmp/wide/leaders.jsonl.gz --also-with KSPLIT=0 --repeats 10 --quiet \
    --budget-secs "$budget" --out "$out/$t"
  gzip -f "$out/$t"
  ;;
*) echo "usage: $0 large [SAMPLE [BUDGET_SECS]] | all [BUDGET_SECS]" >&2; exit 2 ;;
esac
date -u
