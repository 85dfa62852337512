#!/usr/bin/env bash
# The `cpu` tree with a subtree for skinny shapes, trained on two CPUs' records of the shipped set's
# four blocks on the tree-only skinny list (variants/shapes/train-tree-skinny.txt, at most 5 GFLOP):
# the Zen 4 VM's (docs/data/cpu-interleave-2026-11-29/zen4-tree-skinny-i1) and the GPU machine's
# 16-core Intel Xeon's (xeon16-skinny-train, device.sh here). For each short-side bound T, `fewfit
# train` on the records with min(M, N) <= T, grafted in front of the shipped `cpu` tree for those
# shapes (scripts/graft_subtree.py --short-side T) in a scratch copy of the crate's set and trees;
# then the shipped tree and each graft judged on held-out shapes of three CPUs by the minimum of
# each pair's repeats (scripts/noise_floor.py --picks): the skinny held-out list on the Zen 4, the
# Xeon and an Ice Lake VM that trained nothing (pocl-icx-set-unseen-skinny), and the network
# held-out list (variants/shapes/unseen.txt) on each. Writes results.txt here. Then a whole `cpu`
# tree for Intel CPUs alone, trained on the Xeon's records (the skinny ones and the 174 training
# shapes of pocl5-xeon16-pa) and on those and the Ice Lake VM's (pocl-icx-pa), judged on both
# CPUs' held-out shapes: results-intel.txt. Nothing shipped.
# Usage: bash docs/data/cpu-skinny-2026-11-29/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/cpu-skinny-2026-11-29 zen4=docs/data/cpu-interleave-2026-11-29
fewfit=target/release/fewfit
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
heldout=($zen4/zen4-unseen-skinny-i1 $dir/xeon16-skinny-heldout variants/data/pocl-icx-set-unseen-skinny-f32
         $zen4/zen4-unseen-i1 $zen4/zen4-unseen-i2 $zen4/zen4-unseen-p1 variants/data/pocl5-xeon16-pa-unseen-f32
         variants/data/pocl-icx-set-unseen-f32 variants/data/pocl-icx-pa-unseen-f32)
scratch_root() {  # the crate's set and trees, copied to $scratch/root
  mkdir -p "$scratch/root/variants" "$scratch/root/selector"
  cp variants/selected.json "$scratch/root/variants/"; cp selector/*.json "$scratch/root/selector/"
}
judge() {  # LABEL ROOT: the trees under ROOT on every held-out dataset
  local data
  for data in "${heldout[@]}"; do
    "$fewfit" evaluate --root "$2" --per-shape --data $data.jsonl.gz 2>/dev/null > "$scratch/picks.tsv"
    echo "$1	$(basename $data)	$(python3 scripts/noise_floor.py --statistic min_ms --picks "$scratch/picks.tsv" $data.jsonl.gz | tail -1 | sed 's/.*: //')"
  done
}
{
  judge shipped .
  for t in 8 16 32 64; do
    for data in $zen4/zen4-tree-skinny-i1 $dir/xeon16-skinny-train; do
      zcat $data.jsonl.gz | python3 -c "import json, sys
sys.stdout.writelines(l for l in sys.stdin if min(json.loads(l)['m'], json.loads(l)['n']) <= $t)" > "$scratch/$(basename $data).jsonl"
    done
    "$fewfit" train --class cpu --data "$scratch"/*-train*.jsonl "$scratch"/*-tree-*.jsonl --out "$scratch/skinny.json" | sed "s/^/# T = $t: /" | tail -1
    scratch_root
    python3 scripts/graft_subtree.py "$scratch/skinny.json" --short-side $t "$scratch/root/selector/cpu.json" > /dev/null
    judge "T = $t" "$scratch/root"
  done
} | tee $dir/results.txt
heldout=(variants/data/pocl-icx-pa-unseen-f32 variants/data/pocl-icx-set-unseen-skinny-f32
         variants/data/pocl5-xeon16-pa-unseen-f32 $dir/xeon16-skinny-heldout)
{
  judge shipped .
  for cpus in xeon xeon+icx; do
    data=(variants/data/pocl5-xeon16-pa-f32.jsonl.gz $dir/xeon16-skinny-train.jsonl.gz)
    [ $cpus = xeon+icx ] && data+=(variants/data/pocl-icx-pa-f32.jsonl.gz)
    "$fewfit" train --class cpu --data "${data[@]}" --out "$scratch/intel.json" | sed "s/^/# $cpus: /" | tail -1
    scratch_root
    python3 -c "import json, sys
tree = json.load(open(sys.argv[1])); tree['root'] = json.load(open(sys.argv[2]))['root']
json.dump(tree, open(sys.argv[1], 'w'))" "$scratch/root/selector/cpu.json" "$scratch/intel.json"
    judge "Intel tree ($cpus)" "$scratch/root"
  done
} | tee $dir/results-intel.txt
