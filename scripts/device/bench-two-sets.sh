#!/usr/bin/env bash
# On the lent GPU machine: a set change, before and after in one call. First the variants, errors
# and threads tests of the carried build (the set after) on the GPU, then the peer bench
# (bench.sh, bench shapes) and the ML bench (bench-ml.sh) of the carried peers example
# (.device/peers, after) and of the build before (.device/peers-before), in turn, so that the
# ratios of both sets come from one run. Outputs: $OUT/tests.log, $OUT/{after,before}-{bench,ml}.log
# and the runs' folders (tables, JSON) in $OUT/runs.tar.gz, one file for the device tool's file limit.
# Usage: BENCH_DATA="DATA..." bash scripts/device/bench-two-sets.sh   (the oracle's datasets)
#   RUNS="after-ml before-ml" picks runs; SHAPES=FILE replaces bench.txt in the -bench runs (with
#   BENCH_DATA holding those shapes, e.g. the held-out datasets for variants/shapes/unseen.txt);
#   BENCH_ARGS="--transpose-b" passes peers arguments to every run (row-major NT; with NO_ORACLE=1,
#   since the oracle's datasets are NN).
# Binaries: scripts/device/build.sh, then the peers example of the set before copied to
# .device/peers-before.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/peers-out}"; mkdir -p "$out"
runs=(${RUNS:-after-bench before-bench after-ml before-ml})
# Each run writes $out/RUN and $out/RUN.log: a run named twice would overwrite the first.
twice=$(printf '%s\n' "${runs[@]}" | sort | uniq -d)
[ -z "$twice" ] || { echo "RUNS names $twice more than once; its outputs would overwrite each other" >&2; exit 2; }
source scripts/device/nvidia.sh
export FEWFIT_DEVICE=gpu FEWFIT_CACHE_DIR=/tmp/fewfit-cache FEWFIT_TEST_DEVICE=require
for t in variants errors threads; do
  echo "== $t"; .device/tests/$t --test-threads=4 2>&1 | grep -E "^test |test result|panicked|failed"
done 2>&1 | tee "$out/tests.log"
for run in "${runs[@]}"; do
  peers=.device/peers; [[ $run == before-* ]] && peers=.device/peers-before
  script=scripts/device/bench.sh; [[ $run == *-ml ]] && script=scripts/device/bench-ml.sh
  echo "== $run ($peers, $script)"
  shapes=(); [[ $run == *-bench ]] && shapes=("${SHAPES:-variants/shapes/bench.txt}")
  OUT="$out/$run" PEERS="$peers" bash "$script" "${shapes[@]}" ${BENCH_ARGS:-} > "$out/$run.log" 2>&1
  grep -E "geomean" "$out/$run.log" | head -4
done
tar czf "$out/runs.tar.gz" -C "$out" "${runs[@]}" && (cd "$out" && rm -rf "${runs[@]}")
date -u
