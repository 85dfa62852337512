#!/usr/bin/env bash
# Regenerates what the crate ships (variants/selected.json and selector/*.json) from the committed
# datasets, in one command. `fewfit regenerate` selects the set and trains the cpu, nvidia-gpu, gpu
# and default trees and reports the held-out slowdowns; then the changes that it cannot make follow,
# in order (README, "Regenerating for a release"): the twins measured faster than members of the set
# (scripts/substitute_twin.py), the NT subtree trained on the H200's own NT records
# (scripts/graft_subtree.py), a twin newer than those records, the NN subtree trained on the H200's
# own NN records of the set with that twin, and last the `cpu` tree's subtrees for larger CPUs.
# About 25 minutes on a 2-core VM; `cargo build` then renders the set.
# The set and the trees come out the same on every run (linfa-trees patched: vendor/linfa-trees).
# Usage: bash scripts/ship.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p fewfit-tuner --bin fewfit
fewfit=target/release/fewfit
subtree=$(mktemp --suffix .json); trap 'rm -f "$subtree"' EXIT
# graft LAYOUT RECORDS TREE...: `fewfit train` on one run's H200 records of LAYOUT (the four training
# lists of scripts/device/tree-data.sh, h200-RECORDS-*) put in place of that layout's subtree.
graft() {
  local layout=$1 records=$2; shift 2
  "$fewfit" train --class nvidia-gpu --out "$subtree" --shape-weights variants/shapes/weights.txt \
      --data variants/data/h200-$records-{set,trees,tree-dense,tree-skinny}-f32.jsonl.gz
  python3 scripts/graft_subtree.py "$subtree" --layout "$layout" "$@"
}
# The selection: -k 12 --per-class 8 --method greedy (the defaults), at most 4 CPU blocks (so that
# the GPUs keep 8); the weights file counts decode shapes and the largest three times. --train-only:
# the set's variants alone on more shapes (8,879 (device, shape) problems in NN, 5,667 in row-major
# NT), which train the trees, not the selection. --select-only: the GPU machine's 16-core Xeon's
# records of 33 CPU blocks on 16 and on 8 cores, which choose the CPU blocks with the 2-core VM's
# but train no tree (its subtrees are trained last, below).
mapfile -t selection < <(grep -v '^#' variants/selection-data.txt)
"$fewfit" regenerate \
    --data "${selection[@]}" \
    --holdout variants/data/h200-v2-unseen-f32.jsonl.gz variants/data/h200-v3-skinny-unseen-f32.jsonl.gz \
              variants/data/h200-v4-mid-unseen-f32.jsonl.gz variants/data/h200-v4-xgemm-unseen-f32.jsonl.gz \
              variants/data/h200-v5-rbr-unseen-f32.jsonl.gz variants/data/h200-v11-ksplit-unseen-f32.jsonl.gz \
              variants/data/h200-v11-ksplit-set-unseen-f32.jsonl.gz variants/data/h200-v18-autosplit-unseen-f32.jsonl.gz \
              variants/data/h200-v17-db3-unseen-f32.jsonl.gz variants/data/h200-v17-db3-skinny-unseen-f32.jsonl.gz \
              variants/data/h200-v18-db3-unseen-f32.jsonl.gz variants/data/h200-v18-db3-skinny-unseen-f32.jsonl.gz \
              variants/data/h200-v19-sk-v2-unseen-f32.jsonl.gz \
              variants/data/pocl-zen4-unseen-f32.jsonl.gz variants/data/pocl-spr2-unseen-f32.jsonl.gz \
              variants/data/h100-nt-set-unseen-f32.jsonl.gz \
    --train-only variants/data/h200-v13-tree-dense-f32.jsonl.gz variants/data/h200-v13-trees-f32.jsonl.gz \
                 variants/data/h200-v17-db3-tree-dense-f32.jsonl.gz variants/data/h200-v17-db3-trees-f32.jsonl.gz \
                 variants/data/h200-v18-db3-tree-dense-f32.jsonl.gz variants/data/h200-v18-db3-trees-f32.jsonl.gz \
                 variants/data/h200-v19-sk-v13-tree-dense-f32.jsonl.gz variants/data/h200-v19-sk-v13-trees-f32.jsonl.gz \
                 variants/data/pocl-epyc4-set-trees-f32.jsonl.gz \
                 variants/data/h100-nt-set-f32.jsonl.gz variants/data/h100-nt-trees-f32.jsonl.gz \
                 variants/data/h100-nt-tree-dense-f32.jsonl.gz \
                 variants/data/h100-tree-skinny-f32.jsonl.gz variants/data/h100-nt-tree-skinny-f32.jsonl.gz \
    --select-only variants/data/pocl5-xeon16-{blocks,large,cu8-blocks,cu8-large}-f32.jsonl.gz \
    --class-limit cpu=4 --shape-weights variants/shapes/weights.txt
