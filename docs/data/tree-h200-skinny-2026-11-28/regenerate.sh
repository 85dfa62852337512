#!/usr/bin/env bash
# The README's `regenerate` command of 060a469 with EXTRA datasets added to --train-only and the
# DROP ones left out, run in a scratch root (a copy of variants/, selector/ and scripts/), so that
# the crate's files stay as they are; then the PA = 1 twin substitution the README names. Prints the
# scratch root last.
# Usage, from the crate root with target/release/fewfit built (`cargo build --release --features tune`):
#   EXTRA="variants/data/h200-tree-skinny-f32.jsonl.gz" bash docs/data/tree-h200-skinny-2026-11-28/regenerate.sh
#   (regenerate.log), and with DROP="variants/data/h100-tree-skinny-f32.jsonl.gz" as well
#   (regenerate-nn-h200.log: the NN skinny records of the H200 alone)
set -euo pipefail
crate=$(pwd)
root=$(mktemp -d); cp -r variants selector scripts "$root/"
extra=(); for f in ${EXTRA:-}; do extra+=(--train-only "$crate/$f"); done
cd "$root"
drop() {  # the arguments, less those DROP names
  for a in "$@"; do case " ${DROP:-} " in *" ${a#"$crate"/} "*) ;; *) printf '%s\0' "$a" ;; esac; done
}
mapfile -d '' args < <(drop \
    --data "$crate"/variants/data/h200-v2-f32.jsonl.gz "$crate"/variants/data/h200-v2-ml-f32.jsonl.gz \
           "$crate"/variants/data/h200-v3-skinny-f32.jsonl.gz "$crate"/variants/data/h200-v4-mid-f32.jsonl.gz \
           "$crate"/variants/data/h200-v4-xgemm-f32.jsonl.gz "$crate"/variants/data/h200-v5-rbr-decode-f32.jsonl.gz \
           "$crate"/variants/data/h200-v5-rbr-f32.jsonl.gz "$crate"/variants/data/h200-v11-ksplit-f32.jsonl.gz \
           "$crate"/variants/data/h200-v11-ksplit-set-f32.jsonl.gz "$crate"/variants/data/h200-v18-autosplit-f32.jsonl.gz \
           "$crate"/variants/data/h200-v16-db3-large-f32.jsonl.gz "$crate"/variants/data/h200-v17-db3-f32.jsonl.gz \
           "$crate"/variants/data/h200-v17-db3-skinny-f32.jsonl.gz "$crate"/variants/data/h200-v18-db3-f32.jsonl.gz \
           "$crate"/variants/data/h200-v18-db3-skinny-f32.jsonl.gz "$crate"/variants/data/h200-v18-db3-large-f32.jsonl.gz \
           "$crate"/variants/data/h200-v19-sk-v2-f32.jsonl.gz "$crate"/variants/data/h200-v19-sk-v2-ml-f32.jsonl.gz \
           "$crate"/variants/data/pocl-spr2-f32.jsonl.gz "$crate"/variants/data/pocl-zen4-f32.jsonl.gz \
    --holdout "$crate"/variants/data/h200-v2-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v3-skinny-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v4-mid-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v4-xgemm-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v5-rbr-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v11-ksplit-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v11-ksplit-set-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v18-autosplit-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v17-db3-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v17-db3-skinny-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v18-db3-unseen-f32.jsonl.gz "$crate"/variants/data/h200-v18-db3-skinny-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h200-v19-sk-v2-unseen-f32.jsonl.gz \
              "$crate"/variants/data/pocl-zen4-unseen-f32.jsonl.gz "$crate"/variants/data/pocl-spr2-unseen-f32.jsonl.gz \
              "$crate"/variants/data/h100-nt-set-unseen-f32.jsonl.gz \
    --train-only "$crate"/variants/data/h200-v13-tree-dense-f32.jsonl.gz "$crate"/variants/data/h200-v13-trees-f32.jsonl.gz \
                 "$crate"/variants/data/h200-v17-db3-tree-dense-f32.jsonl.gz "$crate"/variants/data/h200-v17-db3-trees-f32.jsonl.gz \
                 "$crate"/variants/data/h200-v18-db3-tree-dense-f32.jsonl.gz "$crate"/variants/data/h200-v18-db3-trees-f32.jsonl.gz \
                 "$crate"/variants/data/h200-v19-sk-v13-tree-dense-f32.jsonl.gz "$crate"/variants/data/h200-v19-sk-v13-trees-f32.jsonl.gz \
                 "$crate"/variants/data/pocl-spr2-trees-f32.jsonl.gz \
                 "$crate"/variants/data/h100-nt-set-f32.jsonl.gz "$crate"/variants/data/h100-nt-trees-f32.jsonl.gz \
                 "$crate"/variants/data/h100-nt-tree-dense-f32.jsonl.gz \
                 "$crate"/variants/data/h100-tree-skinny-f32.jsonl.gz "$crate"/variants/data/h100-nt-tree-skinny-f32.jsonl.gz \
    --shape-weights "$crate"/variants/shapes/weights.txt \
    "${extra[@]}")
"$crate/target/release/fewfit" regenerate "${args[@]}"
python3 scripts/substitute_twin.py panel_kc256_lm1_ln16_mv4_nr4_pa0_vw16 PA=1
echo "root: $root"
