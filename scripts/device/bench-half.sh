#!/usr/bin/env bash
# On the lent GPU machine, in one command: fewfit's half-precision and TF32 GEMMs against cuBLAS (and
# CLBlast's HGEMM where the OpenCL device has cl_khr_fp16). For f16, bf16 and tf32 in turn, the peer
# bench (scripts/device/bench.sh, PRECISION=...) on the shapes of variants/shapes/bench.txt (squares
# up to 4096^3, 8192^3 for f16 only; ML layers) and decode shapes (M <= 16, K and N >= 4096), in
# row-major NN and NT, by wall and device time. Then, for the decode shapes, the share of the card's
# memory bandwidth that their device time reaches: bytes moved = element bytes x (M·K + K·N + M·N),
# against a device-to-device copy measured here by PyTorch and the card's spec sheet.
# 20 timed calls after 3 warm-up calls (bench.sh's defaults); about 5-8 minutes on an H100.
# Outputs: /tmp/bench-half (one folder of bench.sh's files per precision and layout, summary.md);
# with OUT set, summary.md is kept there as it grows and bench-half.tgz (all of it) is written there at the end. Binaries: scripts/device/build.sh
# on the dev machine (carry .device.tar.xz and run `tar -xJf .device.tar.xz` first).
# Usage: [BENCH_DATA="DATA..."] [MAX_FLOPS=5e11] [PRECISIONS="f16 bf16 tf32"] bash scripts/device/bench-half.sh [extra peers arguments]
set -uo pipefail
cd "$(dirname "$0")/../.."
nvidia-smi -L
date -u
work=/tmp/bench-half; rm -rf "$work"; mkdir -p "$work"
summary="${OUT:-$work}/summary.md"

# Decode: a token or a few through a projection, the weights' reads dominate.
cat > "$work/decode.txt" <<'EOF'
1 4096 4096      # decode
8 4096 4096      # decode
16 4096 11008    # decode, llama-7b MLP down
1 11008 4096     # decode, llama-7b MLP up
16 8192 8192     # decode
EOF
shapes="$work/shapes.txt"
python3 scripts/shape_list.py "$shapes" variants/shapes/bench.txt "$work/decode.txt"
echo "$(wc -l < "$shapes") shapes: variants/shapes/bench.txt and $work/decode.txt"

# The card's memory bandwidth: a device-to-device copy (bytes read and written), and the spec sheet.
python3 - "$work/bandwidth.json" <<'EOF'
import json, sys, torch
name = torch.cuda.get_device_name(0)
SPEC = [("H200", 4.8e12), ("H100 PCIe", 2.0e12), ("H100 NVL", 3.9e12), ("H100", 3.35e12)]
spec = next((bw for key, bw in SPEC if key in name), None)
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
y = torch.empty_like(x)
for _ in range(3):
    y.copy_(x)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(20):
    start.record(); y.copy_(x); end.record(); end.synchronize()
    times.append(start.elapsed_time(end) * 1e-3)
copy = 2 * x.numel() / sorted(times)[len(times) // 2]
sheet = f"{spec / 1e12:.2f} TB/s" if spec else "unknown card"
print(f"{name}: device-to-device copy of 1 GiB {copy / 1e12:.2f} TB/s (read + write, median of 20); spec sheet {sheet}")
json.dump({"device": name, "copy_bytes_per_s": copy, "spec_bytes_per_s": spec}, open(sys.argv[1], "w"))
EOF

for precision in ${PRECISIONS:-f16 bf16 tf32}; do
  # 8192^3 (bench.txt's largest square, 1.1e12 flops) for f16 only, unless MAX_FLOPS is set.
  limit=(--max-flops "${MAX_FLOPS:-5e11}"); [ "$precision" = f16 ] && [ -z "${MAX_FLOPS:-}" ] && limit=()
  for layout in NN NT; do
    nt=(); [ "$layout" = NT ] && nt=(--transpose-b)
    run="$precision-$layout"
    echo "== $run"
    PRECISION="$precision" OUT="$work/$run" bash scripts/device/bench.sh "$shapes" ${limit[@]+"${limit[@]}"} \
      ${nt[@]+"${nt[@]}"} "$@" > "$work/$run.log" 2>&1 || echo "$run: bench.sh failed (exit $?), see $run.log"
    grep -E "^(CLBlast|OpenBLAS|precision):|^!!!" "$work/$run.log"
    for t in wall event; do
      if [ -f "$work/$run/table-$t.md" ]; then
        { echo "## $run, $t"; echo; cat "$work/$run/table-$t.md"; echo; } >> "$summary"
        echo "$t: $(grep "geomean" "$work/$run/table-$t.md")"
      fi
    done
  done
done

echo "== decode shapes: share of the memory bandwidth (device time)"
python3 - "$work" <<'EOF' | tee -a "$summary"
import json, os, sys
sys.path.insert(0, "scripts")
from set_records import read_json
work = sys.argv[1]
bw = json.load(open(os.path.join(work, "bandwidth.json")))
copy, spec = bw["copy_bytes_per_s"], bw["spec_bytes_per_s"]
print(f"## Decode shapes, {bw['device']}: share of the memory bandwidth\n")
sheet = f"{spec / 1e12:.2f} TB/s" if spec else "unknown"
print(f"Bytes moved: element bytes x (M·K + K·N + M·N) over the median device time; against a device-to-device "
      f"copy measured here ({copy / 1e12:.2f} TB/s, read + write) and the spec sheet ({sheet}).\n")
print("| precision | layout | M x N x K | MB | fewfit µs | fewfit GB/s | fewfit/copy | fewfit/spec "
      "| cuBLAS µs | cuBLAS GB/s | cuBLAS/copy | cuBLAS/spec |")
print("|---" * 12 + "|")
for precision, size in [("f16", 2), ("bf16", 2), ("tf32", 4)]:
    for layout in ["NN", "NT"]:
        folder = os.path.join(work, f"{precision}-{layout}")
        peers = os.path.join(folder, "peers.json.gz")
        if not os.path.exists(peers):
            continue
        cublas_path = os.path.join(folder, "cublas.json")
        cublas = {}
        if os.path.exists(cublas_path):
            cublas = {(r["m"], r["n"], r["k"]): r.get("event_ms") for r in read_json(cublas_path)["rows"]}
        for r in read_json(peers)["rows"]:
            m, n, k = r["m"], r["n"], r["k"]
            if r.get("skipped") or m > 16 or n < 4096 or k < 4096:
                continue
            moved = size * (m * k + k * n + m * n)
            f = r.get("fewfit") or {}
            ms = (f.get("timing") or {}).get("event_ms") if f.get("check") == "ok" else None
            cells = []
            for t in [ms, cublas.get((m, n, k))]:
                if t:
                    rate = moved / (t * 1e-3)
                    cells += [f"{t * 1e3:.1f}", f"{rate / 1e9:.0f}", f"{rate / copy:.2f}",
                              f"{rate / spec:.2f}" if spec else "-"]
                else:
                    cells += ["-"] * 4
            print(f"| {precision} | {layout} | {m}x{n}x{k} | {moved / 1e6:.1f} | " + " | ".join(cells) + " |")
EOF
date -u
if [ -n "${OUT:-}" ]; then tar czf "$OUT/bench-half.tgz" -C /tmp bench-half; fi