# The twins: the GPU tiles' twins faster in row-major NT or TN.
python3 scripts/substitute_twin.py xgemm_db1_ksplit1_kwg16_kwi2_mdima16_mdimc16_mwg128_ndimb32_ndimc16_nwg128_rp0_sa1_sb1_sk2_strm1_strn1_swz0_vwk4_vwm2_vwn4 RP=3
python3 scripts/substitute_twin.py xgemm_db3_ksplit0_kwg16_kwi8_mdima16_mdimc16_mwg128_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm1_strn1_swz1_vwk1_vwm2_vwn4 KWI=4
python3 scripts/substitute_twin.py xgemm_db3_ksplit0_kwg16_kwi4_mdima16_mdimc16_mwg128_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm1_strn1_swz1_vwk1_vwm2_vwn4 VWK=4
python3 scripts/substitute_twin.py xgemm_db3_ksplit8_kwg32_kwi8_mdima16_mdimc16_mwg32_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm0_strn1_swz1_vwk4_vwm2_vwn2 KWI=4
python3 scripts/substitute_twin.py xgemm_db3_ksplit8_kwg32_kwi4_mdima16_mdimc16_mwg32_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm0_strn1_swz1_vwk4_vwm2_vwn2 VWK=8
# The direct variants' twins that load one run of k's a step where B is contiguous along K.
for id in direct_kdimd32_ksplit1_ndimd8_rbr0_ukd8_ukk0_vwd4_wptm2_wptn1 direct_kdimd32_ksplit1_ndimd16_rbr0_ukd4_ukk0_vwd4_wptm4_wptn1 \
          direct_kdimd64_ksplit1_ndimd8_rbr0_ukd8_ukk0_vwd4_wptm2_wptn1 direct_kdimd64_ksplit1_ndimd8_rbr1_ukd4_ukk0_vwd4_wptm4_wptn1; do
  python3 scripts/substitute_twin.py $id UKK=1
done
# Their KSPLIT = 0 twins, which split K where too few work-groups would load B (docs/PERFORMANCE.md,
# "Split-K in the direct kernel").
for id in direct_kdimd32_ksplit1_ndimd8_rbr0_ukd8_ukk1_vwd4_wptm2_wptn1 direct_kdimd32_ksplit1_ndimd16_rbr0_ukd4_ukk1_vwd4_wptm4_wptn1 \
          direct_kdimd64_ksplit1_ndimd8_rbr0_ukd8_ukk1_vwd4_wptm2_wptn1 direct_kdimd64_ksplit1_ndimd8_rbr1_ukd4_ukk1_vwd4_wptm4_wptn1; do
  python3 scripts/substitute_twin.py $id KSPLIT=0
done
# The NT subtree, trained on the H200's NT records of the set as it stands now (every twin in place,
# one run: h200-v26-nt-*), in place of the one `regenerate` trained on the H100's.
graft NT v26-nt selector/nvidia-gpu.json selector/gpu.json selector/default.json
# The 128 x 32 tile's DB = 5 twin (A/B of 2026-11-29 18:20 UTC: NN 1.097x faster on its ML picks, NT
# 0.985x; docs/PERFORMANCE.md, "A second round of neighbours"). After the graft: the NT data names
# the DB = 3 tile.
python3 scripts/substitute_twin.py xgemm_db3_ksplit0_kwg16_kwi4_mdima16_mdimc16_mwg128_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm1_strn1_swz1_vwk4_vwm2_vwn4 DB=5
# The GPU trees' NN subtree, trained on the H200's NN records of the set as it now stands (every twin
# in place, one run: h200-v29-nn-*), in place of the one `regenerate` trained on records of earlier
# sets (docs/PERFORMANCE.md, "The GPU trees' NN subtree from the shipped set's own H200 records": 1.038x
# faster where the ML shapes' picks changed). The `default` tree keeps its own, which CPU records
# also trained. (The NT subtree trained on h200-v29-nt-* ran 0.980x where the picks changed: not taken.)
graft NN v29-nn selector/nvidia-gpu.json selector/gpu.json
# The `cpu` tree's subtrees for CPUs of more than 2 compute units (the tree feature `compute_units`),
# trained on the GPU machine's 16-core Xeon's records on 16 and 8 cores (the selection's, and the
# set's CPU blocks on the tree-only shapes) and of the set's CPU blocks on 4 cores (the rest of the
# `cpu` tree is trained on a 2-core VM): `fewfit train` fits
# one subtree per device size, and this puts them behind a split at 2, where `train` would put it.
# `regenerate` trains no tree on them (--select-only): the `default` tree, blind to the device size,
# would then label more of the GPU's shapes with CPU blocks (its labels put fewest failures first,
# and no GPU variant ran on those CPUs; docs/PERFORMANCE.md, "A subtree per device size").
"$fewfit" train --class cpu --out "$subtree" --shape-weights variants/shapes/weights.txt \
    --data variants/data/pocl5-xeon16-{blocks,large,fleet-set-trees,cu8-blocks,cu8-large,cu8-fleet-set-trees}-f32.jsonl.gz \
           variants/data/pocl5-xeon16-cu4-fleet-set-{train,trees}-f32.jsonl.gz
python3 scripts/graft_subtree.py "$subtree" --compute-units-above 2 selector/cpu.json
