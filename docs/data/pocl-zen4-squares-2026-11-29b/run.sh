#!/usr/bin/env bash
# Issue 5's PoCL squares on this session's 2-core AMD EPYC Zen 4 VM (family 25 model 17, AVX-512,
# PoCL 3.1), 2026-11-29, nothing else running: the cores' FP32 FMA peak (scripts/cpu_fma_peak.c),
# then the peer bench (fewfit, its oracle, Debian's CLBlast 1.5.3 on PoCL, OpenBLAS 0.3.21) on
# 1000³ (first, not a figure: the first shape a bench process times on PoCL often ran at 0.55-0.7×,
# docs/PERFORMANCE.md; PoCL's threads shared one vCPU, and scripts/device/bench.sh pins them since
# 2026-11-30), 1024³, 2048³ and 4096³. The run of 20:29 UTC had 1024³ first (bench-1024-first/).
# Usage: bash docs/data/pocl-zen4-squares-2026-11-29b/run.sh [OUT_DIR]   (after cargo build --release
#        --features tune --example peers; OUT_DIR, this folder by default, gets the same files)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=${1:-docs/data/pocl-zen4-squares-2026-11-29b}
mkdir -p "$dir"
cc -O2 -march=native -pthread scripts/cpu_fma_peak.c -o /tmp/cpu_fma_peak
/tmp/cpu_fma_peak | tee $dir/fma-peak.txt
OUT=$dir/bench PEERS=target/release/examples/peers DEVICE=cpu \
  BENCH_DATA="variants/data/pocl-zen4-f32.jsonl.gz variants/data/pocl-zen4-large-f32.jsonl.gz" \
  bash scripts/device/bench.sh docs/data/pocl-zen4-squares-2026-11-29b/squares.txt > $dir/bench.log 2>&1
tail -8 $dir/bench/table-wall.md
