#!/usr/bin/env bash
# The panel kernel's block across M computed as the BM rows that end at M (kernels/panel.cl,
# panel_outer's `ia`), before and after, on this machine's CPU through PoCL: the set's four CPU
# blocks (docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz), interleaved, 5 repeats, on the
# held-out skinny shapes (variants/shapes/unseen-skinny.txt), the held-out network shapes
# (variants/shapes/unseen.txt) and controls.txt, all of at most 5 GFLOP; the binaries of BEFORE and
# AFTER in turn, two rounds. Then scripts/ab_compare.py and `fewfit evaluate` (the `cpu` tree
# against the best of the set) on each run.
# Usage: BEFORE=path/to/old/fewfit bash docs/data/panel-edge-shift-2026-12-02/run.sh [sweep]
#   (AFTER defaults to target/release/fewfit; build both with --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/panel-edge-shift-2026-12-02
after=${AFTER:-target/release/fewfit}
export POCL_AFFINITY=1
cat variants/shapes/unseen-skinny.txt variants/shapes/unseen.txt $dir/controls.txt | grep -v '^#' > $dir/shapes.txt
sweep() {  # BINARY NAME (skipped where NAME.jsonl.gz exists: a stopped run goes on where it stopped)
  [ -f $dir/$2.jsonl.gz ] && return
  "$1" sweep --device cpu --shapes $dir/shapes.txt --max-flops 5e9 --sample 0 --no-shipped --repeats 5 \
    --machine "$(hostname)-$2" --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz \
    --interleave --quiet --out $dir/$2.jsonl
  gzip -f $dir/$2.jsonl
}
if [ "${1:-}" = sweep ]; then
  for round in 1 2; do
    sweep "$BEFORE" before-r$round
    sweep "$after" after-r$round
  done
fi
{
  echo "== before / after time per shape and block (> 1: faster after)"
  python3 scripts/ab_compare.py $dir/before-r1.jsonl.gz,$dir/before-r2.jsonl.gz $dir/after-r1.jsonl.gz,$dir/after-r2.jsonl.gz
  for run in before-r1 before-r2 after-r1 after-r2; do
    echo "== $run: the cpu tree against the best of the set"
    "$after" evaluate --data $dir/$run.jsonl.gz | tail -3
  done
  echo "== by block: the pairs the change touches apart (by_block.py)"
  python3 $dir/by_block.py $dir/before-r1.jsonl.gz,$dir/before-r2.jsonl.gz $dir/after-r1.jsonl.gz,$dir/after-r2.jsonl.gz
} > $dir/results.txt
# `pack`: the same sweeps, two rounds, of the binary after the next change (the PA = 1 block packs
# A only where at least half its group's columns lie inside C; docs/data/panel-pack-half-2026-12-02),
# AFTER=that binary: pack-r1, pack-r2, each judged as above (results-pack.txt). hoisted-r1/r2 are
# the same sweeps of that change's first form (two K loops behind a branch, which aborted PoCL 5.0;
# not shipped), 00:50-01:02 UTC; pack-r1/r2 are of the shipped form, 01:13-01:26 UTC.
if [ "${1:-}" = pack ]; then
  for round in 1 2; do sweep "$after" pack-r$round; done
  for run in pack-r1 pack-r2; do
    echo "== $run: the cpu tree against the best of the set"
    "$after" evaluate --data $dir/$run.jsonl.gz | tail -1
  done > $dir/results-pack.txt
fi
# `judge`: the `cpu` tree's picks against the best of the set in each run, by the minimum of each
# pair's repeats (scripts/noise_floor.py; by_list.py: each shape list apart), into results-min.txt.
if [ "${1:-}" = judge ]; then
  picks=$(mktemp); trap 'rm -f "$picks"' EXIT
  for run in before-r1 before-r2 after-r1 after-r2 hoisted-r1 hoisted-r2 pack-r1 pack-r2; do
    "$after" evaluate --data $dir/$run.jsonl.gz --per-shape > "$picks" 2>/dev/null
    echo "$run: $(python3 scripts/noise_floor.py --statistic min_ms --picks "$picks" $dir/$run.jsonl.gz | tail -1 | sed 's/.*: 312/312/')"
    python3 $dir/by_list.py "$picks" $dir/$run.jsonl.gz variants/shapes/unseen-skinny.txt variants/shapes/unseen.txt \
      $dir/controls.txt | sed 's/^/  /'
  done > $dir/results-min.txt
fi
