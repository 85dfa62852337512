#!/usr/bin/env bash
# The stream-K tile's records that scripts/device/stream-k-refresh.sh timed again, old (the files at
# 694a2f6, before the refresh) against new (the files now), per dataset: scripts/variant_ab.py's
# summary line (old / new time, geometric mean and range).
# Usage, from the crate root: bash docs/data/stream-k-refresh-2026-11-28/old-new.sh > docs/data/stream-k-refresh-2026-11-28/old-new.txt
set -euo pipefail
crate=$(pwd); tmp=$(mktemp -d); cd scripts
tile=xgemm_db1_ksplit1_kwg16_kwi2_mdima16_mdimc16_mwg128_ndimb32_ndimc16_nwg128_sa1_sb1_sk2_strm1_strn1_swz0_vwk4_vwm2_vwn4
for name in h200-heldout-oracle-f32 h200-v19-sk-v2-unseen-f32 h200-v19-sk-v2-f32 h200-v19-sk-v2-ml-f32 \
            h200-v19-sk-v13-trees-f32 h200-v19-sk-v13-tree-dense-f32 h200-tree-skinny-f32 \
            h200-set-unseen-skinny-f32 h200-nt-set-unseen-f32 h200-nt-set-unseen-skinny-f32; do
  git -C "$crate" show "694a2f6:variants/data/$name.jsonl.gz" > "$tmp/all.gz"
  python3 stream_k_stale.py "$tmp/all.gz" --stale "$tmp/old.gz" > /dev/null
  python3 stream_k_stale.py "$crate/variants/data/$name.jsonl.gz" --stale "$tmp/new.gz" > /dev/null
  echo "$name: $(python3 variant_ab.py "$tile" "$tmp/old.gz" "$tmp/new.gz" | tail -1 | sed 's/; after.*//')"
done
rm -r "$tmp"
