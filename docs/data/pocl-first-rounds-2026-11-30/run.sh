#!/usr/bin/env bash
# Why a PoCL process's first GEMMs sometimes run at about 0.7x on this session's VM: examples/first_calls
# (1024³ in rounds from the process's start), RUNS times without and with POCL_AFFINITY=1 (PoCL pins
# its worker threads to cores), in turn; then the same without the variable while
# /proc/PID/task/*/stat is read every 0.05 s: the state and the CPU each thread last ran on.
# Usage: bash docs/data/pocl-first-rounds-2026-11-30/run.sh [RUNS, 14]   (after cargo build --release
#        --example first_calls); writes rounds.txt and threads.txt here.
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/pocl-first-rounds-2026-11-30
date -u > $dir/rounds.txt; grep -m1 "model name" /proc/cpuinfo >> $dir/rounds.txt
grep -o 'sched_vcpu_pack=[0-9]*\|haltpoll.guest_halt_poll_ns=[0-9]*' /proc/cmdline >> $dir/rounds.txt || true
for i in $(seq 1 "${1:-14}"); do
  for affinity in unset 1; do
    if [ $affinity = unset ]; then run=(env -u POCL_AFFINITY); else run=(env POCL_AFFINITY=1); fi
    echo "POCL_AFFINITY=$affinity $("${run[@]}" FEWFIT_DEVICE=cpu target/release/examples/first_calls | grep 'round 0')" >> $dir/rounds.txt
  done
done
for a in unset 1; do
  grep "^POCL_AFFINITY=$a " $dir/rounds.txt | awk -v a=$a '{v=$NF; n++; if (v < 160) slow++} END {printf "POCL_AFFINITY=%s: %d runs, %d with round 0 below 160 GFLOP/s\n", a, n, slow}'
done | tee -a $dir/rounds.txt
: > $dir/threads.txt
for i in 1 2 3 4 5 6; do
  FEWFIT_DEVICE=cpu target/release/examples/first_calls > /tmp/first-calls-$i.txt 2>&1 & pid=$!
  for t in $(seq 1 16); do
    sleep 0.05; out="run $i, sample $t:"
    for task in /proc/$pid/task/*; do
      read -r line < "$task/stat" 2>/dev/null || continue
      set -- ${line##*) }
      out="$out ${task##*/}:${1}@cpu${37}"
    done
    echo "$out" >> $dir/threads.txt
  done
  wait $pid
  echo "run $i: $(grep 'round 0' /tmp/first-calls-$i.txt)" >> $dir/threads.txt
done
