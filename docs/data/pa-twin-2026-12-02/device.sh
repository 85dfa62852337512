#!/usr/bin/env bash
# On the lent GPU machine, its CPU through the PoCL installed there: run.sh's two lists (the PA = 1
# block against its PA = 0 twin), with the tuner of scripts/device/build.sh. Outputs in $OUT.
# Usage: bash docs/data/pa-twin-2026-12-02/device.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
[ -d .device ] || tar -xJf .device.tar.xz
date -u; lscpu | grep -E "Model name|^CPU\(s\)"; clinfo -l 2>/dev/null | grep -i device
for list in squares train; do
  FEWFIT=.device/fewfit OUT=$OUT bash docs/data/pa-twin-2026-12-02/run.sh sweep gpu-host-xeon $list
  date -u
done
