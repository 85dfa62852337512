#!/usr/bin/env bash
# The set with a 16-row tile swapped in (scripts/swap_sets.py), scored by scripts/set_compare.py on
# the H200 data of 2026-11-28: the set and both candidates on the skinny training and held-out
# shapes (NN; NT held-out), and the selection's own datasets with the candidates' records on the
# same shapes (the candidates' records of a list sit in h200-narrow-cand-*, beside the set's). The
# oracle is the best variant the datasets hold. From the crate root.
set -euo pipefail
d=variants/data; sets=$(mktemp -d)
python3 scripts/swap_sets.py "$sets" $d/h200-narrow-cand-tree-skinny-f32.jsonl.gz MWG=16
all=("$sets"/plus-*.json "$sets"/?-for-*.json)
shapes=(--shape 4096 8 4096 --shape 32768 8 7168 --shape 195109 10 1189 --shape 68647 9 13161)
echo "== skinny shapes, NN (training: h200-tree-skinny, held-out: h200-set-unseen-skinny)"
python3 scripts/set_compare.py --sets variants/selected.json "${all[@]}" \
  --data $d/h200-tree-skinny-f32.jsonl.gz $d/h200-narrow-cand-tree-skinny-f32.jsonl.gz \
  --holdout $d/h200-set-unseen-skinny-f32.jsonl.gz $d/h200-narrow-cand-set-unseen-skinny-f32.jsonl.gz
echo "== probe shapes, NN and NT (h200-narrow-probe, h200-narrow-nt-probe)"
python3 scripts/set_compare.py --sets variants/selected.json "$sets"/plus-*.json --data $d/h200-narrow-probe-f32.jsonl.gz "${shapes[@]}"
python3 scripts/set_compare.py --sets variants/selected.json "$sets"/plus-*.json --data $d/h200-narrow-nt-probe-f32.jsonl.gz "${shapes[@]}"
echo "== held-out, row-major NT (h200-nt-set-unseen-skinny; h200-nt-set-unseen, the 44 network shapes)"
python3 scripts/set_compare.py --sets variants/selected.json "${all[@]}" \
  --data $d/h200-nt-set-unseen-skinny-f32.jsonl.gz $d/h200-narrow-cand-nt-set-unseen-skinny-f32.jsonl.gz \
  --holdout $d/h200-nt-set-unseen-f32.jsonl.gz $d/h200-narrow-cand-nt-set-unseen-f32.jsonl.gz
echo "== the selection's datasets (README's --data, H200) with the candidates on the same shapes"
sel=(h200-v2 h200-v2-ml h200-v3-skinny h200-v4-mid h200-v4-xgemm h200-v5-rbr-decode h200-v5-rbr h200-v11-ksplit
     h200-v11-ksplit-set h200-v18-autosplit h200-v16-db3-large h200-v17-db3 h200-v17-db3-skinny h200-v18-db3
     h200-v18-db3-skinny h200-v18-db3-large h200-v19-sk-v2 h200-v19-sk-v2-ml h200-narrow-cand-train h200-narrow-cand-ml)
held=(h200-v2-unseen h200-v3-skinny-unseen h200-v4-mid-unseen h200-v4-xgemm-unseen h200-v5-rbr-unseen
      h200-v11-ksplit-unseen h200-v11-ksplit-set-unseen h200-v18-autosplit-unseen h200-v17-db3-unseen
      h200-v17-db3-skinny-unseen h200-v18-db3-unseen h200-v18-db3-skinny-unseen h200-v19-sk-v2-unseen h200-narrow-cand-set)
python3 scripts/set_compare.py --sets variants/selected.json "${all[@]}" --weights variants/shapes/weights.txt \
  --data $(for f in "${sel[@]}"; do echo $d/$f-f32.jsonl.gz; done) --holdout $(for f in "${held[@]}"; do echo $d/$f-f32.jsonl.gz; done) \
  --shape 8 4096 4096 --shape 8 4096 11008 --shape 12 2560 10240 --shape 6 3072 768 --shape 12 32128 768 \
  --shape 1 2560 10240 --shape 20 4096 16384 --shape 196 64 192 --shape 25088 64 256 --shape 2039 2039 2039 --shape 16 16 65536
