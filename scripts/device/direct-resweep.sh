#!/usr/bin/env bash
# On the lent GPU machine: the direct family re-swept under the code the set runs (UKK = 1,
# KSPLIT = 0: variants/space-gpu-direct-split.json), to re-choose the set's direct variants among
# peers measured in the same run (the set's four came from sweeps of the kernel before UKK and
# split-K, and their twins replaced them one by one).
#   1. probe: a deterministic sample of SAMPLE (default 450) variants of that space, the shipped
#      set's direct variants included, on variants/shapes/decode-probe.txt, NN then row-major NT,
#      median of 5 ($OUT/$prefix-v27-direct-probe-{nn,nt}-f32);
#   2. pool: the probe's variants within 5 % of its fastest on some probe shape in either layout
#      (`fewfit sweep --near-best 1.05`), after the set's eight GPU variants (SET, default
#      docs/data/nt-tree-2026-11-29b/set-v26.jsonl.gz) in the same dataset, on every shape with
#      min(M, N) <= 16 of train.txt and train-ml.txt (-direct-{nn,nt}) and of unseen.txt
#      (-direct-unseen-{nn,nt}), median of 10.
# Each dataset is resumable: carry its .jsonl back in .device/ and run again. Only the gzipped
# datasets go to $OUT (the device tool brings back a few files a call).
# Usage: [SAMPLE=450] [SET=FILE] bash scripts/device/direct-resweep.sh [BUDGET_SECS, 540]
# Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
work=/tmp/direct-resweep; out="${OUT:-$work}"; mkdir -p "$work" "$out"
deadline=$(( $(date +%s) + ${1:-540} ))
set_records="${SET:-docs/data/nt-tree-2026-11-29b/set-v26.jsonl.gz}"
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache
left() { echo $(( deadline - $(date +%s) )); }
sweep() {  # NAME LAYOUT(nn|nt) SECS ARGS...
  local name="$prefix-v27-$1-$2-f32" layout=(); [ "$2" = nt ] && layout=(--transpose-b)
  [ -f ".device/$name.jsonl" ] && [ ! -f "$work/$name.jsonl" ] && cp ".device/$name.jsonl" "$work/"
  [ "$3" -gt 5 ] || return 0
  echo "== $name ($3 s)"
  .device/fewfit sweep --device gpu --quiet --space variants/space-gpu-direct-split.json \
    "${layout[@]}" --budget-secs "$3" --out "$work/$name.jsonl" "${@:4}" 2>&1 | tail -2
  gzip -c "$work/$name.jsonl" > "$out/$name.jsonl.gz"
}
sample="${SAMPLE:-450}"
sweep direct-probe nn $(( $(left) * 45 / 100 )) --shapes variants/shapes/decode-probe.txt --sample "$sample" --repeats 5
sweep direct-probe nt $(( $(left) * 30 / 100 )) --shapes variants/shapes/decode-probe.txt --sample "$sample" --repeats 5
skinny() {  # the shapes of the given lists with min(M, N) <= 16
  grep -hv '^#' "$@" | awk 'NF >= 3 && ($1 <= 16 || $2 <= 16) {print $1, $2, $3}' | sort -u
}
skinny variants/shapes/train.txt variants/shapes/train-ml.txt > /tmp/direct-train.txt
skinny variants/shapes/unseen.txt > /tmp/direct-unseen.txt
wc -l /tmp/direct-train.txt /tmp/direct-unseen.txt
pool() {  # NAME LAYOUT SECS SHAPES: the set, then the probe's leaders (`--near-best`), into one dataset
  local probe=("$work/$prefix-v27-direct-probe-nn-f32.jsonl" "$work/$prefix-v27-direct-probe-nt-f32.jsonl")
  sweep "$1" "$2" $(( $3 / 10 )) --shapes "$4" --sample 0 --no-shipped --variants-from "$set_records" --repeats 10
  sweep "$1" "$2" $(( $3 * 9 / 10 )) --shapes "$4" --sample 0 --no-shipped --variants-from "${probe[@]}" \
    --near-best 1.05 --repeats 10
}
for layout in nn nt; do pool direct "$layout" $(( $(left) * 40 / 100 )) /tmp/direct-train.txt; done
for layout in nn nt; do pool direct-unseen "$layout" $(( $(left) / 2 )) /tmp/direct-unseen.txt; done
ls -la "$work" "$out"
date -u
