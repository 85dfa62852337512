#!/usr/bin/env bash
# On the lent GPU machine (an H200: the records replace H200 records): times again the records of the
# H200 datasets that the stream-K change of 2026-11-28 (bc54d30) made stale, those of a variant with
# SK > 0 on a shape whose launch changed (`scripts/stream_k_stale.py`), with today's build
# (.device/fewfit) and the same repeats (10). For each dataset NAME it writes NAME.jsonl.gz (the
# stale records timed again) into $OUT/stream-k-refresh.tgz, with sweep.log; on the dev machine
# `scripts/stream_k_stale.py DATA --rest DATA` then drops the stale records and the new ones are
# appended. Stops after BUDGET_SECS (500); run again with the partial files carried back in
# .device/sk-refresh/ to resume.
# Usage: bash scripts/device/stream-k-refresh.sh [BUDGET_SECS]   Binaries: scripts/device/build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
[ "$prefix" = h200 ] || { echo "not an H200: nothing timed"; exit 3; }
work=/tmp/sk-refresh; mkdir -p "$work/out"
deadline=$(( $(date +%s) + ${1:-500} ))
for name in h200-heldout-oracle-f32 h200-v19-sk-v2-unseen-f32 h200-v19-sk-v2-f32 h200-v19-sk-v2-ml-f32 \
            h200-v19-sk-v13-trees-f32 h200-v19-sk-v13-tree-dense-f32 h200-tree-skinny-f32 \
            h200-set-unseen-skinny-f32 h200-nt-set-unseen-f32 h200-nt-set-unseen-skinny-f32; do
  data="variants/data/$name.jsonl.gz" new="$work/out/$name.jsonl"
  left=$(( deadline - $(date +%s) )); [ "$left" -gt 10 ] || { echo "budget spent before $name"; break; }
  [ -f ".device/sk-refresh/$name.jsonl.gz" ] && gunzip -c ".device/sk-refresh/$name.jsonl.gz" > "$new"
  (cd scripts && python3 stream_k_stale.py "../$data" --variants "$work/$name.variants.jsonl.gz" --shapes "$work/$name.txt")
  layout=(); [[ $name == *-nt-* ]] && layout=(--transpose-b)
  .device/fewfit sweep --device gpu --quiet --sample 0 --no-shipped --repeats 10 "${layout[@]}" \
    --shapes "$work/$name.txt" --variants-from "$work/$name.variants.jsonl.gz" \
    --budget-secs "$left" --out "$new" 2>&1 | tail -2 | sed "s/^/$name: /"
  gzip -f "$new"
done | tee "$work/out/sweep.log"
date -u | tee -a "$work/out/sweep.log"
[ -n "${OUT:-}" ] && tar -czf "$OUT/stream-k-refresh.tgz" -C "$work/out" .
exit 0
