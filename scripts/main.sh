#!/usr/bin/env bash
# The main job: installs an OpenCL runtime if none is present, then puts a set of ML shapes through
# fewfit on the default device (FEWFIT_DEVICE), checking each against an f64 reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-opencl.sh
cargo run --release --example ml_shapes
