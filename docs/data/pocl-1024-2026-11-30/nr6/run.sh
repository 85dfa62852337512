#!/usr/bin/env bash
# The set's A-packing CPU block (KC 256, LM 1, LN 16, MV 4 x NR 4, PA 1) and its NR 6 twins, PA 1 and
# PA 0 (the NR 6 PA 0 block was the PoCL bench's oracle at 1024³ on 2026-11-29), with the NR 4 PA 0
# block as the PA 0 twins' base, timed in rounds (`fewfit sweep --interleave`, 5 repeats) on the
# training and held-out shapes and 1024³-4096³ (up to 2·10¹¹ flops) on this machine's CPU; then
# scripts/param_compare.py: each NR 6 block against its NR 4 twin.
# Usage: bash docs/data/pocl-1024-2026-11-30/nr6/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
dir=docs/data/pocl-1024-2026-11-30/nr6
shapes=$(mktemp); trap 'rm -f "$shapes"' EXIT
grep -hv '^#' variants/shapes/train.txt variants/shapes/unseen.txt | grep -v '^$' > "$shapes"
printf '1024 1024 1024\n2048 2048 2048\n4096 4096 4096\n' >> "$shapes"
python3 - "$dir/blocks.jsonl" <<'PY'
import gzip, json, sys
base = next(json.loads(l) for l in gzip.open('docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz', 'rt') if '"PA":1' in l)
with open(sys.argv[1], 'w') as out:
    for change in [{}, {'PA': 0}, {'NR': 6}, {'NR': 6, 'PA': 0}]:
        record = json.loads(json.dumps(base))
        record['variant']['params'].update(change)
        out.write(json.dumps(record) + '\n')
PY
date -u; grep -m1 "model name" /proc/cpuinfo
target/release/fewfit sweep --device cpu --shapes "$shapes" --sample 0 --no-shipped --variants-from "$dir/blocks.jsonl" \
  --repeats 5 --max-flops 2e11 --interleave --quiet --out "$dir/zen4.jsonl" 2>&1 | tail -1
date -u
gzip -f "$dir/zen4.jsonl"
python3 scripts/param_compare.py "$dir/zen4.jsonl.gz" --param NR --base 4 --kernel panel --large 1e9 | tail -4 | tee "$dir/compare.txt"
