#!/usr/bin/env bash
# The PA = 1 block packs A only where at least half its group's columns lie inside C
# (kernels/panel.cl, panel_outer's `pack`), before and after, on this machine's CPU through PoCL:
# the set's four CPU blocks on shapes.txt, interleaved, 5 repeats; the binaries of BEFORE and AFTER
# in turn, two rounds (a sweep already in the folder is kept). Then scripts/ab_compare.py.
# Usage: BEFORE=path/to/old/fewfit bash docs/data/panel-pack-half-2026-12-02/run.sh [sweep]
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/panel-pack-half-2026-12-02
after=${AFTER:-target/release/fewfit}
export POCL_AFFINITY=1
sweep() {  # BINARY NAME
  [ -f $dir/$2.jsonl.gz ] && return
  "$1" sweep --device cpu --shapes $dir/shapes.txt --sample 0 --no-shipped --repeats 5 \
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
  python3 scripts/ab_compare.py $dir/before-r1.jsonl.gz,$dir/before-r2.jsonl.gz $dir/after-r1.jsonl.gz,$dir/after-r2.jsonl.gz
  echo "== the PA = 1 block over the best block of each sweep (pa1_share.py)"
  python3 $dir/pa1_share.py $dir/before-r1.jsonl.gz,$dir/before-r2.jsonl.gz $dir/after-r1.jsonl.gz,$dir/after-r2.jsonl.gz
} > $dir/results.txt
# `squares`: the PA = 1 block alone (pa1.jsonl) on squares.txt, where it packs everywhere, three
# rounds of BEFORE and AFTER in turn (squares-{before,after}-rN), then ab_compare.py on them.
if [ "${1:-}" = squares ]; then
  for round in 1 2 3; do
    for side in before after; do
      bin=$after; [ $side = before ] && bin=$BEFORE
      [ -f $dir/squares-$side-r$round.jsonl.gz ] && continue
      "$bin" sweep --device cpu --shapes $dir/squares.txt --sample 0 --no-shipped --repeats 5 --max-flops 2e11 \
        --machine "$(hostname)-squares-$side-r$round" --variants-from $dir/pa1.jsonl --quiet --out $dir/squares-$side-r$round.jsonl
      gzip -f $dir/squares-$side-r$round.jsonl
    done
  done
  python3 scripts/ab_compare.py $(ls $dir/squares-before-r*.jsonl.gz | paste -sd,) $(ls $dir/squares-after-r*.jsonl.gz | paste -sd,) > $dir/results-squares.txt
fi
# `square1024`: 1024³ through the PA = 1 block alone, ORIG (binaries of 6c966c7, before this
# session's panel changes) and AFTER in turn, six rounds, the order alternating, 10 repeats each
# (square1024.txt: binary, median ms, least ms).
if [ "${1:-}" = square1024 ]; then
  printf '1024 1024 1024\n' > $dir/square1024-shape.txt
  for round in 1 2 3 4 5 6; do
    order="orig after"; [ $((round % 2)) = 0 ] && order="after orig"
    for side in $order; do
      bin=$after; [ $side = orig ] && bin=$ORIG
      out=$(mktemp); rm -f "$out"
      "$bin" sweep --device cpu --shapes $dir/square1024-shape.txt --sample 0 --no-shipped --repeats 10 --machine x \
        --variants-from $dir/pa1.jsonl --quiet --out "$out" > /dev/null 2>&1
      python3 -c "import json, sys; r = json.loads(open(sys.argv[1]).readline()); print(sys.argv[2], r['times']['median_ms'], r['times']['min_ms'])" "$out" $side
      rm -f "$out"
    done
  done > $dir/square1024.txt
fi
