#!/usr/bin/env bash
# The test command: installs an OpenCL runtime if none is present, then runs every test
# (kernels against the f64 reference on the default device, codegen, selector, errors, threads, tuner),
# then the shipped variants on Oclgrind, which checks every memory access (scripts/memcheck.sh), and
# CLBlast's own GEMM testers with fewfit preloaded (scripts/clblast-suite.sh), and the Python
# package's tests (scripts/test-python.sh: the wheel built in a venv, pytest on PoCL).
# Arguments go to `cargo test`; with any, the memory checks, the CLBlast testers and the Python
# tests are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
df -h . | tail -n 1 | awk '{print "test: " $4 " free on disk"}'
# One build per run: incremental state would only take disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
bash scripts/ensure-opencl.sh
python3 scripts/arch_shapes.py --check
export FEWFIT_TEST_DEVICE="${FEWFIT_TEST_DEVICE:-require}"
cargo test --workspace --features fewfit/ndarray --no-fail-fast "$@"
if [ $# -eq 0 ]; then
  bash scripts/memcheck.sh
  bash scripts/clblast-suite.sh
  bash scripts/test-python.sh
fi
