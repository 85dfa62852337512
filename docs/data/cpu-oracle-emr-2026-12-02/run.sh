#!/usr/bin/env bash
# Issue 4's CPU measure against an oracle on another CPU (this session's 2-core Intel Xeon VM,
# family 6 model 207, AVX-512, PoCL 3.1), 2026-12-02 16:20 UTC, with the set before PA = 2:
# docs/data/cpu-oracle-2026-12-02/run.sh (its pool of 21 CPU blocks on the held-out network shapes
# of at most 5 GFLOP, in rounds, 10 repeats, two runs) with its runs and report in this folder.
# Usage: bash docs/data/cpu-oracle-emr-2026-12-02/run.sh [sweep]   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
DIR=docs/data/cpu-oracle-emr-2026-12-02 bash docs/data/cpu-oracle-2026-12-02/run.sh "$@"
