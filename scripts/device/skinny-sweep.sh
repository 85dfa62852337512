#!/usr/bin/env bash
# On the lent GPU machine: the shipped set's GPU variants on the random skinny shapes (few rows or few
# columns) that train the trees (`shapes/train-tree-skinny.txt`), and on the held-out random lists
# (`shapes/unseen-skinny.txt`, `unseen-random.txt`) that judge them, by `tree-sweep.sh`.
# `bench-nn` / `bench-nt`: the peer bench (`bench.sh`: fewfit as shipped, CLBlast, cuBLAS; no oracle)
# on the first 100 held-out skinny shapes, into $OUT/bench-nn, bench-nt (binaries: build.sh).
# Usage: bash scripts/device/skinny-sweep.sh WHAT [BUDGET_SECS], WHAT one or more of
#   train-nn, train-nt, unseen-nn, unseen-nt, bench-nn, bench-nt. Datasets go to $OUT as
#   PREFIX-NAME.jsonl.gz, PREFIX h200 or h100 by the card the call got.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
budget="${2:-300}"
head -103 variants/shapes/unseen-skinny.txt > /tmp/bench-skinny.txt
for what in $1; do
  case "$what" in
    train-nn) bash scripts/device/tree-sweep.sh variants/shapes/train-tree-skinny.txt "$prefix-tree-skinny-f32" "$budget" ;;
    train-nt) LAYOUT=NT bash scripts/device/tree-sweep.sh variants/shapes/train-tree-skinny.txt "$prefix-nt-tree-skinny-f32" "$budget" ;;
    unseen-nn) for list in unseen-skinny unseen-random; do
        bash scripts/device/tree-sweep.sh "variants/shapes/$list.txt" "$prefix-set-$list-f32" "$budget"; done ;;
    unseen-nt) LAYOUT=NT bash scripts/device/tree-sweep.sh variants/shapes/unseen-skinny.txt "$prefix-nt-set-unseen-skinny-f32" "$budget" ;;
    bench-nn) OUT="${OUT:-/tmp/tree-out}/bench-nn" NO_ORACLE=1 bash scripts/device/bench.sh /tmp/bench-skinny.txt > /dev/null 2>&1
      tail -3 "${OUT:-/tmp/tree-out}/bench-nn/table-wall.md" ;;
    bench-nt) OUT="${OUT:-/tmp/tree-out}/bench-nt" NO_ORACLE=1 bash scripts/device/bench.sh /tmp/bench-skinny.txt --transpose-b > /dev/null 2>&1
      tail -3 "${OUT:-/tmp/tree-out}/bench-nt/table-wall.md" ;;
    *) echo "unknown: $what" >&2; exit 2 ;;
  esac
done
