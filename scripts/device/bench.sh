#!/usr/bin/env bash
# On the lent GPU machine: the peer bench in one command. Enables NVIDIA's OpenCL, unpacks the
# carried CLBlast (.device/libclblast1_*.deb) into /tmp, then times fewfit as shipped, fewfit's
# oracle (best variant of the sweep data for each shape, re-timed), CLBlast and cuBLAS (PyTorch,
# TF32 off) on the same shapes, and merges them into one markdown table. Outputs go to $OUT (or
# /tmp/peers-out); the bench's JSON as peers.json.gz (scripts/perf_table.py reads it). Binaries are built on the dev machine by scripts/device/build.sh.
# Usage: [BENCH_DATA="DATA..."] bash scripts/device/bench.sh [SHAPES_FILE] [extra peers arguments,
#        e.g. --max-flops 1e10]   (BENCH_DATA: the oracle's sweep datasets, see below)
# PEERS=PATH times another build of the peers example (another set), e.g. beside the carried one.
# NO_ORACLE=1 passes no dataset, so the oracle column stays empty (the shipped datasets time NN only).
# PRECISION=f32|f16|bf16|tf32 (default f32) times that precision in the bench and cuBLAS alike; the
# default datasets are f32 sweeps, so for another precision the oracle reads BENCH_DATA only.
# Elsewhere (PoCL): DEVICE=cpu bash scripts/device/bench.sh ... uses the CPU device and skips the
# NVIDIA set-up and cuBLAS. With --transpose-b among the extra arguments, cuBLAS times NT as well.
set -uo pipefail
cd "$(dirname "$0")/../.."
shapes="${1:-variants/shapes/bench.txt}"; shift || true
out="${OUT:-/tmp/peers-out}"; mkdir -p "$out"
device="${DEVICE:-gpu}"
precision="${PRECISION:-f32}"
if [ "$device" = gpu ]; then source scripts/device/nvidia.sh; else date -u; fi
# On PoCL, pin its worker threads to cores unless told otherwise: on a VM whose scheduler packs
# threads onto few vCPUs, they shared one core for a process's first half second in 5 of 14 runs
# (docs/PERFORMANCE.md, "A PoCL process's slow first rounds").
[ "$device" = gpu ] || export POCL_AFFINITY="${POCL_AFFINITY:-1}"
deb=$(ls .device/libclblast1_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
  rm -rf /tmp/clblast && dpkg -x "$deb" /tmp/clblast
  lib=$(dirname "$(find /tmp/clblast -name 'libclblast.so.1*' | head -1)")
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "CLBlast from $deb: $lib"; ldd "$lib/libclblast.so.1" | grep "not found" || true
else
  echo "no .device/libclblast1_*.deb carried: CLBlast only if installed system-wide"
fi
peers="${PEERS:-.device/peers}"; [ -x "$peers" ] || peers=target/release/examples/peers
# The oracle's datasets: BENCH_DATA (space-separated) when set, else the sweep of the shipped set's
# kernels for the device (datasets measured with different kernel code disagree, and `merge`
# refuses to join them, so the default is one dataset per device).
if [ "$device" = gpu ]; then default_data=variants/data/h200-v2-f32.jsonl.gz; else default_data=variants/data/pocl-spr2-f32.jsonl.gz; fi
[ "$precision" = f32 ] || default_data=
data=(); for f in ${BENCH_DATA:-$default_data}; do [ -f "$f" ] && data+=("$f"); done
[ -n "${NO_ORACLE:-}" ] && data=()
export FEWFIT_DEVICE="$device" FEWFIT_CACHE_DIR="${FEWFIT_CACHE_DIR:-/tmp/fewfit-cache}"
# f32 is the bench's default: PEERS may be a build from before --precision.
precision_arg=(); [ "$precision" = f32 ] || precision_arg=(--precision "$precision")
echo "== peers ($precision)"
"$peers" ${precision_arg[@]+"${precision_arg[@]}"} --shapes "$shapes" ${data[@]:+--data "${data[@]}"} \
  --json "$out/peers.json" "$@" 2>&1 | tee "$out/peers.txt"
rc=${PIPESTATUS[0]}
cublas=()
if [ "$device" = gpu ]; then
  echo "== cuBLAS ($precision)"
  layout=(); [[ " $* " == *" --transpose-b "* ]] && layout=(--transpose-b)
  python3 scripts/device/cublas.py --dtype "$precision" --shapes "$shapes" ${layout[@]+"${layout[@]}"} \
    --json "$out/cublas.json" 2>&1 | tee "$out/cublas.txt"
  [ -f "$out/cublas.json" ] && cublas=("$out/cublas.json")
fi
if [ -f "$out/peers.json" ]; then
  for t in wall event; do
    echo "== table ($t)"
    python3 scripts/perf_table.py "$out/peers.json" ${cublas[@]:+"${cublas[@]}"} --time "$t" | tee "$out/table-$t.md"
  done
  echo "== where the wall time goes"
  python3 scripts/overhead_table.py "$out/peers.json" | tee "$out/overhead.md"
  gzip -9f "$out/peers.json"
fi
exit "$rc"
