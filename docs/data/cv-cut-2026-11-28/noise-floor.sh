#!/usr/bin/env bash
# The noise floor of issue 4's 44 H200 held-out network shapes: the committed held-out datasets
# (joined into one run) against h200-heldout-oracle-f32 (timed in one call), by scripts/noise_floor.py.
# Usage, from the crate root: bash docs/data/cv-cut-2026-11-28/noise-floor.sh > docs/data/cv-cut-2026-11-28/noise-floor.txt
set -euo pipefail
d=$(pwd)/variants/data; joined=$(mktemp --suffix=.jsonl.gz)
for f in h200-v2-unseen h200-v3-skinny-unseen h200-v4-mid-unseen h200-v4-xgemm-unseen h200-v5-rbr-unseen \
         h200-v11-ksplit-unseen h200-v11-ksplit-set-unseen h200-v18-autosplit-unseen h200-v17-db3-unseen \
         h200-v17-db3-skinny-unseen h200-v18-db3-unseen h200-v18-db3-skinny-unseen h200-v19-sk-v2-unseen; do
  zcat "$d/$f-f32.jsonl.gz"
done | gzip > "$joined"
cd scripts && python3 noise_floor.py "$joined" "$d/h200-heldout-oracle-f32.jsonl.gz" | sed "s|$joined|committed held-out files|"
rm -f "$joined"
