#!/usr/bin/env bash
# The second round of the neighbour sweep (2026-11-29 17:58-18:07 UTC, NVIDIA H200): the set's two
# xgemm tiles that changed in the first round (128 x 32 DB = 3, 32 x 32 split-K) beside a copy for
# each value of the first round's parameters plus DB, MDIMC and NDIMC, on the training shapes.
#   device: bash docs/data/set-neighbours2-2026-11-29/run.sh sweep   (binaries: scripts/device/build.sh)
#   here:   bash docs/data/set-neighbours2-2026-11-29/run.sh compare (writes compare.txt)
# Then both candidate twins (the 128 x 32 tile's DB = 5, the 32 x 32 tile's NDIMB = 16) substituted
# and timed against the set before on the 130 ML shapes, NN and row-major NT, in two calls with the
# runs in opposite orders (18:19-18:25 UTC; ab1/, ab2/: `bash scripts/device/bench-two-sets.sh` with
# NO_ORACLE=1, RUNS and BENCH_ARGS=--transpose-b for NT, .device/peers-before the set before):
#   here:   bash docs/data/set-neighbours2-2026-11-29/run.sh ab      (writes ab-nn.txt, ab-nt.txt)
# The set with the DB = 5 twin, its xgemm tiles (set-after.jsonl.gz: `scripts/set_records.py
# variants/selected.json set-after.jsonl.gz variants/data/h200-v26-nn-set-f32.jsonl.gz
# $dir/h200-nb-xgemm-r2-nn-f32.jsonl.gz --kernel xgemm`) on the held-out shapes, then the GPU
# variants tests and the C API test: scripts/device/twin-check.sh's sweeps and tests (the call of
# 18:27 UTC ran them, without its ML bench, which ab1/ab2 had done; its
# $prefix-twins-{nn,nt}-unseen-f32 are variants/data/h200-v28-twins-*-unseen-f32):
#   device: OUT=... bash docs/data/set-neighbours2-2026-11-29/run.sh heldout
# Issue 4's held-out figures of the set in ROOT (default .; the set before the twin: a folder holding
# `git show 002bf67:FILE` of variants/selected.json and selector/*.json), NN by heldout.sh, NT on
# the set's own NT records (h200-v26-nt-set-unseen-f32) with the twin's from v28:
#   here:   [ROOT=dir] bash docs/data/set-neighbours2-2026-11-29/run.sh issue4
# set.jsonl: `python3 scripts/set_records.py variants/selected.json set4.jsonl.gz
# variants/data/h200-v26-nn-set-f32.jsonl.gz --kernel xgemm`, those two tiles' records kept.
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/set-neighbours2-2026-11-29
case "${1:-}" in
sweep)
  SET=$dir/set.jsonl LAYOUTS="nn nt tn" TAG=r2- PARAMS="VWK=1 VWK=2 VWK=4 VWK=8 KWI=1 KWI=2 KWI=4 KWI=8
    SWZ=0 SWZ=1 STRM=0 STRM=1 STRN=0 STRN=1 VWM=1 VWM=2 VWM=4 VWM=8 VWN=1 VWN=2 VWN=4 VWN=8 MDIMA=8
    MDIMA=16 MDIMA=32 NDIMB=8 NDIMB=16 NDIMB=32 KWG=16 KWG=32 KWG=64 DB=1 DB=5 MDIMC=8 MDIMC=32
    NDIMC=4 NDIMC=16" bash scripts/device/neighbour-sweep.sh 150 ;;
compare)
  # The tree's picks per shape: the shipped trees on the set's own H200 records of each layout (TN
  # is routed as NN there).
  for l in nn nt; do
    target/release/fewfit evaluate --data variants/data/h200-v26-$l-set-f32.jsonl.gz --per-shape > $dir/evaluate-$l.txt
  done
  python3 scripts/neighbour_compare.py $dir/set.jsonl NN=$dir/h200-nb-xgemm-r2-nn-f32.jsonl.gz \
    NT=$dir/h200-nb-xgemm-r2-nt-f32.jsonl.gz TN=$dir/h200-nb-xgemm-r2-tn-f32.jsonl.gz --min 1.0 \
    --picks NN=$dir/evaluate-nn.txt --picks NT=$dir/evaluate-nt.txt --picks TN=$dir/evaluate-nn.txt > $dir/compare.txt ;;
heldout)
  TILES=$dir/set-after.jsonl.gz bash scripts/device/twin-check.sh ;;
issue4)
  TWINS="variants/data/h200-v23-twins-nn-unseen-f32.jsonl.gz variants/data/h200-v28-twins-nn-unseen-f32.jsonl.gz" \
    bash docs/data/direct-split-2026-11-29/heldout.sh | tail -1
  twin=$(mktemp --suffix .jsonl.gz); trap 'rm -f "$twin"' EXIT
  python3 scripts/records_with.py variants/data/h200-v28-twins-nt-unseen-f32.jsonl.gz DB=5 --matching "$twin" > /dev/null
  root=$(realpath "${ROOT:-.}"); here=$PWD
  (cd "$root" && "$here/target/release/fewfit" evaluate --data "$here/variants/data/h200-v26-nt-set-unseen-f32.jsonl.gz" "$twin" | tail -1) ;;
ab)
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  for run in ab1 ab2; do for l in nn nt; do
    mkdir -p "$tmp/$run/$l" && tar xzf $dir/$run/$l/runs.tar.gz -C "$tmp/$run/$l"
  done; done
  for l in nn nt; do
    python3 scripts/pick_ab.py --before "$tmp"/ab{1,2}/$l/before-ml/peers.json \
      --after "$tmp"/ab{1,2}/$l/after-ml/peers.json > $dir/ab-$l.txt
  done ;;
*) echo "usage: $0 sweep | compare | ab | heldout | issue4" >&2; exit 2 ;;
esac
