#!/usr/bin/env bash
# On the lent GPU machine, in one call: the correctness tests and the C API test on the GPU
# (smoke.sh), the launch costs (examples/launch_cost.rs), and the peer bench on the 13 shapes of
# variants/shapes/bench.txt and on the 130 ML shapes (bench.sh, bench-ml.sh; the ML shapes also in
# row-major NT, PyTorch's `Linear` layout, without the oracle), each into its own
# folder of /tmp/release-bench, packed at the end into $OUT/release-bench.tgz (the device tool
# brings back 8 files at most). On a GPU other than the H200 the oracle is the H200's best
# variant of each shape, re-timed here. Binaries: scripts/device/build.sh on the dev machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=/tmp/release-bench; rm -rf "$out"; mkdir -p "$out"
source scripts/device/oracle-data.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
oracle=(); [[ "$gpu" == *H200* ]] || oracle=(--oracle-device "NVIDIA H200")
echo "== smoke ($gpu)"; bash scripts/device/smoke.sh > "$out/smoke.txt" 2>&1; grep -E "test result|capi_test|FAIL|panicked" "$out/smoke.txt"
echo "== launch cost"; FEWFIT_DEVICE=gpu .device/launch_cost 2>&1 | tee "$out/launch-cost.txt"
echo "== 13 shapes"; OUT="$out/bench" BENCH_DATA="$ORACLE_DATA" bash scripts/device/bench.sh variants/shapes/bench.txt "${oracle[@]}" > "$out/bench.log" 2>&1
tail -25 "$out/bench/table-wall.md"
echo "== ML shapes"; OUT="$out/ml" bash scripts/device/bench-ml.sh "${oracle[@]}" > "$out/ml.log" 2>&1
tail -4 "$out/ml/table-wall.md"
echo "== ML shapes, row-major NT (PyTorch's Linear; no oracle)"
OUT="$out/ml-nt" NO_ORACLE=1 bash scripts/device/bench-ml.sh --transpose-b > "$out/ml-nt.log" 2>&1
tail -4 "$out/ml-nt/table-wall.md"
date -u
if [ -n "${OUT:-}" ]; then tar czf "$OUT/release-bench.tgz" -C /tmp release-bench; fi
