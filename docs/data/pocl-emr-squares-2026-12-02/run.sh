#!/usr/bin/env bash
# Issue 5's PoCL squares on this session's 2-core Intel Xeon VM (family 6 model 207, AVX-512, PoCL
# 3.1), 2026-12-02: docs/data/pocl-zen4-squares-2026-11-29b/run.sh into this folder, with
# OPENBLAS_CORETYPE=Cooperlake. Debian's OpenBLAS 0.3.21 does not know this CPU model and, with the
# variable unset, runs its Prescott (SSE3) kernels: 32-47 GFLOP/s at 1000³-4096³ in the first run
# (bench-openblas-prescott/), against about 200 with its Cooperlake kernels, which it chooses itself
# by the CPU's features when the variable is set but empty. The peer is timed at its best.
# Usage: bash docs/data/pocl-emr-squares-2026-12-02/run.sh   (after cargo build --release --features tune --example peers)
set -euo pipefail
cd "$(dirname "$0")/../../.."
OPENBLAS_CORETYPE=Cooperlake bash docs/data/pocl-zen4-squares-2026-11-29b/run.sh docs/data/pocl-emr-squares-2026-12-02
