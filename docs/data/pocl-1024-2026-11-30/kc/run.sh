#!/usr/bin/env bash
# The set's A-packing CPU block (KC 256, LM 1, LN 16, MV 4 x NR 4, PA 1) beside its KC 128 and KC 512
# twins (`fewfit sweep --also-with`), timed in rounds (`--interleave`, 5 repeats) on the training and
# held-out shapes and 1024³-4096³ (up to 2·10¹¹ flops) on this machine's CPU; then
# scripts/param_compare.py: each twin against the block.
# Usage: bash docs/data/pocl-1024-2026-11-30/kc/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
dir=docs/data/pocl-1024-2026-11-30/kc
shapes=$(mktemp); block=$(mktemp); trap 'rm -f "$shapes" "$block"' EXIT
grep -hv '^#' variants/shapes/train.txt variants/shapes/unseen.txt | grep -v '^$' > "$shapes"
printf '1024 1024 1024\n2048 2048 2048\n4096 4096 4096\n' >> "$shapes"
zcat docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz | grep '"PA":1' > "$block"
date -u; grep -m1 "model name" /proc/cpuinfo
target/release/fewfit sweep --device cpu --shapes "$shapes" --sample 0 --no-shipped --variants-from "$block" \
  --also-with KC=128 --also-with KC=512 --repeats 5 --max-flops 2e11 --interleave --quiet --out "$dir/zen4.jsonl" 2>&1 | tail -1
date -u
gzip -f "$dir/zen4.jsonl"
python3 scripts/param_compare.py "$dir/zen4.jsonl.gz" --param KC --base 256 --kernel panel --large 1e9 | tail -4 | tee "$dir/compare.txt"
python3 scripts/param_compare.py "$dir/zen4.jsonl.gz" --param KC --base 256 --kernel panel --gflops \
  | grep -E '^\| (1024x1024x1024|2048x2048x2048|4096x4096x4096) ' | tee -a "$dir/compare.txt"
