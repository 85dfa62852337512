#!/usr/bin/env bash
# The compare-and-swap change timed on PoCL: examples/kernel_timing's split-K cases ("tile32
# splitk"), built with kernels/macros.cl before the change (8b35d94) and as it is now, run in turn,
# three rounds each, PoCL's threads pinned. Writes cas-ab.txt here (the run of 2026-12-01 22:05 UTC,
# this session's 2-core AMD EPYC Zen 4 VM, PoCL 3.1, is the one PERFORMANCE.md quotes).
# Usage: bash docs/data/oclgrind-2026-12-01/cas-ab.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/oclgrind-2026-12-01 bins=$(mktemp -d)
trap 'git checkout -q HEAD -- kernels/macros.cl; touch kernels/macros.cl; rm -rf "$bins"' EXIT
for build in before after; do
  if [ $build = before ]; then git show 8b35d94:kernels/macros.cl >kernels/macros.cl; else git checkout -q HEAD -- kernels/macros.cl; fi
  touch kernels/macros.cl
  cargo build -q --release --example kernel_timing
  cp target/release/examples/kernel_timing "$bins/$build"
done
for round in 1 2 3; do
  for build in before after; do
    echo "== $build $round"
    POCL_AFFINITY=1 "$bins/$build" "tile32 splitk" 2>&1 | grep '^tile32'
  done
done | tee "$here/cas-ab.txt"
