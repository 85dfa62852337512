#!/usr/bin/env bash
# On the lent GPU machine, its 16-core Xeon through the PoCL installed there (5.0), narrowed to CU
# cores for each CU in $CUS (POCL_MAX_PTHREAD_COUNT and taskset, as
# docs/data/compute-units-2026-12-03/device.sh; a CU that PoCL does not report is skipped).
# `blocks` (default): the 32 CPU blocks of the selection's 2-core VM dataset variants/data/pocl-spr2-f32
# (a superset of pocl-zen4-f32's) and the set's A-packing block with PA = 2, each shape's blocks in
# rounds: on the training network shapes of at most 5 GFLOP (5 repeats), the records that let the
# set's CPU slots be selected for a larger CPU too, and on the held-out ones (10 repeats), issue 4's
# held-out CPU measure against this 33-block pool: $OUT/xeon-cu{CU}-{train,heldout}.jsonl.gz.
# `large`: the same blocks on the training shapes of 5-35 GFLOP ($dir/train-large.txt; 3 repeats):
# $OUT/xeon-cu{CU}-large.jsonl.gz.
# `set`: the set's CPU blocks (those of $dir/set-cpu.jsonl.gz, the call's records of them) on the
# training and tree-only shapes (5 repeats), a `cpu` subtree's training records:
# $OUT/xeon-cu{CU}-set-{train,trees}.jsonl.gz (LISTS="trees:train-trees": the second alone).
# Usage: CUS="16 8 4" [BUDGET=240] bash docs/data/cpu-fleet-2026-12-04/device.sh [blocks|large|set]
#        (carry .device/fewfit)
set -uo pipefail
cd "$(dirname "$0")/../../.."
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket"
export POCL_AFFINITY=1
dir=docs/data/cpu-fleet-2026-12-04
sweep() { # CU NAME SHAPES REPEATS ARGS...
  local cu=$1 name=$2 shapes=$3 repeats=$4; shift 4
  taskset -c 0-$((cu - 1)) .device/fewfit sweep --device cpu --shapes "$shapes" --max-flops "${max_flops:-5e9}" --no-shipped \
    --repeats "$repeats" --machine "gpu-host-xeon-$name" --interleave --quiet --budget-secs "${BUDGET:-240}" \
    --out "/tmp/$name.jsonl" "$@" 2>&1 | tail -2
  gzip -9c "/tmp/$name.jsonl" > "$OUT/$name.jsonl.gz"; date -u
}
for cu in ${CUS:?}; do
  export POCL_CPU_MAX_CU_NUM=$cu POCL_MAX_PTHREAD_COUNT=$cu
  reported=$(taskset -c 0-$((cu - 1)) .device/fewfit devices | awk '$2 == "cpu" {print $3}')
  echo "== $cu compute units asked, PoCL reports ${reported:-none}"
  [ "$reported" = "$cu" ] || continue
  case "${1:-blocks}" in
    blocks)
      for list in train:train:5 heldout:unseen:10; do
        IFS=: read -r tag shapes repeats <<< "$list"
        sweep "$cu" "xeon-cu$cu-$tag" "variants/shapes/$shapes.txt" "$repeats" \
          --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 --variants-from variants/data/pocl-spr2-f32.jsonl.gz
      done ;;
    large)
      max_flops=3.5e10 sweep "$cu" "xeon-cu$cu-large" $dir/train-large.txt 3 \
        --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 --variants-from variants/data/pocl-spr2-f32.jsonl.gz ;;
    set)
      for list in ${LISTS:-train:train trees:train-trees}; do
        IFS=: read -r tag shapes <<< "$list"
        sweep "$cu" "xeon-cu$cu-set-$tag" "variants/shapes/$shapes.txt" 5 --space variants/space-cpu.json --sample 0 \
          --variants-from $dir/set-cpu.jsonl.gz
      done ;;
  esac
done
