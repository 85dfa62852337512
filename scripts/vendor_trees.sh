#!/usr/bin/env bash
# On the dev machine: would a `cpu` tree per CPU vendor meet issue 4's held-out target where one tree
# for both CPUs does not? Trains the `cpu` tree on one CPU's data alone (Zen 4: pocl-zen4-f32 and
# pocl-zen4-trees-f32; Intel: pocl-spr2-f32 and pocl-spr2-trees-f32), then evaluates the shipped set
# with that tree, and with the shipped `cpu` tree, on both CPUs' held-out shapes. Works in a copy of
# variants/selected.json and selector/ under a temporary folder; the crate's files are left alone.
# Usage: bash scripts/vendor_trees.sh   (target/release/fewfit built with --features tune; ~4 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD; data=$root/variants/data; fewfit=$root/target/release/fewfit
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/variants" && cp -r selector "$work/" && cp variants/selected.json "$work/variants/"
cp selector/cpu.json "$work/cpu-shipped.json"
for cpu in zen4 spr2; do
  "$fewfit" train --data "$data/pocl-$cpu-f32.jsonl.gz" "$data/pocl-$cpu-trees-f32.jsonl.gz" --class cpu \
    --selected variants/selected.json --shape-weights variants/shapes/weights.txt --out "$work/cpu-$cpu.json" | tail -1
done
for tree in shipped zen4 spr2; do
  cp "$work/cpu-$tree.json" "$work/selector/cpu.json"
  for held in zen4 spr2; do
    echo "cpu tree of $tree data, held-out shapes of $held: $(cd "$work" && "$fewfit" evaluate \
      --data "$data/pocl-$held-unseen-f32.jsonl.gz" | grep '\[cpu\]')"
  done
done
