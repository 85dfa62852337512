#!/usr/bin/env bash
# Writes shapes.txt: the shapes where the shipped trees pick the 32 x 32 split-K tile in NN or
# row-major NT (and picks-nn.txt / picks-nt.txt: those of each layout), from `fewfit evaluate --per-shape` on the set's own H200 records (h200-v29-{nn,nt}-*):
# every such shape of the training, held-out, tree-only and held-out skinny lists, and a seeded
# sample of 120 random and 80 skinny tree-training shapes per layout.
# Usage: bash docs/data/tile32-ksplit-2026-11-30/make_shapes.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
picks=$(mktemp -d); trap 'rm -rf "$picks"' EXIT
for l in nn nt; do
  for part in set set-unseen trees tree-dense tree-skinny set-unseen-skinny; do
    target/release/fewfit evaluate --data variants/data/h200-v29-$l-$part-f32.jsonl.gz --per-shape > "$picks/$l-$part.tsv"
  done
done
python3 - "$picks" docs/data/tile32-ksplit-2026-11-30/shapes.txt <<'PY'
import random, sys
tile = 'xgemm_db3_ksplit8_kwg32_kwi4_mdima16_mdimc16_mwg32_ndimb8_ndimc8_nwg32_rp0_sa1_sb1_sk0_strm0_strn1_swz1_vwk8_vwm2_vwn2'
picks, out = sys.argv[1:]
rng = random.Random(30)
shapes, per_layout = [], {}
for layout in ['nn', 'nt']:
    for part, cap in [('set', None), ('set-unseen', None), ('trees', None), ('set-unseen-skinny', None),
                      ('tree-dense', 120), ('tree-skinny', 80)]:
        rows = [line.rstrip('\n').split('\t') for line in open(f'{picks}/{layout}-{part}.tsv')]
        chosen = sorted({r[1] for r in rows if len(r) >= 5 and r[2] == tile})
        if cap and len(chosen) > cap:
            chosen = rng.sample(chosen, cap)
        shapes += chosen
        per_layout.setdefault(layout, []).extend(chosen)
for layout, chosen in per_layout.items():
    with open(out.replace('shapes.txt', f'picks-{layout}.txt'), 'w') as f:
        f.writelines(s.replace('x', ' ') + '\n' for s in dict.fromkeys(chosen))
with open(out, 'w') as f:
    f.write('# The shapes where the shipped trees pick the 32 x 32 split-K tile in NN or row-major NT (make_shapes.sh).\n')
    f.writelines(s.replace('x', ' ') + '\n' for s in dict.fromkeys(shapes))
PY
