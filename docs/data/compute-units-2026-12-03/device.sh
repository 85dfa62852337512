#!/usr/bin/env bash
# On the lent GPU machine, its 16-core Xeon through the PoCL installed there (5.0), narrowed to CU
# cores for each CU in $CUS: PoCL told to report and use CU compute units (POCL_MAX_PTHREAD_COUNT in
# PoCL 5.0 and before, POCL_CPU_MAX_CU_NUM after) and the process held to the first CU cores
# (taskset); a CU that PoCL does not report is skipped. On each, the sweep of
# docs/data/cpu-cores-tree-2026-12-02/device.sh: the set's four CPU blocks as shipped (the A-packing
# block with PA = 2) beside its PA = 1 twin, on the training and tree-only network shapes of at most
# 5 GFLOP, each shape's blocks in rounds, 5 repeats. Training records of a `cpu` tree that sees the
# feature `compute_units` at sizes between the 2-core VMs' and the 16-core Xeon's.
# Outputs: $OUT/xeon-cu{CU}-{train,trees}.jsonl.gz, committed as variants/data/pocl5-xeon16-cu{CU}-set-
# {train,trees}-f32.jsonl.gz. With `heldout`, instead: issue 4's held-out CPU measure there, the
# 21-block pool of docs/data/cpu-oracle-2026-12-02 and the set's PA = 2 block on the held-out network
# shapes of at most 5 GFLOP, in rounds, 10 repeats, as docs/data/pa-where-large-2026-12-02/run.sh
# sweeps them: $OUT/xeon-cu{CU}-heldout-r{RUN}.jsonl.gz for RUN in $RUNS.
# Usage: CUS="4 8" [BUDGET=250] [RUNS="1 2"] bash docs/data/compute-units-2026-12-03/device.sh [heldout]
#        (carry .device/fewfit)
set -uo pipefail
cd "$(dirname "$0")/../../.."
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket"
export POCL_AFFINITY=1
for cu in ${CUS:?}; do
  export POCL_CPU_MAX_CU_NUM=$cu POCL_MAX_PTHREAD_COUNT=$cu
  reported=$(taskset -c 0-$((cu - 1)) .device/fewfit devices | awk '$2 == "cpu" {print $3}')
  echo "== $cu compute units asked, PoCL reports ${reported:-none}"
  [ "$reported" = "$cu" ] || continue
  if [ "${1:-}" = heldout ]; then
    for run in ${RUNS:-1 2}; do
      name=xeon-cu$cu-heldout-r$run
      taskset -c 0-$((cu - 1)) .device/fewfit sweep --device cpu --shapes variants/shapes/unseen.txt --max-flops 5e9 \
        --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 --no-shipped --repeats 10 \
        --machine gpu-host-xeon-$name --interleave --quiet --budget-secs "${BUDGET:-250}" \
        --variants-from docs/data/cpu-oracle-2026-12-02/pool.jsonl.gz --out /tmp/$name.jsonl 2>&1 | tail -2
      gzip -9c /tmp/$name.jsonl > "$OUT/$name.jsonl.gz"; date -u
    done
    continue
  fi
  for list in train:train trees:train-trees; do
    name=xeon-cu$cu-${list%%:*}
    taskset -c 0-$((cu - 1)) .device/fewfit sweep --device cpu --shapes variants/shapes/${list#*:}.txt --max-flops 5e9 \
      --space docs/data/pa-where-large-2026-12-02/space-pa2.json --sample 1 --no-shipped --repeats 5 \
      --machine gpu-host-xeon-$name --interleave --quiet --budget-secs "${BUDGET:-250}" \
      --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --out /tmp/$name.jsonl 2>&1 | tail -2
    gzip -9c /tmp/$name.jsonl > "$OUT/$name.jsonl.gz"; date -u
  done
done
