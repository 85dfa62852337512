#!/usr/bin/env bash
# What limits the set's CPU block for the large squares (KC 256, LM 1, LN 16, MV 4 x NR 4, A packed)
# on PoCL: `examples/kernel_timing.rs "cpu set"` (1024³-4096³, and at 2048³ and 4096³ the block
# with LN 32, LM 2 or KC 128), first as shipped, then (the block alone) with kernels/panel.cl changed
# in a scratch worktree so that one part of the work is left out (the results are then wrong: the
# check says FAIL). Each configuration runs twice. Writes results.txt here.
#   b-in-l1:     every B element read from the first 16 k's of its column (B's streams cost nothing)
#   a-not-read:  A's slices packed from zeros instead of A (packing's stores only)
#   a-not-packed: no packing (the work-items read a stale slice)
#   prefetch:    correct results; the next slice's A columns prefetched while packing this one
# Usage: [BASE=COMMIT] bash docs/data/pocl-panel-limits-2026-11-29/run.sh   (on an idle CPU; 3 minutes)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/pocl-panel-limits-2026-11-29
base=${BASE:-6411688}   # the kernel measured: the commit before the prefetch of A's next slice
root=$PWD
scratch=$(mktemp -d); trap 'git worktree remove --force "$scratch/tree" >/dev/null 2>&1; rm -rf "$scratch"' EXIT
git worktree add --detach "$scratch/tree" "$base" >/dev/null 2>&1
cp examples/kernel_timing.rs "$scratch/tree/examples/"   # the cases of the working tree
timing() {  # LABEL CASES: build the scratch tree's kernel_timing and run the cases named CASES twice
  (cd "$scratch/tree" && CARGO_TARGET_DIR="$root/target/limits" cargo build --release --example kernel_timing -q)
  for run in 1 2; do
    { FEWFIT_DEVICE=cpu "$root/target/limits/release/examples/kernel_timing" "$2" 2>&1 || true; } |
      grep "^cpu set" | sed "s/^/$1 ($run): /"
  done
}
patch() {  # OLD NEW: replace OLD by NEW in the scratch tree's kernels/panel.cl (from the shipped one)
  python3 - "$scratch/tree/kernels/panel.cl" "$1" "$2" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
assert old in text, old
open(path, 'w').write(text.replace(old, new))
PY
}
shipped() { git show "$base:kernels/panel.cl" > "$scratch/tree/kernels/panel.cl"; }
{
  date -u; grep -m1 "model name" /proc/cpuinfo; nproc
  shipped; timing shipped 'cpu set'
  shipped; patch 'bc[c][p * b_step]' 'bc[c][(p & 15) * b_step]'; timing b-in-l1 'cpu set panel NN'
  shipped; patch '*(__local realP*)(s + r) = VLOADP(a + r);' '*(__local realP*)(s + r) = (realP)(ZERO);'; timing a-not-read 'cpu set panel NN'
  shipped; patch '        pack_a_slice(M, k0, k1, A, lda, i0 - (int)get_local_id(0) * BM, a_slice);' \
                 '        if (k0 < 0) pack_a_slice(M, k0, k1, A, lda, i0 - (int)get_local_id(0) * BM, a_slice);'
  timing a-not-packed 'cpu set panel NN'
  shipped; patch '        __local real* s = a_slice + (p - k0) * GROUP_ROWS;' \
'        __local real* s = a_slice + (p - k0) * GROUP_ROWS;
        if (p + KC < K) {
            for (int r = 0; r < GROUP_ROWS; r += 16) { __builtin_prefetch(a + KC * lda + r, 0, 3); }
        }'
  patch 'inline void pack_a_slice(const int M, const int k0,' 'inline void pack_a_slice(const int M, const int K, const int k0,'
  patch 'pack_a_slice(M, k0, k1, A, lda,' 'pack_a_slice(M, ke, k0, k1, A, lda,'
  timing prefetch 'cpu set panel NN'
  date -u
} | tee $dir/results.txt
